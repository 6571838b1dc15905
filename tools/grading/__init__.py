"""The machinery behind ``tools/grade.py``, which grades a class's exercise hand-ins.

- ``handin``: a hand-in as the grader holds it (``Submission``) and the limits on reading one.
- ``submissions`` (and ``zips``): reads every hand-in (a folder or a ``.zip``) into memory before
  any student code runs, taking only the files a student was meant to edit, comparing its check
  files with the issued ones, refusing what cannot be read, in one line.
- ``isolation``: finds once per run how a sandbox can be sealed off here (namespaces, read-only
  file systems, an unprivileged account per slot), with ``sealing`` (what a run's sandboxes cover
  and must reach); ``launch`` is the small trusted program that seals the sandbox from inside
  and starts the check there.
- ``box``: a hand-in's folder on disk, filled, read back safely and removed however deep.
- ``limits``: what a sandboxed child may use and the only environment it sees; ``cgroups``: a
  memory cgroup per box, where one can be made, so that all of a box's memory is counted.
- ``sandbox``: runs the trusted self-check in a box, with limits, and takes its verdict over a
  pipe that only the check holds.
- ``measure``: measures a trained table exactly, in a limited child.
- ``results``: turns a check's outcome into a row (verdicts, points, flags, notes).
- ``pool``: grades the class ``--jobs`` at a time; signals stop everything at once.
- ``cells``: the report's table, one row of cells per submission.
- ``report`` and ``page``: the CSV, written as rows come, then the page and the plot.
- ``text``: shows what a hand-in controls as one line, escaped.
"""
