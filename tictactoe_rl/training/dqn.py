"""The network's learner and run (``DQN_Trainer.py``): the same ``Run``, loop and report as the
tables', with a network in place of the Q-table.

``NetworkLearner`` is one network that plays one side, or both in self-play: every game's
learning steps (SPEC section 2: the learner's move plus the opponent's reply; rewards X's,
negated for O) go into its replay memory, and after the game it takes one optimiser step per
``steps_per_update`` new steps, its learning rate falling from ``--alpha`` to ``--final-alpha``.
``build_network_run`` makes the run from the command line: a fresh or resumed network, its
agents, the opponent, the file, the learning curve, every file problem found before training.
"""

from __future__ import annotations

import argparse

import torch

from tictactoe_rl import cli
from Agent import Agent
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.boards.flags import board_from
from Episode import learning_steps
from tictactoe_rl.exploration.schedules import Schedule
from tictactoe_rl.neural.agent import BoardDQNAgent, DQNAgent
from tictactoe_rl.neural.boards import BoardDQNLearner
from tictactoe_rl.neural.files import check_writable, load_network, save_or_keep
from tictactoe_rl.neural.learner import DQNLearner, learning_rate
from tictactoe_rl.neural.network import QNetwork
from tictactoe_rl.neural.replay import Replay
from tictactoe_rl.neural.report import perfect_share
from State import State, symbol
from TicTacToe import TicTacToe
from tictactoe_rl.training.checkpoints import BestCheckpoint
from tictactoe_rl.training.destination import Purpose, check_destination
from tictactoe_rl.training.dqn_options import NetworkDefaults
from tictactoe_rl.training.report import exact_report, learner_report
from tictactoe_rl.training.run import (Run, attach_curve, check_more_to_do, default_path,
                                       learner_seed, learner_side, make_opponent, who_learns)
from tictactoe_rl.training.options import is_self_play


class NetworkLearner:
    """``agents`` (sharing ``learner.network``) learning by ``learner``; Adam's rate falls from
    ``alpha`` to ``final_alpha`` over ``schedule_episodes`` episodes (a resumed run's plan).
    ``keeper``: what picks the network the run ends with (``tictactoe_rl.training.checkpoints``), or None to
    end with the last one."""
    noun = "network"

    def __init__(self, agents: list[DQNAgent], learner: DQNLearner, alpha: float,
                 final_alpha: float, schedule_episodes: int,
                 keeper: BestCheckpoint | None = None) -> None:
        self.agents, self.learner = agents, learner
        self.alpha, self.final_alpha, self.schedule_episodes = alpha, final_alpha, schedule_episodes
        self.keeper = keeper
        self.meta: dict = {}
        self.losses: list[float] = []      # since the last progress note

    def learn(self, moves: list[tuple], final: State, epoch: int) -> None:
        learner = self.learner
        for agent in self.agents:
            learner.remember(learning_steps(moves, agent.player), final, agent.player)
        learner.set_learning_rate(learning_rate(self.alpha, self.final_alpha, epoch,
                                                self.schedule_episodes))
        self.losses += learner.catch_up()
        if self.keeper is not None:
            self.keeper.consider(epoch + 1, learner.network, learner.optimizer)

    def save(self, path: str, episodes_done: int) -> None:
        """The network with its record, its episode count and Adam's state (to resume); where
        ``path`` cannot be written, into a fallback file that ``NotSaved`` names."""
        sides = tuple(agent.player for agent in self.agents)
        meta = dict(self.meta, episodes_done=episodes_done)
        if self.keeper is not None:
            meta.update(self.keeper.record())
        save_or_keep(path, self.learner.network, sides, meta, self.learner.optimizer.state_dict())

    def describe(self, record: dict) -> None:
        self.meta = record

    def note(self) -> str:
        """``huber 0.0123``: the mean loss of the optimiser steps since the last note."""
        text = f"huber {sum(self.losses) / len(self.losses):.4f}" if self.losses else ""
        self.losses.clear()
        return text

    def report(self, agent: Agent, path: str) -> str:
        """The exact report and the share of the side's positions where its move keeps the
        perfect-play value; on a bigger board, the exact report alone (``learner_report``)."""
        if agent.env.shape != TIC_TAC_TOE:
            return learner_report(agent, path)
        right, total = perfect_share(agent, agent.player)
        first = agent is self.agents[0]
        kept = self.keeper.describe() if self.keeper is not None and first else ""
        return (f"{kept}\n" * bool(kept) + f"{exact_report(agent, path)}\n"
                f"perfect moves: {right:,} of {total:,} {symbol(agent.player)} positions "
                f"({right / total:.2%}); the others: {cli.measure_command()} --mistakes {cli.shown(path)}")


def pick_device(choice: str) -> str:
    """``cpu`` or ``cuda`` for the ``--device`` choice; ``ValueError`` if cuda is missing."""
    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch finds no CUDA device here; use --device cpu")
    return choice


def network_record(args: argparse.Namespace, sides: tuple[int, ...], device: str,
                   schedule: int, decay: int) -> dict:
    """How the network was trained, saved inside its file (no clock time: the same seed gives
    the same weights). ``schedule``: the episodes alpha falls over; ``decay``: the episodes
    epsilon falls over. (Its keys keep their order: the file is the same bytes for a seed.)"""
    return {"algorithm": "DQN", "side": "".join(symbol(s) for s in sides),
            "opponent": args.opponent, "epochs": args.epochs, "gamma": args.gamma,
            "alpha": args.alpha, "final_alpha": args.final_alpha, "epsilon": args.epsilon,
            "schedule_games": schedule, "epsilon_decay_games": decay,
            "seed": args.seed, "hidden": ",".join(map(str, args.hidden)), "batch": args.batch,
            "memory": args.memory, "sync": args.sync, "steps_per_update": args.steps_per_update,
            "device": device}


def resumed(path: str, args: argparse.Namespace, sides: tuple[int, ...]) -> tuple:
    """``(network, Adam's state, episodes done, (episodes planned, epsilon's decay episodes))``
    of the file ``--resume`` names, checked against this run: the schedules go on as they
    began."""
    saved = load_network(path, board=board_from(args), resume=True)
    done, planned, decay = (saved.meta.get(key) for key in
                            ("episodes_done", "schedule_games", "epsilon_decay_games"))
    if saved.sides != sides:
        raise ValueError(f"{path}: plays {''.join(symbol(s) for s in saved.sides)}, this run "
                         f"trains {''.join(symbol(s) for s in sides)}; give the same --side and "
                         "--opponent")
    if not all(isinstance(n, int) and n >= 0 for n in (done, planned, decay)) \
            or saved.optimizer is None:
        raise ValueError(f"{path}: records no episode count or optimiser state, so it cannot "
                         "be resumed; start afresh")
    if saved.network.hidden != tuple(args.hidden):
        raise ValueError(f"{path}: has hidden layers {','.join(map(str, saved.network.hidden))}; "
                         "resume it with the same --hidden")
    if saved.meta.get("epsilon") != args.epsilon:
        raise ValueError(f"{path}: was trained with --epsilon {saved.meta.get('epsilon')}; resume "
                         "it with the same --epsilon")
    check_more_to_do(path, done, args.epochs)
    return saved.network, saved.optimizer, done, (planned, decay)


def build_network_run(args: argparse.Namespace, defaults: NetworkDefaults, title: str) -> Run:
    """The run ``args`` asks for; prints one line that says what will be trained."""
    self_play = is_self_play(args)
    side = learner_side(args)
    sides = (side, -side) if self_play else (side,)
    device = pick_device(args.device)
    board = board_from(args)
    path = default_path(args, defaults.out_name)
    if args.resume:     # first: what is wrong with the file says more than "not a network"
        network, optimizer, start, (schedule, decay) = resumed(args.resume, args, sides)
    check_destination(path, Purpose("network", board, sides), args.force, check_writable,
                      args.resume)
    if not args.resume:
        decay = Schedule(args.epsilon, span=args.epsilon_span).window(args.epochs)
        optimizer, start, schedule = None, 0, args.epochs
        with torch.random.fork_rng(devices=[]):    # seeds the weights, leaves torch's RNG be
            torch.manual_seed(args.seed)
            network = QNetwork(args.hidden, board)
    network.to(device)
    env = TicTacToe(board=board)
    kind = DQNAgent if board == TIC_TAC_TOE else BoardDQNAgent
    agents = [kind(s, env, network=network, train=True, epsilon=args.epsilon,
                   decay_epochs=decay, seed=learner_seed(args.seed, role))
              for s, role in zip(sides, ("learner", "opponent"))]
    opponent = agents[1] if self_play else make_opponent(args.opponent, -side, env, args.seed)
    settings = (args.gamma, args.alpha, args.batch, args.steps_per_update, args.sync, optimizer)
    if board == TIC_TAC_TOE:
        rule = DQNLearner(network, Replay(args.memory, args.seed, device), *settings)
    else:
        rule = BoardDQNLearner(network, board, args.memory, args.seed, *settings)
    keeper = None
    if args.keep == "best" and board == TIC_TAC_TOE:    # the exact checks take 0.13 s on 3x3
        opponent_name = "self" if self_play else args.opponent
        keeper = BestCheckpoint(agents, opponent_name, start, args.epochs, schedule)
    learner = NetworkLearner(agents, rule, args.alpha, args.final_alpha, schedule, keeper)
    record = network_record(args, sides, device, schedule, decay)
    if board != TIC_TAC_TOE:    # 3x3 networks stay byte for byte what they were
        record["board"] = board.name
    learner.describe(record)
    run = Run([learner], opponent, env, [path], args.epochs, start=start,
              label=f"DQN {''.join(symbol(s) for s in sides)}")
    who = who_learns(args, "X and O by self-play (one network)")
    settings = (f"gamma {args.gamma}, alpha {args.alpha} -> {args.final_alpha:g}, epsilon "
                f"{args.epsilon}, hidden {','.join(map(str, args.hidden))}, seed {args.seed}")
    attach_curve(run, args, f"{title}: {who}, {settings}")
    print(f"{title}: {who}, {args.epochs:,} episodes, {settings}, on {device}")
    return run
