"""Which pieces of a hand-in are still the issued stubs, read from its source alone.

A stub is a function whose body raises ``NotImplementedError("Exercise piece N: ...")``. A
piece whose stub function is still the issued one (the same syntax tree: comments and layout
aside) always raises, so no honest check passes it; ``untouched(issued, handed, editable)``
names, per piece, such a function, and the grader flags a verdict that passed one (a forged
verdict). Piece 4 runs the functions of pieces 2 and 3, so it counts as untouched when they
are. Nothing is run: the sources are only parsed, and one that does not parse counts as
changed.
"""

from __future__ import annotations

import ast
import re

from tictactoe_rl.selfcheck.pieces import STUB_PREFIX

RUNS_THE_FUNCTIONS_OF = {4: (2, 3)}
_PIECE = re.compile(re.escape(STUB_PREFIX) + r" (\d+)")


def stub_functions(source: bytes) -> dict[str, tuple[int, str]]:
    """The stub functions of ``source``: qualified name -> (piece, the function's syntax tree
    dumped); empty when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found = {}
    pending = [("", node) for node in tree.body]
    while pending:
        prefix, node = pending.pop()
        if isinstance(node, ast.ClassDef):
            pending += [(f"{prefix}{node.name}.", child) for child in node.body]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            piece = _stub_piece(node)
            if piece is not None:
                found[prefix + node.name] = (piece, ast.dump(node))
    return found


def _stub_piece(function: ast.FunctionDef) -> int | None:
    for statement in function.body:
        call = statement.exc if isinstance(statement, ast.Raise) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "NotImplementedError" and call.args
                and isinstance(call.args[0], ast.Constant)):
            found = _PIECE.match(str(call.args[0].value))
            if found:
                return int(found[1])
    return None


def untouched(issued: dict[str, bytes], handed: dict[str, bytes],
              editable: tuple[str, ...]) -> dict[int, str]:
    """Piece -> ``file: function`` of one of its stubs that the hand-in left as issued (a file
    it did not hand in keeps its stub)."""
    found: dict[int, str] = {}
    for name in editable:
        theirs = stub_functions(handed.get(name, issued[name]))
        for function, (piece, tree) in sorted(stub_functions(issued[name]).items()):
            if theirs.get(function, (None, None))[1] == tree:
                found.setdefault(piece, f"{name}: {function}")
    for piece, others in RUNS_THE_FUNCTIONS_OF.items():
        for other in others:
            if other in found:
                found.setdefault(piece, found[other])
    return found
