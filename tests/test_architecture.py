"""The import arrows between the first-party packages run one way: rules <- tournament <- scoring <- public
<- config (`public`, the read model, is checked once it exists).

The graph is read statically with `ast`, from every `import` and `from … import` in the source, at module
level and inside functions (a function-level import is how an import circle hides), but not under
`if TYPE_CHECKING:` (never run). A relative import is resolved against its package, and `from pkg import
name` points at the module pkg.name when there is one, else at pkg. Strings naming modules (INSTALLED_APPS,
`include("…")`) are not imports and are not read.

- No import circle between modules.
- `rules/` and `tournament/formats/` are pure Python: no Django, no third-party package but the word list,
  nothing first-party outside themselves (the formats may use `rules`).
- `tournament` never imports `scoring`, `public` or `config`; `scoring` never imports `public` or `config`;
  `public` never imports `config`; `rules` imports nothing first-party outside `rules`.
- Services and models never import a forms or views module (first-party): what both need lives in a module
  of its own (tournament/list_text.py, tournament/registration_fields.py …).

Each thing has one home, read from the source of every project file but tests and migrations:

- Rows are locked only in tournament/services/locking.py: `select_for_update` and row-locking SQL
  ("FOR UPDATE", "FOR SHARE") appear nowhere else (docstrings aside).
- `Seat` and `DrawTable` rows are queried (`Seat.objects`, `DrawTable.objects`) only in the seating module,
  tournament/services/seating.py, and in the read model (`public/`). Not seen: queries through a related
  manager (`draw.seats`, `draw.tables`) or a lookup (`seats__…`), which need types to tell apart from a
  score sheet's `seats`.
"""

import ast
import os
import re
import sys
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = ("rules", "tournament", "scoring", "public", "config")
# pyspellchecker: the English word list of Rummikub Word (rules/word/dictionary.py).
PURE_THIRD_PARTY = frozenset({"spellchecker"})


def module_files(root: Path, packages=FIRST_PARTY) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root` (a package is its __init__). A
    package not there yet (`public`) has none."""
    modules = {}
    for package in packages:
        if not (root / package).is_dir():
            continue
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


def _from_base(node: ast.ImportFrom, package: str) -> str:
    """The module a `from … import` reads from, a relative one resolved against `package`."""
    if not node.level:
        return node.module
    base_parts = package.split(".")
    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
    return ".".join([*base_parts, node.module] if node.module else base_parts)


def imports_of(source: str, *, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules `source` (module `module`) imports: first-party ones by their full name (from `known`),
    others by their dotted name as written (`django.db`, `spellchecker`)."""
    package = module if is_package else module.rpartition(".")[0]
    targets = set()
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets.update(_known(alias.name, known) for alias in node.names)
            continue
        base = _from_base(node, package)
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


# Which first-party packages each may import: the arrows run rules <- tournament <- scoring <- public <- config.
LAYERS = {
    "rules": ("rules",),
    "tournament": ("rules", "tournament"),
    "scoring": ("rules", "tournament", "scoring"),
    "public": ("rules", "tournament", "scoring", "public"),
    "config": FIRST_PARTY,
}


def layer_violations(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    return [
        f"{module} imports {target}"
        for module in sorted(graph)
        for target in sorted(graph[module])
        if _top(target) in FIRST_PARTY and _top(target) not in layers[_top(module)]
    ]


def _is_ui(module: str) -> bool:
    """A first-party forms or views module (tournament.forms.fields, scoring.views, scoring.games.word.forms)."""
    return _top(module) in FIRST_PARTY and any(part in ("forms", "views") for part in module.split(".")[1:])


def _is_service_or_model(module: str) -> bool:
    """A module under a package's services/ or models (scoring.models, tournament.models.play)."""
    return any(part in ("services", "models") for part in module.split(".")[1:])


def ui_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a forms or views module by a service or a model."""
    return [
        f"{module} imports {target}"
        for module in sorted(graph) if _is_service_or_model(module)
        for target in sorted(graph[module]) if _is_ui(target)
    ]


# --- one home for each thing ---------------------------------------------------------------------------------

# Folders whose Python is not the project's code: tests, migrations (history, written by Django), and what is
# not in the repository (a virtual environment, caches, builds; hidden folders such as .venv are skipped too).
NOT_PROJECT_CODE = frozenset({"tests", "migrations", "venv", "node_modules", "__pycache__", "build"})


def project_sources(root: Path = ROOT) -> dict[str, str]:
    """Path from `root` (a/b.py) -> source, for every Python file of the project but tests and migrations."""
    sources = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders
                               if name not in NOT_PROJECT_CODE and not name.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder, name)
                sources[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return sources


def _module_of(path: str) -> tuple[str, bool]:
    """("tournament.services.seating", False) for tournament/services/seating.py; a package is its __init__."""
    parts = Path(path).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                found.add(id(first.value))
    return found


LOCKING_MODULE = "tournament/services/locking.py"
# Row-locking clauses of SQL, as PostgreSQL writes them (upper case: prose that says "for update" is no query).
ROW_LOCK_SQL = re.compile(r"\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b")
# Read-side files (moving into public/) that may still lock rows themselves, file -> why: none does today. An
# entry must still lock (test_each_file_let_off_still_needs_it), so this list and the two below only shrink.
LOCKS_ALLOWED_FOR_NOW: dict[str, str] = {}


def _tree(source: str | ast.AST) -> ast.AST:
    return ast.parse(source) if isinstance(source, str) else source


def row_locks(source: str | ast.AST) -> list[str]:
    """Where `source` (text, or parsed) locks rows: `select_for_update` in any form (a call, a name, a string
    given to getattr) and row-locking SQL in a string; docstrings, which only talk about it, aside."""
    tree = _tree(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "select_for_update":
            found.append(f"line {node.lineno}: .select_for_update")
        elif isinstance(node, ast.Name) and node.id == "select_for_update":
            found.append(f"line {node.lineno}: select_for_update")
        elif isinstance(node, ast.alias) and "select_for_update" in (node.name, node.asname):
            found.append(f"line {node.lineno}: import of select_for_update")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and ("select_for_update" in node.value or ROW_LOCK_SQL.search(node.value))):
            found.append(f"line {node.lineno}: {node.value.strip()[:60]!r}")
    return sorted(found, key=lambda where: int(where.split()[1].rstrip(":")))


SEATING_MODULE = "tournament/services/seating.py"
SEATING_MODELS = frozenset({"Seat", "DrawTable"})
SEATING_MODEL_HOMES = frozenset({"tournament.models", "tournament.models.play"})
MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})
# Read-side files that query seats and tables themselves outside public/ (which may), file -> what: none since
# the public pages moved into public/.
SEATING_READ_SIDE_FOR_NOW: dict[str, str] = {}
# Write-side files whose seat or table queries have not moved into seating.py yet, file -> what: none left.
SEATING_QUERIES_NOT_MOVED_YET: dict[str, str] = {}


def seating_queries(source: str | ast.AST, *, module: str, is_package: bool) -> list[str]:
    """Where `source` (text, or parsed) queries Seat or DrawTable rows through their manager (`Seat.objects…`),
    the model imported under any name (`from tournament.models import Seat as S`, `models.DrawTable`)."""
    tree = _tree(source)
    package = module if is_package else module.rpartition(".")[0]
    names = set(SEATING_MODELS)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _from_base(node, package) in SEATING_MODEL_HOMES:
            names.update(alias.asname for alias in node.names if alias.name in SEATING_MODELS and alias.asname)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr in MANAGERS):
            continue
        model = node.value
        if isinstance(model, ast.Name) and model.id in names:
            found.append(f"line {node.lineno}: {model.id}.{node.attr}")
        elif isinstance(model, ast.Attribute) and model.attr in SEATING_MODELS:
            found.append(f"line {node.lineno}: {model.attr}.{node.attr}")
    return sorted(found, key=lambda where: int(where.split()[1].rstrip(":")))


def _seating_queries_in(path: str, tree: ast.AST) -> list[str]:
    module, is_package = _module_of(path)
    return seating_queries(tree, module=module, is_package=is_package)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


@pytest.fixture(scope="module")
def parsed() -> dict[str, ast.AST]:
    """Every project file, parsed once for all the checks."""
    return {path: ast.parse(source) for path, source in project_sources().items()}


def test_the_graph_covers_every_package_and_sees_known_arrows(graph):
    assert {_top(module) for module in graph} == {package for package in FIRST_PARTY if (ROOT / package).is_dir()}
    assert "scoring.views.board" in graph["scoring.urls"]  # from .views import board
    assert "public.views.standings" in graph["public.urls"]
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


def test_services_and_models_import_no_forms_nor_views(graph):
    assert ui_imports(graph) == []


def test_the_scan_reads_the_project_but_not_its_tests_nor_migrations(parsed):
    assert {"manage.py", LOCKING_MODULE, SEATING_MODULE, "scoring/services/sheets.py", "bench/draws.py"} <= set(parsed)
    assert not [path for path in parsed if path.startswith("tests/") or "/migrations/" in path]
    assert row_locks(parsed[LOCKING_MODULE])  # the scan would see a lock: the locking module has them
    assert seating_queries(parsed[SEATING_MODULE], module="tournament.services.seating", is_package=False)


def test_rows_are_locked_only_in_the_locking_module(parsed):
    found = {path: where for path, tree in parsed.items()
             if path != LOCKING_MODULE and path not in LOCKS_ALLOWED_FOR_NOW and (where := row_locks(tree))}
    assert not found, "rows locked outside tournament/services/locking.py (give it a function there):\n" + "\n".join(
        f"{path}: {', '.join(where)}" for path, where in sorted(found.items()))


def test_seats_and_tables_are_queried_only_by_the_seating_module_and_the_read_model(parsed):
    allowed = {SEATING_MODULE, *SEATING_READ_SIDE_FOR_NOW, *SEATING_QUERIES_NOT_MOVED_YET}
    found = {path: where for path, tree in parsed.items()
             if path not in allowed and not path.startswith("public/") and (where := _seating_queries_in(path, tree))}
    assert not found, ("Seat / DrawTable queried outside tournament/services/seating.py (add a function "
                       "there):\n" + "\n".join(f"{path}: {', '.join(where)}" for path, where in sorted(found.items())))


@pytest.mark.parametrize("allowlist, check", [
    (LOCKS_ALLOWED_FOR_NOW, lambda path, tree: row_locks(tree)),
    ({**SEATING_READ_SIDE_FOR_NOW, **SEATING_QUERIES_NOT_MOVED_YET}, _seating_queries_in),
], ids=["locks", "seating"])
def test_each_file_let_off_still_needs_it(parsed, allowlist, check):
    """An entry for a file that has moved, or no longer does what it was let off for, is taken off the list."""
    stale = [path for path in allowlist if path not in parsed or not check(path, parsed[path])]
    assert not stale, f"take these off the list: {stale}"


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
    read_model = {
        "public.views": {"scoring.standings", "tournament.models", "config.settings"},
        "scoring.standings": {"public.snapshot"},
        "tournament.services.seating": {"public.cache"},
        "public.snapshot": {"rules.meld"},
    }
    assert layer_violations(read_model) == [
        "public.views imports config.settings", "scoring.standings imports public.snapshot",
        "tournament.services.seating imports public.cache",
    ]


def test_module_files_skips_a_package_not_there_yet(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "__init__.py").write_text("")
    (tmp_path / "rules" / "meld.py").write_text("")
    assert module_files(tmp_path, packages=("rules", "public")) == {
        "rules": tmp_path / "rules" / "__init__.py", "rules.meld": tmp_path / "rules" / "meld.py"}


def test_the_forms_check_names_a_service_or_model_importing_forms_or_views():
    graph = {
        "tournament.services.festivals": {"tournament.forms.manage", "tournament.slugs", "django.forms"},
        "tournament.services.imports.validation": {"tournament.registration_fields"},
        "tournament.models.fields": {"tournament.forms.fields"},
        "scoring.models": {"scoring.views.board"},
        "scoring.services.sheets": {"scoring.games.word.forms", "scoring.games"},
        "public.services.cache": {"public.views"},
        "tournament.forms.registration": {"tournament.services.consent"},  # forms may use services
        "tournament.views.manage": {"tournament.forms.manage"},
    }
    assert ui_imports(graph) == [
        "public.services.cache imports public.views", "scoring.models imports scoring.views.board",
        "scoring.services.sheets imports scoring.games.word.forms",
        "tournament.models.fields imports tournament.forms.fields",
        "tournament.services.festivals imports tournament.forms.manage",
    ]


def test_the_lock_check_sees_every_way_to_lock_but_not_talk_about_it():
    source = '''"""Locks rows with select_for_update (this docstring only says so)."""
from django.db import connection


def f(rows, pk):
    """FOR UPDATE in a docstring is no lock."""
    rows.filter(pk=pk).select_for_update(of=("self",)).get()
    lock = getattr(rows, "select_for_update")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM t WHERE id = %s FOR SHARE", [pk])
        cursor.execute("SELECT 1 FROM t FOR NO KEY UPDATE SKIP LOCKED")
    features = connection.features.has_select_for_update  # a feature flag, not a lock
    return _("Tap for update")  # prose
'''
    assert row_locks(source) == [
        "line 7: .select_for_update", "line 8: 'select_for_update'",
        "line 10: 'SELECT 1 FROM t WHERE id = %s FOR SHARE'", "line 11: 'SELECT 1 FROM t FOR NO KEY UPDATE SKIP LOCKED'",
    ]


def test_the_seating_check_sees_the_models_under_any_name():
    source = '''
from tournament import models
from tournament.models import Draw, DrawTable as Tables, Seat
from .seating import seats


def f(draw, event):
    Draw.objects.filter(stage__event=event)  # not a seat
    seats(draw)  # through the seating module
    Seat(draw=draw, position=1)  # an unsaved row (a check, a bulk_create's argument): no query
    Seat.objects.filter(draw=draw)
    Exists(Tables.objects.filter(draw=draw))
    models.DrawTable._default_manager.count()
'''
    assert seating_queries(source, module="scoring.thing", is_package=False) == [
        "line 11: Seat.objects", "line 12: Tables.objects", "line 13: DrawTable._default_manager",
    ]
    relative = "from ..models import DrawTable as T\nT.objects.all()\n"
    assert seating_queries(relative, module="tournament.services.x", is_package=False) == ["line 2: T.objects"]


ZONE_MODULE = "tournament/zone.py"


def test_the_festivals_time_zone_is_switched_on_in_one_place(parsed):
    """A zone switched on by whichever helper fetched the festival was once reset by the stack before the view
    rendered: every way in goes through `tournament.zone.use_festival_zone` instead."""
    found = sorted(f"{path}:{node.lineno}" for path, tree in parsed.items() if path != ZONE_MODULE
                   for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr == "activate" and isinstance(node.func.value, ast.Name)
                   and node.func.value.id == "timezone")
    assert found == []


def test_a_public_poll_is_answered_inside_public(graph):
    """The way of a live page from the lane to its answer: the live views and what they import stay in
    public/, reading the models, scoring's standings and results and tournament's rules of what is shown —
    never another app's views."""
    live_views = [module for module in graph if module.startswith("public.views.") and module != "public.views.personal"]
    for module in ("public.lane", "public.live", "public.version", "public.cache", "public.snapshot", *live_views):
        views_elsewhere = sorted(target for target in graph[module]
                                 if _top(target) in ("tournament", "scoring") and ".views" in target
                                 and target != "tournament.views.helpers")
        assert views_elsewhere == [], module
