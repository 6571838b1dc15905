"""The classroom notebook runs top to bottom in a fresh kernel, quickly, and shows its lesson."""

import json
import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # runs the notebook in a fresh kernel

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "monte_carlo.ipynb"
BUDGET_SECONDS = 600   # it ended (about a minute idle); a generous bound, not a speed claim
# The notebook trains with the solved MC_Trainer (--plot); the students' version runs their own
# main, which refuses it, so there these tests skip.
solved_only = pytest.mark.solved_only
EXTRAS = "the notebook extras are not installed (pip install -r requirements-extra.txt)"


def test_the_committed_notebook_has_no_outputs():
    """Outputs are cleared before committing, so a change to the notebook is a small diff."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert code and all(not cell["outputs"] and cell["execution_count"] is None for cell in code)


def printed(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs
                   if output.output_type == "stream" and output.name == "stdout")


@pytest.fixture(scope="module")
def executed():
    """The notebook after a run in a fresh kernel, from the repository root, and its seconds."""
    nbformat = pytest.importorskip("nbformat", reason=f"nbformat: {EXTRAS}")
    nbclient = pytest.importorskip("nbclient", reason=f"nbclient: {EXTRAS}")
    pytest.importorskip("ipykernel", reason=f"ipykernel: {EXTRAS}")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=BUDGET_SECONDS, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    started = time.perf_counter()
    client.execute()   # raises CellExecutionError, with the cell and traceback, if a cell fails
    return notebook, time.perf_counter() - started


def cell_printing(notebook, pattern: str):
    """The first code cell whose printed text matches ``pattern``."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and re.search(pattern, printed(cell)):
            return cell
    raise AssertionError(f"no cell printed {pattern!r}")


@solved_only
def test_it_runs_within_the_budget(executed):
    notebook, seconds = executed
    assert seconds < BUDGET_SECONDS
    assert not [output for cell in notebook.cells if cell.cell_type == "code"
                for output in cell.outputs if output.output_type == "error"]


@solved_only
def test_it_trains_and_draws_the_learning_curves(executed):
    notebook, _ = executed
    assert "Saved the learning curves to Data/my_nb_MC_X.png" in printed(
        cell_printing(notebook, "200,000 episodes"))
    images = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if "image/png" in output.get("data", {})]
    assert len(images) == 1


@solved_only
def test_it_shows_q_values_on_boards(executed):
    notebook, _ = executed
    text = printed(cell_printing(notebook, "Q-values of X's table"))
    # the empty board: nine values, the centre bracketed as the greedy opening
    assert len(re.findall(r"[+-]\d\.\d{3}", text.split("\n\n")[1])) == 9
    assert re.search(r"\|\s*\[\+\d\.\d{3}\]\s*\|", text.split("\n\n")[1].splitlines()[2])
    # O threatens the 0,2-1,1-2,0 diagonal: the greedy move is the block at 2,0
    assert text.rstrip().splitlines()[-1].lstrip().startswith("[+")


@solved_only
def test_it_prints_exact_results(executed):
    notebook, _ = executed
    text = printed(cell_printing(notebook, "worst case: "))
    number = r"\s+([\d.]+)%\s+"
    rates = re.findall(rf"against (\w+)\s+win{number}loss{number}draw{number}", text)
    assert [name for name, *_ in rates] == ["random", "advanced"]
    for _, win, loss, draw in rates:
        assert abs(float(win) + float(loss) + float(draw) - 100) < 1e-3 and float(loss) == 0
    assert float(rates[0][1]) > 95
    assert "worst case: at worst a draw: unbeatable" in text


@solved_only
def test_it_shows_the_losing_line_of_a_weak_table(executed):
    notebook, _ = executed
    text = printed(cell_printing(notebook, "worst case -1: the losing line"))
    moves = re.findall(r"^\d+\. ([XO]) plays \d,\d$", text, re.MULTILINE)
    assert moves and moves[-1] == "O" and moves == ["X", "O"] * (len(moves) // 2)
    # then the table's view of the position where X made its last move
    assert f"X to move after {len(moves) - 2} moves; Q-values of X's table" in text


@solved_only
def test_it_puts_the_dqn_next_to_the_table(executed):
    notebook, _ = executed
    text = printed(cell_printing(notebook, "DQN_Trainer.py|network \\(DQN\\)"))
    if not (ROOT / "DQN_Trainer.py").exists():
        assert "DQN_Trainer.py is not in this checkout yet" in text
        return
    assert "exact vs random" in text and "perfect moves:" in text   # the trainer's own report
    measured = re.findall(r"^(table \(MC\)|network \(DQN\)) .* perfect moves in [\d,]+ of 2,423 X",
                          text, re.MULTILINE)
    assert measured == ["table (MC)", "network (DQN)"] or \
        "the network cannot be measured here yet" in text
