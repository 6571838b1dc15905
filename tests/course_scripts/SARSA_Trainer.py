from TicTacToe import TicTacToe
from State import State
from Random_Agent import Random_Agent
from AI_Agent import AI_Agent

PATH = 'Data/Q_SARSA_course.pth'

env = TicTacToe(State())
player1 = AI_Agent(1, env, graphics=None, Q_table_PATH=None)
player2 = Random_Agent(-1, env, graphics=None)
Q = player1.Q
get_Q = player1.get_Q

epochs = 100000
alpha = 0.1
gamma = 0.9

def main ():
    for epoch in range(epochs):
        state = State()
        action = player1.get_action(state, epoch)
        while not env.end_of_game(state):
            after_state, reward = env.next_state(state, action)
            if env.end_of_game(after_state):
                next_state = after_state
            else:
                action_env = player2.get_action(after_state)
                next_state, reward = env.next_state(after_state, action_env)
            if env.end_of_game(next_state):
                Q[(state, action)] = get_Q(state, action) + alpha * (reward - get_Q(state, action))
                state = next_state
            else:
                next_action = player1.get_action(next_state, epoch)
                target = reward + gamma * get_Q(next_state, next_action)
                Q[(state, action)] = get_Q(state, action) + alpha * (target - get_Q(state, action))
                state, action = next_state, next_action
        print(epoch, end="\r")
    player1.save_Q(PATH)
    print(test(100))

def test (num):
    x_win = 0
    o_win = 0
    tie = 0
    player1.train = False
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
    return x_win, o_win, tie

def switch_players(player):
    if player == player1:
        return player2
    else:
        return player1

if __name__ == '__main__':
    main()
