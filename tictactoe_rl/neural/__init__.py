"""Deep Q-learning for Tic-Tac-Toe: a network in place of the Q-table (``DQN_Trainer.py``).

network.py   the MLP, the board as the side to move sees it, every position's row and images
replay.py    experience replay (every transition with its eight symmetric images)
learner.py   the DQN update: target from the frozen network's best legal value, Huber, Adam
agent.py     DQNAgent, the network as a player; make_dqn_agent for agent specs (dqn:PATH, .pt)
files.py     save/load: torch.save of a state dict and plain metadata, every field checked
archive.py   reading a network file without torch.load: zip and tensor records checked first
report.py    the positions where a policy's move loses value
level_side.py  the agent's greedy moves for a whole level of an exact walk, in batched passes

The run around them -- flags, loop, saving, the report -- is the table trainers' kernel
(``tictactoe_rl/training/``: ``tictactoe_rl.training.dqn`` is the network's learner); nothing here imports it.
"""
