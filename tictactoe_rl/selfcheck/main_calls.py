"""Main's calls of ``Generate_episode`` (pieces 3 and 4): recorded in the student's process
(``call_runs``), judged in the judging process (``check_calls``), so that code of the student's
that replaces a check in its own process passes nothing."""

from __future__ import annotations

from tictactoe_rl.selfcheck.common import Failure, as_plain, plural


def call_runs(epochs: list) -> list[list]:
    """In the student's process: the ``epochs`` main asked for, as runs ``[first, count]`` of
    consecutive whole numbers (any other value a run of its own, ``as_plain``), up to the
    second run: all that ``check_calls`` needs to find the first epoch out of order."""
    runs: list[list] = []
    for epoch in epochs:
        epoch = as_plain(epoch)
        if runs and whole(epoch) and whole(runs[-1][0]) and sum(runs[-1]) == epoch:
            runs[-1][1] += 1
        elif len(runs) == 2:
            break
        else:
            runs.append([epoch, 1])
    return runs


def whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def well_formed_runs(runs: list, episodes: int) -> bool:
    """Whether ``runs`` is what ``call_runs`` makes of ``episodes`` calls."""
    return (len(runs) <= 2 and (episodes > 0) == bool(runs)
            and all(isinstance(run, list) and len(run) == 2 and whole(run[1]) and run[1] > 0
                    and (run[0] is None or isinstance(run[0], (int, float, str)))
                    for run in runs)
            and sum(run[1] for run in runs) <= episodes
            and (len(runs) != 1 or runs[0][1] == episodes))


def check_calls(runs: list, learner_only: bool, episodes: int, needed: int) -> list[str]:
    """In the judging process: ``Failure`` unless main asked for one episode of the learner
    per epoch, in order, from 0 (or from 1: the same number of episodes); the notes for the
    verdict. ``runs``: the epochs main asked for (``call_runs``)."""
    if not runs:
        raise Failure("main never called Generate_episode: play each episode with "
                      "Generate_episode(player, epoch)")
    if not learner_only:
        raise Failure("main must generate the episodes of the learner, player1: "
                      "Generate_episode(player, epoch) with player = player1")
    first = runs[0][0]
    if not whole(first) or first not in (0, 1):
        raise Failure(f"the first episode should be epoch 0 (epsilon starts at 1.0 there), got "
                      f"{first!r}: for epoch in range(start, epochs) with start = 0")
    if len(runs) > 1:
        raise Failure(f"Generate_episode was asked for epoch {runs[1][0]!r} right after epoch "
                      f"{sum(runs[0]) - 1!r}: one episode for each epoch, in order (for epoch "
                      "in range(start, epochs))")
    if episodes < needed:
        raise Failure(f"main played only {plural(episodes, 'episode')}; the course trains "
                      "200,000")
    return (["your episodes count from 1 (range(1, epochs + 1)): as many episodes as the "
             "chapter's range(0, epochs)"] if first == 1 else [])
