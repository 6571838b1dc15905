"""How a learning agent explores: its epsilon schedules (``exploration.schedules``). The agents
(``AI_Agent``, the network's ``neural.agent``) and the trainers both read them; this package
imports nothing of the project."""
