from TicTacToe import TicTacToe
from State import State
from Random_Agent import Random_Agent
from AI_Agent import AI_Agent

PATH = 'Data/Q_MC_o_course.pth'

env = TicTacToe(State())
player1 = Random_Agent(1, env, graphics=None)
player2 = AI_Agent(-1, env, graphics=None, Q_table_PATH=None)

gamma = 0.95

def main ():
    player = player2
    start = 0
    epochs = 100000
    alpha = 0.01

    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        G = 0
        episode.pop()
        for t in range(len(episode)):
            state, action, reward = episode.pop()
            G = gamma * G - reward          # the learner is O: X's reward negated
            Q_value = player.Q.get((state, action), 0)
            player.Q[(state, action)] = Q_value + alpha * (G - Q_value)
        print(epoch, end="\r")

    player.save_Q(PATH)
    print(test(100))

def Generate_episode (player, epoch):
    episods = []
    state = State()
    action = player1.get_action(state=state)
    state, reward = env.next_state(state, action)
    while not env.end_of_game(state):
        action = player2.get_action(state=state, epoch=epoch)
        after_state, reward = env.next_state(state, action)
        if env.end_of_game(after_state):
            step = state.copy(), action, reward
            state = after_state
        else:
            action_env = player1.get_action(state=after_state)
            next_state, reward = env.next_state(after_state, action_env)
            step = state.copy(), action, reward
            state = next_state
        episods.append(step)
    episods.append((state,))
    return episods

def test (num):
    x_win = 0
    o_win = 0
    tie = 0
    player2.train = False
    for n in range(num):
        player = player1
        state = State()
        while not env.end_of_game(state):
            action = player.get_action(state=state)
            state, _ = env.next_state(state, action)
            player = switch_players(player)
        if state.end_of_game == 1:
            x_win += 1
        elif state.end_of_game == -1:
            o_win += 1
        else:
            tie += 1
        state.reset()
        print(n, end="\r")
    return x_win, o_win, tie

def switch_players(player):
    if player == player1:
        return player2
    else:
        return player1

if __name__ == '__main__':
    main()
