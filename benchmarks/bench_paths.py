"""How many project files three data paths enter, and how often they cross between packages,
traced on a real run of each (issue 43's "Measured" note; docs/architecture.md's rooms).

    python benchmarks/bench_paths.py                # the three paths, about 1.5 minutes on 2 cores
    python benchmarks/bench_paths.py --list         # and each path's files, with the sink that brought each in
    python benchmarks/bench_paths.py --list-touched # and every file each command touched
    python benchmarks/bench_paths.py --only serve

The paths, each run in a fresh Python process of its own with the same tiny settings every time:

- ``league``: ``azul league run`` on a league config (random against greedy, 2 players, 2 deals,
  rotated seats: 4 games) with ``--workers 1 --no-report``: a local Ray with one worker, MLflow
  as configured by default (on), to the worker's games. Traced in the command's process (the
  driver) and in every process Ray starts (the worker that plays the games), through a
  ``sitecustomize.py`` this script writes to a temporary folder put first on ``PYTHONPATH``; each
  traced process writes what it saw to a file whenever it sees something new (a Ray worker is
  killed, not exited).
- ``train``: ``azul train`` on a one-generation config (generation 0 fitted from a small
  league's records, then 2 self-play games, an MLP of 8 hidden units for 2 epochs, a gate of at
  most 3 pairs), ``workers: 1``, MLflow on: to the generation's model file. Driver and worker.
- ``serve``: the web application (the ``create_app`` found under web/) on a real uvicorn in this
  process over a folder holding a small finished league; only the one request of the run's page
  (``/run/runs/lg``: its standings and ratings) is traced, the first (nothing cached): to its ratings.

The commands are found as users find them: ``azul``'s console script in pyproject.toml (setup.py
as a fallback). The records the train and serve paths start from are made before the trace by
``azul league run`` in a subprocess (``--workers 0 --no-mlflow``).

A *project file* is a .py file under one of the project's packages (the top folders with an
``__init__.py``, not tests, benchmarks, examples or docs); its *package* is its top folder.
Compiled (Cython) code is not seen; the Python it calls is. Three measures are printed
(``sys.settrace`` call events, in every thread), the first the one issue 43's goal applies to:

1. **path** (the issue's measure): the project files on the Python stack each time one of the
   path's *sinks* is called, the calls that take its datum where it goes, united over every call
   of every sink, in the driver and the workers (``SINKS``, ``PATH_SINKS``: found by package and
   function name, which both the code before issue 43 and after it have):

   - league: a backend's ``submit`` (tournament/: a batch handed over with its config) and the
     records' ``write_part`` (records/: a batch committed to the run's store) in the driver; in
     the worker, the batch's games (tournament/: the compiled loop's ``play_columns``, the
     referee's ``play_game``) and ``build_table`` (records/: a record table built);
   - train: a records/ ``write_bytes`` or ``replace_bytes`` of a ``.azv`` (a generation's model
     file) and the self-play league's ``submit`` (a ``submit`` under a function named ``gate``
     is the gate's league: listed as ``submit (gate)``, not counted);
   - serve: ``fit_elo`` (analysis/: the ratings computed) and ``run_fragment`` (web/: the run
     page's body rendered).

   ``cross``: the distinct (file, file) edges between consecutive project frames of those stacks
   (library frames between them skipped) whose files are in different packages; ``back`` (doubling
   back): those whose callee's package is already lower on the same stack (A -> B -> A).
   A stack starts where its thread or process does: a Ray task's in the worker, a request's in
   its handler's thread, so what a datum went through before it was handed to a thread is not on
   it. Nor is any call that returned before the sink was called (reading and checking a config,
   making the schedule, finding the run's folder): the path is the spine the datum travels down.
2. **carried**: the same (files, packages, crossings, doubling back) over the stacks of every call
   of a project function given the datum in one of its forms as an argument (its value when the
   call starts): league, a ``LeagueConfig`` or a string or path naming the config file or the
   run's folder; train, a ``TrainConfig`` or the train config's file or the run's folder; serve,
   the served run's ``Found`` or its folder or its URL path. Wider than the path (the calls that
   read and check the config or resolve the folder and return are counted), narrower than what
   was touched (a call given none of those forms, under none that was, is not).
3. **touched**: every project file in which any function runs during the whole command (traced
   in the driver and the workers; ``driver``/``worker`` columns: each process alone). A file is
   *entered* when one of its functions runs (lambdas, comprehensions and generators included).
   Module and class bodies run by an import are not counted, nor any function called while a
   project module is being imported. A call's *caller* is the nearest enclosing project function
   on the stack (through any library code between them: typer, Ray, Starlette...); a call with
   no project caller starts a chain and makes no edge. ``cross``: the distinct (caller file,
   callee file) edges whose files are in different packages; ``back``: those of the crossings
   that go back into a package already on the call's stack; ``earlier``: those whose callee's
   package the command entered before the caller's (packages ordered by when first entered, a
   worker's after the driver's), wherever the call is: a looser count. Everything the command
   does is here, the datum's path or not (MLflow tracking, progress lines, the summary).

The issue's target: no path above 20 files.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
NOT_PACKAGES = ("tests", "benchmarks", "examples", "docs")  # folders of the checkout that are no part of a path


def project_packages(root: Path = ROOT) -> tuple[str, ...]:
    """The project's packages: the top folders holding an ``__init__.py`` (present/ came with issue 43)."""
    return tuple(sorted(p.name for p in root.iterdir()
                        if p.is_dir() and p.name not in NOT_PACKAGES and (p / "__init__.py").exists()))


PACKAGES = project_packages()
PATHS = ("league", "train", "serve")
TRACE_ENV = "AZUL_BENCH_TRACE"  # the folder a traced process writes its file into
DATUM_ENV = "AZUL_BENCH_DATUM"  # JSON: the forms of the path's datum a call carries ({"types": [...], "values": [...]})
TIMEOUT_S = 600

SITECUSTOMIZE = '''\
import os
if os.environ.get("{env}"):
    import importlib.util as _u
    _spec = _u.spec_from_file_location("azul_bench_paths", {script!r})
    _m = _u.module_from_spec(_spec)
    _spec.loader.exec_module(_m)
    _m.trace_this_process(os.environ["{env}"])
'''


# ---------------------------------------------------------------- the sinks (where a path's datum arrives)

class Sink(NamedTuple):
    """Calls of a project function named one of ``names`` in a file of ``package``; ``azv``: only
    those whose first argument (after ``self``) names a model file."""

    label: str
    package: str
    names: frozenset[str]
    azv: bool = False


SINKS = (
    Sink("submit", "tournament", frozenset({"submit"})),  # a backend's: a batch handed over with its config
    Sink("part write", "records", frozenset({"write_part"})),  # a batch's records committed to the run's store
    Sink("play", "tournament", frozenset({"play_columns", "play_game"})),  # the compiled loop's, the referee's
    Sink("table", "records", frozenset({"build_table"})),  # a record table built from a batch's columns
    Sink("model file", "records", frozenset({"write_bytes", "replace_bytes"}), azv=True),  # a .azv's bytes
    Sink("elo fit", "analysis", frozenset({"fit_elo"})),  # the ratings computed
    Sink("render", "web", frozenset({"run_fragment"})),  # the run page's body rendered
)
GATE = "submit (gate)"  # a submit under a function named gate: the train path's gate league, not its self-play
PATH_SINKS = {
    "league": ("submit", "part write", "play", "table"),
    "train": ("submit", "model file"),
    "serve": ("elo fit", "render"),
}


# ---------------------------------------------------------------- the tracer (runs in every traced process)

class Tracer:
    """Records the project files entered and the (caller file, callee file) edges, in the order
    first seen, and each distinct stack of project frames a sink is called under (``SINKS``:
    ``[label, time first seen, [[file, function], ...] outermost first]``); ``dump_to``: a file
    rewritten whenever something new is seen."""

    def __init__(self, dump_to: str | None = None):
        self.files: list[str] = []
        self.edges: list[tuple[str, str]] = []
        self.back: list[tuple[str, str]] = []  # the edges that double back (see the module's docstring)
        self.stacks: list[list] = []
        self.carried: list[str] = []  # the project files on the stack of a call that carries the datum
        self.carried_edges: list[tuple[str, str]] = []  # the crossings between packages on those stacks
        self.carried_back: list[tuple[str, str]] = []  # those that double back
        datum = json.loads(os.environ.get(DATUM_ENV) or "{}")
        self.datum_types = frozenset(datum.get("types", ()))
        self.datum_values = frozenset(datum.get("values", ()))
        self.active = False
        self.dump_to = dump_to
        self._install()

    def _install(self) -> None:
        import threading

        prefix = str(ROOT) + os.sep
        packages = set(PACKAGES)
        optimized = inspect.CO_OPTIMIZED
        rel_of: dict = {}  # code object -> its project file (relative, /-separated), or None
        seen_files: set[str] = set()
        seen_edges: set[tuple[str, str]] = set()
        seen_back: set[tuple[str, str]] = set()
        files, edges, back, stacks = self.files, self.edges, self.back, self.stacks
        carried, carried_edges, carried_back = self.carried, self.carried_edges, self.carried_back
        seen_carried: set[str] = set()
        seen_carried_edges: set[tuple[str, str]] = set()
        seen_carried_back: set[tuple[str, str]] = set()
        datum_types, datum_values = self.datum_types, self.datum_values
        path_like = (str, os.PathLike)

        def carries(frame) -> bool:
            """Whether one of the call's arguments is the datum in one of its forms."""
            for value in frame.f_locals.values():
                if type(value).__name__ in datum_types:
                    return True
                if isinstance(value, path_like) and datum_values and os.fspath(value) in datum_values:
                    return True
            return False

        def carry(chain) -> bool:
            """Adds the files and crossings of ``chain`` ((file, package), outermost first); True if new."""
            new = False
            for i, (file, top) in enumerate(chain):
                if file not in seen_carried:
                    seen_carried.add(file)
                    carried.append(file)
                    new = True
                if i and chain[i - 1][1] != top:
                    edge = (chain[i - 1][0], file)
                    if edge not in seen_carried_edges:
                        seen_carried_edges.add(edge)
                        carried_edges.append(edge)
                        new = True
                    if top in {t for _, t in chain[:i - 1]} and edge not in seen_carried_back:
                        seen_carried_back.add(edge)
                        carried_back.append(edge)
                        new = True
            return new

        sink_of: dict = {}  # code object -> its Sink, or None
        seen_stacks: set = set()

        def sink(code, callee):
            try:
                return sink_of[code]
            except KeyError:
                found = next((k for k in SINKS if k.package == callee[1] and code.co_name in k.names), None)
                sink_of[code] = found
                return found

        def sink_stack(frame, found: Sink) -> None:
            """Keeps the project frames ``frame`` (a call of ``found``) runs under, once per stack."""
            if found.azv:
                code = frame.f_code
                args = code.co_varnames[:code.co_argcount]
                args = [a for a in args if a != "self"]
                if not args or not str(frame.f_locals.get(args[0], "")).endswith(".azv"):
                    return
            chain = []
            f = frame
            while f is not None:
                found_file = project_file(f.f_code)
                if found_file is not None:
                    chain.append(f.f_code)
                f = f.f_back
            chain.reverse()
            label = found.label
            if label == "submit" and any(c.co_name == "gate" for c in chain):
                label = GATE
            key = (label, tuple(chain))
            if key in seen_stacks:
                return
            seen_stacks.add(key)
            stacks.append([label, time.time(), [[project_file(c)[0], c.co_name] for c in chain]])
            if self.dump_to:
                self.dump()

        def project_file(code):
            """(file, package) of a code object of a project file, else None."""
            try:
                return rel_of[code]
            except KeyError:
                name = code.co_filename
                found = None
                if name.startswith(prefix) and name.endswith(".py"):
                    rel = name[len(prefix):].replace(os.sep, "/")
                    top = rel.split("/", 1)[0]
                    if top in packages and "/" in rel:
                        found = (rel, top)
                rel_of[code] = found
                return found

        def trace(frame, event, arg):
            if not self.active:
                return
            code = frame.f_code
            callee = project_file(code)
            if callee is None or not code.co_flags & optimized:
                return
            found_sink = sink(code, callee)
            if found_sink is not None:
                sink_stack(frame, found_sink)
            caller = None
            on_stack = set()  # the packages of the project functions the call is under
            chain = [callee]  # with the datum: the project frames, innermost first
            f = frame.f_back
            while f is not None:
                c = f.f_code
                found = project_file(c)
                if found is not None:
                    if not c.co_flags & optimized:
                        return  # under a module or class body: an import
                    if caller is None:
                        caller = found
                    on_stack.add(found[1])
                    chain.append(found)
                f = f.f_back
            new = False
            if (datum_types or datum_values) and carries(frame):
                new = carry(chain[::-1])
            if callee[0] not in seen_files:
                seen_files.add(callee[0])
                files.append(callee[0])
                new = True
            if caller is not None and caller[0] != callee[0]:
                edge = (caller[0], callee[0])
                if edge not in seen_edges:
                    seen_edges.add(edge)
                    edges.append(edge)
                    new = True
                if caller[1] != callee[1] and callee[1] in on_stack and edge not in seen_back:
                    seen_back.add(edge)
                    back.append(edge)
                    new = True
            if new and self.dump_to:
                self.dump()

        sys.settrace(trace)
        threading.settrace(trace)

    def dump(self, path: str | None = None) -> None:
        path = path or self.dump_to
        tmp = f"{path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"pid": os.getpid(), "files": self.files, "edges": self.edges, "back": self.back,
                       "stacks": self.stacks, "carried": self.carried, "carried_edges": self.carried_edges,
                       "carried_back": self.carried_back}, f)
        os.replace(tmp, path)


def trace_this_process(folder: str) -> None:
    """Called by the sitecustomize of every process started under a traced path."""
    global _TRACER
    _TRACER = Tracer(dump_to=os.path.join(folder, f"process-{os.getpid()}.json"))
    _TRACER.active = True


def traced_children(site: Path, dumps: Path) -> None:
    """Every Python process started from now on by this one traces itself into ``dumps``."""
    site.mkdir(parents=True, exist_ok=True)
    dumps.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(env=TRACE_ENV, script=str(Path(__file__).resolve())))
    paths = [str(site), str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    os.environ[TRACE_ENV] = str(dumps)


# ---------------------------------------------------------------- finding the project's doors

def console_script(name: str = "azul") -> str:
    """``module:attribute`` of a console script, from pyproject.toml or setup.py."""
    pyproject = ROOT / "pyproject.toml"
    if pyproject.exists():
        scripts = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("scripts", {})
        if name in scripts:
            return scripts[name]
    setup = ROOT / "setup.py"
    if setup.exists():
        found = re.search(rf"['\"]{name}\s*=\s*([\w.]+:[\w.]+)['\"]", setup.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return "azul_cli.main:app"


def cli_app():
    module, _, attribute = console_script().partition(":")
    target = importlib.import_module(module)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


def app_factory():
    """The web application's factory: ``create_app`` in web/app.py, or wherever under web/ it moved."""
    try:
        return importlib.import_module("web.app").create_app
    except (ImportError, AttributeError):
        pass
    for path in sorted((ROOT / "web").rglob("*.py")):
        if re.search(r"^def create_app\(", path.read_text(encoding="utf-8"), re.MULTILINE):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            return importlib.import_module(module).create_app
    raise SystemExit("error: no create_app under web/")


def run_cli(args: list[str], cwd: Path) -> None:
    """``azul ARGS`` in a subprocess (not traced)."""
    module, _, attribute = console_script().partition(":")
    code = (f"import importlib; t = importlib.import_module({module!r})\n"
            f"for a in {attribute!r}.split('.'): t = getattr(t, a)\nt()")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop(TRACE_ENV, None)
    env.pop("RAY_ADDRESS", None)
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)
    if done.returncode:
        raise SystemExit(f"error: azul {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


# ---------------------------------------------------------------- the three paths (each in a child process)

def league_config(folder: Path, out: Path, name: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(json.dumps({  # JSON is YAML
        "name": name, "players": 2, "deals": 2, "seats": "rotate", "seed": 1, "out": str(out),
        "bots": [{"name": "random", "type": "random", "seed": 1}, {"name": "greedy", "type": "greedy", "seed": 2}],
    }), encoding="utf-8")
    return path


def train_config(folder: Path, records: Path, out: Path) -> Path:
    path = folder / "train.yaml"
    path.write_text(json.dumps({
        "name": "tiny", "seed": 3, "generations": 1, "start": {"records": [str(records)]},
        "selfplay": {"deals": 2, "iterations": 8}, "train": {"value": "mlp", "hidden": [8], "epochs": 2, "batch": 64},
        "gate": {"elo0": 0, "elo1": 40, "max_pairs": 3}, "out": str(out), "workers": 1,
    }), encoding="utf-8")
    return path


def invoke_traced(tracer: Tracer, args: list[str]) -> None:
    from typer.testing import CliRunner

    app = cli_app()
    runner = CliRunner()
    tracer.active = True
    try:
        result = runner.invoke(app, args)
    finally:
        tracer.active = False
    if result.exit_code != 0:
        raise SystemExit(f"error: azul {' '.join(args)} exited {result.exit_code}:\n{result.output[-3000:]}\n"
                         f"{result.exception!r}")


def datum(types: list[str], values: list) -> None:
    """The forms of the path's datum (``DATUM_ENV``), for this process's tracer and every one it starts:
    instances of the classes named ``types``, and strings or paths naming one of ``values``."""
    forms = {os.fspath(v) for v in values} | {str(Path(v).resolve()) for v in values if os.path.isabs(v)}
    os.environ[DATUM_ENV] = json.dumps({"types": types, "values": sorted(forms)})


def child(path: str, tmp: Path) -> None:
    """Run one path traced in the folder ``tmp`` (the records made before: ``tmp/../runs/lg``); the
    driver's file goes to ``tmp/dumps/driver.json``."""
    os.environ.pop("RAY_ADDRESS", None)
    os.environ.setdefault("COLUMNS", "120")
    dumps = tmp / "dumps"
    traced_children(tmp / "site", dumps)
    if path == "league":
        config = league_config(tmp, tmp / "runs-league", "lg")
        datum(["LeagueConfig"], [config, tmp / "runs-league" / "lg"])
        tracer = Tracer()
        invoke_traced(tracer, ["league", "run", str(config), "--workers", "1", "--no-report", "--fresh"])
    elif path == "train":
        config = train_config(tmp, tmp.parent / "runs" / "lg", tmp / "runs-train")
        datum(["TrainConfig"], [config, tmp / "runs-train" / "tiny"])
        tracer = Tracer()
        invoke_traced(tracer, ["train", str(config)])
        models = sorted((tmp / "runs-train" / "tiny").glob("gen-001/*.azv"))
        if not models:
            raise SystemExit("error: azul train wrote no model for generation 1")
    else:
        os.environ.pop(TRACE_ENV)  # one process: nothing to trace elsewhere
        datum(["Found"], [tmp.parent / "runs" / "lg", "runs/lg"])
        tracer = Tracer()
        serve_traced(tracer, tmp)
    tracer.dump(str(dumps / "driver.json"))


def serve_traced(tracer: Tracer, tmp: Path) -> None:
    import socket
    import threading
    import urllib.request

    import uvicorn

    factory = app_factory()
    runs = tmp.parent / "runs"
    n = len(inspect.signature(factory).parameters)
    app = factory([runs], tmp / "played") if n >= 2 else factory([runs])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.05)
    else:
        raise SystemExit("error: the web app did not start")
    url = f"http://127.0.0.1:{port}/run/runs/lg"
    tracer.active = True
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
            status, body = answer.status, answer.read().decode()
    finally:
        tracer.active = False
    server.should_exit = True
    thread.join(10)
    if status != 200 or "greedy" not in body:
        raise SystemExit(f"error: {url} answered {status}: {body[:500]}")


# ---------------------------------------------------------------- counting

def package(file: str) -> str:
    return file.split("/", 1)[0]


def measure(dumps: Path) -> dict:
    """The figures of one path from its processes' files."""
    driver = json.loads((dumps / "driver.json").read_text(encoding="utf-8"))
    workers = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(dumps.glob("process-*.json"))]
    workers = [w for w in workers if w["files"]]
    files = list(dict.fromkeys([*driver["files"], *(f for w in workers for f in w["files"])]))
    edges = list(dict.fromkeys(tuple(e) for e in [*driver["edges"], *(e for w in workers for e in w["edges"])]))
    order = {p: i for i, p in enumerate(dict.fromkeys(package(f) for f in files))}
    crossings = [(a, b) for a, b in edges if package(a) != package(b)]
    back = list(dict.fromkeys(tuple(e) for e in [*driver["back"], *(e for w in workers for e in w["back"])]))
    earlier = [(a, b) for a, b in crossings if order[package(b)] < order[package(a)]]
    worker_files = list(dict.fromkeys(f for w in workers for f in w["files"]))
    return {"files": files, "driver": driver["files"], "worker": worker_files, "processes": len(workers),
            "packages": list(order), "crossings": crossings, "back": back,
            "earlier": earlier}


def measure_path(path: str, dumps: Path) -> dict:
    """The path's own figures: the files on the stacks its sinks (``PATH_SINKS``) were called under,
    in the order first seen (all processes, by time), each with the sink whose stack brought it in."""
    labels = PATH_SINKS[path]
    hits = []  # (time, process, label, chain)
    for dump in [dumps / "driver.json", *sorted(dumps.glob("process-*.json"))]:
        if not dump.exists():
            continue
        seen = json.loads(dump.read_text(encoding="utf-8"))
        process = "driver" if dump.name == "driver.json" else "worker"
        hits += [(at, process, label, [tuple(c) for c in chain]) for label, at, chain in seen.get("stacks", [])]
    hits.sort(key=lambda h: h[0])
    files: dict[str, tuple[str, str]] = {}  # file -> (sink label, process) that first brought it in
    crossings: dict[tuple[str, str], None] = {}
    back: dict[tuple[str, str], None] = {}
    by_process: dict[str, set[str]] = {"driver": set(), "worker": set()}
    sinks: dict[str, int] = {}  # label -> distinct stacks seen (the path's and the others)
    for _, process, label, chain in hits:
        sinks[label] = sinks.get(label, 0) + 1
        if label not in labels:
            continue
        for file, _ in chain:
            files.setdefault(file, (label, process))
            by_process[process].add(file)
        for i in range(1, len(chain)):
            a, b = chain[i - 1][0], chain[i][0]
            if package(a) != package(b):
                crossings.setdefault((a, b), None)
                if package(b) in {package(f) for f, _ in chain[:i - 1]}:
                    back.setdefault((a, b), None)
    missing = [label for label in labels if not sinks.get(label)]
    carried: dict[str, str] = {}  # file -> the first process whose datum-carrying call had it on its stack
    carried_edges: dict[tuple[str, str], None] = {}
    carried_back: dict[tuple[str, str], None] = {}
    for dump in [dumps / "driver.json", *sorted(dumps.glob("process-*.json"))]:
        if dump.exists():
            seen = json.loads(dump.read_text(encoding="utf-8"))
            for f in seen.get("carried", []):
                carried.setdefault(f, "driver" if dump.name == "driver.json" else "worker")
            carried_edges.update(dict.fromkeys(tuple(e) for e in seen.get("carried_edges", [])))
            carried_back.update(dict.fromkeys(tuple(e) for e in seen.get("carried_back", [])))
    return {"carried": carried, "carried_crossings": list(carried_edges), "carried_back": list(carried_back),
            "files": files, "driver": sorted(by_process["driver"]), "worker": sorted(by_process["worker"]),
            "packages": list(dict.fromkeys(package(f) for f in files)), "crossings": list(crossings),
            "back": list(back), "sinks": sinks, "missing": missing}


def run_path(path: str, tmp: Path) -> tuple[dict, float]:
    folder = tmp / path
    folder.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop(TRACE_ENV, None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", path, "--tmp", str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"error: the {path} path failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    figures = measure(folder / "dumps")
    figures["path"] = measure_path(path, folder / "dumps")
    if figures["path"]["missing"]:
        raise SystemExit(f"error: the {path} path never called its sink(s) {', '.join(figures['path']['missing'])} "
                         f"(the sinks seen: {figures['path']['sinks'] or 'none'}): was the function renamed?")
    return figures, seconds


def table(rows: list[tuple[str, dict, float]]) -> str:
    """The figures of each path: its own (on its sinks' stacks), what carried its datum, what its command touched."""
    groups = [("path: on its sinks' stacks", ["files", "driver", "worker", "pkgs", "cross", "back"]),
              ("carried: under calls given the datum", ["files", "pkgs", "cross", "back"]),
              ("touched: any function run", ["files", "driver", "worker", "pkgs", "cross", "back", "earlier"]),
              ("", ["seconds"])]
    lines = []
    for path, f, seconds in rows:
        p = f["path"]
        lines.append([path, [
            [len(p["files"]), len(p["driver"]), len(p["worker"]) if p["worker"] else "-", len(p["packages"]),
             len(p["crossings"]), len(p["back"])],
            [len(p["carried"]), len({package(x) for x in p["carried"]}), len(p["carried_crossings"]),
             len(p["carried_back"])],
            [len(f["files"]), len(f["driver"]), len(f["worker"]) if f["processes"] else "-", len(f["packages"]),
             len(f["crossings"]), len(f["back"]), len(f["earlier"])],
            [f"{seconds:.1f}"]]])
    cells = [" ".join(f"{c:>{max(len(c), 5)}}" for c in names) for _, names in groups]
    widths = [max(len(c), len(g)) for c, (g, _) in zip(cells, groups)]
    out = ["path  " + "".join(f" | {g:<{w}}" for (g, _), w in zip(groups, widths)),
           "      " + "".join(f" | {c:<{w}}" for c, w in zip(cells, widths))]
    for path, values in lines:
        row = [" ".join(f"{v:>{max(len(c), 5)}}" for v, c in zip(vs, names)) for vs, (_, names) in zip(values, groups)]
        out.append(f"{path:<6}" + "".join(f" | {r:<{w}}" for r, w in zip(row, widths)))
    return "\n".join(out)


def list_path(path: str, p: dict) -> None:
    """``--list``: a path's files, in the order first seen, with the sink whose stack brought each in."""
    print(f"{path}: {len(p['files'])} files on the stacks of its sinks, in the order first seen "
          "(sink that brought it in; w: on a worker's stack)")
    for i, (f, (label, process)) in enumerate(p["files"].items(), 1):
        print(f"  {i:>3} {'w' if process == 'worker' else ' '} {f:<34} {label}")
    print(f"  packages in the order first seen: {', '.join(p['packages'])}")
    print("  distinct stacks per sink: " + ", ".join(f"{k} {n}" for k, n in p["sinks"].items()))
    print(f"  crossings ({len(p['crossings'])}):")
    for a, b in p["crossings"]:
        print(f"      {a} -> {b}{'   (doubles back)' if (a, b) in p['back'] else ''}")
    extra = [f for f in p["carried"] if f not in p["files"]]
    print(f"  carried: {len(p['carried'])} files under calls given the datum; "
          f"those not on a sink's stack ({len(extra)}):")
    for f in extra:
        print(f"        {'w' if p['carried'][f] == 'worker' else ' '} {f}")
    print(f"  carried crossings ({len(p['carried_crossings'])}), of which double back ({len(p['carried_back'])}):")
    for a, b in p["carried_back"]:
        print(f"      {a} -> {b}")
    print()


def list_touched(path: str, figures: dict) -> None:
    """``--list-touched``: every file the command entered, in the order first entered."""
    print(f"{path}: {len(figures['files'])} files touched, in the order first entered (w: by a worker only)")
    driver = set(figures["driver"])
    for i, f in enumerate(figures["files"], 1):
        print(f"  {i:>3} {'w' if f not in driver else ' '} {f}")
    print(f"  packages in the order first entered: {', '.join(figures['packages'])}")
    print(f"  doubling back ({len(figures['back'])}):")
    for a, b in figures["back"]:
        print(f"      {a} -> {b}")
    print(f"  back to earlier ({len(figures['earlier'])}):")
    for a, b in figures["earlier"]:
        print(f"      {a} -> {b}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="list each path's files (on its sinks' stacks), the sink that brought each in")
    parser.add_argument("--list-touched", action="store_true",
                        help="list every file each command touched, in the order first entered")
    parser.add_argument("--only", choices=PATHS, action="append", help="this path only (repeatable)")
    parser.add_argument("--child", choices=PATHS, help=argparse.SUPPRESS)
    parser.add_argument("--tmp", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.tmp)
        return
    chosen = args.only or list(PATHS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="azul-bench-paths-") as name:
        tmp = Path(name)
        if {"train", "serve"} & set(chosen):  # the records both start from
            config = league_config(tmp, tmp / "runs", "lg")
            run_cli(["league", "run", str(config), "--workers", "0", "--no-mlflow", "--no-report", "-q"], tmp)
        for path in chosen:
            figures, seconds = run_path(path, tmp)
            rows.append((path, figures, seconds))
            if args.list:
                list_path(path, figures["path"])
            if args.list_touched:
                list_touched(path, figures)
    print(table(rows))
    print("sinks: " + "; ".join(f"{path}: {', '.join(PATH_SINKS[path])}" for path, _, _ in rows))
    print("target: no path above 20 files (issue 43: the path's files)")


if __name__ == "__main__":
    main()
