"""Dependencies point one way: plots -> evolution -> runners -> speednik,
and within a package no two modules import each other, however
indirectly. Every module's imports are read (ast), so a lower package
importing a higher one, or a cycle closed by an import inside a function,
fails here."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Higher number, higher package; a module may import its own or lower ones.
LEVEL = {"speednik": 0, "runners": 1, "evolution": 2, "plots": 3}


@functools.lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, read once for both checks."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported_packages(path: Path) -> list[tuple[int, str]]:
    tree = parsed(path)
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


# -- cycles inside a package ------------------------------------------------------------

def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, name: str, modules: set[str]) -> list[tuple[int, str]]:
    """The project modules `path` (module `name`) imports, each with its
    line: `from a import b` is module a.b when that is one, else a (its
    __init__); a relative import is resolved against the module's package."""
    tree = parsed(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source
                       for a in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant)):
            targets = [str(node.args[0].value)]
        else:
            continue
        for target in targets:
            # `import a.b.c` of a name that is not a module: its nearest module.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.append((node.lineno, target))
    return found


def import_cycles(root: Path = ROOT) -> list[str]:
    """Each cycle of imports between the modules of one package (its
    subpackages included), as the imports that close it."""
    paths = {module_name(p, root): p for package in LEVEL
             for p in sorted((root / package).rglob("*.py"))}
    edges: dict[str, dict[str, int]] = {}
    for name, path in paths.items():
        edges[name] = {}
        for line, target in imported_modules(path, name, set(paths)):
            if target.split(".")[0] == name.split(".")[0]:
                edges[name].setdefault(target, line)

    def path_between(start: str, goal: str) -> list[str] | None:
        # Breadth first: the shortest chain of imports, so the report is short.
        came_from = {start: None}
        frontier = [start]
        while frontier:
            nxt = []
            for module in frontier:
                for target in sorted(edges[module]):
                    if target == goal:
                        chain = [module]
                        while came_from[chain[-1]] is not None:
                            chain.append(came_from[chain[-1]])
                        return chain[::-1] + [goal]
                    if target not in came_from:
                        came_from[target] = module
                        nxt.append(target)
            frontier = nxt
        return None

    cycles, seen = [], set()
    for name in sorted(paths):
        if name in seen:
            continue
        chain = path_between(name, name)
        if chain is None:
            continue
        seen.update(chain)
        cycles.append(", ".join(
            f"{paths[a].relative_to(root)}:{edges[a][b]} imports {b}"
            for a, b in zip(chain, chain[1:])))
    return cycles


def test_no_package_imports_a_higher_one():
    assert layering_violations() == []


def test_no_package_has_an_import_cycle():
    assert import_cycles() == []


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path):
    for package in LEVEL:
        (tmp_path / package).mkdir()
    (tmp_path / "runners" / "x.py").write_text(
        "def f():\n    from plots.fitness import plot_fitness\n")
    (tmp_path / "evolution" / "y.py").write_text("import runners.parallel\n")
    assert layering_violations(tmp_path) == ["runners/x.py:2 imports plots.fitness"]


def test_the_check_sees_cycles_closed_inside_functions_and_through_inits(tmp_path):
    for package in LEVEL:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    runners = tmp_path / "runners"
    # a -> b -> c -> a, the last import inside a function.
    (runners / "a.py").write_text("from runners.b import thing\n")
    (runners / "b.py").write_text("import os\n\nfrom . import c\n")
    (runners / "c.py").write_text("def f():\n    from runners.a import x\n")
    # A submodule importing its own package's __init__, which imports it.
    (tmp_path / "speednik" / "stages").mkdir()
    (tmp_path / "speednik" / "stages" / "__init__.py").write_text(
        "from speednik.stages.gen import make\n")
    (tmp_path / "speednik" / "stages" / "gen.py").write_text(
        "def make():\n    from speednik.stages import make as cached\n")
    # Not cycles: one way within a package, and across packages.
    (tmp_path / "evolution" / "p.py").write_text("from evolution import q\n")
    (tmp_path / "evolution" / "q.py").write_text("import runners.a\n")
    assert import_cycles(tmp_path) == [
        "runners/a.py:1 imports runners.b, runners/b.py:3 imports runners.c, "
        "runners/c.py:2 imports runners.a",
        "speednik/stages/__init__.py:1 imports speednik.stages.gen, "
        "speednik/stages/gen.py:2 imports speednik.stages",
    ]
