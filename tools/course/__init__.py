"""The course's own code as the tests and benchmarks meet it: the chapter's listings as students
have them (``chapter_code``) and a rebuild of the course's original design (``original_design``)."""
