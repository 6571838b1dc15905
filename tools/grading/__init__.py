"""The machinery behind ``tools/grade.py``, which grades a class's exercise hand-ins.

- ``submissions`` (and ``zips``): reads every hand-in (a folder or a ``.zip``) into memory before
  any student code runs, taking only the files a student was meant to edit, comparing its check
  files with the issued ones, refusing what cannot be read, in one line.
- ``isolation``: finds once per run how a sandbox can be sealed off here (namespaces, read-only
  file systems, an unprivileged account per slot); ``launch`` is the small trusted program that
  seals the sandbox from inside and starts the check there.
- ``box``: a hand-in's folder on disk, filled, read back safely and removed however deep.
- ``sandbox``: runs the trusted self-check in a box, with limits, and takes its verdict over a
  pipe that only the check holds.
- ``measure``: measures a trained table exactly, in a limited child.
- ``results``: turns a check's outcome into a row (verdicts, points, flags, notes).
- ``pool``: grades the class ``--jobs`` at a time; signals stop everything at once.
- ``report`` and ``page``: the CSV, written as rows come, then the page and the plot.
- ``text``: shows what a hand-in controls as one line, escaped.
"""
