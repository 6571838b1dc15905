"""The verdicts a piece of the self-check can get: what ``check.py`` prints and sends as JSON,
what a piece's process reports and what the class grader reads. Defined here alone."""

PASSED, FAILED, NOT_WRITTEN, NOT_ATTEMPTED = "passed", "failed", "not written", "not attempted"
# Given by check.py itself: a piece still running after its time, or not run again after an
# earlier one running the same functions timed out.
TIMED_OUT, SKIPPED = "timed out", "skipped"
VERDICTS = (PASSED, FAILED, NOT_WRITTEN, NOT_ATTEMPTED, TIMED_OUT, SKIPPED)
