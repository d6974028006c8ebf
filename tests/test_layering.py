"""Dependencies point one way: plots -> evolution -> runners -> speednik.
Every module's imports are read (ast), so a lower package importing a
higher one, even inside a function, fails here. Inside `evolution`, the
search strategies sit below the loop that drives them: what both need
(`evolution.individual`, `evolution.search_state`) is a module below both."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Higher number, higher package; a module may import its own or lower ones.
LEVEL = {"speednik": 0, "runners": 1, "evolution": 2, "plots": 3}


def imported_packages(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant)):
            found.append((node.lineno, str(node.args[0].value)))
    return found


def layering_violations(root: Path = ROOT) -> list[str]:
    bad = []
    for package, level in LEVEL.items():
        for path in sorted((root / package).rglob("*.py")):
            for line, name in imported_packages(path):
                top = name.split(".")[0]
                if LEVEL.get(top, -1) > level:
                    bad.append(f"{path.relative_to(root)}:{line} imports {name}")
    return bad


def test_no_package_imports_a_higher_one():
    assert layering_violations() == []


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path):
    for package in LEVEL:
        (tmp_path / package).mkdir()
    (tmp_path / "runners" / "x.py").write_text(
        "def f():\n    from plots.fitness import plot_fitness\n")
    (tmp_path / "evolution" / "y.py").write_text("import runners.parallel\n")
    assert layering_violations(tmp_path) == ["runners/x.py:2 imports plots.fitness"]


# -- parts of a package below others -------------------------------------------------

# A module under the first name never imports one under any of the others:
# the loop (and the command line above it) drives the strategies, and what
# both need lives in modules below both, which import neither.
BELOW = {
    "evolution.strategies": ("evolution.loop", "evolution.cli"),
    "evolution.individual": ("evolution.loop", "evolution.cli", "evolution.strategies"),
    "evolution.search_state": ("evolution.loop", "evolution.cli", "evolution.strategies"),
    # Fitting a first genome: the loop asks for it, it drives no search.
    "evolution.imitation": ("evolution.loop", "evolution.cli", "evolution.strategies"),
}


def _under(name: str, part: str) -> bool:
    return name == part or name.startswith(part + ".")


def part_violations(root: Path = ROOT) -> list[str]:
    bad = []
    for path in sorted((root / "evolution").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        for part, above in BELOW.items():
            if not _under(module.removesuffix(".__init__"), part):
                continue
            for line, name in imported_packages(path):
                if any(_under(name, a) for a in above):
                    bad.append(f"{path.relative_to(root)}:{line} imports {name}")
    return bad


def test_no_strategy_imports_the_loop_or_the_command_line():
    assert part_violations() == []


def test_the_check_sees_a_strategy_importing_the_loop(tmp_path):
    strategies = tmp_path / "evolution" / "strategies"
    strategies.mkdir(parents=True)
    (tmp_path / "evolution" / "loop").mkdir()
    (strategies / "new_method.py").write_text(
        "from evolution.individual import make_individual\n"
        "def f():\n    from evolution.loop.checkpoint import CheckpointError\n")
    (strategies / "other.py").write_text("import evolution.loop\n")
    (tmp_path / "evolution" / "individual.py").write_text("import evolution.strategies.base\n")
    # The loop may import the strategies and the shared modules.
    (tmp_path / "evolution" / "loop" / "evolve.py").write_text(
        "from evolution.strategies.registry import get_strategy\n"
        "from evolution.individual import make_individual\n")
    assert part_violations(tmp_path) == [
        "evolution/individual.py:1 imports evolution.strategies.base",
        "evolution/strategies/new_method.py:3 imports evolution.loop.checkpoint",
        "evolution/strategies/other.py:1 imports evolution.loop"]


# -- no cycles inside a package ---------------------------------------------------------

def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of its own package it imports, anywhere in it:
    a function-level import closes a cycle as surely as a top-level one,
    and an import only type checkers read (`if TYPE_CHECKING:`) is still a
    dependency of the design."""
    paths = {module_name(p, root): p for package in LEVEL for p in (root / package).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in paths
                           else node.module for a in node.names]
            for target in targets:
                same = target.split(".")[0] == name.split(".")[0]
                if same and target in paths and target != name:
                    graph[name].add(target)
    return graph


def import_cycles(root: Path = ROOT) -> list[list[str]]:
    """Each cycle of imports found, as the modules around it."""
    graph = import_graph(root)
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_no_import_cycle_inside_a_package():
    assert import_cycles() == []


def test_the_check_sees_a_cycle_closed_inside_a_function(tmp_path):
    for package in LEVEL:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "runners" / "a.py").write_text("from runners.b import x\n")
    (tmp_path / "runners" / "b.py").write_text("def x():\n    from runners import a\n")
    (tmp_path / "runners" / "c.py").write_text("import runners.a\n")
    assert import_cycles(tmp_path) == [["runners.a", "runners.b", "runners.a"]]


def test_the_check_sees_a_cycle_closed_by_a_type_only_import(tmp_path):
    for package in LEVEL:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "evolution" / "loop.py").write_text("from evolution.report import Reporter\n")
    (tmp_path / "evolution" / "report.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from evolution.loop import RunState\n")
    assert import_cycles(tmp_path) == [["evolution.loop", "evolution.report", "evolution.loop"]]
