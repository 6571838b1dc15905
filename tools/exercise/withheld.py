"""Solved code that the students' version leaves out: each module below is written there as a
stand-in with the same names, whose every call says, in one line, that it is not part of the
exercise. Nothing in the students' version needs them to run its own code: they serve only the
solved trainer (``MC_Trainer.TRAINER``), which a student's own ``main`` replaces.
"""

from __future__ import annotations

import ast
import textwrap

# path -> why it is left out (shown by every call of the stand-in)
WITHHELD = {
    "tictactoe_rl/training/monte_carlo.py": "the solved trainer's Monte Carlo update is not part of the "
                               "exercise: your MC_Trainer.main is the update",
}

STAND_IN = '''"""Left out of the exercise: {why}.

The solved repository has this module; here every name it offers says so when it is called."""

WHY = (
{why_literal})


class NotInTheExercise(ValueError):
    """A call of solved code that the exercise leaves out."""


def _left_out(*args, **kwargs):
    raise NotInTheExercise(WHY)


{names}
'''


def stand_in(path: str, solved: str) -> str:
    """The students' version of the withheld module ``path`` whose solved text is ``solved``:
    every public function or name it defines at module level is ``_left_out``."""
    names = []
    for node in ast.parse(solved).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
    public = [name for name in dict.fromkeys(names) if not name.startswith("_")]
    why = WITHHELD[path]
    literal = "\n".join(f"    {part!r}" for part in textwrap.wrap(why, 80, drop_whitespace=False))
    return STAND_IN.format(why="\n".join(textwrap.wrap(why, 70)), why_literal=literal,
                           names="\n".join(f"{name} = _left_out" for name in public))
