"""The exercise's self-check, piece by piece; ``check.py`` at the root is its command line."""
