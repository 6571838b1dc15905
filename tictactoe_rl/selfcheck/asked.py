"""Questions to the student's code, answered in one process and judged in another.

A check written as ``check(ask)`` asks its questions through ``ask(question)`` and judges the
answers. In the student's process (``Asking``) each answer is computed by the student's code,
turned into plain JSON (``encode``) and kept; the judging process runs the same check with
``Replaying``, which hands back the kept answers in order, each for the question that the check
asks there. So both processes judge the same values, and the judging one never runs the
student's code: what it judges is data it has read and rebuilt itself (``decode``), bounded in
size and depth.

An answer is ``{"value": ...}``, or ``{"raised": message}`` when the student's code failed on
the question (``value`` turns that into the ``Failure`` again).
"""

from __future__ import annotations

import json
import numbers
from dataclasses import dataclass
from typing import Callable

from tictactoe_rl.selfcheck.common import Failure
from State import Live_State, State, position_of

MOST_ITEMS = 4096        # of a list, tuple or dict (piece 5 asks for 2,000 moves at most)
DEEPEST = 6              # nesting (a table's key is a tuple of a tuple: three levels)
LONGEST_TEXT = 300


@dataclass(frozen=True)
class Shown:
    """Something the student's code returned that is none of the kinds sent as they are: only
    how it looks (its ``repr``) goes across."""
    text: str

    def __repr__(self) -> str:
        return self.text


def _shown(value) -> dict:
    try:
        text = repr(value)
    except Exception:  # a student's object whose repr fails is still reported
        text = f"<a {type(value).__name__}>"
    return {"shown": text[:LONGEST_TEXT]}


def encode(value: object, depth: int = 0) -> dict:
    """``value`` as JSON data that ``decode`` rebuilds: numbers, strings, None, positions,
    tuples, lists and dicts of them; anything else, and anything too big or deep, as ``Shown``."""
    if value is None or isinstance(value, bool):
        return {"plain": value}
    if isinstance(value, numbers.Integral):
        return {"int": int(value)} if abs(int(value)) < 2 ** 53 else _shown(value)
    if isinstance(value, numbers.Real):
        return {"float": float(value)}
    if isinstance(value, str):
        return {"str": value[:LONGEST_TEXT]}
    if isinstance(value, (State, Live_State)):
        position = position_of(value)
        return {"state": [list(position.cells), position.player]}
    if not isinstance(value, (tuple, list, dict)):
        return _shown(value)
    if depth >= DEEPEST:
        return {"shown": f"<a {type(value).__name__} nested too deep>"}
    if len(value) > MOST_ITEMS:
        return {"shown": f"<a {type(value).__name__} of {len(value):,} items, more than the "
                         "check takes>"}
    if isinstance(value, dict):
        return {"dict": [[encode(key, depth + 1), encode(item, depth + 1)]
                         for key, item in list(value.items())]}
    kind = "tuple" if isinstance(value, tuple) else "list"
    return {kind: [encode(item, depth + 1) for item in value]}


def decode(data: object, depth: int = 0) -> object:
    """The value ``encode`` made; ``Failure`` for anything else."""
    if not (isinstance(data, dict) and len(data) == 1) or depth > DEEPEST:
        raise not_an_answer()
    (kind, content), = data.items()
    if kind == "plain" and (content is None or isinstance(content, bool)):
        return content
    if kind == "int" and type(content) is int:
        return content
    if kind == "float" and isinstance(content, (int, float)) and not isinstance(content, bool):
        return float(content)
    if kind in ("str", "shown") and isinstance(content, str):
        return content[:LONGEST_TEXT] if kind == "str" else Shown(content[:LONGEST_TEXT])
    if not isinstance(content, list) or len(content) > MOST_ITEMS:
        raise not_an_answer()
    if kind == "state":
        try:
            cells, player = content
            return State(tuple(cells), player)
        except (TypeError, ValueError):
            raise not_an_answer() from None
    items = [decode(item, depth + 1) for item in content] if kind in ("tuple", "list") else None
    if kind == "tuple":
        return tuple(items)
    if kind == "list":
        return items
    if kind == "dict":
        pairs = [(decode(pair[0], depth + 1), decode(pair[1], depth + 1))
                 for pair in content if isinstance(pair, list) and len(pair) == 2]
        if len(pairs) != len(content):
            raise not_an_answer()
        try:
            return dict(pairs)
        except TypeError:       # a list as a key: no dict of the student's can hold that
            raise not_an_answer() from None
    raise not_an_answer()


def not_an_answer() -> Failure:
    return Failure("the run of your code sent back something that is not an answer to the "
                   "check's questions")


def value(answer: dict) -> object:
    """The value of an answer, or the ``Failure`` the student's code gave on the question."""
    if "raised" in answer:
        raise Failure(answer["raised"])
    return answer["value"]


def _rebuilt(answer: dict) -> dict:
    """An answer as the judging process reads it, checked."""
    if isinstance(answer, dict) and set(answer) == {"raised"} \
            and isinstance(answer["raised"], str):
        return {"raised": answer["raised"][:2 * LONGEST_TEXT]}
    if isinstance(answer, dict) and set(answer) == {"value"}:
        return {"value": decode(answer["value"])}
    raise not_an_answer()


class Asking:
    """In the student's process: ``compute(question)`` answers each question with the student's
    code; the answers are kept, as JSON, in ``answers``."""

    def __init__(self, compute: Callable[[list], object]) -> None:
        self.compute, self.answers = compute, []

    def __call__(self, question: list) -> dict:
        question = json.loads(json.dumps(question))
        try:
            answer = {"value": encode(self.compute(question))}
        except Failure as failure:
            answer = {"raised": str(failure)}
        self.answers.append([question, answer])
        return _rebuilt(json.loads(json.dumps(answer)))


class Replaying:
    """In the judging process: the answers the student's process sent, in order, each checked
    to be the answer to the question asked now."""

    def __init__(self, answers) -> None:
        if not isinstance(answers, list):
            raise not_an_answer()
        self.answers = iter(answers)

    def __call__(self, question: list) -> dict:
        given = next(self.answers, None)
        if not (isinstance(given, list) and len(given) == 2
                and given[0] == json.loads(json.dumps(question))):
            raise not_an_answer()
        return _rebuilt(given[1])
