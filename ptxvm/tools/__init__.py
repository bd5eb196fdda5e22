"""Tools that observe a launch through the engine's hooks (engine/core/hooks.py): the sanitizer."""
