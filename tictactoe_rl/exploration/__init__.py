"""How a learning agent explores: its epsilon schedules (``tictactoe_rl.exploration.schedules``). The agents
(``AI_Agent``, the network's ``tictactoe_rl.neural.agent``) and the trainers both read them; this package
imports nothing of the project."""
