"""Tools that observe a launch through the engine's hooks (engine/hooks.py): the sanitizer."""
