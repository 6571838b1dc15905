"""Benchmarks of the parts beside the trainers, each a script that prints its figures:
``python tools/benchmarks/NAME.py`` (the teachers' ``tools/bench.py`` runs them all)."""
