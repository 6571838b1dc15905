"""The generator of the students' version (``tools/exercise/make.py``), by part."""
