"""The commands of the documents that run in a copy of their own (``OWN_COPY`` of
tests/test_commands.py, which runs all the others): each makes every file its commands use, so
make test-all's two workers run the two halves side by side."""

import pytest

from tests.test_commands import all_worked, git_copy, git_status, run_documented

# every command of three documents, one after another: minutes; the students' version skips it
pytestmark = [pytest.mark.slow, pytest.mark.solved_only]


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return git_copy(tmp_path_factory.mktemp("commands-docs"))


@pytest.fixture(scope="module")
def ran(copy):
    return run_documented(copy, "own copy")


def test_every_command_of_these_documents_works(ran):
    assert len(ran) >= 40
    all_worked(ran)


def test_their_results_are_there_for_the_next_commands(ran, copy):
    for name in ("my_Q_QL_X.pth", "my_Q_QL_lecture_X.pth", "learning_curve.png", "my_DQN_X.pt",
                 "my_Q_ADV_X_4x4k4.pth", "my_Q_MC_X_4x4k4.pth", "my_gym_X.pth"):
        assert (copy / "Data" / name).is_file(), name


def test_the_commands_leave_git_status_clean(ran, copy):
    assert git_status(copy) == ""
