"""The one training kernel behind every trainer file, for tables and networks alike: the flags
every trainer takes, the learner interface and its two implementations, a run as an object, the
one loop, the update rules' step context, the trainer registry, learning curves and the exact
report (see docs/ARCHITECTURE.md)."""
