"""Textures and surfaces: the objects, sampling, the filter arithmetic, formatted stores, and the
tex/tld4/txq/suld/sust/sured/suq lowerings (ops)."""
