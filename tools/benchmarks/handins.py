"""Hand-ins written from this repository's solution: honest ones in several styles, mistakes, and
cheats of every kind the self-check and the grader must refuse and flag.

Contract: ``write_hand_in(folder, kind, epochs, students, whole)`` writes the editable files of
a hand-in of ``kind`` (a key of ``HONEST``, ``MISTAKES`` or ``CHEATS``) into ``folder``, its main
training ``epochs`` episodes; with ``whole``, the folder is a copy of the students' version
(``students``) with those files in place, as a student's own checkout that ``check.py`` runs in.
``CHEATS`` (``tools.benchmarks.cheats``) maps each cheat to the words of the reason the grader's
``flags`` column gives for it; ``HELPERS``: the files of its own an honest style hands in beside.
Used by ``tests/test_selfcheck_cheats.py`` and ``tools/benchmarks/grading.py`` (teachers only:
the students' version has neither this file nor the solution it copies).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.benchmarks.cheats import CHEATS, TYPED, embedded, typed_values

ROOT = Path(__file__).resolve().parents[2]
EDITABLE = ("AI_Agent.py", "Episode.py", "MC_Trainer.py", "Q_Trainer.py", "SARSA_Trainer.py",
            "nim/nim.py")
MAIN_BEGINS, MAIN_ENDS = "    # [exercise piece 3: main] solution begins\n", \
    "    # [exercise piece 3] solution ends\n"

# The chapter's loop, as a student types it; {return} is how G takes a step, {step} the update.
PLAIN_MAIN = '''    Q, side = player1.Q, player1.player
    visits = {{}}
    for epoch in range(epochs):
        episode = Generate_episode(player1, epoch)
        episode.pop()
        G = 0.0
        for state, action, reward in reversed(episode):
            {return}
            visits[(state, action)] = visits.get((state, action), 0) + 1
            old = Q.get((state, action), 0.0)
            Q[(state, action)] = old + {step} * (G - old)
    player1.save_Q(PATH)
    test(100)
'''
INDEXED_MAIN = '''    side = player1.player
    for epoch in range(epochs):
        steps = Generate_episode(player1, epoch)[:-1]
        G = 0
        for k in range(len(steps) - 1, -1, -1):
            state, action, reward = steps[k]
            G = reward * side + gamma * G
            value = player1.Q.get((state, action), 0)
            player1.Q[(state, action)] = value + alpha * (G - value)
    player1.save_Q(PATH)
    test(100)
'''
RIGHT_RETURN = "G = gamma * G + side * reward"


def plain(return_: str = RIGHT_RETURN, step: str = "alpha") -> str:
    return PLAIN_MAIN.format(**{"return": return_, "step": step})


# A main that leaves the walk back to a helper module of the student's own, beside it.
HELPED_MAIN = '''    from mc_tools import walk_back
    for epoch in range(epochs):
        walk_back(player1.Q, Generate_episode(player1, epoch)[:-1], player1.player, gamma, alpha)
    player1.save_Q(PATH)
    test(100)
'''
MC_TOOLS = '''"""My Monte Carlo helpers."""


def walk_back(Q, steps, side, gamma, alpha):
    """Every step's return, from the last step back, pulls its value towards it."""
    G = 0.0
    for state, action, reward in reversed(steps):
        G = gamma * G + side * reward
        Q[(state, action)] = Q.get((state, action), 0.0) + alpha * (G - Q.get((state, action), 0.0))
'''

# kind -> main's body (None: the solution's own)
HONEST = {"solution": None, "plain loop": plain(), "running average": plain(
    step="1 / visits[(state, action)]"), "indexed loop": INDEXED_MAIN,
    "helper module": HELPED_MAIN}
HELPERS = {"helper module": {"mc_tools.py": MC_TOOLS}}
MISTAKES = {"return without G": plain("G = side * reward"),
            "no discount": plain("G = G + side * reward"),
            "rewards not negated": plain("G = gamma * G + reward")}

KINDS = (*HONEST, *MISTAKES, *CHEATS)


def trainer_text(kind: str, epochs: int, friend: bytes = b"") -> str:
    """MC_Trainer.py of a hand-in of ``kind`` (``friend``: the classmate's table it embeds)."""
    text = (ROOT / "MC_Trainer.py").read_text(encoding="utf-8")
    text = text.replace("\nepochs = 200_000\n", f"\nepochs = {epochs}\n", 1)
    body = HONEST.get(kind) or MISTAKES.get(kind)
    added, wrong, *_ = CHEATS.get(kind, (None, False))
    if wrong:
        body = plain("G = side * reward")
    if body is not None:
        start, end = text.index(MAIN_BEGINS), text.index(MAIN_ENDS) + len(MAIN_ENDS)
        text = text[:start] + body + text[end:]
    if kind == "typed answers":
        added = typed_values() + TYPED
    if kind == "classmate's table embedded":
        added = embedded(friend) + added
    return text + (added or "")


def write_hand_in(folder: Path, kind: str, epochs: int, students: Path, whole: bool = False,
                  friend: bytes = b"") -> Path:
    """Write a hand-in of ``kind`` into ``folder`` (see the module docstring): its editable
    files, or with ``whole`` a copy of the students' version ``students`` with them in place;
    ``friend``: the bytes of the table a "classmate's table" hand-in ships."""
    if whole:
        shutil.copytree(students, folder)
    folder.mkdir(parents=True, exist_ok=True)
    shadowed = kind == "json.py beside the check"      # the stubs, as issued
    for name in EDITABLE:
        text = (students / name).read_text(encoding="utf-8") if shadowed else \
            trainer_text(kind, epochs, friend) if name == "MC_Trainer.py" else \
            (ROOT / name).read_text(encoding="utf-8")
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name, text in {**CHEATS.get(kind, (None, False, {}))[2], **HELPERS.get(kind, {})}.items():
        (folder / name).write_bytes(friend if text is None else text.encode("utf-8"))
    return folder
