"""The computer players' thinking -- their moves and what the H overlay shows of them -- done off
the event loop, so the window stays live and quitting never waits for a search."""

from __future__ import annotations

import queue
import sys
import threading
from concurrent.futures import Future
from typing import Callable

from AI_Agent import AI_Agent
from Agent import Agent, PolicyUnknown
from tictactoe_rl.gui.values import PROBABILITIES, Q_VALUES, SEARCH_SCORES, Overlay
from tictactoe_rl.players.search import SearchAgent
from State import State


def computer_values(agent: Agent, state: State) -> Overlay | None:
    """What ``agent`` thinks of each legal move in ``state``: a Q-table's or a network's Q-values,
    a search agent's scores (``analyse``, the numbers it chooses by), any other agent's move
    probabilities; ``None`` if it cannot state them (``PolicyUnknown``)."""
    if isinstance(agent, AI_Agent):
        return Overlay({action: agent.get_Q(state, action) for action in state.legal_actions()},
                       Q_VALUES)
    if isinstance(agent, SearchAgent):
        return Overlay(dict(agent.analyse(state)), SEARCH_SCORES)
    network = sys.modules.get("tictactoe_rl.neural.agent")   # loaded only if a network plays (it needs torch)
    if network is not None and isinstance(agent, network.DQNAgent):
        return Overlay(agent.q_values(state), Q_VALUES)
    try:
        probs = agent.action_probs(state)
    except PolicyUnknown:
        return None
    return Overlay({action: probs.get(action, 0.0) for action in state.legal_actions()},
                   PROBABILITIES)



class Worker:
    """Runs submitted calls one at a time, in order, on one daemon thread.

    In order, so an agent is never asked two things at once and is asked them in the same order
    as without a thread (same seed, same moves). A daemon thread, so the process can end while a
    search runs (``concurrent.futures`` threads are joined at exit, which kept the game's process
    alive until a long search was done).
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = threading.Event()
        threading.Thread(target=self._serve, name="computer player", daemon=True).start()

    def submit(self, function: Callable, *args) -> Future:
        """Queue ``function(*args)``; its result (or exception) arrives in the returned future."""
        future: Future = Future()
        self._jobs.put((future, function, args))
        return future

    def close(self) -> None:
        """Run nothing more; a call already running is abandoned (its result is never read)."""
        self._closed.set()
        self._jobs.put(None)

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None or self._closed.is_set():
                return
            future, function, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(*args))
            except Exception as error:  # handed on to whoever reads the result
                future.set_exception(error)


class Thinking:
    """Asks computer players for their move and their values (the H overlay), each once per
    position, on a ``Worker`` -- or right away when ``background`` is false (for tests)."""

    def __init__(self, background: bool = True) -> None:
        self._worker = Worker() if background else None
        self.forget()

    def forget(self) -> None:
        """Drop what was asked so far (a new game); a call still running is abandoned."""
        self._moves: dict[State, Future] = {}
        self._values: dict[State, Future] = {}

    def move(self, agent: Agent, state: State) -> Future:
        """``agent``'s move in ``state``, asked the first time (as the game loop asks: ``agent(None,
        state)``)."""
        if state not in self._moves:
            self._moves[state] = self._ask(agent, None, state)
        return self._moves[state]

    def values(self, agent: Agent, state: State) -> Future:
        """``agent``'s values of the moves in ``state`` (an ``Overlay`` or ``None``), asked the
        first time."""
        if state not in self._values:
            self._values[state] = self._ask(computer_values, agent, state)
        return self._values[state]

    def close(self) -> None:
        """Ask nothing more (the window closed)."""
        if self._worker is not None:
            self._worker.close()

    def _ask(self, function: Callable, *args) -> Future:
        if self._worker is not None:
            return self._worker.submit(function, *args)
        future: Future = Future()
        try:
            future.set_result(function(*args))
        except Exception as error:  # handed on to whoever reads the result, as the worker does
            future.set_exception(error)
        return future
