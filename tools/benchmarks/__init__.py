"""Benchmarks of the parts beside the trainers, each a script that prints its figures
(``python tools/benchmarks/NAME.py``); ``tools/bench.py`` runs them all (``make bench``)."""
