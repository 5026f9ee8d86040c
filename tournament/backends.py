"""Where a league's games are played: in the driver's process (``workers: 0``) or as Ray tasks.

``play_batch`` is the task: it builds the bots of a config once per process and plays a batch of
games into Arrow tables. ``SerialBackend`` and ``RayBackend`` implement ``Backend``, the one small
interface (submit, wait, get, cancel, close, and the errors that mean a lost worker or a failed
task) that the driver in tournament/runner.py uses. A local Ray is started here with the
dashboard off and every port on 127.0.0.1; ``--address`` joins a cluster.
"""
from __future__ import annotations

import atexit
import gc
import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple, Protocol, runtime_checkable

import pyarrow as pa

from bots import Bot, bot_maker
from bots.value_file import model_digests, provide_models
from records.store import open_store
from records.tables import RecordBuffer
from records.writer import Committed

from .config import LeagueConfig
from .errors import LeagueError
from .fastloop import BotRaised, Plan, compiled_batch, compiled_plan, play_columns, play_compiled
from .game import Seat, close_bots, play_game
from .scheduler import GameSpec, Slice, games_of, pack_games, unpack_games


class _Context(NamedTuple):
    """What a process keeps for the config in play."""

    seats: list[Seat]
    variant: str
    kept: dict[tuple[str, int], Bot]  # external programs running from game to game
    plan: Plan | None  # how the compiled loop plays the config (None: every game by the referee)


# Per process, the config in play (the kept programs are closed when the config changes, the
# backend closes or the process exits).
_CONTEXTS: dict[str, _Context] = {}


def close_kept_bots() -> None:
    """Close the programs this process keeps between games (and forget the config)."""
    for context in _CONTEXTS.values():
        close_bots(context.kept.values())
    _CONTEXTS.clear()


atexit.register(close_kept_bots)


def league_seats(config: LeagueConfig) -> list[Seat]:
    """How to build every bot of a config: one ``Seat`` per bot, in config order.

    The parameters are checked here, once; a worker then builds each bot once (``game.Seat``).
    """
    seats = []
    for entry in config.bots:
        limit = entry.time_limit if entry.time_limit is not None else config.time_limit
        seats.append(Seat(entry.name, bot_maker(entry.type, entry.params), entry.seed, limit))
    return seats


def play_batch(config: LeagueConfig, specs: list[GameSpec], run_id: str,
               part: tuple[str, str] | None = None) -> dict[str, pa.Table] | Committed:
    """Play games of a league and return their records as the four Arrow tables.

    Games between built-in compiled bots are played in C (tournament/fastloop.py), the others
    (and every game with ``python_referee``) by the Python referee; both write the same rows.
    ``part=(run_dir, part id)``: write them as that part of the run (records.parts.write_part: temporary
    names, renames, ``games`` last) and return only its receipt (``ray.write: workers``)."""
    return _recorded(_play_batch(config, specs, run_id), part)


def _recorded(tables: dict[str, pa.Table], part: tuple[str, str] | None) -> dict[str, pa.Table] | Committed:
    """A batch's tables, or with ``part`` its receipt once they are written as that part."""
    if part is None:
        return tables
    try:  # a folder's path, or an s3:// run (records.store.open_store)
        open_store(part[0]).write_part(part[1], {name: [table] for name, table in tables.items()})
    except FileExistsError:  # on object storage: an earlier try of this task committed these games
        pass
    return Committed.of(part[1], tables)


def play_packed(config: LeagueConfig, games: tuple[tuple, ...] | Slice, run_id: str,
                part: tuple[str, str] | None = None) -> dict[str, pa.Table] | Committed:
    """``play_batch`` of games packed by ``scheduler.pack_games`` (the Ray task): its bots read the
    models the driver resolved (``LeagueConfig.models``), never a file of the worker's machine."""
    provide_models(config.models)
    return play_batch(config, unpack_games(config, games), run_id, part)


def _context(config: LeagueConfig) -> _Context:
    """This process's context for ``config`` (made on first use; another model under the same
    name is another context)."""
    key = repr((config.bots, config.players, config.variant, config.time_limit, config.python_referee,
                model_digests(config.models)))
    if key not in _CONTEXTS:
        close_kept_bots()
        seats = league_seats(config)  # each bot's spec checked once here; the plan builds with the same makers
        _CONTEXTS[key] = _Context(seats, config.variant, {}, compiled_plan(config, [s.make for s in seats]))
        # Everything imported so far (Ray, pyarrow, the bots) lives as long as the process: keep
        # it out of the garbage collector's way, which games allocate heavily against (no
        # collection first: it takes a fifth of a second in a driver that has imported the analysis).
        gc.freeze()
    return _CONTEXTS[key]


def compiled_plan_for(config: LeagueConfig, specs: list[GameSpec]) -> Plan | None:
    """The plan ``play_batch`` plays these games with (the compiled loop), or None (the referee)."""
    plan = _context(config).plan
    return plan if plan is not None and compiled_batch(specs) else None


def _play_batch(config: LeagueConfig, specs: list[GameSpec], run_id: str) -> dict[str, pa.Table]:
    plan = compiled_plan_for(config, specs)
    if plan is not None:
        try:
            return play_compiled(plan, specs, run_id)
        except BotRaised:  # a bot asked in Python raised: the referee plays the batch, recording the forfeit
            pass
    return referee_batch(config, specs, run_id)


def referee_batch(config: LeagueConfig, specs: list[GameSpec], run_id: str) -> dict[str, pa.Table]:
    """The games played by the Python referee (tournament/game.py), a bot's failure its forfeit."""
    context = _context(config)
    buf = RecordBuffer()
    for spec in specs:
        play_game(spec, [context.seats[b] for b in spec.seats], context.variant, buf, context.kept)
    return buf.to_tables(run_id)


# ---------------------------------------------------------------- backends
@runtime_checkable
class Backend(Protocol):
    """Where the driver's batches are played: all the driver (tournament/runner.py) asks of one.

    A batch is submitted (with the part its task writes, or None: its tables come back) and gives
    a handle; ``wait`` returns the handles whose results are ready, ``get`` one's tables (or its
    part's receipt), ``cancel`` drops handles, ``close`` ends the backend. ``get`` raising one of
    ``crash_errors`` means the worker died and the games may be played again; one of
    ``task_error``, that the task failed for a reason playing again would not mend. A backend
    names both (the defaults: none), and how many batches it plays at once (``concurrency``) and
    keeps in flight (``max_in_flight``)."""

    concurrency: int
    max_in_flight: int
    crash_errors: tuple[type[BaseException], ...] = ()
    task_error: type[BaseException] | tuple[type[BaseException], ...] = ()

    def submit(self, batch: list[GameSpec] | Slice, part: tuple[str, str] | None = None,
               config: LeagueConfig | None = None) -> Any: ...

    def wait(self, handles: list, timeout: float) -> list: ...

    def get(self, handle: Any) -> dict[str, pa.Table] | Committed: ...

    def cancel(self, handles: list) -> None: ...

    def close(self) -> None: ...


class SerialBackend(Backend):
    """Games played in the driver's own process (``workers: 0``), a batch at a time, in order.

    A batch the compiled loop plays goes to a thread of its own when it is submitted: the loop
    runs in C without the GIL, so the next batch plays while the driver makes the last one's
    tables and records them. The others (the Python referee, whose time limits need the main
    thread's signals) are played when the driver asks for them."""

    concurrency = 1
    max_in_flight = 2

    def __init__(self, config: LeagueConfig, run_id: str):
        self.config, self.run_id = config, run_id
        self.queue: dict[int, tuple[list[GameSpec], tuple[str, str] | None, Future | None, dict]] = {}
        self.n = 0
        self.thread: ThreadPoolExecutor | None = None

    def submit(self, batch: list[GameSpec] | Slice, part: tuple[str, str] | None = None,
               config: LeagueConfig | None = None) -> int:
        """Start a batch; ``config``: the one its games are played under, if not the backend's
        (a stage's bots: tournament/stages.py)."""
        self.n += 1
        future = None
        config = config or self.config
        batch = games_of(config, batch)
        plan = compiled_plan_for(config, batch)
        if plan is not None:
            self.thread = self.thread or ThreadPoolExecutor(1, thread_name_prefix="azul-compiled-loop")
            future = self.thread.submit(play_columns, plan, batch)
        self.queue[self.n] = (batch, part, future, config)
        return self.n

    def wait(self, handles: list, timeout: float) -> list:
        return handles[:1]

    def get(self, handle: int) -> dict[str, pa.Table] | Committed:
        batch, part, future, config = self.queue.pop(handle)
        if future is None:
            return play_batch(config, batch, self.run_id, part)
        try:
            tables = future.result().tables(self.run_id)
        except BotRaised:  # as _play_batch: the referee plays the batch again, recording the forfeit
            tables = referee_batch(config, batch, self.run_id)
        return _recorded(tables, part)

    def cancel(self, handles: list) -> None:
        for h in handles:
            batch, part, future, config = self.queue.pop(h, (None, None, None, None))
            if future:
                future.cancel()  # one already playing finishes; close waits for it

    def close(self) -> None:
        if self.thread:
            self.thread.shutdown(wait=True, cancel_futures=True)
            self.thread = None
        close_kept_bots()


def _prepare_local_ray_env() -> None:
    """Before ray is imported: a local Ray that listens on localhost only and phones nowhere."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # On Linux, Ray binds its servers to the node's address; this makes that address 127.0.0.1.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def start_local_ray(num_cpus: int) -> None:
    """Start a new local Ray: ``num_cpus`` workers, no dashboard, nothing listening beyond localhost.

    A new one even when a cluster started with ``ray start`` runs on this machine (joining that
    one is ``--address auto``).
    """
    _prepare_local_ray_env()
    import ray

    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR, object_store_memory=512 * 1024 * 1024,
             namespace="azul-league")


def _probe(address: str) -> None:
    """Fail fast when nothing listens at a host:port address (Ray itself would retry for minutes)."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto" and other forms: Ray says what is wrong at once
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise LeagueError(f"nothing answers at {address} ({exc.strerror or exc}): start the cluster with "
                          "`ray start --head` there, or leave --address out for a local Ray") from None


class RayBackend(Backend):
    """Batches as Ray tasks: a local Ray (started and stopped here) or an existing cluster."""

    def __init__(self, config: LeagueConfig, run_id: str, address: str | None, workers: int | None,
                 task_retries: int):
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address is None:
            _prepare_local_ray_env()
        import ray

        self.ray = ray
        self.owned = False
        if not ray.is_initialized():
            if address is None:
                start_local_ray(workers or os.cpu_count() or 1)
            else:
                _probe(address)
                try:
                    ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR,
                             namespace="azul-league")
                except Exception as exc:
                    hint = ""
                    if os.environ.get("RAY_AUTH_MODE") is None:
                        hint = (" (a cluster with token authentication, Ray's default, needs RAY_AUTH_MODE=token "
                                "and its token in ~/.ray/auth_token or RAY_AUTH_TOKEN; on the head node "
                                "--address auto finds both)")
                    raise LeagueError(f"cannot join the Ray cluster at {address}: {exc}{hint}") from None
            self.owned = True
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        self.concurrency = workers or cpus
        self.max_in_flight = 2 * self.concurrency
        self.config_ref = ray.put(config)
        self.stage_ref: tuple[LeagueConfig, Any] | None = None  # the last stage's config and its object
        self.run_id = run_id
        self.remote = ray.remote(num_cpus=1, max_retries=task_retries)(play_packed)
        from ray import exceptions as rex
        # A worker (or its node) died, or the task was lost with it: play the games again.
        self.crash_errors = tuple(e for e in (
            getattr(rex, "WorkerCrashedError", None), getattr(rex, "NodeDiedError", None),
            getattr(rex, "ObjectLostError", None), getattr(rex, "OwnerDiedError", None),
            getattr(rex, "LocalRayletDiedError", None), getattr(rex, "RayletDiedError", None),
            getattr(rex, "TaskUnschedulableError", None), getattr(rex, "OutOfMemoryError", None),
        ) if e is not None)
        self.task_error = rex.RayTaskError

    def submit(self, batch: list[GameSpec] | Slice, part: tuple[str, str] | None = None,
               config: LeagueConfig | None = None):
        """Start a batch as a task; ``config``: the one its games are played under, if not the
        backend's (a stage's bots), put in the object store once per stage."""
        ref = self.config_ref
        if config is not None:
            if self.stage_ref is None or self.stage_ref[0] is not config:
                self.stage_ref = (config, self.ray.put(config))
            ref = self.stage_ref[1]
        return self.remote.remote(ref, pack_games(batch), self.run_id, part)

    def wait(self, handles: list, timeout: float) -> list:
        ready, _ = self.ray.wait(handles, num_returns=1, timeout=timeout)
        return ready

    def get(self, handle) -> dict[str, pa.Table] | Committed:
        return self.ray.get(handle)

    def cancel(self, handles: list) -> None:
        for h in handles:
            try:
                self.ray.cancel(h, force=True)
            except Exception:
                pass

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
