"""What takes the place of each solution in the students' version: the piece, the function the
student writes, and its contract. (Mostly text, in two languages, which is why the module is long.)

The solved code is the only source. Inside a function, a solution is marked like this::

    def epsilon_greedy(self, epoch):
        \"\"\"(the docstring stays)\"\"\"
        # [exercise piece 1: epsilon_greedy] solution begins
        ...the solution...
        # [exercise piece 1] solution ends

``tools/exercise/make.py`` writes the students' version: every marked solution becomes the
contract below (what goes in, what comes out, the course's names; English, then Hebrew) as a few
comment lines and a ``raise NotImplementedError`` whose message names the piece
(``tools/exercise/stubs.py``). A contract says what to compute, never the code.
"""

from __future__ import annotations

from dataclasses import dataclass

from tictactoe_rl.selfcheck.pieces import SELF_CHECK, STUB_PREFIX


@dataclass(frozen=True)
class Instructions:
    """What replaces one marked solution: its piece, the function the student writes, and its
    contract in English and in Hebrew (a few lines each: inputs, output, the course's names)."""
    piece: int
    function: str
    english: str
    hebrew: str

    def stub_message(self) -> str:
        """The one-line message of the stub's ``NotImplementedError``."""
        return f"{STUB_PREFIX} {self.piece}: write {self.function}, then run {SELF_CHECK}"


# Keyed by the name that the begin marker gives after the piece number.
INSTRUCTIONS = {
    "epsilon_greedy": Instructions(
        piece=1,
        function="AI_Agent.epsilon_greedy",
        english="""
Return epsilon, the chance that get_action explores, at episode `epoch` (0 is the first).
From EPSILON_START (1.0) it falls to EPSILON_FINAL (0.01) by episode
self.decay_epochs and stays: never below it, never up again. Linear or exponential, as in the
docstring (self.epsilon_schedule names the one asked for).
""",
        hebrew="""
החזירו את אפסילון, ההסתברות ש-get_action יחקור, באפיזודה `epoch` (0 היא הראשונה).
מ-EPSILON_START (1.0) הוא יורד עד EPSILON_FINAL (0.01) באפיזודה self.decay_epochs ונשאר:
לא מתחתיו ולא עולה שוב. ליניארי או מעריכי, כמו בתיעוד (self.epsilon_schedule אומר איזה התבקש).
"""),
    "Generate_episode": Instructions(
        piece=2,
        function="MC_Trainer.Generate_episode",
        english="""
Play a game of `player` (the learner, player1) against player2 in env from State(); return
[(state, action, reward), ..., (final_state,)]: per move of the learner, a copy of the position
before it, its move (player.get_action(state=state, epoch=epoch)), X's reward after the reply
(or after the move, if that ended the game).
""",
        hebrew="""
שחקו משחק אחד של `player` (הלומד, player1) נגד player2 בסביבה env מ-State(); החזירו
[(state, action, reward), ..., (final_state,)]: לכל מהלך של הלומד, עותק של המצב שלפניו, המהלך
(player.get_action(state=state, epoch=epoch)) והתגמול של X אחרי התשובה של היריב (או אחרי
המהלך, אם הוא סיים את המשחק).
"""),
    "main": Instructions(
        piece=3,
        function="MC_Trainer.main",
        english="""
Train player1 for `epochs` episodes, Generate_episode(player1, epoch) each, then call
player1.save_Q(PATH) and test(100). An episode's last item, (final_state,), is no step; walk the
steps backwards with the return G = gamma * G + reward and pull each player1.Q[(state, action)]
(a pair never seen is 0) towards it: Q <- Q + alpha * (G - Q).
""",
        hebrew="""
אמנו את player1 במשך `epochs` אפיזודות, Generate_episode(player1, epoch) לכל אחת, ואז קראו
ל-player1.save_Q(PATH) ול-test(100). הפריט האחרון באפיזודה, (final_state,), אינו צעד; עברו על
הצעדים מהסוף להתחלה עם התשואה G = gamma * G + reward וקרבו אליה כל player1.Q[(state, action)]
(זוג שלא נראה שווה 0): Q <- Q + alpha * (G - Q).
"""),
    "learning_steps": Instructions(
        piece=5,
        function="Episode.learning_steps",
        english="""
Cut a played game into the steps of the learner `side` (1 X, -1 O): `moves` holds every move
as (position before it, the move, X's reward). Return a list of one (state, action, reward) per
move of the learner, the reward summed over its move and the reply (a move before the learner's
first belongs to no step); Generate_episode adds (final,).
""",
        hebrew="""
חתכו משחק ששוחק לצעדים של הלומד `side` (1 ל-X, -1 ל-O): `moves` מכיל כל מהלך כ-(המצב שלפניו,
המהלך, התגמול של X). החזירו רשימה של (state, action, reward) לכל מהלך של הלומד, עם סכום התגמולים
של המהלך ושל התשובה (מהלך שלפני הראשון של הלומד לא שייך לאף צעד); Generate_episode מוסיף (final,).
"""),
    "sarsa_update": Instructions(
        piece=5,
        function="SARSA_Trainer.update",
        english="""
For every one of `steps` (the learner's (state, action, reward) of a game that ended in `final`),
first to last, move Q[(state, action)] (a pair never seen is 0) a fraction alpha towards the
target: the learner's reward (side times X's reward) plus, unless it is the last step, gamma
times Q of the next step's (state, action). Change Q in place.
""",
        hebrew="""
לכל אחד מ-`steps` (ה-(state, action, reward) של הלומד במשחק שנגמר ב-`final`), מהראשון לאחרון,
קרבו את Q[(state, action)] (זוג שלא נראה שווה 0) בשיעור alpha אל המטרה: התגמול של הלומד (side
כפול התגמול של X) ועוד, אם זה לא הצעד האחרון, gamma כפול Q של (state, action) של הצעד הבא. שנו
את Q במקום.
"""),
    "q_update": Instructions(
        piece=5,
        function="Q_Trainer.update",
        english="""
As SARSA_Trainer.update, but the value of the next step is the largest Q over the legal actions
of its state (state.legal_actions()), whatever the learner played there. Change Q in place.
""",
        hebrew="""
כמו SARSA_Trainer.update, אבל הערך של הצעד הבא הוא ה-Q הגדול ביותר על המהלכים החוקיים של המצב
שלו (state.legal_actions()), לא משנה מה הלומד שיחק שם. שנו את Q במקום.
"""),
    "get_q_value": Instructions(
        piece=5,
        function="NimAI.get_q_value",
        english="""
Return the value self.q holds for (tuple(state), action), or 0 if it holds none; `state` may
come as a list of pile sizes.
""",
        hebrew="""
החזירו את הערך ש-self.q מחזיק עבור (tuple(state), action), או 0 אם אין; `state` יכול להגיע
כרשימה של גדלי ערימות.
"""),
    "update_q_value": Instructions(
        piece=5,
        function="NimAI.update_q_value",
        english="""
Store under (tuple(state), action) in self.q the value the docstring gives: old_q moved a step
self.alpha towards reward + future_rewards. Nothing else in self.q changes.
""",
        hebrew="""
שמרו ב-self.q תחת (tuple(state), action) את הערך שהתיעוד נותן: old_q שזז צעד בגודל self.alpha
אל reward + future_rewards. שום דבר אחר ב-self.q לא משתנה.
"""),
    "best_future_reward": Instructions(
        piece=5,
        function="NimAI.best_future_reward",
        english="""
Return the largest Q-value among the actions available in `state` (Nim.available_actions), an
action with no value yet counting 0; 0 when no action is left.
""",
        hebrew="""
החזירו את ערך ה-Q הגדול ביותר מבין הפעולות הזמינות ב-`state` (Nim.available_actions), כשפעולה
בלי ערך נחשבת 0; 0 כשלא נשארה אף פעולה.
"""),
    "choose_action": Instructions(
        piece=5,
        function="NimAI.choose_action",
        english="""
Return an action available in `state`: with `epsilon` false, one with the largest Q-value
(unknown ones count 0); with `epsilon` true, a random available action with probability
self.epsilon and such a best one otherwise.
""",
        hebrew="""
החזירו פעולה זמינה ב-`state`: כש-`epsilon` שקרי, אחת עם ערך ה-Q הגדול ביותר (פעולה לא מוכרת
נחשבת 0); כש-`epsilon` אמיתי, פעולה זמינה אקראית בהסתברות self.epsilon, ואחרת פעולה טובה ביותר.
"""),
}
