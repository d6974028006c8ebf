"""Dependencies point one way: plots -> evolution -> runners -> speednik.
Every module's imports are read (ast), so a lower package importing a
higher one, even inside a function, fails here."""
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
