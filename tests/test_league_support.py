"""Bots that misbehave on purpose, and helpers, for the league tests.

League configs name these bots by import path (``type: test_league_support:RaisingBot``), so they
never join the global bot registry; Ray workers import this module from ``tests/`` (the tests put
that folder on PYTHONPATH before Ray starts).
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bots import Bot
from bots.base import CompiledForm
from bots.greedy import GreedyBot
from bots.mcts import MCTSBot
from engine import GameState, Move

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
HERE = "test_league_support"


class _Counting(Bot):
    """A random player that misbehaves from its ``after``-th move (1-based) on."""

    def __init__(self, seed: int = 0, after: int = 1):
        super().__init__(seed)
        self.after = after
        self.moves = 0

    def act(self, state: GameState) -> Move:
        self.moves += 1
        if self.moves >= self.after:
            return self.misbehave(state)
        return self.rng.choice(state.legal_moves())

    def misbehave(self, state: GameState):
        raise NotImplementedError


class RaisingBot(_Counting):
    def misbehave(self, state):
        raise RuntimeError("boom")


class IllegalBot(_Counting):
    """Plays a move that exists in notation but is not legal here."""

    def misbehave(self, state):
        legal = {m.code for m in state.legal_moves()}
        for text in ("1B1", "5W5", "CBF", "9K3"):
            if Move.parse(text).code not in legal:
                return Move.parse(text)
        raise AssertionError("every probe move is legal")


class GarbageBot(_Counting):
    def misbehave(self, state):
        return 42


class SlowBot(Bot):
    """Sleeps ``seconds`` before each (random) move."""

    def __init__(self, seed: int = 0, seconds: float = 0.5):
        super().__init__(seed)
        self.seconds = seconds

    def act(self, state):
        time.sleep(self.seconds)
        return self.rng.choice(state.legal_moves())


class NodeBot(SlowBot):
    """A SlowBot that leaves a file named after the Ray node it plays on in ``marks``, holding the
    working folder and the temporary folder it plays in (a line each)."""

    def __init__(self, seed: int = 0, seconds: float = 0.0, marks: str = ""):
        super().__init__(seed, seconds)
        self.marks = marks

    def act(self, state):
        import ray

        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "driver"
        mark = Path(self.marks, node)
        if not mark.exists():  # written whole under a name of its own, then renamed: a node killed
            tmp = mark.with_name(f".{node}.{os.getpid()}")  # mid-write leaves no half of a mark
            tmp.write_text(f"{os.getcwd()}\n{tempfile.gettempdir()}\n")
            os.replace(tmp, mark)
        return super().act(state)


class SpinBot(Bot):
    """Thinks in Python forever: only the referee's alarm can stop it."""

    def act(self, state):
        while True:
            try:
                sum(range(1000))
            except Exception:  # a bot that swallows exceptions still cannot swallow the timeout
                pass


class Forfeit(RuntimeError):
    """Shaped like bots.external.BotForfeit: a reason and a kind."""

    def __init__(self, reason, kind):
        super().__init__(reason)
        self.kind = kind


class ForfeitBot(_Counting):
    def __init__(self, seed: int = 0, after: int = 1, kind: str = "timeout"):
        super().__init__(seed, after)
        self.kind = kind

    def misbehave(self, state):
        raise Forfeit("the program went quiet", self.kind)


class KillWorkerOnceBot(Bot):
    """Kills the process it runs in at its first move, once per marker file (then plays randomly)."""

    def __init__(self, seed: int = 0, marker: str = ""):
        super().__init__(seed)
        self.marker = marker

    def act(self, state):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return self.rng.choice(state.legal_moves())
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        sys.stdout.flush()
        os._exit(1)


class AlwaysKillBot(Bot):
    """Kills the process it runs in at its first move, every time."""

    def act(self, state):
        os._exit(1)


class DeclaredGreedy(GreedyBot):
    """A greedy bot outside the registry that declares its compiled form: the compiled loop plays it."""

    def compiled_form(self) -> CompiledForm:
        return CompiledForm("greedy")


class UndeclaredGreedy(GreedyBot):
    """A subclass that declares nothing: a compiled form is not inherited, so the referee plays it."""


class UnknownFormBot(GreedyBot):
    """Declares a compiled form the compiled loop does not play."""

    def compiled_form(self) -> CompiledForm:
        return CompiledForm("neural")


def bot(name: str, cls: str, seed: int = 0, **params) -> dict:
    """A bots entry for a config, naming a bot of this module."""
    return {"name": name, "type": f"{HERE}:{cls}", "seed": seed, "params": params}


def league(tmp: Path, bots: list, name: str = "t", **fields) -> dict:
    """A small league config mapping: out under ``tmp``, MLflow off, serial unless told otherwise."""
    data = {"name": name, "players": 2, "deals": 2, "seed": 5, "out": str(tmp),
            "mlflow": {"enabled": False}, "ray": {"workers": 0}, "bots": bots}
    data.update(fields)
    return data


def finished_in_parts(tmp: Path, name: str) -> Path:
    """A finished league of 12 games, random against greedy, in parts of 2 (part-000000 .. part-000005)."""
    from tournament.config import parse_config
    from tournament.runner import run_league

    config = league(tmp, ["random", "greedy"], name=name, deals=6, batch_games=2, flush_seconds=0)
    summary = run_league(parse_config(config), progress=False)
    assert summary.complete and summary.total == 12
    return Path(summary.run_dir)


def walk_games_backwards(monkeypatch) -> None:
    """Make ``tournament.replay.walk_games`` yield the same games with the last written first (as
    if the workers had finished them in another order)."""
    import importlib

    replay = importlib.import_module("tournament.replay")   # (the package's ``replay`` is a function)
    real = replay.walk_games

    def backwards(store, game_ids=None):
        ids = [gid for gid, _ in real(store, game_ids)]
        for gid in reversed(ids):
            yield from real(store, [gid])

    monkeypatch.setattr(replay, "walk_games", backwards)


def subprocess_env() -> dict:
    """The environment for a league in a subprocess: the project and this folder importable."""
    env = dict(os.environ)
    paths = [str(TESTS), str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("RAY_ADDRESS", None)
    env["COLUMNS"] = "120"
    return env


def test_the_misbehaving_bots_misbehave():
    from engine import new_game
    state = new_game(seed=1)
    assert IllegalBot(after=1).act(state).code not in {m.code for m in state.legal_moves()}
    assert GarbageBot(after=1).act(state) == 42
    assert RaisingBot(after=2).act(state) in state.legal_moves()


@pytest.fixture(scope="session")
def ray_address():
    """The address of the session's local Ray (started once, stopped at the end)."""
    address, started = start_test_ray()
    yield address
    if started:
        import ray
        ray.shutdown()


def start_test_ray():
    """One local Ray (2 CPUs) for the whole test session; workers can import this module.

    Returns (address, started): the GCS address for drivers in subprocesses, and whether this call
    started it (the fixture that did stops it).
    """
    paths = [str(TESTS), str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    from tournament.backends import _prepare_local_ray_env, start_local_ray
    _prepare_local_ray_env()  # before ray is imported: Ray on localhost only
    import ray

    started = False
    if not ray.is_initialized():
        start_local_ray(2)
        started = True
    return ray.get_runtime_context().gcs_address, started


class FlakyMcts(MCTSBot):
    """MCTS, asked by the compiled loop in Python (a callback), that raises in the games whose seed
    is divisible by 3: the same games in the compiled loop and the referee."""

    def compiled_form(self) -> CompiledForm:
        return CompiledForm("callback")

    def act(self, state):
        if self.seed % 3 == 0:
            raise RuntimeError("flaky")
        return super().act(state)
