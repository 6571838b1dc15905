"""The machinery behind ``tools/grade.py``, which grades a class's exercise submissions.

- ``submissions``: reads every submission (a folder or a ``.zip``) into memory before any student
  code runs, taking only the files a student was meant to edit.
- ``sandbox``: builds each submission's throw-away copy of the students' version and runs the
  trusted self-check there as a child process, with limits and whatever isolation the operating
  system allows (``launch`` is the small trusted program that starts the check inside it).
- ``results``: turns what a child left behind (its JSON result and trained tables) into a row,
  measuring the tables exactly in the grader's own process.
- ``report``: writes the class report (CSV, HTML, plot) atomically.
"""
