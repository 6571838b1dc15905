"""Files built to hurt the loaders (tables and networks), for the tests that check each is refused
and the benchmark that measures the refusals."""
