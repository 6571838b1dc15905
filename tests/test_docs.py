"""The README and docs/: the student's README stays short with a contents list that works, every
link points at something there, and every figure a command produces is the one it prints now
(tools/docs_figures.py makes them; make docs writes them in)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools import docs_figures
from tools.figures import FIGURES

pytestmark = pytest.mark.solved_only   # the students' version has its own README and no figures

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MOST_LINES = 250
LINK = re.compile(r"\]\(([^)#\s]*)(#[^)\s]*)?\)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return "#" + text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)     # no headings in code
    return {anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#+ ", line)}


def test_the_readme_is_short_and_opens_with_a_contents_list_that_works():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MOST_LINES
    contents = text.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- \[[^]]+\]\((#[^)]+)\)", contents, re.M)
    headings = anchors(README)
    assert len(listed) >= 6 and set(listed) <= headings, set(listed) - headings
    for part in ("#set-up", "#train", "#measure", "#play", "#the-exercise", "#tests"):
        assert part in listed, part


def test_every_link_of_the_readme_and_docs_points_at_something_there():
    for path in docs_figures.documents():
        for target, fragment in LINK.findall(path.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            linked = (path.parent / target).resolve() if target else path
            assert linked.exists(), f"{path.relative_to(ROOT)}: {target} is not there"
            if fragment and linked.suffix == ".md":
                assert fragment in anchors(linked), f"{path.relative_to(ROOT)}: {target}{fragment}"


def test_every_marked_figure_is_one_the_script_makes_and_each_is_marked():
    found = docs_figures.marked()
    assert set(found) == set(docs_figures.FIGURES), set(found) ^ set(docs_figures.FIGURES)
    for path in docs_figures.documents():   # a block left open would swallow the text after it
        text = path.read_text(encoding="utf-8")
        assert text.count("<!-- figures:") == text.count("<!-- /figures -->") == len(
            docs_figures.BLOCK.findall(text)), path


def test_only_seconds_and_rates_are_ignored_when_figures_are_compared():
    assert docs_figures.comparable("Trained 200,000 episodes in 3.3 s (60,586 episodes/s)") == \
        docs_figures.comparable("Trained 200,000 episodes in 14.0 s (14,286 episodes/s)")
    assert docs_figures.comparable("wins 98.9583%") != docs_figures.comparable("wins 99.4792%")
    assert docs_figures.comparable("(246 s, load average 7.7 before and 9.7 after)") == \
        docs_figures.comparable("(200 s, load average 0.4 before and 1.9 after)")
    # another processor is another machine's time; a time that names none is made again
    on_epyc = ("(39 s in all, on a 2-core machine, processor AMD EPYC, load average 1.8 before "
               "and 2.0 after)")
    assert docs_figures.comparable(on_epyc) == docs_figures.comparable(
        "(175 s in all, on a 2-core machine, processor Intel Xeon Gold 6148, load average 3.0 "
        "before and 3.1 after)")
    assert docs_figures.comparable(on_epyc) != docs_figures.comparable(
        "(39 s in all, on a 2-core machine, load average 1.8 before and 2.0 after)")


def test_what_a_per_run_seed_draws_is_left_out_of_the_self_checks_figure_only():
    varies = docs_figures.FIGURES["selfcheck"].varies
    one, two = ("    Your X after 9 episodes ..., exact: vs random wins 97.92%, unbeatable",
                "    Your X after 9 episodes ..., exact: vs random wins 96.88%, can be beaten")
    assert docs_figures.comparable(one, varies) == docs_figures.comparable(two, varies)
    assert docs_figures.comparable("piece 3: passed", varies) != \
        docs_figures.comparable("piece 3: FAILED", varies)
    assert not docs_figures.FIGURES["dqn"].varies and not docs_figures.FIGURES["compare"].varies


# A measured figure typed into the prose goes stale unseen; one that a command prints belongs in a
# marked block. Percentages, times and rates outside the blocks are the ones below only.
NOT_MEASURED_HERE = {"98.9 %", "89.5 %",      # the tutorial's own figures, quoted as such
                     "10 %",                    # Nim's epsilon 0.1
                     "99 %",                    # the DQN's target, a setting
                     "0.1 s", "1 s", "20 s", "120 s"}    # time limits and delays: settings
MEASURED = re.compile(r"\d[\d,]*(\.\d+)? ?(%|s\b|ms\b|seconds\b|games/s|episodes/s)")


def test_no_percentage_time_or_rate_is_typed_outside_the_marked_figures():
    for path in docs_figures.documents():
        prose = docs_figures.BLOCK.sub("", path.read_text(encoding="utf-8"))
        typed = {match.group(0) for match in MEASURED.finditer(prose)} - NOT_MEASURED_HERE
        assert not typed, f"{path.relative_to(ROOT)} types {sorted(typed)}: make it a figure"


# "about two minutes", "half an hour": a duration in words is a measurement too (the docs quote
# timed.py's, docs/SPEED.md "How long"); the chapter's own words are quoted as such.
DURATION_IN_WORDS = re.compile(r"\b(?:a|an|one|two|three|a couple of|a few|\d+) (?:minutes?|hours?"
                               r"|min)\b|\b(?:half|quarter|most) of an hour\b|\bhalf an hour\b")
QUOTED_DURATIONS = {'"a minute or two"'}


def test_no_duration_is_stated_in_words_outside_the_figures():
    texts = [*docs_figures.documents(), ROOT / "Makefile", *ROOT.glob("notebooks/*.ipynb")]
    for path in texts:
        prose = docs_figures.BLOCK.sub("", path.read_text(encoding="utf-8"))
        for quote in QUOTED_DURATIONS:
            prose = prose.replace(quote, "")
        stated = DURATION_IN_WORDS.findall(prose)
        assert not stated, f"{path.relative_to(ROOT)} states {stated}: quote a timed.py figure"


def test_a_figure_typed_into_a_block_is_found_different_from_what_its_command_prints(tmp_path):
    document = tmp_path / "doc.md"
    typed = "<!-- figures:dqn -->\n    exact vs random  : wins 99.4792%\n<!-- /figures -->\n"
    document.write_text(typed, encoding="utf-8")
    printed = "\n    exact vs random  : wins 98.9583%\n"
    assert docs_figures.replace(document, "dqn", printed, write=False)
    assert document.read_text(encoding="utf-8") == typed          # --check writes nothing
    assert docs_figures.replace(document, "dqn", printed, write=True)
    assert "98.9583%" in document.read_text(encoding="utf-8")
    assert not docs_figures.replace(document, "dqn", printed, write=False)


def test_a_figure_whose_seconds_and_dates_alone_differ_is_left_as_it_is(tmp_path):
    """make docs on an unchanged tree rewrites no timing or date; a quoted record is written."""
    document = tmp_path / "doc.md"
    typed = "<!-- figures:dqn -->\n\nTrained in 12 s, 2026-12-01:\n    wins 98.9583%\n<!-- /figures -->\n"
    document.write_text(typed, encoding="utf-8")
    again = "\nTrained in 15 s, 2026-12-06:\n    wins 98.9583%\n"
    assert not docs_figures.replace(document, "dqn", again, write=True)
    assert document.read_text(encoding="utf-8") == typed
    assert not docs_figures.replace(document, "dqn", again, write=True, always=True)
    assert "15 s, 2026-12-06" in document.read_text(encoding="utf-8")


def test_the_figures_read_nothing_outside_the_repository():
    """The course's tables and listings are not in a clone: no figure looks beside it."""
    for path in (ROOT / "tools" / "figures.py", ROOT / "tools" / "docs_figures.py"):
        source = path.read_text(encoding="utf-8")
        assert "ROOT.parent" not in source and "../" not in source, path


def check_figures(cost: str, *only: str) -> None:
    done = subprocess.run([sys.executable, "tools/docs_figures.py", "--check", "--cost", cost,
                           *(["--only", *only] if only else [])],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


@pytest.mark.slow
def test_the_instant_figures_are_what_their_commands_print():   # processes: the full suite
    check_figures("instant")


@pytest.mark.slow
def test_the_figures_of_short_runs_are_what_their_commands_print():
    # the instant ones are the test above's
    check_figures("seconds", *(name for name, figure in FIGURES.items()
                               if figure.cost == "seconds"))


def test_make_bench_checks_the_minute_long_figures_that_repeat_exactly():
    """Three minutes of training to compare three figures: make bench does it (``--check``), so
    the suite keeps the figures of shorter runs and proves the properties at smaller sizes."""
    from tools.bench import MINUTE_FIGURES, OTHER_BENCHMARKS
    (options, quick), = [(options, quick) for script, options, quick in OTHER_BENCHMARKS
                         if script == "tools/docs_figures.py"]
    assert options == ("--check", "--cost", "minutes", "--only", *MINUTE_FIGURES) and quick is None
    assert {FIGURES[name].cost for name in MINUTE_FIGURES} == {"minutes"}
    assert {"dqn", "compare", "selfcheck"} <= set(MINUTE_FIGURES)


# --- what the docs say a command does is what it does ------------------------------------------

def test_boards_names_the_x_game_py_plays_on_4x4_k4_and_the_picture_says_how_it_was_taken():
    from tictactoe_rl.geometry import BoardShape
    from tictactoe_rl.tables.shipped import DEFAULT_X_TABLES
    text = (ROOT / "docs" / "BOARDS.md").read_text(encoding="utf-8")
    section = text.split("## Playing on a bigger board\n", 1)[1].split("\n## ", 1)[0]
    assert DEFAULT_X_TABLES[BoardShape(4, 4, 4)] in section
    defaults = [line for line in section.splitlines()
                if line.strip().startswith("python Game.py --board 4x4 --k 4")
                and "--x" not in line]
    assert defaults and not any("advanced" in line for line in defaults), defaults
    captions = re.findall(r"!\[([^]]*)\]\(images/game_4x4", section)
    assert captions and all("--x advanced" in caption for caption in captions), captions


def test_grading_names_the_folder_the_report_keeps_its_tables_in():
    from tools.grading.report import TABLES_FOLDER
    text = (ROOT / "docs" / "GRADING.md").read_text(encoding="utf-8")
    assert "tictactoe_rl/tables/" not in text
    assert f"`{TABLES_FOLDER}/`" in text and f"grading-report/{TABLES_FOLDER}/" in text


def test_the_readme_says_what_of_exact_s_time_is_start_up():
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = text.split("`--exact` walks", 1)[1].split("**", 1)[0]
    assert "milliseconds" not in said and "start-up" in said
