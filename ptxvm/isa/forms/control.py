"""placeholder"""
from ..table import builder

F = builder("misc")
