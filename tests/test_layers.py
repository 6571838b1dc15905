"""The layers are what docs/ARCHITECTURE.md says: every module outside tests/ is parsed with
``ast``, the graph of its imports is built (imports inside functions count), and the test checks
that no import runs up a floor (the floors are read from the document's ``floors`` block, so the
two cannot disagree), that no top-level modules or packages import one another round a circle,
that neither do the modules inside a package, and that nothing inside the package takes a name
from its face (``tictactoe_rl/__init__.py``). Nothing is exempt."""

import ast
import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Not the project's modules: the tests, the book's stand-alone chapter files, the environment.
OUTSIDE = {"tests", "book", "docs", "notebooks", "Data"}
FLOORS_BLOCK = re.compile(r"^```floors\n(.*?)^```", re.S | re.M)

def source_files() -> list[Path]:
    """The ``.py`` files of the project: in a git clone those git does not ignore (so ``pip
    install .``'s build/, ``make exercise``'s exercise/ are no modules of it), else every one."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard", "*.py"], cwd=ROOT, capture_output=True)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT,
                             capture_output=True, text=True)
    except OSError:          # no git here
        return list(ROOT.rglob("*.py"))
    if listed.returncode or top.returncode or Path(top.stdout.strip()).resolve() != ROOT:
        return list(ROOT.rglob("*.py"))
    return [ROOT / name for name in listed.stdout.decode().split("\0")
            if name and (ROOT / name).is_file()]


def project_modules() -> dict[str, Path]:
    """``{dotted name: file}`` of every module of the project."""
    found = {}
    for path in source_files():
        parts = path.relative_to(ROOT).parts
        if parts[0] in OUTSIDE or any(part.startswith(".") for part in parts):
            continue
        name = ".".join(parts)[:-len(".py")]
        found[name.removesuffix(".__init__")] = path
    return found


MODULES = project_modules()


def resolve(name: str) -> str | None:
    """The project module an imported name lives in (``a.b.c`` -> ``a.b`` when ``c`` is a name
    in ``a/b.py``), or None for a module from elsewhere."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def with_packages(module: str | None) -> set[str]:
    """``module`` and every package it is in: importing ``a.b.c`` runs ``a`` and ``a.b`` too."""
    if module is None:
        return set()
    parts = module.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts) + 1)} & set(MODULES)


def imported_by(name: str) -> set[str]:
    """The project modules that module ``name`` imports, anywhere in its code, with the packages
    that hold them."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found |= with_packages(resolve(alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            for alias in node.names:
                found |= with_packages(resolve(f"{base}.{alias.name}"))
    return found - {name}


GRAPH = {name: imported_by(name) for name in MODULES}


def floors() -> list[list[str]]:
    """The names of each floor, top first, from docs/ARCHITECTURE.md."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = FLOORS_BLOCK.search(text)
    assert block, "docs/ARCHITECTURE.md has no ```floors block"
    return [line.split()[1:] for line in block.group(1).splitlines() if line.strip()]


def floor_of(name: str, levels: list[list[str]]) -> int:
    """The floor (0 = top) of module ``name``: that of the longest entry naming it or a package
    it is in."""
    best, floor = -1, None
    for number, entries in enumerate(levels):
        for entry in entries:
            if fnmatch.fnmatchcase(name, entry) or name == entry or name.startswith(entry + "."):
                if len(entry) > best:
                    best, floor = len(entry), number
    assert floor is not None, f"{name} is on no floor of docs/ARCHITECTURE.md"
    return floor


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.add(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


PACKAGE = "tictactoe_rl"


def top(name: str) -> str:
    """The unit ``name`` belongs to: a top-level module or package, or a subpackage (or module)
    of the one package, whose parts sit on different floors."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == PACKAGE and len(parts) > 1 else parts[0]


def test_the_graph_sees_the_imports_it_should():
    """The parser finds what is there: a plain import, a from-import of a name, a lazy import."""
    assert {"Agent", "tictactoe_rl.exploration.schedules", "tictactoe_rl.tables.files"} <= GRAPH["AI_Agent"]
    assert "tictactoe_rl.neural.agent" in GRAPH["tictactoe_rl.players.specs"]          # inside make_agent
    assert "tictactoe_rl.training.rules" in GRAPH["SARSA_Trainer"]


def test_every_module_is_on_a_floor():
    levels = floors()
    assert [len(level) > 0 for level in levels] == [True, True, True]
    for name in MODULES:
        floor_of(name, levels)


def test_no_import_runs_up_a_floor():
    levels = floors()
    upward = {(name, other) for name, others in GRAPH.items() for other in others
              if floor_of(other, levels) < floor_of(name, levels)}
    assert upward == set()


def test_no_circle_between_top_level_modules_and_packages():
    graph: dict[str, set[str]] = {}
    for name, others in GRAPH.items():
        graph.setdefault(top(name), set()).update(top(other) for other in others
                                                  if top(other) != top(name))
    assert circles(graph) == []


@pytest.mark.parametrize("package", sorted({top(name) for name in MODULES
                                            if "." in name and top(name) != name}))
def test_no_circle_inside_a_package(package):
    inside = {name: {other for other in others if top(other) == package}
              for name, others in GRAPH.items() if top(name) == package}
    assert circles(inside) == []


def face_uses(name: str, source: str) -> set[str]:
    """What module ``name`` (whose code is ``source``) takes from the package's face,
    ``tictactoe_rl/__init__.py``: a name imported from it that is none of its modules (``from
    tictactoe_rl import COURSE``, ``from .. import COURSE``), or an attribute read off the bare
    package (``import tictactoe_rl`` then ``tictactoe_rl.COURSE``). Importing a module of the
    package (``from tictactoe_rl import cli``) takes nothing from the face."""
    package = name if MODULES.get(name, Path()).name == "__init__.py" else name.rpartition(".")[0]
    used = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            if base == PACKAGE:
                used |= {alias.name for alias in node.names
                         if f"{PACKAGE}.{alias.name}" not in MODULES}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == PACKAGE and f"{PACKAGE}.{node.attr}" not in MODULES:
            used.add(node.attr)
    return used


def test_face_uses_sees_a_name_taken_from_the_face_and_nothing_else():
    assert face_uses("tictactoe_rl.tables.x", "from tictactoe_rl import COURSE, cli") == {"COURSE"}
    assert face_uses("tictactoe_rl.tables.x", "from ... import INSTALLED") == set()   # not the face
    assert face_uses("tictactoe_rl.tables.x", "from .. import INSTALLED") == {"INSTALLED"}
    assert face_uses("tictactoe_rl.x", "import tictactoe_rl.cli\ntictactoe_rl.COURSE") == \
        {"COURSE"}
    assert face_uses("tictactoe_rl.x", "import tictactoe_rl.cli\ntictactoe_rl.cli.fail") == set()
    assert face_uses("tictactoe_rl.x", "from tictactoe_rl.home import COURSE") == set()


def test_nothing_inside_the_package_imports_its_face():
    """The face (``tictactoe_rl/__init__.py``) loads its exports from the floors above and
    below: a module inside that took a name from it would import round through it. What they
    share (the course's folder, its module names) lives on the ground floor."""
    inside = {name: path for name, path in MODULES.items() if name.startswith(PACKAGE + ".")}
    taken = {name: sorted(uses) for name, path in inside.items()
             if (uses := face_uses(name, path.read_text(encoding="utf-8")))}
    assert taken == {}


MOST_LINES = 350     # a module a student reads in one sitting; past this it is split


def test_no_module_is_longer_than_a_sitting():
    long = {name: lines for name, path in MODULES.items()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert not long, f"modules over {MOST_LINES} lines: {long}"


def test_build_output_and_other_ignored_files_are_no_modules():
    """``pip install .`` leaves build/lib/ (a copy of every module): not part of the layers."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git clone: every .py file is the project's")
    assert not any(name.split(".")[0] in ("build", "exercise") or ".egg-info" in name
                   for name in MODULES)
    assert "State" in MODULES and "check" in MODULES and "tools.docs_figures" in MODULES
