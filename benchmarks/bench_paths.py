"""How many project files three data paths enter, and how often they cross between packages,
traced on a real run of each (issue 43's "Measured" note; docs/architecture.md's rooms).

    python benchmarks/bench_paths.py             # the three paths, about 1.5 minutes on 2 cores
    python benchmarks/bench_paths.py --list      # and each path's files, in the order first entered
    python benchmarks/bench_paths.py --only serve

The paths, each run in a fresh Python process of its own with the same tiny settings every time:

- ``league``: ``azul league run`` on a league config (random against greedy, 2 players, 2 deals,
  rotated seats: 4 games) with ``--workers 1 --no-report``: a local Ray with one worker, MLflow
  as configured by default (on). Traced in the command's process (the driver) and in every
  process Ray starts (the worker that plays the games), through a ``sitecustomize.py`` this
  script writes to a temporary folder put first on ``PYTHONPATH``; each traced process writes
  what it saw to a file whenever it sees something new (a Ray worker is killed, not exited).
- ``train``: ``azul train`` on a one-generation config (generation 0 fitted from a small
  league's records, then 2 self-play games, an MLP of 8 hidden units for 2 epochs, a gate of at
  most 3 pairs), ``workers: 1``, MLflow on: to the generation's model file. Driver and worker.
- ``serve``: the web application (the ``create_app`` found under web/) on a real uvicorn in this
  process over a folder holding a small finished league; only the one request of the run's page
  (``/run/runs/lg``: its standings and ratings) is traced, the first (nothing cached).

The commands are found as users find them: ``azul``'s console script in pyproject.toml (setup.py
as a fallback). The records the train and serve paths start from are made before the trace by
``azul league run`` in a subprocess (``--workers 0 --no-mlflow``).

What is counted (``sys.settrace`` call events, in every thread):

- A *project file* is a .py file under one of the packages engine, bots, tournament, kinds,
  records, analysis, learn, web, azul_cli (not tests, not site-packages, not this script); its
  *package* is its top folder. Compiled (Cython) code is not seen; the Python it calls is.
- A file is *entered* when one of its functions runs (lambdas, comprehensions and generators
  included). Module and class bodies run by an import are not counted, nor any function called
  while a project module is being imported (whatever runs under a module or class body).
- A call's *caller* is the nearest enclosing project function on the stack (through any library
  code between them: typer, Ray, Starlette...). A call with no project caller (the command
  itself, a Ray task, a request handler) starts a path and makes no edge.
- ``crossings``: the distinct (caller file, callee file) edges whose two files are in different
  packages.
- ``doubling back``: those of the crossings that go back into a package already on the call's
  stack: the callee's package is that of one of the project functions the call runs under (the
  chain went A -> B -> A, B being the caller's package). A worker's stack starts at its task.
- ``back to earlier``: those of the crossings whose callee's package the path entered before the
  caller's package (packages ordered by when the path first entered them, a worker's after the
  driver's), wherever the call is: a looser count, which also counts a second room calling down
  to a floor the first room reached before it.
- ``files`` is the union of the driver's and the workers' files (``driver``/``worker`` columns:
  each process alone); ``packages``, the distinct packages of those files.

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

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bots", "tournament", "kinds", "records", "analysis", "learn", "web", "azul_cli")
PATHS = ("league", "train", "serve")
TRACE_ENV = "AZUL_BENCH_TRACE"  # the folder a traced process writes its file into
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


# ---------------------------------------------------------------- the tracer (runs in every traced process)

class Tracer:
    """Records the project files entered and the (caller file, callee file) edges, in the order
    first seen; ``dump_to``: a file rewritten whenever something new is seen."""

    def __init__(self, dump_to: str | None = None):
        self.files: list[str] = []
        self.edges: list[tuple[str, str]] = []
        self.back: list[tuple[str, str]] = []  # the edges that double back (see the module's docstring)
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
        files, edges, back = self.files, self.edges, self.back

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
            caller = None
            on_stack = set()  # the packages of the project functions the call is under
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
                f = f.f_back
            new = False
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
            json.dump({"pid": os.getpid(), "files": self.files, "edges": self.edges, "back": self.back}, f)
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


def child(path: str, tmp: Path) -> None:
    """Run one path traced in the folder ``tmp`` (the records made before: ``tmp/../runs/lg``); the
    driver's file goes to ``tmp/dumps/driver.json``."""
    os.environ.pop("RAY_ADDRESS", None)
    os.environ.setdefault("COLUMNS", "120")
    dumps = tmp / "dumps"
    traced_children(tmp / "site", dumps)
    tracer = Tracer()
    if path == "league":
        config = league_config(tmp, tmp / "runs-league", "lg")
        invoke_traced(tracer, ["league", "run", str(config), "--workers", "1", "--no-report", "--fresh"])
    elif path == "train":
        config = train_config(tmp, tmp.parent / "runs" / "lg", tmp / "runs-train")
        invoke_traced(tracer, ["train", str(config)])
        models = sorted((tmp / "runs-train" / "tiny").glob("gen-001/*.azv"))
        if not models:
            raise SystemExit("error: azul train wrote no model for generation 1")
    else:
        os.environ.pop(TRACE_ENV)  # one process: nothing to trace elsewhere
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
    return measure(folder / "dumps"), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list each path's files in the order first entered")
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
                print(f"{path}: {len(figures['files'])} files, in the order first entered "
                      "(w: by a worker only)")
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
    print(f"{'path':<8} {'files':>5} {'driver':>6} {'worker':>6} {'packages':>8} {'crossings':>9} "
          f"{'doubling back':>13} {'back to earlier':>15} {'seconds':>7}")
    for path, f, seconds in rows:
        worker = f"{len(f['worker'])}" if f["processes"] else "-"
        print(f"{path:<8} {len(f['files']):>5} {len(f['driver']):>6} {worker:>6} {len(f['packages']):>8} "
              f"{len(f['crossings']):>9} {len(f['back']):>13} {len(f['earlier']):>15} {seconds:>7.1f}")
    print("target: no path above 20 files (issue 43)")


if __name__ == "__main__":
    main()
