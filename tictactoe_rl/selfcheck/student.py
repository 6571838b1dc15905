"""The student's code, as the checks reach it: modules loaded on demand, and the course's agents
made from the student's ``AI_Agent``."""

from __future__ import annotations

import contextlib
import importlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from tictactoe_rl.selfcheck.common import ROOT, Discard, Failure, call, known_cause, where_it_broke

if TYPE_CHECKING:
    from TicTacToe import TicTacToe


def load(name: str) -> ModuleType:
    """Import one of the modules the pieces live in; one that does not load is a ``Failure``
    that says where and why."""
    try:
        with contextlib.redirect_stdout(Discard()), contextlib.redirect_stderr(Discard()):
            return importlib.import_module(name)
    except SyntaxError as error:
        place = Path(error.filename or "?")
        place = place.relative_to(ROOT) if ROOT in place.resolve().parents else place
        raise Failure(f"{place}:{error.lineno}: {error.msg} -- the module {name} cannot even "
                      "be loaded") from None
    except SystemExit as error:
        raise Failure(f"loading {name} called exit() or sys.exit({error.code!r})"
                      f"{where_it_broke(error)}") from None
    except Exception as error:  # whatever a half-written module raises while it loads
        raise Failure(f"loading {name} raised {type(error).__name__}: {error}"
                      f"{where_it_broke(error)}{known_cause(error)}") from None


class Student:
    """Access to the student's modules for one check (each check runs in a process of its
    own, so whatever a check changes in them ends with it)."""

    def module(self, name: str) -> ModuleType:
        return load(name)

    def trainer(self, fresh: bool = False) -> ModuleType:
        """The student's ``MC_Trainer``; ``fresh``: run its module code again first, so that
        what an earlier check put into it is gone."""
        module = load("MC_Trainer")
        return call("loading MC_Trainer again", importlib.reload, module) if fresh else module

    def agent_class(self) -> type:
        return load("AI_Agent").AI_Agent

    def learner(self, side: int, env: TicTacToe | None = None) -> object:
        """A fresh learning agent of the student's ``AI_Agent``, made as the course makes it."""
        return call("AI_Agent(...)", self.agent_class(), side, env, graphics=None,
                    Q_table_PATH=None, train=True)
