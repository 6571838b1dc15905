"""Agent specs: one place that turns a word on the command line into a player.

A spec is a name -- ``human``, ``random``, ``advanced``, ``minimax``, ``playout``, ``mcts`` -- or
the path of a saved Q-table (``Data/Q_MC_X.pth``). Options follow a colon, comma-separated:
``playout:pnum=200``, ``mcts:time=0.05``, ``minimax:style=greedy``, ``advanced:random_step=3``.
Specs joined by ``+`` make a mixture: ``random+advanced+minimax`` lets a different one of them
choose each move (with equal chances) -- a varied training opponent.
"""

from __future__ import annotations

import inspect
import os

from tictactoe_rl import cli

from AI_Agent import AI_Agent
from Agent import Agent
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.players.mcts import MCTSAgent
from tictactoe_rl.players.minimax import MinimaxAgent
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.players.playout import PlayoutAgent
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import State
from TicTacToe import Action, TicTacToe

HUMAN = "human"   # made only by the game, which has the window (Human_Agent imports pygame)
# spec name -> the class it makes
AGENT_CLASSES: dict[str, type[Agent]] = {
    "random": Random_Agent,
    "advanced": Random_Agent_Advanced,
    "minimax": MinimaxAgent,
    "playout": PlayoutAgent,
    "mcts": MCTSAgent,
}
TABLE_SUFFIX = ".pth"
NETWORK_SUFFIX = ".pt"    # a DQN_Trainer.py network; also written dqn:PATH
NETWORK = "dqn"
VALID_SPECS = (", ".join([HUMAN, *AGENT_CLASSES]) + f", the path of a Q-table ({TABLE_SUFFIX}), "
               f"or a network ({NETWORK}:PATH or a {NETWORK_SUFFIX} path)")
MIXTURE_SEPARATOR = "+"


class SpecError(ValueError):
    """An agent spec that names no agent, or options the agent does not take."""


def is_network(spec: str) -> bool:
    return spec.lower().startswith(f"{NETWORK}:") or spec.endswith(NETWORK_SUFFIX)


def network_path(spec: str) -> str:
    """The file of a network spec: ``dqn:PATH`` or ``PATH.pt``."""
    spec = spec.strip()
    return spec[len(NETWORK) + 1:] if spec.lower().startswith(f"{NETWORK}:") else spec


def is_table_path(spec: str) -> bool:
    return not is_network(spec) and (spec.endswith(TABLE_SUFFIX) or os.sep in spec or "/" in spec)


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split ``"name:key=value,key=value"`` into the name and typed options (int, float or text)."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"empty agent spec: use {VALID_SPECS}")
    name, _, option_text = spec.strip().partition(":")
    options = {}
    for item in filter(None, (part.strip() for part in option_text.split(","))):
        key, equals, value = item.partition("=")
        if not equals or not key.strip().isidentifier():
            raise SpecError(f"agent option {item!r} in {spec!r} is not key=value")
        options[key.strip()] = _typed(value.strip())
    return name.strip().lower(), options


def _typed(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_agent(spec: str, player: int, env: TicTacToe | None = None, seed: int | None = None,
               graphics=None):
    """The agent that ``spec`` names, playing ``player`` (1 X, -1 O) in ``env``.

    Raises ``SpecError`` for an unknown name or option, ``tictactoe_rl.tables.files.TableError`` for a bad table.
    """
    env = env if env is not None else TicTacToe()
    if isinstance(spec, str) and MIXTURE_SEPARATOR in spec:
        parts = [part.strip() for part in spec.split(MIXTURE_SEPARATOR)]
        members = [make_agent(part, player, env, None if seed is None else f"{seed}:{index}",
                              graphics) for index, part in enumerate(parts)]
        return MixtureAgent(player, env, members, seed=seed)
    if isinstance(spec, str) and is_network(spec.strip()):
        from tictactoe_rl.neural.agent import make_dqn_agent   # imports torch: only when a network is asked for
        return make_dqn_agent(network_path(spec), player, env)
    if isinstance(spec, str) and is_table_path(spec.strip()):
        return AI_Agent(player, env, graphics=graphics, Q_table_PATH=spec.strip(), train=False)
    name, options = parse_spec(spec)
    if name == HUMAN:
        if graphics is None:  # say so now, not after a progress bar started
            raise SpecError("a human moves by clicking in the game window (python Game.py); "
                            "here pick a computer agent (random, advanced, minimax, or a Q-table)")
        from Human_Agent import Human_Agent
        cls = Human_Agent
    elif name == "minimax" and env.shape != TIC_TAC_TOE:
        cls = PerfectAgent   # a bigger board: the bitboard solver, not a walk of the whole game
    elif name in AGENT_CLASSES:
        cls = AGENT_CLASSES[name]
    else:
        raise SpecError(f"unknown agent {spec!r}: use {VALID_SPECS}")
    accepted = inspect.signature(cls).parameters
    for key in options:
        if key not in accepted or key in ("player", "env", "graphics"):
            allowed = [p for p in accepted if p not in ("player", "env", "graphics", "seed")]
            raise SpecError(f"agent {name!r} has no option {key!r}; its options: "
                            f"{', '.join(allowed) or 'none'}")
    extra = {"seed": seed} if "seed" in accepted and "seed" not in options else {}
    if "graphics" in accepted:
        extra["graphics"] = graphics
    try:
        return cls(player, env, **options, **extra)
    except (TypeError, ValueError) as error:
        raise SpecError(f"agent {spec!r}: {error}") from None


class MixtureAgent(Agent):
    """Lets one of ``members``, chosen uniformly at random, make each move.

    Its move probabilities are the average of the members' (when they all can state theirs).
    """

    def __init__(self, player: int, env: TicTacToe, members: list, seed=None) -> None:
        super().__init__(player, env, seed=seed)
        self.members = members

    def action_probs(self, state: State) -> dict[Action, float]:
        probs: dict[Action, float] = {}
        for member in self.members:
            for action, p in member.action_probs(state).items():
                probs[action] = probs.get(action, 0.0) + p / len(self.members)
        return probs

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        return self.rng.choice(self.members).get_action(state, epoch)


def describe(spec: str) -> str:
    """A short human name for a spec, e.g. ``Q-table Data/Q_MC_X.pth`` or ``advanced``."""
    if is_network(spec):
        return f"network {network_path(spec)}"
    return cli.shown(f"Q-table {spec}" if is_table_path(spec) else spec)
