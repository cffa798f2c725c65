"""The import arrows between the first-party packages run one way: rules <- tournament <- scoring <- config.

The graph is read statically with `ast`, from every `import` and `from … import` in the source, at module
level and inside functions (a function-level import is how an import circle hides), but not under
`if TYPE_CHECKING:` (never run). A relative import is resolved against its package, and `from pkg import
name` points at the module pkg.name when there is one, else at pkg. Strings naming modules (INSTALLED_APPS,
`include("…")`) are not imports and are not read.

- No import circle between modules.
- `rules/` and `tournament/formats/` are pure Python: no Django, no third-party package but the word list,
  nothing first-party outside themselves (the formats may use `rules`).
- `tournament` never imports `scoring` or `config`; `scoring` never imports `config`; `rules` imports
  nothing first-party outside `rules`.
"""

import ast
import sys
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = ("rules", "tournament", "scoring", "config")
# pyspellchecker: the English word list of Rummikub Word (rules/word/dictionary.py).
PURE_THIRD_PARTY = frozenset({"spellchecker"})


def module_files(root: Path, packages=FIRST_PARTY) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root` (a package is its __init__)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST):
    """Every Import / ImportFrom below `node`, wherever it is, except in the body of `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            yield from _import_nodes(ast.Module(body=child.orelse, type_ignores=[]))
        else:
            yield from _import_nodes(child)


def _known(name: str, known: set[str]) -> str:
    """The deepest module of `known` that `name` is or lies in; a name outside `known` stays as it is."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return name


def imports_of(source: str, *, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules `source` (module `module`) imports: first-party ones by their full name (from `known`),
    others by their dotted name as written (`django.db`, `spellchecker`)."""
    package = module if is_package else module.rpartition(".")[0]
    targets = set()
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets.update(_known(alias.name, known) for alias in node.names)
            continue
        if node.level:
            base_parts = package.split(".")
            base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join([*base_parts, node.module] if node.module else base_parts)
        else:
            base = node.module
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            targets.add(submodule if submodule in known else _known(base, known))
    return targets


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> every module it imports (first-party and not), for all first-party modules."""
    files = module_files(root)
    known = set(files)
    return {
        name: imports_of(path.read_text(encoding="utf-8"), module=name, is_package=path.name == "__init__.py",
                         known=known)
        for name, path in files.items()
    }


def _top(name: str) -> str:
    return name.partition(".")[0]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion (a long import chain cannot hit its limit)."""
    index, low, on_stack, stack, components, counter = {}, {}, set(), [], [], [0]

    def start(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)

    for root in sorted(graph):
        if root in index:
            continue
        start(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in graph:
                    continue
                if succ not in index:
                    start(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def _shortest_cycle(graph: dict[str, set[str]], start: str, within: set[str]) -> list[str]:
    """start -> … -> start, fewest steps, staying in `within`."""
    came_from = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for succ in sorted(graph.get(node, ())):
            if succ == start:
                path = [node]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return [start, *reversed(path[:-1]), start]
            if succ in within and succ not in came_from:
                came_from[succ] = node
                queue.append(succ)
    raise AssertionError(f"{start} is on no cycle")


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import circles: for each group of modules that import each other, the shortest circle through each
    member (the same circle once), as [a, b, …, a]. Empty when the graph has none."""
    cycles = []
    for component in _strongly_connected(graph):
        members = set(component)
        if len(component) == 1 and component[0] not in graph.get(component[0], ()):
            continue
        seen = set()
        for member in component:
            cycle = _shortest_cycle(graph, member, members)[:-1]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]  # told from its first module in name order: once
            if tuple(cycle) not in seen:
                seen.add(tuple(cycle))
                cycles.append([*cycle, cycle[0]])
    return cycles


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _is_third_party(name: str) -> bool:
    top = _top(name)
    return top not in FIRST_PARTY and top not in sys.stdlib_module_names and top != "__future__"


def impure_imports(graph: dict[str, set[str]], *, package: str, allowed_first_party: tuple[str, ...]) -> list[str]:
    """Imports of `package`'s modules that break purity: any third-party package but the word list (Django
    first of all), any first-party module outside `allowed_first_party`."""
    found = []
    for module in sorted(graph):
        if not _in(module, package):
            continue
        for target in sorted(graph[module]):
            if _is_third_party(target) and _top(target) not in PURE_THIRD_PARTY:
                found.append(f"{module} imports {target}")
            elif _top(target) in FIRST_PARTY and not any(_in(target, ok) for ok in allowed_first_party):
                found.append(f"{module} imports {target}")
    return found


# Which first-party packages each may import: the arrows run rules <- tournament <- scoring <- config.
LAYERS = {
    "rules": ("rules",),
    "tournament": ("rules", "tournament"),
    "scoring": ("rules", "tournament", "scoring"),
    "config": FIRST_PARTY,
}


def layer_violations(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    return [
        f"{module} imports {target}"
        for module in sorted(graph)
        for target in sorted(graph[module])
        if _top(target) in FIRST_PARTY and _top(target) not in layers[_top(module)]
    ]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_covers_every_package_and_sees_known_arrows(graph):
    assert {_top(module) for module in graph} == set(FIRST_PARTY)
    assert "scoring.views.event" in graph["scoring.urls"]  # from .views import event
    assert "scoring.urls" in graph["config.urls"]  # from scoring import urls as …
    assert "django.db" in graph["tournament.models.festival"]  # from django.db import models


def test_no_import_cycle(graph):
    cycles = find_cycles(graph)
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


@pytest.mark.parametrize("package, allowed", [("rules", ("rules",)), ("tournament.formats", ("rules", "tournament.formats")),
                                              ("tournament.masking", ("tournament.masking",))])
def test_pure_python_packages_import_no_django_nor_the_apps(graph, package, allowed):
    assert impure_imports(graph, package=package, allowed_first_party=allowed) == []


def test_imports_run_one_way(graph):
    assert layer_violations(graph) == []


# The checks themselves, on hand-made input: each must be able to fail.

def test_the_cycle_finder_finds_a_circle_and_only_a_circle():
    dag = {"a": {"b", "c"}, "b": {"c", "django"}, "c": set()}
    assert find_cycles(dag) == []
    circle = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert sorted(find_cycles(circle)) == [["a", "b", "c", "a"], ["e", "e"]]
    two = {"x": {"y", "z"}, "y": {"x"}, "z": {"x"}}
    assert sorted(find_cycles(two)) == [["x", "y", "x"], ["x", "z", "x"]]


def test_imports_are_read_everywhere_but_under_type_checking():
    source = '''
import os
import tournament.models.festival
from typing import TYPE_CHECKING
from . import live
from .views import board, helper_function
from tournament.models import Event
from rules import *

if TYPE_CHECKING:
    from scoring.models import ScoreSheet
else:
    import json

def view():
    from scoring.services import progress
    class Inner:
        import secrets
'''
    known = {"scoring", "scoring.live", "scoring.views", "scoring.views.board", "scoring.services",
             "scoring.services.progress", "scoring.models", "tournament", "tournament.models",
             "tournament.models.festival", "tournament.formats", "tournament.formats.draw", "rules"}
    assert imports_of(source, module="scoring.thing", is_package=False, known=known) == {
        "os", "tournament.models.festival", "typing", "scoring.live", "scoring.views.board", "scoring.views",
        "tournament.models", "rules", "json", "scoring.services.progress", "secrets",
    }
    # Two dots: the package's parent.
    assert imports_of("from ..formats.draw import new_seed\nfrom .. import models", module="tournament.views.x",
                      is_package=False, known=known) == {"tournament.formats.draw", "tournament.models"}
    # In a package's __init__, "." is the package itself.
    assert imports_of("from . import live", module="scoring", is_package=True, known=known) == {"scoring.live"}


def test_the_purity_and_layer_checks_name_what_breaks_them():
    graph = {
        "rules.meld": {"collections", "spellchecker", "django.conf"},
        "rules.cli": {"rules.meld", "tournament.models"},
        "tournament.formats.draw": {"rules.meld", "tournament.formats.tables", "tournament.models"},
        "tournament.views": {"scoring.live", "django.shortcuts"},
        "scoring.live": {"tournament.models", "config.settings"},
        "config.urls": {"scoring.urls", "tournament.views"},
    }
    assert impure_imports(graph, package="rules", allowed_first_party=("rules",)) == [
        "rules.cli imports tournament.models", "rules.meld imports django.conf",
    ]
    assert impure_imports(graph, package="tournament.formats",
                          allowed_first_party=("rules", "tournament.formats")) == [
        "tournament.formats.draw imports tournament.models",
    ]
    assert layer_violations(graph) == [
        "rules.cli imports tournament.models", "scoring.live imports config.settings",
        "tournament.views imports scoring.live",
    ]
