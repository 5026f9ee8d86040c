"""The league driver: schedule games, play them in batches on Ray workers, write records as they come.

    from tournament import load_config, run_league
    summary = run_league(load_config("configs/quick.yaml"))

The driver keeps a bounded number of batches in flight (two per worker), so its memory does not
grow with the league: the schedule is a generator, results are written in part files as they
arrive, and only a tally of a few numbers per bot is kept. Workers build the bots from the config,
play and return Arrow tables. A ``Schedule`` whose next games depend on the results so far (an
SPRT, a study: tournament/stages.py) is played stage by stage: each stage to its end, then the
next one asked for with the recorded results.

Faults: a worker process that dies is retried by Ray (``max_retries``); if Ray gives up
(``WorkerCrashedError`` and kin) the driver resubmits the games, one per task, up to
``resubmits`` times, and a game that still kills its worker is recorded as an ``error``. A stop
request (Ctrl-C, SIGTERM) ends the league cleanly: what is played is written, the rest is left
to ``--resume``, which repairs a damaged run folder first (``tournament.repair``). The run folder's
lock, its preparation and the checks a resume passes are tournament/run_folder.py's.
"""
from __future__ import annotations

import gc
import json
import logging
import signal
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from engine import __version__ as ENGINE_VERSION
from records.names import STANDINGS_CSV, STANDINGS_JSON
from records.store import RunStore, open_root
from records.tables import build_table, empty_table, with_columns
from records.writer import BufferedWriter, Committed, read_committed

from .backends import Backend, RayBackend, SerialBackend
from .errors import LeagueError
from .batches import BatchSizer, Listed, Slices
from .config import LeagueConfig
from .fastloop import why_python_referee
from .repair import RepairReport, drop_duplicate_games
from .run_folder import FolderKind, PlainLeague, _locked, prepare_run_dir
from .scheduler import GameSpec, Slice, event_columns, games_of, league_games, series_id
from .stages import Recorded, Schedule, Stage, stages_of
from .standings import BotStanding, Tally, league_standings, league_tally


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeagueProgress:
    """Where a league run stands, as ``run_league`` reports it to its ``progress`` callback."""

    name: str
    total: int  # games in the league
    recorded: int  # games recorded so far, before this run and by it
    played: int  # games recorded by this run
    seconds: float  # since this run started playing
    leader: tuple[str, float] | None  # the bot with the best win rate so far, and that rate
    referee: str = "compiled"  # who plays the games: "compiled" (the C loop) or "python" (the referee)

    @property
    def rate(self) -> float:
        """Games per second played by this run."""
        return self.played / max(self.seconds, 1e-9)


@dataclass
class LeagueSummary:
    run_dir: Path
    total: int
    done_before: int  # games already recorded when this run started (resume)
    played: int  # games recorded by this run
    interrupted: bool
    elapsed_s: float
    complete: bool = False  # every game recorded (a schedule's: it has no more to give)
    play_s: float = 0.0  # seconds spent playing (without starting Ray or the final standings)
    standings: list[BotStanding] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)  # termination -> games
    forfeited: list[tuple[str, int]] = field(default_factory=list)  # (bot, games): every one forfeited
    mlflow_run_id: str | None = None
    mlflow_error: str | None = None  # why logging to MLflow failed (``--resume`` tries again)
    run_id: str = ""  # the run's id in its records (run.json)
    repair: RepairReport | None = None  # what ``--resume`` mended in the folder first
    # who plays this run's games: "compiled" (the C loop, tournament/fastloop.py) or "python" (the
    # referee); and why the referee does, a line a reason (fastloop.why_python_referee)
    referee: str = "compiled"
    referee_reasons: list[str] = field(default_factory=list)

    @property
    def recorded(self) -> int:
        return self.done_before + self.played


def run_dir_of(config: LeagueConfig) -> Path:
    return Path(config.out) / config.name


def store_of(config: LeagueConfig):
    """The store of the config's run: ``<out>/<name>``, a local folder or under an ``s3://`` out."""
    return open_root(config.out).run(config.name)


# ---------------------------------------------------------------- the driver
class _Stop:
    """Ctrl-C and SIGTERM ask for a clean stop; a second Ctrl-C stops at once."""

    def __init__(self):
        self.requested = False
        self._previous: dict[int, Any] = {}

    def _handle(self, signum, frame):
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    @contextmanager
    def installed(self):
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        try:
            yield self
        finally:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)


def run_league(config: LeagueConfig, *, resume: bool = False, fresh: bool = False,
               progress: Callable[[LeagueProgress], None] | None = None, task_retries: int = 3,
               resubmits: int = 2, on_written: Callable[[int], None] | None = None,
               schedule: Schedule | None = None, kind: FolderKind = PlainLeague(),
               referee_reasons: list[str] | None = None) -> LeagueSummary:
    """Play a league to the end (or until stopped) and return its summary.

    ``config.ray.workers == 0`` plays in this process without Ray. ``progress(LeagueProgress)``
    is called when play starts and after each batch of games (None or False: not at all);
    the library prints nothing. ``on_written(games)`` is called once part files are committed
    (tests use it to stop a league halfway). ``schedule``: play its games, stage by stage,
    instead of the config's round-robin (tournament/stages.py: an SPRT, a study); their bots
    index ``config.bots``; an event config (``config.format``: gauntlet, swiss, knockout) plays its
    format's (tournament/events/); ``kind``: what the run is (``FolderKind``: kinds.LEAGUE, SPRT...).
    ``referee_reasons``: ``fastloop.why_python_referee(config)`` when the caller has it already
    (the CLI printed it), else found here.
    """
    store = store_of(config)
    started = time.perf_counter()
    try:  # the models, read once here: the workers get their bytes, never a path to read
        config = config.with_models()
    except ValueError as exc:
        raise LeagueError(str(exc)) from None
    if schedule is None and config.format != "round-robin":  # an event: its format's schedule
        from .events import event_schedule

        schedule = event_schedule(config)
    with _locked(store):
        total = config.total_games if schedule is None else schedule.total
        if referee_reasons is None:
            referee_reasons = why_python_referee(config)
        summary = LeagueSummary(store.root, total, 0, 0, False, 0.0, referee_reasons=referee_reasons,
                                referee="python" if referee_reasons else "compiled")
        prepared = prepare_run_dir(config, store, resume, fresh, summary.referee, kind)
        summary.run_id, summary.repair = prepared.run_id, prepared.repair
        summary.done_before = len(prepared.done)
        names = [b.name for b in config.bots]
        if schedule is not None or len(prepared.done) < total:
            tally = league_tally(store.view(), names) if prepared.done else Tally(names)  # a leader to report, no fit
            state = _Played(summary, prepared.done, tally, BufferedWriter(store, config.flush_seconds, on_written),
                            Recorded(store.viewed()) if schedule is not None else None)
            _Driver(config, store, state, _Options(progress or None, task_retries, resubmits)).run(schedule)
        else:
            summary.complete = True
        standings, tally = league_standings(store.view(), names)
        summary.standings = standings
        summary.failures = dict(tally.failures)
        summary.forfeited = tally.forfeited_every_game()
        summary.elapsed_s = time.perf_counter() - started
        if summary.complete:
            _write_standings(store, standings)
            if config.mlflow.enabled:
                from .tracking import log_league, logged
                summary.mlflow_run_id, summary.mlflow_error = logged(lambda: log_league(config, store, summary))
        return summary


@dataclass(frozen=True)
class _Options:
    """How the driver plays: whom it reports to, and how often it plays a lost worker's games again."""

    progress: Callable[[LeagueProgress], None] | None  # called with a LeagueProgress (None: no one)
    task_retries: int  # Ray's retries of a task whose worker died
    resubmits: int  # then the driver's, one game a task, before a game is recorded as an ``error``


@dataclass
class _Played:
    """What the driver knows of the run as batches come in, and changes with each (``accept``):
    the summary's count of games played, the ids recorded, the tally, the writer, a schedule's
    results so far (``recorded``: the next stage is made from them; None for a league of the
    config's own games), the batch sizer, and the columns of the stage in play."""

    summary: LeagueSummary
    done: set[str]  # ids of the games recorded, before this run and by it
    tally: Tally
    writer: BufferedWriter
    recorded: Recorded | None = None
    sizer: BatchSizer | None = None  # made when play starts (it needs the backend's concurrency)
    stage_columns: dict | None = None  # the stage's columns for its games' records

    def accept(self, tables: dict[str, pa.Table] | Committed) -> None:
        """Take a batch's records: written (or, a part a task wrote, counted), each game once."""
        if self.stage_columns:  # a stage's games (the driver writes them): its columns added
            tables = {**tables, "games": with_columns("games", tables["games"], self.stage_columns)}
        if isinstance(tables, Committed):  # a part a task wrote: recorded already, only counted here
            tables = tables.tables
            ids = tables["games"].column("game_id").to_pylist()
            self.writer.by_tasks += len(ids)
        else:
            tables, ids = _unrecorded(tables, self.done)
            self.writer.add(tables, len(ids))
        self.done.update(ids)
        self.tally.add_tables(tables["games"], tables["results"])
        self.summary.played += len(ids)
        self.sizer.observe(len(ids), pc.sum(tables["games"]["duration_s"]).as_py() or 0.0)
        if self.recorded is not None:
            self.recorded.add(tables)


def _unrecorded(tables: dict[str, pa.Table], done: set[str]) -> tuple[dict[str, pa.Table], list[str]]:
    """A batch's tables without the games in ``done`` (never record a game twice), and their ids."""
    ids = tables["games"].column("game_id").to_pylist()
    fresh = [gid not in done for gid in ids]
    if all(fresh):
        return tables, ids
    mask = pa.array(fresh)
    keep = {gid for gid, f in zip(ids, fresh) if f}
    tables = {name: (t.filter(mask) if name == "games" else
                     t.filter(pa.array([g in keep for g in t.column("game_id").to_pylist()])))
              for name, t in tables.items()}
    return tables, tables["games"].column("game_id").to_pylist()


class _Driver:
    """Plays batches of games on a backend (started when first needed) and records them."""

    def __init__(self, config: LeagueConfig, store: RunStore, state: _Played, options: _Options):
        self.config, self.store, self.state, self.options = config, store, state, options
        # where a task writes its part: the folder's absolute path, or the run's s3:// URL
        self.part_root = store.address()
        # Tasks write their own parts (ray.write: workers) in a league of the config's own games;
        # the driver then only tracks what they commit. A schedule's stages go through the driver.
        self.workers_write = config.ray.write == "workers" and state.recorded is None
        self.stop = _Stop()
        self.backend: Backend | None = None
        self.start = time.perf_counter()
        self.in_flight: dict[Any, tuple[list[GameSpec] | Slice, int, tuple[str, str] | None]] = {}
        self.crashed = False
        self.stage_config: LeagueConfig | None = None  # the stage's config (its bots), when it has bots of its own

    def run(self, schedule: Schedule | None) -> None:
        """Play the config's round-robin, or ``schedule`` stage by stage, until done or stopped."""
        summary, done = self.state.summary, self.state.done
        try:
            with self.stop.installed(), _few_collections():
                self.report()
                if schedule is not None:  # each stage's games not yet recorded, the next stage once played
                    summary.complete = all(map(self.play_stage, stages_of(schedule, self.state.recorded)))
                elif done:
                    pending = Listed(s for s in league_games(self.config) if s.game_id not in done)
                    summary.complete = self.play(pending, summary.total - len(done))
                else:  # a fresh league: slices of its schedule, each built by its task
                    pending = Slices(summary.total, self.config.match == "series")
                    summary.complete = self.play(pending, summary.total)
                summary.interrupted = self.stop.requested
        except KeyboardInterrupt:
            summary.interrupted, summary.complete = True, False
        finally:
            self.close()

    def play_stage(self, stage: Stage) -> bool:
        """Play a stage's games not yet recorded, with its bots and columns: True once all are."""
        try:
            self.stage_config = None if stage.bots is None else stage.config(self.config)
        except ValueError as exc:
            raise LeagueError(f"cannot play the stage of {stage.games[0].game_id}..: {exc}") from None
        self.state.stage_columns = stage.columns
        games = [g for g in stage.games if g.game_id not in self.state.done]
        return self.play(Listed(iter(games)), len(games))

    def report(self) -> None:
        """Call ``progress`` with a ``LeagueProgress`` of the run as it stands (if there is one)."""
        if self.options.progress is not None:
            s = self.state.summary
            self.options.progress(LeagueProgress(self.config.name, s.total, s.recorded, s.played,
                                                 time.perf_counter() - self.start, self.state.tally.leader(),
                                                 s.referee))

    def play(self, pending: Slices | Listed, remaining: int) -> bool:
        """Play ``pending``'s games (``remaining`` of them) to the end: True, or False when stopped."""
        if not remaining:
            return True
        state = self.state
        if self.backend is None:
            self.backend = self._backend()
            self.start = time.perf_counter()
            state.sizer = BatchSizer(self.config.batch_games, remaining, self.backend.concurrency)
        backend, writer, in_flight = self.backend, state.writer, self.in_flight
        state.sizer.remaining = remaining
        retry: list[tuple[list[GameSpec], int]] = []
        exhausted = False
        while not self.stop.requested:
            while len(in_flight) < backend.max_in_flight and (retry or not exhausted):
                if retry:
                    batch, attempt = retry.pop()
                else:
                    batch, attempt = pending.take(state.sizer.size()), 0
                    if not batch:
                        exhausted = True
                        break
                part = (self.part_root, writer.reserve()) if self.workers_write else None
                in_flight[backend.submit(batch, part, self.stage_config)] = (batch, attempt, part)
            if not in_flight:
                return True
            for handle in backend.wait(list(in_flight), 0.25):
                batch, attempt, part = in_flight.pop(handle)
                try:
                    tables = backend.get(handle)
                except backend.crash_errors as exc:
                    # a task that wrote its part before its worker died: its games are recorded
                    committed = read_committed(self.store, part[1]) if part else None
                    self.crashed = True
                    for tables in [committed] if committed else self._after_crash(
                            games_of(self.config, batch), attempt, exc, retry):
                        state.accept(tables)
                    self.report()
                    continue
                except backend.task_error as exc:
                    raise LeagueError(f"a worker failed playing {games_of(self.config, batch)[0].game_id}..: "
                                      f"{getattr(exc, 'cause', None) or exc}") from None
                state.accept(tables)
                self.report()
            writer.maybe_flush()
        return False

    def _backend(self) -> Backend:
        """The backend the config asks for: this process (``workers: 0``) or Ray."""
        workers, run_id = self.config.ray.workers, self.state.summary.run_id
        if workers == 0:
            return SerialBackend(self.config, run_id)
        return RayBackend(self.config, run_id, self.config.ray.address, workers, self.options.task_retries)

    def _after_crash(self, batch: list[GameSpec], attempt: int, exc: BaseException,
                     retry: list[tuple[list[GameSpec], int]]) -> list[dict[str, pa.Table]]:
        """A batch whose worker died for good: its games put on ``retry``, one per task, up to
        ``resubmits`` times, then given up on. Returns the records of the games given up on (an
        ``error`` each, every seat ranked last)."""
        if attempt < self.options.resubmits:
            for spec in batch:
                retry.append(([spec], attempt + 1))
            return []
        reason = f"the worker playing this game died {attempt + 1} times ({type(exc).__name__})"
        return [_crashed_game(spec, self.config, self.state.summary.run_id, reason) for spec in batch]

    def close(self) -> None:
        summary = self.state.summary
        try:
            if self.backend is not None:
                self.backend.cancel(list(self.in_flight))
            self.state.writer.close()
        finally:
            summary.play_s = time.perf_counter() - self.start if self.backend is not None else 0.0
            if self.backend is not None:
                self.backend.close()
            # A task that committed after the driver gave up on it (a crash here, or a driver killed
            # before this one resumed) may have recorded games twice: each game once.
            if self.workers_write and (self.crashed or summary.done_before):
                drop_duplicate_games(self.store)


@contextmanager
def _few_collections():
    """Python's cycle collector, rarely, while the driver plays: it makes and drops a few objects
    per game (specs, ids) and keeps ever more (the done ids, the tally), and collecting at the
    default pace cost a fifth of the driver's time. Nothing the loop makes holds a cycle."""
    before = gc.get_threshold()
    gc.freeze()  # what is there already (imports, the config) stays: not worth traversing
    gc.set_threshold(100_000, 50, 1000)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _crashed_game(spec: GameSpec, config: LeagueConfig, run_id: str, reason: str) -> dict[str, pa.Table]:
    """Records of a game no worker could finish: every seat ranked last, no moves."""
    players = len(spec.seats)
    games = {"game_id": [spec.game_id], "deal_seed": [spec.deal_seed], "variant": [config.variant],
             "num_players": [players], "rounds": [0], "plies": [0], "termination": ["error"], "error": [reason],
             "duration_s": [0.0], "engine_version": [ENGINE_VERSION], "table": [spec.table], "deal": [spec.deal],
             "arrangement": [spec.arrangement], "fault_seat": [None], "series_id": [series_id(spec)],
             "series_game": [spec.series_game], "intervention": [spec.intervention],
             "study_seat": [spec.study_seat], **event_columns([spec])}
    zeros = [0] * players
    results = {"game_id": [spec.game_id] * players, "seat": list(range(players)),
               "bot": [config.bots[b].name for b in spec.seats], "score": zeros, "rank": [players] * players,
               "is_winner": [False] * players, "complete_rows": zeros, "complete_columns": zeros,
               "complete_colors": zeros, "bonus_points": zeros, "floor_penalty_total": zeros}
    return {"games": build_table("games", games, run_id), "results": build_table("results", results, run_id),
            "moves": empty_table("moves"), "rounds": empty_table("rounds")}


def _write_standings(store: RunStore, standings: list[BotStanding]) -> None:
    import csv
    import io

    text = io.StringIO(newline="")
    w = csv.DictWriter(text, fieldnames=list(BotStanding.__dataclass_fields__))
    w.writeheader()
    for row in standings:
        w.writerow(row.as_dict())
    store.write_text(STANDINGS_CSV, text.getvalue())
    store.write_text(STANDINGS_JSON, json.dumps([r.as_dict() for r in standings], indent=2) + "\n")
