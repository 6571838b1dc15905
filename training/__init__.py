"""The run machinery behind the trainer files: command-line options, building a run, the one
training loop, exploration schedules, learning curves and the exact report."""
