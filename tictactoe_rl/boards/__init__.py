"""m,n,k-games: the board described by its rows, columns and k in a row, and its exact values.

- ``Board``: ``BoardShape(rows, cols, k)`` and the parsing of ``--board 4x4 --k 4``.
- ``tictactoe_rl.boards.solver``: the value of perfect play from any position, with alpha-beta and symmetry.
- ``tictactoe_rl.boards.cache``: solved values of each board kept on disk, so a second call is instant.
- ``tictactoe_rl.boards.reach``: how many positions a board's game has.
- ``tictactoe_rl.boards.flags``: ``--board ROWSxCOLS`` and ``--k K`` for any script.
- ``python -m tictactoe_rl.boards.solve --board 4x4 --k 4``: the value of perfect play, from the command line.
"""
