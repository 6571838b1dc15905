"""Shared test set-up: run from the project root, no real window, and the course's fixtures."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# The course's original tables live beside the project (never copied into it); a user's clone has
# no such folder, CI has.
FIXTURES = ROOT.parent / "shared" / "fixtures" / "original-course"


@pytest.fixture
def fixture_path():
    """Path of a course fixture by file name; skips the test when the fixtures are absent."""
    def find(name: str) -> str:
        path = FIXTURES / name
        if not path.is_file():
            pytest.skip(f"course fixture {name} not found beside the project ({FIXTURES})")
        return str(path)
    return find


@pytest.fixture
def chapter():
    """The chapter's code (``tools/course/chapter_code``); skips the test when its listings are
    absent."""
    from tools.course import chapter_code
    try:
        chapter_code.listing("README.md")
    except chapter_code.ListingMissing as missing:
        pytest.skip(str(missing))
    return chapter_code
