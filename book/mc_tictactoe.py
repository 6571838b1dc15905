"""Monte Carlo control for Tic-Tac-Toe: X learns to beat an opponent that plays at random.

Put this file in one folder with ttt_env.py, tabular_agent.py and ttt_training.py, then run

    python mc_tictactoe.py

It trains for 200,000 games, then plays 1,000 greedy games and prints X's wins, losses and draws.
"""

from __future__ import annotations

import random

from tabular_agent import TabularAgent, epsilon_at
from ttt_env import Action, State, TicTacToe
from ttt_training import evaluate, sample_step

EPOCHS = 200_000
GAMMA = 0.95    # discount: a win sooner is worth more than a win later
ALPHA = 0.01    # step size: each game moves a value 1 % of the way towards its return

Episode = list[tuple[State, Action, int]]   # the learner's steps: (state, action, reward)


def generate_episode(env: TicTacToe, agent: TabularAgent, epsilon: float,
                     opponent_rng: random.Random) -> Episode:
    """Play one game from the empty board; return the learner's steps ``(state, action, reward)``
    in order (each step is X's move and O's reply; the reward is the step's reward for X)."""
    episode = []
    state, done = State(), False
    while not done:
        action = agent.get_action(state, epsilon)
        next_state, reward, done = sample_step(env, state, action, opponent_rng)
        episode.append((state, action, reward))
        state = next_state
    return episode


def update_episode(agent: TabularAgent, episode: Episode, gamma: float = GAMMA,
                   alpha: float = ALPHA) -> None:
    """Move each ``Q(state, action)`` of the episode towards the return that followed it.

    Walking backwards from the end, the return is ``G = step_reward + gamma * G``: the step's
    own reward plus the discounted return of everything after it.
    """
    G = 0.0                          # nothing follows the last step
    for state, action, step_reward in reversed(episode):
        G = step_reward + gamma * G
        value = agent.get_Q(state, action)
        agent.Q[(state, action)] = value + alpha * (G - value)


def train(epochs: int = EPOCHS, seed: int = 0) -> tuple[TicTacToe, TabularAgent]:
    """Learn from ``epochs`` games, exploring less and less (``epsilon_at``)."""
    env = TicTacToe()
    agent = TabularAgent(env, seed)
    opponent_rng = random.Random(seed + 1)   # the opponent's own stream, apart from the agent's
    for epoch in range(epochs):
        episode = generate_episode(env, agent, epsilon_at(epoch), opponent_rng)
        update_episode(agent, episode)
    return env, agent


if __name__ == "__main__":
    env, agent = train()
    print(evaluate(env, agent.get_action, games=1000, seed=100))
