"""Q-table files and what the agent thinks.

- ``files``: the public side -- ``save_table``, ``save_or_keep``, ``load_table``,
  ``check_writable``, ``TableError``; a table saved atomically, read back as checked data.
- ``torch_format``: the bytes torch.save writes for plain data, without importing torch.
- ``guard`` and ``opcodes``: the archive's sizes and the pickle's instructions, checked before
  anything is rebuilt, so that any file is refused in bounded time and memory.
- ``course_files``: the small stand-ins a pickle is rebuilt from, including the course's
  original files (numpy boards).
- ``checks``: what a table entry and its header must be; ``destinations``: where a table may be
  written, temporary files and fallbacks.
- ``view``: the Q-values of a position laid out as the board.
- ``board_files`` and ``board_table``: the bigger boards' tables, a numpy archive checked at
  once and kept as its sorted columns, each position read when a game asks for it.
"""
