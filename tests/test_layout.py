"""Where code lives: the command line only in azul_cli, libraries that print nothing."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("engine", "bots", "tournament", "analysis", "learn", "kinds", "present")
UI_MODULES = {"typer", "rich", "click"}


def python_files(package: str) -> list[Path]:
    return [p for p in sorted((ROOT / package).rglob("*.py")) if "notebooks" not in p.parts]


def imported(tree: ast.AST, package: str) -> set[str]:
    """Absolute names of the modules a file imports (relative imports resolved in ``package``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = f"{package}.{node.module or ''}".rstrip(".") if node.level else node.module
            names.add(base)
            if node.level and not node.module:
                names.update(f"{package}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("package", LIBRARIES)
def test_libraries_import_no_command_line_and_print_nothing(package):
    files = python_files(package)
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        ui = {n for n in imported(tree, package) if n.split(".")[0] in UI_MODULES}
        assert not ui, f"{path.relative_to(ROOT)} imports {sorted(ui)}: that belongs in azul_cli"
        prints = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Name) and node.func.id == "print"]
        assert not prints, f"{path.relative_to(ROOT)} prints (lines {prints}): return or report instead"


def test_command_modules_import_no_cycle_and_not_main():
    modules = {p.stem: p for p in python_files("azul_cli")}
    graph = {name: {n.split(".", 1)[1] for n in imported(ast.parse(path.read_text()), "azul_cli")
                    if n.startswith("azul_cli.") and n.split(".", 1)[1] in modules}
             for name, path in modules.items()}
    for name, deps in graph.items():
        if name != "__main__":
            assert "main" not in deps, f"azul_cli/{name}.py imports azul_cli.main"

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join(path + (name,))}"
        for dep in graph[name]:
            visit(dep, path + (name,))

    for name in graph:
        visit(name, ())


# ------------------------------------------------------------------ the layers, .py and .pyx alike
# Each package may import only the packages listed for it (and itself): engine at the bottom, bots
# and the record format above it, tournament (the league driver, which only plays) and analysis
# above those (tournament may use analysis's statistics; analysis never tournament or bots), learn
# (records to positions, models) above the driver, present (what the command line and the web both
# show: a game's lines, the teaching preview, the top moves, the replay page, strict JSON) above
# the driver too, the run kinds (kinds/) above everything they run, azul_cli on top, and web
# (azul serve's pages) beside it: a second face over the same packages, which imports nothing of
# azul_cli, while of azul_cli only serve.py (the command that runs it) imports web.
PACKAGES = ("engine", "bots", "records", "tournament", "analysis", "learn", "present", "kinds", "azul_cli", "web")
ALLOWED = {
    "engine": set(),
    "bots": {"engine"},
    "records": {"engine"},
    "analysis": {"engine", "records"},
    "tournament": {"engine", "bots", "records", "analysis"},
    "learn": {"engine", "bots", "records", "tournament", "analysis"},
    "present": {"engine", "bots", "records", "tournament", "analysis"},
    "kinds": {"engine", "bots", "records", "tournament", "analysis", "learn", "present"},
    "azul_cli": {"engine", "bots", "records", "tournament", "analysis", "learn", "present", "kinds", "web"},
    "web": {"engine", "bots", "records", "tournament", "analysis", "learn", "present", "kinds"},
}
# the compiled modules that may cimport the core's C declarations (engine/_core.pxd)
CORE_CIMPORTERS = {"engine", "bots", "tournament/_fastloop.pyx"}
_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+(c?import)\b|(c?import)\s+([\w.]+))", re.M)


def pyx_imports(path: Path, package: str) -> set[tuple[str, str]]:
    """(module, 'import' or 'cimport') for every import line of a .pyx or .pxd file."""
    found = set()
    for match in _PYX_IMPORT.finditer(path.read_text(encoding="utf-8")):
        module, kind = (match.group(1), match.group(2)) if match.group(1) is not None else (match.group(4),
                                                                                              match.group(3))
        if module.startswith("."):
            module = f"{package}{module}" if module.strip(".") else package
        found.add((module, kind))
    return found


def source_files(package: str) -> list[Path]:
    return python_files(package) + sorted((ROOT / package).rglob("*.pyx")) + sorted((ROOT / package).rglob("*.pxd"))


def imports_of(path: Path, package: str) -> set[str]:
    if path.suffix == ".py":
        return imported(ast.parse(path.read_text(encoding="utf-8")), package)
    return {module for module, _ in pyx_imports(path, package)}


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_the_layers_below(package):
    if not (ROOT / package).is_dir():
        pytest.skip(f"no {package}/")
    for path in source_files(package):
        tops = {name.split(".")[0] for name in imports_of(path, package) if name}
        wrong = sorted(tops & set(PACKAGES) - ALLOWED[package] - {package})
        assert not wrong, (f"{path.relative_to(ROOT)} imports {wrong}: {package} may import only "
                           f"{sorted(ALLOWED[package]) or 'nothing of the project'}")


def test_web_and_the_command_line_meet_only_at_azul_serve():
    """Of azul_cli, only serve.py imports web; web imports no module of azul_cli (what both show
    is in present/), and present imports neither."""
    importers = sorted(path.name for path in source_files("azul_cli")
                       if any(n.split(".")[0] == "web" for n in imports_of(path, "azul_cli")))
    assert importers == ["serve.py"], importers
    for package, above in (("web", {"azul_cli"}), ("present", {"azul_cli", "web"})):
        for path in source_files(package):
            wrong = {n for n in imports_of(path, package) if n.split(".")[0] in above}
            assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
    assert {"present.lines", "present.teach", "present.strict_json"} <= {
        n for path in source_files("web") for n in imports_of(path, "web")}, "web draws with present's pieces"


def module_graph() -> dict[str, set[str]]:
    """Every project module (.py, .pyx) and the project modules it imports, imports made inside
    functions included: ``from a.b import c`` counts as a.b.c when that is a module, else a.b."""
    mods = {}
    for package in PACKAGES:
        for path in source_files(package):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if path.suffix == ".pxd":
                continue
            is_package = parts[-1] == "__init__"
            mods[".".join(parts[:-1] if is_package else parts)] = (path, is_package)

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, (path, is_package) in mods.items():
        here = name.split(".") if is_package else name.split(".")[:-1]
        deps = set()
        if path.suffix == ".pyx":
            deps = {known(m) for m, kind in pyx_imports(path, here[0]) if kind == "import"}
        else:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    deps.update(known(a.name) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    base = (".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
                            if node.level else node.module)
                    deps.update(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else known(base)
                                for a in node.names)
        graph[name] = deps - {None, name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan): each an import cycle."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_round_a_cycle_not_even_inside_a_function():
    graph = module_graph()
    assert "kinds.sprt" in graph["azul_cli.sprt"] and "tournament.runner" in graph["kinds.sprt"]
    assert cycles(graph) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_driver_knows_no_kind():
    """tournament/ plays a schedule into a folder: it names no kind of run and imports no kinds."""
    for path in python_files("tournament"):
        text = path.read_text(encoding="utf-8")
        for word in ('"sprt"', '"study"', '"tune"', '"train"', "'sprt'", "'study'", "'tune'"):
            assert word not in text, f"{path.relative_to(ROOT)} spells the run kind {word}: ask the kind"


def nodes_outside_records():
    """(path, node) for every syntax node of every module outside records/."""
    for package in PACKAGES:
        if package != "records":
            for path in python_files(package):
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    yield path.relative_to(ROOT), node


def test_the_files_of_a_run_folder_are_named_only_in_records():
    """records/names.py names every small file of a run folder once; no module elsewhere spells
    one of those names (nor a glob of a table's parts) in its code."""
    from records.names import RUN_FOLDER_FILES

    spelled = [f"{path}:{node.lineno} {node.value!r}" for path, node in nodes_outside_records()
               if isinstance(node, ast.Constant) and node.value in (*RUN_FOLDER_FILES, "*.parquet")]
    assert not spelled, "run-folder file names spelled outside records/names.py: " + ", ".join(spelled)


def test_a_run_folders_files_are_read_and_written_through_its_store():
    """Outside records/, no path is made of a run folder and one of its file names
    (``run_dir / CONFIG_FILE``): every byte goes through ``records.store.RunStore``."""
    from records import names

    declared = {n for n in dir(names) if n.isupper()}
    found = [f"{path}:{node.lineno} ... / {node.right.id}" for path, node in nodes_outside_records()
             if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
             and isinstance(node.right, ast.Name) and node.right.id in declared]
    assert not found, "run-folder files by path outside records/: " + ", ".join(found)


STORE_TYPES = {"RunStore", "FolderStore", "S3RunStore"}
STORE_METHODS = {"write_part", "commit_of", "part_data", "view", "part_files"}


def store_sniffs(path, node) -> str | None:
    """What in ``node`` tells a run's store from another outside records/ (None: nothing): a call
    of ``is_url``, ``hasattr(x, "write_part")`` (a store's method), ``isinstance(x, RunStore)``."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) \
        else None
    where = f"{path}:{node.lineno}"
    if func == "is_url":
        return f"{where} is_url(...)"
    if func == "hasattr" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) \
            and node.args[1].value in STORE_METHODS:
        return f"{where} hasattr(..., {node.args[1].value!r})"
    if func == "isinstance" and len(node.args) == 2:
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        named = {k.id if isinstance(k, ast.Name) else k.attr if isinstance(k, ast.Attribute) else "" for k in kinds}
        if named & STORE_TYPES:
            return f"{where} isinstance(..., {sorted(named & STORE_TYPES)[0]})"
    return None


def test_only_records_tells_a_url_from_a_path_or_one_store_from_another():
    """Outside records/, nothing asks whether a run is a URL or which store it is: a run is a
    ``RunStore`` (records.store.open_store, the one factory) and callers ask it what they need."""
    found = [f for path, node in nodes_outside_records() if (f := store_sniffs(path, node))]
    assert not found, "a store's type sniffed outside records/: " + ", ".join(found)
    bad = ast.parse('is_url(x)\nhasattr(run, "write_part")\nisinstance(s, records.store.RunStore)\n'
                    'isinstance(s, (int, S3RunStore))\nhasattr(run, "name")\nisinstance(s, Path)')
    caught = [f for node in ast.walk(bad) if (f := store_sniffs("bad.py", node))]
    assert len(caught) == 4, caught  # the check sees each kind of sniff, and nothing else


def test_both_stores_implement_the_whole_interface():
    """``RunStore`` is an abstract base: each store implements every method (none left abstract)."""
    from records.interface import RunStore
    from records.s3store import S3RunStore
    from records.store import FolderStore

    for store in (FolderStore, S3RunStore):
        assert issubclass(store, RunStore) and not store.__abstractmethods__, store


RUN_NAMES = {"run_dir", "run_dirs", "run", "runs", "store"}  # what a parameter holding a run is called


def untyped_run_parameters(path, tree) -> list[str]:
    """The parameters of the functions in ``tree`` named as a run is, whose annotation is missing
    or names ``str`` or ``Path``: a run handed on as a path or a string, not as a ``RunStore``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                text = "" if arg.annotation is None else ast.unparse(arg.annotation)
                if arg.arg in RUN_NAMES and (not text or re.search(r"\b(str|Path)\b", text)):
                    found.append(f"{path}:{arg.lineno} {arg.arg}: {text or '(no annotation)'}")
    return found


def test_records_tournament_and_kinds_hand_a_run_on_as_its_store():
    """Every parameter that holds a run, in records/, tournament/ and kinds/, is typed ``RunStore``
    (the folder store's own insides take its folder, and call it ``folder``); a path appears only
    where a reader of files needs one, through the store's local view (``RunStore.view``)."""
    found = [f for package in ("records", "tournament", "kinds") for path in source_files(package) if path.suffix == ".py"
             for f in untyped_run_parameters(path, ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "a run handed on as a path or a string: " + ", ".join(found)
    bad = ast.parse("def a(run_dir: str | Path): ...\ndef b(store): ...\ndef c(run: RunStore, folder: Path): ...\n"
                    "def d(self, run: Path | RunStore = None): ...")
    assert [f.split(" ", 1)[1] for f in untyped_run_parameters("bad.py", bad)] == \
        ["run_dir: str | Path", "store: (no annotation)", "run: Path | RunStore"]


def test_a_store_opens_a_path_or_a_url_and_is_itself_a_store(tmp_path):
    """``RunStore(where)`` is the factory: a path is a folder's store, a store is returned as it is
    (so a function typed ``RunStore`` may be handed either), a subclass is made as any class."""
    from records.interface import RunStore
    from records.store import FolderStore

    store = RunStore(tmp_path / "run")
    assert type(store) is FolderStore and store.root == tmp_path / "run"
    assert RunStore(store) is store and FolderStore(tmp_path) == RunStore(str(tmp_path))
    assert store.viewed() == store  # a folder is its own view


def test_the_core_is_reached_only_from_engine_and_compiled_modules():
    for package in PACKAGES:
        for path in source_files(package):
            where = path.relative_to(ROOT).as_posix()
            if path.suffix == ".py":
                if package == "engine":
                    continue
                tree = ast.parse(path.read_text(encoding="utf-8"))
                names = imported(tree, package)
                assert not {n for n in names if n.startswith("engine._")}, \
                    f"{where} imports a compiled engine module: use the engine's public API"
                attrs = [node.lineno for node in ast.walk(tree)
                         if isinstance(node, ast.Attribute) and node.attr == "_core"]
                assert not attrs, f"{where} reaches GameState._core (lines {attrs}): only engine/ may"
            else:
                cimports = {m for m, kind in pyx_imports(path, package) if kind == "cimport"}
                if "engine._core" in cimports:
                    assert package in CORE_CIMPORTERS or where in CORE_CIMPORTERS, \
                        f"{where} cimports engine._core: only the compiled modules may"


def test_the_layer_check_sees_a_wrong_import(tmp_path):
    """The checks above read .pyx cimports and relative imports: a bad line is caught."""
    bad = tmp_path / "bad.pyx"
    bad.write_text("from tournament._fastloop cimport play_one\nfrom ._policies cimport Weights\n"
                   "cimport engine._core\n")
    assert pyx_imports(bad, "bots") == {("tournament._fastloop", "cimport"), ("bots._policies", "cimport"),
                                        ("engine._core", "cimport")}
    bad_py = tmp_path / "bad.py"
    bad_py.write_text("from ..tournament import runner\nfrom . import spec\n")
    assert "bots.spec" in imported(ast.parse(bad_py.read_text()), "bots")


PRINTS = {"echo", "print"}  # typer.echo, print, console.print


def test_every_json_a_command_prints_goes_through_print_json():
    """Strict JSON once (``azul_cli.common.print_json``: no NaN or Infinity): no command prints a
    ``json.dumps`` of its own."""
    found = []
    for path in python_files("azul_cli"):
        if path.name == "common.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in PRINTS and any(
                    isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "dumps"
                    for arg in node.args for a in ast.walk(arg)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_commands_lay_their_options_over_settings_one_way():
    """A command's options go over a settings file (or a stopped run's stored settings) by
    ``kinds.base.with_options`` before the kind checks them, never by replacing fields of the
    checked settings (``dataclasses.replace``), which would skip the checks."""
    from kinds.base import with_options

    assert with_options({"out": "a", "workers": 2}, out="b", workers=None, mlflow=False) == \
        {"out": "b", "workers": 2, "mlflow": False}
    found = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in python_files("azul_cli")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module == "dataclasses"
             and any(a.name == "replace" for a in node.names)
             or isinstance(node, ast.Attribute) and node.attr == "replace"
             and isinstance(node.value, ast.Name) and node.value.id == "dataclasses"]
    assert not found, "commands replacing settings fields: " + ", ".join(found)


HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*[\s>/]|<!doctype", re.I)


def html_in_code(path: Path) -> list[int]:
    """The lines of ``path`` whose string (a constant, or the text of an f-string; docstrings
    left aside) holds an HTML or SVG tag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and isinstance(node.value, str) and id(node) not in docs and HTML_TAG.search(node.value)})


def test_every_page_is_drawn_by_a_template(tmp_path):
    """web/ and present/ write no HTML in code: every tag is in a template (web/templates/,
    present/templates/), which escapes what it prints."""
    found = [f"{path.relative_to(ROOT)}:{line}" for package in ("web", "present")
             for path in python_files(package) for line in html_in_code(path)]
    assert not found, "HTML built outside the templates: " + ", ".join(found)
    bad = tmp_path / "bad.py"
    bad.write_text('"""A <b>docstring</b> may show a tag."""\nrow = f"<td>{1}</td>"\n')
    assert html_in_code(bad) == [2]


def test_the_templates_are_packaged():
    """``pip install .`` takes every template (package-data globs of pyproject.toml)."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "present" in data["packages"]
    for package in ("web", "present"):
        files = [p for p in (ROOT / package / "templates").rglob("*") if p.is_file()]
        assert files
        for path in files:
            rel = path.relative_to(ROOT / package)
            assert any(rel.match(glob) for glob in data["package-data"][package]), f"{package}/{rel} is not packaged"
