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
