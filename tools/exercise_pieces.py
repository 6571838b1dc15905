"""The exercise: its pieces, and the instructions that take the place of each solution.

The solved code is the only source. Inside a function, a solution is marked like this::

    def epsilon_greedy(self, epoch):
        \"\"\"(the contract stays)\"\"\"
        # [exercise piece 1: epsilon_greedy] solution begins
        ...the solution...
        # [exercise piece 1] solution ends

``tools/make_exercise.py`` writes the students' version: every marked solution becomes the
instructions below (English, then Hebrew) as comments and a ``raise NotImplementedError`` whose
message names the piece. ``check.py`` grades the pieces in the same order, with the titles below.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every stub's message starts with this; the students' tests skip a test that runs into one.
STUB_PREFIX = "Exercise piece"
SELF_CHECK = "python check.py"


@dataclass(frozen=True)
class Piece:
    """One graded piece of the exercise."""
    number: int
    title: str          # what the student writes, in a few words
    required: bool      # decides the self-check's exit status (a bonus piece only with --all)


PIECES = (
    Piece(1, "AI_Agent.epsilon_greedy, the exploration schedule", True),
    Piece(2, "MC_Trainer.Generate_episode, one game as a list of learning steps", True),
    Piece(3, "MC_Trainer.main, the Monte Carlo update loop", True),
    Piece(4, "bonus: Generate_episode and main for an agent that plays O", False),
    Piece(5, "bonus: SARSA and Q-learning (Episode.learning_steps and the two updates), and "
             "Nim's Q-learning", False),
)


@dataclass(frozen=True)
class Instructions:
    """What replaces one marked solution: which piece it belongs to, the function the student
    writes, and the instructions in English and in Hebrew (paragraphs separated by blank lines;
    they say what to write, the contract and a hint -- never the solution)."""
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
Return epsilon, the probability that get_action plays a random legal move instead of the
greedy one, for the episode number `epoch` (0 is the first episode).

Contract: epsilon starts at EPSILON_START (1.0: every move is random) and comes down to
EPSILON_FINAL (0.01), never below it and never up again. Choose one schedule: linear -- a
straight line from 1.0 at episode 0 to 0.01 at episode self.decay_epochs (100,000 unless a
trainer sets it), then 0.01 for good; or exponential -- 0.01 + (1.0 - 0.01) * exp(-epoch / tau)
with a time constant tau such as self.decay_epochs / 5. (self.epsilon_schedule names the one a
trainer asks for, "linear" or "exp", if you want to offer both.) Optional: epoch None means
training is over; return 0.01 then.

Hint: first work out by hand what epsilon must be at episodes 0, 50,000 and 100,000; the
constants at the top of this file are all the numbers you need.
""",
        hebrew="""
החזירו את אפסילון -- ההסתברות ש-get_action ישחק מהלך חוקי אקראי במקום המהלך החמדני -- עבור
אפיזודה מספר epoch (0 היא האפיזודה הראשונה).

החוזה: אפסילון מתחיל ב-EPSILON_START (1.0: כל מהלך אקראי) ויורד עד EPSILON_FINAL (0.01), אף
פעם לא מתחתיו ואף פעם לא עולה שוב. בחרו לוח זמנים אחד: ליניארי -- קו ישר מ-1.0 באפיזודה 0 עד
0.01 באפיזודה self.decay_epochs (100,000 אלא אם המאמן קובע אחרת), ואחר כך 0.01 תמיד; או
מעריכי -- 0.01 + (1.0 - 0.01) * exp(-epoch / tau) עם קבוע זמן tau, למשל self.decay_epochs / 5.
(self.epsilon_schedule אומר איזה מהם המאמן ביקש, "linear" או "exp", אם תרצו לממש את שניהם.)
רשות: epoch שהוא None פירושו שהאימון נגמר; החזירו אז 0.01.

רמז: חשבו קודם ביד מה צריך להיות אפסילון באפיזודות 0, 50,000 ו-100,000; הקבועים בראש הקובץ
הם כל המספרים שצריך.
"""),
    "Generate_episode": Instructions(
        piece=2,
        function="MC_Trainer.Generate_episode",
        english="""
Play one game of `player` (the learner, player1) against player2 from the empty board State(),
and return it as the list that the Monte Carlo update reads.

Contract: one learning step is the learner's move plus the opponent's reply (the opponent is
part of the environment). For each step append (state, action, reward): `state` is the position
BEFORE the learner's move (state.copy()); `action` is the learner's move, from
player.get_action(state=state, epoch=epoch) -- pass the epoch, so that it explores with this
episode's epsilon; `reward` is the reward that env.next_state gives for the position where the
step ends (X's point of view): after the opponent's reply, or after the learner's own move when
that move ended the game. The opponent replies with player2.get_action(state=...) only while
the game goes on (env.end_of_game(...) says when it is over). When the game is over, append the
final position as a one-element tuple (state,) and return the list.

Hint: one loop over the learner's turns; in each, env.next_state for the learner's move and,
if the game goes on, once more for the reply.

Bonus (piece 4): make it work for a learner that plays O too (player.player == -1): then X,
player2, moves first, and the learner's first step starts from the position after X's move.
""",
        hebrew="""
שחקו משחק אחד של `player` (הלומד, player1) נגד player2 מהלוח הריק State(), והחזירו אותו כרשימה
שעדכון מונטה-קרלו קורא.

החוזה: צעד למידה אחד הוא המהלך של הלומד ועוד התשובה של היריב (היריב הוא חלק מהסביבה). לכל צעד
הוסיפו (state, action, reward): `state` הוא המצב שלפני המהלך של הלומד (state.copy()); `action`
הוא המהלך של הלומד, מ-player.get_action(state=state, epoch=epoch) -- העבירו את epoch, כדי שיחקור
עם האפסילון של האפיזודה הזו; `reward` הוא התגמול ש-env.next_state נותן למצב שבו הצעד נגמר
(מנקודת המבט של X): אחרי התשובה של היריב, או אחרי המהלך של הלומד עצמו אם המהלך הזה סיים את
המשחק. היריב עונה עם player2.get_action(state=...) רק כל עוד המשחק נמשך (env.end_of_game(...)
אומר מתי נגמר). כשהמשחק נגמר, הוסיפו את המצב הסופי כזוג בן איבר אחד (state,) והחזירו את
הרשימה.

רמז: לולאה אחת על התורות של הלומד; בכל תור env.next_state למהלך של הלומד, ואם המשחק נמשך, עוד
פעם אחת לתשובה.

בונוס (חלק 4): גרמו לזה לעבוד גם ללומד שמשחק O (player.player == -1): אז X, player2, משחק
ראשון, והצעד הראשון של הלומד מתחיל מהמצב שאחרי המהלך של X.
"""),
    "main": Instructions(
        piece=3,
        function="MC_Trainer.main",
        english="""
Train player1 by Monte Carlo control for `epochs` episodes, then save it and test it.

Contract: for each episode number epoch in range(epochs), get an episode from
Generate_episode(player1, epoch) and take its final tuple off (episode.pop()). Then walk the
steps BACKWARDS with a return G that starts at 0: at each step G = gamma * G + reward, and the
value of the step's (state, action) moves a fraction alpha of the way towards G:
Q <- Q + alpha * (G - Q). Read a value with player1.Q.get((state, action), 0) (a pair never
seen is worth 0) and write it with player1.Q[(state, action)] = .... After the last episode,
save the table with player1.save_Q(PATH) and call test(100).

Hint: reversed(...) walks a list backwards. Check by hand on a two-step episode won by your
agent: the last step's G is 1, the first step's is gamma.

Bonus (piece 4): when player1 plays O (player1.player == -1) the rewards in the episode are
still X's, so a win for O is -1: negate them before they go into G.
""",
        hebrew="""
אמנו את player1 בבקרת מונטה-קרלו במשך `epochs` אפיזודות, ואז שמרו ובדקו אותו.

החוזה: לכל מספר אפיזודה epoch ב-range(epochs), קבלו אפיזודה מ-Generate_episode(player1, epoch)
והסירו ממנה את הזוג הסופי (episode.pop()). אחר כך עברו על הצעדים מהסוף להתחלה עם תשואה G
שמתחילה ב-0: בכל צעד G = gamma * G + reward, והערך של (state, action) של הצעד זז חלק alpha
מהדרך אל G: Q <- Q + alpha * (G - Q). קראו ערך עם player1.Q.get((state, action), 0) (זוג שלא
נראה מעולם שווה 0) וכתבו אותו עם player1.Q[(state, action)] = .... אחרי האפיזודה האחרונה שמרו
את הטבלה עם player1.save_Q(PATH) וקראו ל-test(100).

רמז: reversed(...) עובר על רשימה מהסוף להתחלה. בדקו ביד על אפיזודה של שני צעדים שהסוכן שלכם
ניצח בה: ה-G של הצעד האחרון הוא 1, של הצעד הראשון gamma.

בונוס (חלק 4): כש-player1 משחק O (player1.player == -1) התגמולים באפיזודה הם עדיין של X, אז
ניצחון של O הוא -1: הפכו את הסימן שלהם לפני שהם נכנסים ל-G.
"""),
    "learning_steps": Instructions(
        piece=5,
        function="Episode.learning_steps",
        english="""
Cut a game that was already played into the learner's steps: the same episode format that
Generate_episode returns (piece 2). The SARSA and Q-learning trainers and self-play read it.

Contract: `moves` holds every move of the game in order, as (position before the move, the
move, its reward from X's point of view); `side` is the learner (1 X, -1 O). Return one step
(state, action, reward) per move of the learner: the position before that move, the move, and
the reward of the whole step -- the learner's move plus the opponent's reply. A move of the
opponent before the learner's first one (X's first move, when the learner plays O) belongs to
no step. End the list with the final position as a one-element tuple (final,).

Hint: walk the moves once, keeping the steps in a list, and think about where the reward of the
opponent's reply has to go.
""",
        hebrew="""
חתכו משחק ששוחק כבר לצעדים של הלומד: אותו פורמט אפיזודה ש-Generate_episode מחזיר (חלק 2). המאמנים
של SARSA ושל Q-learning ומשחק עצמי קוראים אותו.

החוזה: `moves` מכיל את כל המהלכים של המשחק לפי הסדר, כ-(המצב שלפני המהלך, המהלך, התגמול שלו
מנקודת המבט של X); `side` הוא הלומד (1 ל-X, -1 ל-O). החזירו צעד אחד (state, action, reward) לכל
מהלך של הלומד: המצב שלפני המהלך, המהלך, והתגמול של הצעד כולו -- המהלך של הלומד ועוד התשובה של
היריב. מהלך של היריב לפני המהלך הראשון של הלומד (המהלך הראשון של X כשהלומד משחק O) לא שייך לאף
צעד. סיימו את הרשימה במצב הסופי כזוג בן איבר אחד (final,).

רמז: עברו על המהלכים פעם אחת, שמרו את הצעדים ברשימה, וחשבו לאן צריך ללכת התגמול של התשובה של
היריב.
"""),
    "sarsa_update": Instructions(
        piece=5,
        function="SARSA_Trainer.update",
        english="""
Apply the SARSA rule to every step of `episode`, from the first step to the last, changing Q in
place.

Contract: for a step (state, action, reward) the target is the learner's reward -- side * reward,
since the rewards are X's -- plus, unless this is the last step, gamma times Q of the NEXT
step's (state, action): the move the learner really played next. Then Q(state, action) moves a
fraction alpha of the way towards the target: Q + alpha * (target - Q). A pair never seen is
worth 0 (Q.get(..., 0.0)). The episode ends with (final,), which is not a step.

Hint: each step needs the step that follows it (or the end of the game); work one step out by
hand with the numbers python check.py prints.
""",
        hebrew="""
החילו את כלל SARSA על כל צעד של `episode`, מהצעד הראשון עד האחרון, ושנו את Q במקום.

החוזה: לצעד (state, action, reward) המטרה היא התגמול של הלומד -- side * reward, כי התגמולים הם של
X -- ועוד, אלא אם זה הצעד האחרון, gamma כפול Q של (state, action) של הצעד הבא: המהלך שהלומד באמת
שיחק אחר כך. אז Q(state, action) זז חלק alpha מהדרך אל המטרה: Q + alpha * (target - Q). זוג שלא
נראה מעולם שווה 0 (Q.get(..., 0.0)). האפיזודה נגמרת ב-(final,), שאינו צעד.

רמז: כל צעד צריך את הצעד שבא אחריו (או את סוף המשחק); חשבו צעד אחד ביד עם המספרים ש-python
check.py מדפיס.
"""),
    "q_update": Instructions(
        piece=5,
        function="Q_Trainer.update",
        english="""
Apply the Q-learning rule to every step of `episode`, from the first step to the last, changing
Q in place.

Contract: for a step (state, action, reward) the target is the learner's reward -- side * reward,
since the rewards are X's -- plus, unless this is the last step, gamma times the LARGEST Q over
the legal moves of the next step's state (its legal_actions()), whatever the learner then
played. Then Q(state, action) moves a fraction alpha of the way towards the target:
Q + alpha * (target - Q). A pair never seen is worth 0. The episode ends with (final,), which
is not a step.

Hint: the only difference from SARSA is the value of the next position; compare the two on the
same episode by hand.
""",
        hebrew="""
החילו את כלל Q-learning על כל צעד של `episode`, מהצעד הראשון עד האחרון, ושנו את Q במקום.

החוזה: לצעד (state, action, reward) המטרה היא התגמול של הלומד -- side * reward, כי התגמולים הם של
X -- ועוד, אלא אם זה הצעד האחרון, gamma כפול ה-Q הגדול ביותר על המהלכים החוקיים של המצב של הצעד
הבא (legal_actions() שלו), לא משנה מה הלומד שיחק אחר כך. אז Q(state, action) זז חלק alpha מהדרך
אל המטרה: Q + alpha * (target - Q). זוג שלא נראה מעולם שווה 0. האפיזודה נגמרת ב-(final,), שאינו
צעד.

רמז: ההבדל היחיד מ-SARSA הוא הערך של המצב הבא; השוו ביד את שניהם על אותה אפיזודה.
"""),
    "get_q_value": Instructions(
        piece=5,
        function="NimAI.get_q_value",
        english="""
Return the Q-value of `action` in `state`, or 0 if that pair has no value yet.

Contract: the keys of self.q are (tuple(state), action); `state` may come as a list of pile
sizes.

Hint: a list cannot be a dictionary key, a tuple can.
""",
        hebrew="""
החזירו את ערך ה-Q של `action` במצב `state`, או 0 אם לזוג הזה אין עדיין ערך.

החוזה: המפתחות של self.q הם (tuple(state), action); `state` יכול להגיע כרשימה של גדלי ערימות.

רמז: רשימה לא יכולה להיות מפתח במילון, tuple יכול.
"""),
    "update_q_value": Instructions(
        piece=5,
        function="NimAI.update_q_value",
        english="""
Store the new Q-value of `action` in `state` in self.q, by the rule in the docstring: a step of
size self.alpha from old_q towards the new estimate, reward + future_rewards.

Contract: the key is (tuple(state), action); nothing else in self.q changes.

Hint: with alpha 0.5, old_q 0.2, reward 0 and future_rewards 0.6 the new value is 0.4.
""",
        hebrew="""
שמרו ב-self.q את ערך ה-Q החדש של `action` במצב `state`, לפי הכלל שבתיעוד: צעד בגודל self.alpha
מ-old_q אל ההערכה החדשה, reward + future_rewards.

החוזה: המפתח הוא (tuple(state), action); שום דבר אחר ב-self.q לא משתנה.

רמז: עם alpha 0.5, old_q 0.2, reward 0 ו-future_rewards 0.6 הערך החדש הוא 0.4.
"""),
    "best_future_reward": Instructions(
        piece=5,
        function="NimAI.best_future_reward",
        english="""
Return the best Q-value that any available action has in `state`.

Contract: consider every action of Nim.available_actions(state); an action with no Q-value yet
counts as 0; when no action is available (the game is over) the answer is 0.

Hint: if every known action is worth less than 0 but some action is still unknown, the answer
is 0.
""",
        hebrew="""
החזירו את ערך ה-Q הטוב ביותר שיש לפעולה זמינה כלשהי במצב `state`.

החוזה: התחשבו בכל הפעולות של Nim.available_actions(state); פעולה שאין לה עדיין ערך Q נחשבת 0;
כשאין אף פעולה זמינה (המשחק נגמר) התשובה היא 0.

רמז: אם כל פעולה מוכרת שווה פחות מ-0 אבל יש פעולה שעדיין לא מוכרת, התשובה היא 0.
"""),
    "choose_action": Instructions(
        piece=5,
        function="NimAI.choose_action",
        english="""
Choose an action in `state`.

Contract: with `epsilon` false, return the available action with the largest Q-value (an
unknown one counts 0; break ties at random). With `epsilon` true, return a random available
action with probability self.epsilon, otherwise that best action. Raise ValueError when no
action is available.

Hint: random.random() < self.epsilon decides whether to explore; self._best_actions (yours to
write too, just below) gives the best-valued actions.
""",
        hebrew="""
בחרו פעולה במצב `state`.

החוזה: כש-`epsilon` שקרי, החזירו את הפעולה הזמינה עם ערך ה-Q הגדול ביותר (פעולה לא מוכרת נחשבת
0; שוויון נשבר באקראי). כש-`epsilon` אמיתי, החזירו פעולה זמינה אקראית בהסתברות self.epsilon,
ואחרת את הפעולה הטובה ביותר. זרקו ValueError כשאין אף פעולה זמינה.

רמז: random.random() < self.epsilon מחליט אם לחקור; self._best_actions (גם אותה אתם כותבים, ממש
למטה) נותנת את הפעולות עם הערך הטוב ביותר.
"""),
    "action_probs": Instructions(
        piece=5,
        function="NimAI.action_probs",
        english="""
Return the probability of each available action under choose_action(state, epsilon): the same
policy, stated as numbers. judge.py reads it to hold the AI to perfect play.

Contract: a dict {action: probability} over every available action, summing to 1. The
best-valued actions (self._best_actions) share the greedy part, 1 - self.epsilon, equally; with
`epsilon` true a share self.epsilon is spread evenly over all available actions (with `epsilon`
false that share is 0). Raise ValueError when no action is available.

Hint: with 16 moves, epsilon 0.2 and one best move, the best move gets 0.8125 and each other
0.0125.
""",
        hebrew="""
החזירו את ההסתברות של כל פעולה זמינה תחת choose_action(state, epsilon): אותה מדיניות, כמספרים.
judge.py קורא אותה כדי להשוות את ה-AI למשחק מושלם.

החוזה: מילון {action: probability} על כל הפעולות הזמינות, שסכומו 1. הפעולות עם הערך הטוב ביותר
(self._best_actions) מתחלקות שווה בשווה בחלק החמדני, 1 - self.epsilon; כש-`epsilon` אמיתי, חלק
self.epsilon מתחלק שווה על כל הפעולות הזמינות (כש-`epsilon` שקרי החלק הזה הוא 0). זרקו ValueError
כשאין אף פעולה זמינה.

רמז: עם 16 מהלכים, epsilon 0.2 ומהלך טוב אחד, המהלך הטוב מקבל 0.8125 וכל אחד אחר 0.0125.
"""),
    "best_actions": Instructions(
        piece=5,
        function="NimAI._best_actions",
        english="""
Return the actions among `actions` (every move available in the position `key`, a tuple of pile
sizes) that have the largest Q-value; an action with no Q-value yet counts as 0.

Contract: a list, in the order of `actions`, with every action that ties for the largest value
(at least one). choose_action and action_probs choose from it.

Hint: find the largest value first, then keep every action that has it.
""",
        hebrew="""
החזירו את הפעולות מתוך `actions` (כל המהלכים הזמינים במצב `key`, tuple של גדלי ערימות) שיש להן
ערך ה-Q הגדול ביותר; פעולה שאין לה עדיין ערך Q נחשבת 0.

החוזה: רשימה, בסדר של `actions`, עם כל פעולה ששווה לערך הגדול ביותר (לפחות אחת). choose_action
ו-action_probs בוחרות ממנה.

רמז: מצאו קודם את הערך הגדול ביותר, ואז שמרו כל פעולה שיש לה אותו.
"""),
}

# The README of the students' version: this section replaces the teachers' one (found by its
# heading), or comes right after the introduction when there is none.
TEACHERS_HEADING = "## The exercise (for teachers)"
STUDENTS_SECTION = """\
## The exercise (for students)

This is the students' version of the course repository. Everything runs, except the pieces you
write; each is marked in the code by instructions (in English and in Hebrew) and a
`raise NotImplementedError("Exercise piece N: ...")`. Replace the `raise` with your code; keep
the function's name, arguments and docstring.

| piece | where | what |
| --- | --- | --- |
| 1 | `AI_Agent.py`, `epsilon_greedy` | the exploration schedule |
| 2 | `MC_Trainer.py`, `Generate_episode` | one game as a list of learning steps |
| 3 | `MC_Trainer.py`, `main` | the Monte Carlo update loop |
| 4 (bonus) | the same two functions | an agent that plays O (`--side O`) |
| 5 (bonus) | `Episode.py`, `SARSA_Trainer.py`, `Q_Trainer.py` | SARSA and Q-learning |
| 5 (bonus) | `nim/nim.py` | Nim's Q-learning (then `python nim/play.py`) |

Check your work after each piece:

    python check.py          # pieces 1-3 (exit status 0 when they pass), bonus pieces reported
    python check.py --all    # the bonus pieces count too
    python check.py --piece 2

It prints one line per piece: passed, or what is wrong and a hint. Once pieces 1-3 pass it trains
your agent briefly and prints its exact results against `random`.

Before you start, play the agent you are going to build (the trained table in `Data/`):

    python Game.py                   # you are O against the trained X

Then train your own and play it:

    python MC_Trainer.py             # saves Data/my_Q_MC_X.pth
    python Game.py --x Data/my_Q_MC_X.pth
    python MC_Trainer.py --side O    # after piece 4: Data/my_Q_MC_O.pth
    python Game.py --x human --o Data/my_Q_MC_O.pth

The tests (`python -m pytest -q`) skip whatever needs a piece you have not written yet, and say
which piece.
"""

# Added to tests/conftest.py of the students' version. Two marks let a test say what it needs
# (the solved version registers them in pytest.ini and ignores them):
#   @pytest.mark.exercise_piece(4)  needs piece 4; skipped until python check.py passes it
#   @pytest.mark.solved_only        checks what only the solved version does (e.g. Ctrl-C in the
#                                   trainer's main); always skipped in the students' version
STUDENTS_CONFTEST = r'''
# --- The exercise ------------------------------------------------------------------------------
# A test that needs a piece of the exercise you have not written yet is skipped, naming the
# piece, instead of failing: `python check.py` grades the pieces themselves. That is a test that
# runs into a piece's NotImplementedError (in this process, or in a script it runs: the traceback
# ends with the piece's message), or one marked as needing a piece that does not pass yet.
import re as _re

_EXERCISE_STUB = _re.compile(r"(Exercise piece \d+): write ([\w.]+)")
_PIECE_PASSES = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "exercise_piece(n): needs piece n of the exercise; skipped "
                                       "until python check.py passes it")
    config.addinivalue_line("markers", "solved_only: checks what only the teachers' solved "
                                       "version does; skipped here")


def pytest_runtest_setup(item):
    if item.get_closest_marker("solved_only"):
        pytest.skip("checks what only the teachers' solved version does, not part of the exercise")
    for mark in item.iter_markers("exercise_piece"):
        number = mark.args[0]
        if number not in _PIECE_PASSES:
            import check
            _PIECE_PASSES[number] = check.grade(number)[0]
        if not _PIECE_PASSES[number]:
            pytest.skip(f"needs Exercise piece {number}, which does not pass yet: see "
                        f"python check.py --piece {number}")


def _exercise_stub(error, text):
    # The piece (and function) of the exercise stub behind ``error`` -- the error itself, what
    # caused it, or a traceback in the test's report ``text`` -- or None.
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, NotImplementedError) and _EXERCISE_STUB.match(str(error)):
            return _EXERCISE_STUB.match(str(error))
        error = error.__cause__ or error.__context__
    if "NotImplementedError" in text:
        return _EXERCISE_STUB.search(text)
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed and call.excinfo is not None:
        text = report.longreprtext + "".join(content for _, content in report.sections)
        stub = _exercise_stub(call.excinfo.value, text)
        if stub is not None:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] + 1,
                               f"needs {stub[1]} ({stub[2]}), not written yet: "
                               "see python check.py")
'''
