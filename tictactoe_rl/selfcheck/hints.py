"""The how-to of each piece of the exercise (``tictactoe_rl/selfcheck/pieces.py``), one step at a time:
``python check.py --hint N`` shows the next one (``next_hint``). (Mostly text, in two languages,
which is why the module is long.)

The students get this file, so nothing here may show a solution: the hints say what to compute
and where to look, never the code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tictactoe_rl.selfcheck.pieces import PIECES, SELF_CHECK

# Where next_hint remembers how many hints of each piece a student has seen (in their folder).
HINTS_FILE = ".check_hints.json"


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
