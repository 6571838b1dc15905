"""The exercise: its pieces, the contract that takes the place of each solution, and the hints.
(Mostly text, in two languages, which is why the module is long.)

The solved code is the only source. Inside a function, a solution is marked like this::

    def epsilon_greedy(self, epoch):
        \"\"\"(the docstring stays)\"\"\"
        # [exercise piece 1: epsilon_greedy] solution begins
        ...the solution...
        # [exercise piece 1] solution ends

``tools/exercise/make.py`` writes the students' version: every marked solution becomes the
contract below (what goes in, what comes out, the course's names; English, then Hebrew) as a few
comment lines and a ``raise NotImplementedError`` whose message names the piece. The how-to lives
in ``HINTS``, one step at a time: ``python check.py --hint N`` shows the next one
(``next_hint``). ``check.py`` grades the pieces in the same order, with the titles below.

The students get this file, so nothing here may show a solution: contracts and hints say what to
compute and where to look, never the code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Every stub's message starts with this; the students' tests skip a test that runs into one.
STUB_PREFIX = "Exercise piece"
SELF_CHECK = "python check.py"
# Where next_hint remembers how many hints of each piece a student has seen (in their folder).
HINTS_FILE = ".check_hints.json"


@dataclass(frozen=True)
class Piece:
    """One graded piece of the exercise."""
    number: int
    title: str          # what the student writes, in a few words
    required: bool      # decides the self-check's exit status (a bonus piece only with --all)
    points: int = 0     # its weight in GitHub Classroom's autograding


# Required pieces make 100 points; the bonus pieces add 20 on top.
PIECES = (
    Piece(1, "AI_Agent.epsilon_greedy, the exploration schedule", True, 30),
    Piece(2, "MC_Trainer.Generate_episode, one game as a list of learning steps", True, 30),
    Piece(3, "MC_Trainer.main, the Monte Carlo update loop", True, 40),
    Piece(4, "bonus: Generate_episode and main for an agent that plays O", False, 10),
    Piece(5, "bonus: SARSA and Q-learning (Episode.learning_steps and the two updates), and "
             "Nim's Q-learning", False, 10),
)


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


@dataclass(frozen=True)
class Hint:
    """One step of the how-to for a piece, in English and in Hebrew."""
    english: str
    hebrew: str


# The how-to, one step per hint, in the order a student needs them: the first ones point the way,
# the later ones say more. They name the course's calls and what to compute, never the code.
HINTS: dict[int, tuple[Hint, ...]] = {
    1: (
        Hint("First work out by hand what epsilon must be at episodes 0, 50,000 and 100,000 "
             "(with the default self.decay_epochs of 100,000): the constants at the top of "
             "AI_Agent.py are all the numbers you need.",
             "חשבו קודם ביד מה צריך להיות אפסילון באפיזודות 0, 50,000 ו-100,000 (עם ברירת המחדל "
             "self.decay_epochs = 100,000): הקבועים בראש AI_Agent.py הם כל המספרים שצריך."),
        Hint("Linear: a straight line through (0, EPSILON_START) and (self.decay_epochs, "
             "EPSILON_FINAL). The share of the decay done by episode `epoch` is epoch divided by "
             "self.decay_epochs; epsilon has come down that share of the distance from start to "
             "final.",
             "ליניארי: קו ישר דרך (0, EPSILON_START) ו-(self.decay_epochs, EPSILON_FINAL). החלק "
             "של הדעיכה שעבר עד אפיזודה `epoch` הוא epoch חלקי self.decay_epochs; אפסילון ירד "
             "את החלק הזה מהמרחק שבין ההתחלה לסוף."),
        Hint("Past self.decay_epochs the line would go below EPSILON_FINAL: before computing it, "
             "return EPSILON_FINAL when epoch has reached self.decay_epochs.",
             "אחרי self.decay_epochs הקו היה יורד מתחת ל-EPSILON_FINAL: לפני החישוב, החזירו "
             "EPSILON_FINAL כש-epoch הגיע ל-self.decay_epochs."),
        Hint("Exponential, if you want it too: the docstring's formula, with math.exp. Offer both "
             "by checking self.epsilon_schedule (\"linear\" or \"exp\"); python check.py accepts "
             "either.",
             "מעריכי, אם תרצו גם אותו: הנוסחה שבתיעוד, עם math.exp. כדי לממש את שניהם בדקו את "
             "self.epsilon_schedule (\"linear\" או \"exp\"); python check.py מקבל כל אחד מהם."),
    ),
    2: (
        Hint("Start with an empty list and the position State(); loop while "
             "env.end_of_game(state) is False. Each turn of the loop is one learning step: the "
             "learner's move and, if the game goes on, the opponent's reply.",
             "התחילו ברשימה ריקה ובמצב State(); המשיכו בלולאה כל עוד env.end_of_game(state) "
             "שקרי. כל סיבוב של הלולאה הוא צעד למידה אחד: המהלך של הלומד, ואם המשחק נמשך, "
             "התשובה של היריב."),
        Hint("The learner's move: player.get_action(state=state, epoch=epoch) -- pass the epoch, "
             "so that it explores with this episode's epsilon. env.next_state(state, action) "
             "gives the position after it and its reward, and leaves `state` as it was.",
             "המהלך של הלומד: player.get_action(state=state, epoch=epoch) -- העבירו את epoch, "
             "כדי שיחקור עם האפסילון של האפיזודה הזו. env.next_state(state, action) נותן את "
             "המצב שאחריו ואת התגמול שלו, ולא משנה את `state`."),
        Hint("If that position is not the end (env.end_of_game), player2 replies: "
             "player2.get_action(state=...) on it, and env.next_state once more. The step's "
             "reward is the one after the reply; if the learner's move ended the game, the one "
             "after the move.",
             "אם המצב הזה אינו הסוף (env.end_of_game), player2 עונה: "
             "player2.get_action(state=...) עליו, ועוד פעם env.next_state. התגמול של הצעד הוא "
             "זה שאחרי התשובה; אם המהלך של הלומד סיים את המשחק, זה שאחרי המהלך."),
        Hint("Append the step with state.copy() -- the position from before the learner's move "
             "-- then go on from the position where the step ended. After the loop append "
             "(state,): a tuple of one, note the comma.",
             "הוסיפו את הצעד עם state.copy() -- המצב שלפני המהלך של הלומד -- והמשיכו מהמצב שבו "
             "הצעד נגמר. אחרי הלולאה הוסיפו (state,): טאפל בן איבר אחד, שימו לב לפסיק."),
        Hint("Bonus piece 4: when the learner plays O (player.player == -1), X is player2 and "
             "moves first. Play that one move before the loop, so that every step starts with "
             "the learner to move.",
             "בונוס, חלק 4: כשהלומד משחק O (player.player == -1), X הוא player2 ומשחק ראשון. "
             "שחקו את המהלך הזה לפני הלולאה, כך שכל צעד מתחיל כשתור הלומד."),
    ),
    3: (
        Hint("One episode for each epoch in range(epochs): Generate_episode(player1, epoch). The "
             "names epochs, gamma, alpha, PATH and player1 are set at the top of MC_Trainer.py; "
             "main may set epochs and alpha for itself too, as the chapter does.",
             "אפיזודה אחת לכל epoch ב-range(epochs): Generate_episode(player1, epoch). השמות "
             "epochs, gamma, alpha, PATH ו-player1 מוגדרים בראש MC_Trainer.py; main יכול גם "
             "להגדיר לעצמו את epochs ואת alpha, כמו בפרק."),
        Hint("The last item of an episode is (final_state,), not a step: take it off first "
             "(episode.pop()).",
             "הפריט האחרון באפיזודה הוא (final_state,), לא צעד: הסירו אותו קודם (episode.pop())."),
        Hint("Walk the steps from the last to the first (reversed(...), or pop() until the list "
             "is empty), with G set to 0 at the start of each episode: the last step's return is "
             "then its own reward.",
             "עברו על הצעדים מהאחרון לראשון (reversed(...), או pop() עד שהרשימה מתרוקנת), כש-G "
             "מתחיל ב-0 בתחילת כל אפיזודה: התשואה של הצעד האחרון היא אז התגמול שלו עצמו."),
        Hint("At each step first update G with the step's reward, then read the old value with "
             "player1.Q.get((state, action), 0) and store the new one in player1.Q: the old value "
             "moved a fraction alpha of the way to G.",
             "בכל צעד עדכנו קודם את G בתגמול של הצעד, ואז קראו את הערך הישן עם "
             "player1.Q.get((state, action), 0) ושמרו ב-player1.Q את החדש: הערך הישן אחרי "
             "שזז חלק alpha מהדרך אל G."),
        Hint("After the last episode: player1.save_Q(PATH), then test(100). Check by hand on a "
             "two-step episode your agent won: the last step's G is 1, the first step's gamma.",
             "אחרי האפיזודה האחרונה: player1.save_Q(PATH), ואז test(100). בדקו ביד על אפיזודה "
             "של שני צעדים שהסוכן שלכם ניצח בה: ה-G של הצעד האחרון הוא 1, של הראשון gamma."),
        Hint("Bonus piece 4: the rewards are X's, so for an O learner (player1.player == -1) a "
             "win of O arrives as -1. Turn each reward into the learner's own before it goes "
             "into G: player1.player is 1 or -1.",
             "בונוס, חלק 4: התגמולים הם של X, אז ללומד O (player1.player == -1) ניצחון של O "
             "מגיע כתגמול שלילי (-1). הפכו כל תגמול לתגמול של הלומד לפני שהוא נכנס ל-G: "
             "player1.player הוא 1 או -1."),
    ),
    4: (
        Hint("Piece 4 is pieces 2 and 3 again, for a learner of either side: see the last hint "
             "of each (python check.py --hint 2, --hint 3).",
             "חלק 4 הוא שוב חלקים 2 ו-3, ללומד של כל צד: ראו את הרמז האחרון של כל אחד "
             "(python check.py --hint 2, --hint 3)."),
        Hint("Generate_episode for O: X (player2) moves once from State() before your loop; "
             "then the loop is the same. main for O: the same loop with each reward turned into "
             "O's (player1.player times it).",
             "Generate_episode ל-O: X (player2) משחק מהלך אחד מ-State() לפני הלולאה; אחר כך "
             "הלולאה זהה. main ל-O: אותה לולאה, כשכל תגמול הופך לתגמול של O (player1.player "
             "כפול התגמול)."),
        Hint("Try it: python MC_Trainer.py --side O --out Data/my_Q_MC_O.pth, then python "
             "Tester.py --x random --o Data/my_Q_MC_O.pth --exact.",
             "נסו: python MC_Trainer.py --side O --out Data/my_Q_MC_O.pth, ואז python Tester.py "
             "--x random --o Data/my_Q_MC_O.pth --exact."),
    ),
    5: (
        Hint("Episode.learning_steps: walk `moves` once. A move of `side` opens a new step; the "
             "reward of the opponent's reply that follows is added to the open step's reward. "
             "The final position is not part of the list.",
             "Episode.learning_steps: עברו על `moves` פעם אחת. מהלך של `side` פותח צעד חדש; "
             "התגמול של התשובה של היריב שאחריו מתווסף לתגמול של הצעד הפתוח. המצב הסופי אינו חלק "
             "מהרשימה."),
        Hint("SARSA_Trainer.update: pair each step with the step after it (zip(steps, "
             "steps[1:]), and the last step alone). The next step's (state, action) is the move "
             "the learner really played next; the last step has no next move.",
             "SARSA_Trainer.update: צרפו לכל צעד את הצעד שאחריו (zip(steps, steps[1:]), והצעד "
             "האחרון לבד). ה-(state, action) של הצעד הבא הוא המהלך שהלומד באמת שיחק אחר כך; "
             "לצעד האחרון אין מהלך הבא."),
        Hint("Q_Trainer.update: the same pairing; for the next value take the largest "
             "Q.get((next_state, move), 0.0) over next_state.legal_actions().",
             "Q_Trainer.update: אותו צירוף; לערך הבא קחו את ה-Q.get((next_state, move), 0.0) "
             "הגדול ביותר על next_state.legal_actions()."),
        Hint("Nim: the keys of self.q are (tuple(state), action), because a list cannot be a "
             "dictionary key. get_q_value and update_q_value are one line each; "
             "best_future_reward is a max over Nim.available_actions(state), with default=0 "
             "for a finished game.",
             "Nim: המפתחות של self.q הם (tuple(state), action), כי רשימה לא יכולה להיות מפתח "
             "במילון. get_q_value ו-update_q_value הן שורה אחת כל אחת; best_future_reward הוא "
             "max על Nim.available_actions(state), עם default=0 למשחק שנגמר."),
        Hint("Nim's choose_action: random.random() < self.epsilon decides whether to explore "
             "(only when `epsilon` is true); otherwise keep every move with the top value and "
             "pick one with random.choice.",
             "choose_action של Nim: random.random() < self.epsilon מחליט אם לחקור (רק כש-"
             "`epsilon` אמיתי); אחרת שמרו את כל המהלכים עם הערך העליון ובחרו אחד עם "
             "random.choice."),
    ),
}


def next_hint(number: int, folder: Path) -> str:
    """The next hint of piece ``number`` that the student in ``folder`` has not seen yet, as the
    text to print; the count seen is kept in ``folder / HINTS_FILE``. After the last hint it
    says that there are no more. Raises ``ValueError`` for a piece that does not exist."""
    if number not in HINTS:
        raise ValueError(f"there is no piece {number}: the pieces are "
                         f"{', '.join(str(n) for n in HINTS)}")
    hints, path = HINTS[number], Path(folder) / HINTS_FILE
    seen = _hints_seen(path)
    shown = seen.get(str(number), 0)
    if shown >= len(hints):
        return (f"No more hints for piece {number}: you have seen all {len(hints)}. To read "
                f"them again from the first, delete {HINTS_FILE}.\n"
                f"אין עוד רמזים לחלק {number}: ראיתם את כל {len(hints)}. כדי לקרוא אותם שוב "
                f"מההתחלה, מחקו את {HINTS_FILE}.")
    seen[str(number)] = shown + 1
    try:
        path.write_text(json.dumps(seen, sort_keys=True) + "\n", encoding="utf-8")
    except OSError:
        pass        # a folder we cannot write to still gets its hint, just not remembered
    hint = hints[shown]
    title = PIECES[number - 1].title
    more = (f"(next: {SELF_CHECK} --hint {number})" if shown + 1 < len(hints)
            else "(that was the last hint for this piece)")
    return (f"Hint {shown + 1} of {len(hints)} for piece {number} -- {title}:\n"
            f"  {hint.english}\n  {hint.hebrew}\n{more}")


def _hints_seen(path: Path) -> dict[str, int]:
    # A missing or damaged file means no hint seen yet: starting over beats a traceback.
    try:
        seen = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(seen, dict):
        return {}
    return {key: value for key, value in seen.items()
            if isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool)
            and value >= 0}
