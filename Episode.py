"""One game between two agents, and how a learner sees it: the loop every script shares."""

from __future__ import annotations

from tictactoe_rl.positions import start_position
from State import DRAW, O, O_WON, ONGOING, X, X_WON, State
from TicTacToe import Action, TicTacToe

Move = tuple[State, Action, int]  # position before the move, the move, its reward (X's view)


def play_game(x_agent, o_agent, env: TicTacToe, state: State | None = None,
              epoch: int | None = None) -> tuple[list[Move], State]:
    """Play from ``state`` (default: the empty board of ``env``) until the game ends.

    Each agent is asked ``get_action(state, epoch)`` on its turn. Returns every move as
    ``(state before, action, reward)`` and the final position.
    """
    agents = {X: x_agent, O: o_agent}
    state = state if state is not None else start_position(env.shape)
    moves: list[Move] = []
    while state.end_of_game == ONGOING:
        action = agents[state.player].get_action(state, epoch)
        next_state, reward = env.next_state(state, action)
        moves.append((state, action, reward))
        state = next_state
    return moves, state


def learning_steps(moves: list[Move], side: int) -> list[Move]:
    """Group a game into the learner's steps.

    One step is the learner's move plus the opponent's reply: ``(state, action, reward)`` with the
    position before the learner's move and the summed reward of the step (X's view). The course's
    episode (``Generate_episode``) is these steps followed by the final position as ``(final,)``.
    """
    # [exercise piece 5: learning_steps] solution begins
    steps: list[Move] = []
    for state, action, reward in moves:
        if state.player == side:
            steps.append((state, action, reward))
        elif steps and reward:
            last_state, last_action, last_reward = steps[-1]
            steps[-1] = (last_state, last_action, last_reward + reward)
    return steps
    # [exercise piece 5] solution ends


def play_games(x_agent, o_agent, env: TicTacToe, games: int,
               progress: str | None = None) -> tuple[int, int, int]:
    """Play ``games`` games from the empty board; return ``(x_wins, o_wins, draws)``.
    With ``progress`` set, show a progress bar with that title."""
    from tqdm import tqdm  # only the callers that show a bar pay for importing it

    tally = {X_WON: 0, O_WON: 0, DRAW: 0}
    for _ in tqdm(range(games), desc=progress, unit="game", disable=progress is None,
                  mininterval=0.5):
        tally[play_game(x_agent, o_agent, env)[1].end_of_game] += 1
    return tally[X_WON], tally[O_WON], tally[DRAW]
