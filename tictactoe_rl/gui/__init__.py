"""The parts of the game window behind ``Game.py`` and ``Graphics.py``.

- ``display``   opens the window (or says in one line why there is none), checks a screenshot path;
- ``loop``      the window's event loop: events to the game, the game's moves, painting;
- ``paint``     colours and the smooth shapes the board is drawn with;
- ``values``    the H overlay's numbers: which cells are best, how a value is written;
- ``thinking``  asks the computer players for moves and values on a thread of their own;
- ``captions``  the words in the header and the footer.
"""
