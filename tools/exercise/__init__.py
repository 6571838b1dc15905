"""The generator of the students' version (``tools/make_exercise.py``), by part."""
