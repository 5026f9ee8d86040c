"""Schedules whose next games depend on the results so far, played by the league driver in stages.

A ``Schedule`` hands the driver its games one stage at a time::

    class Knockout:                                  # tests/test_league_stages.py has it whole
        total = 12                                   # games it plays at most (the progress bar's)
        def next_games(self, results: Results) -> list[GameSpec] | None:
            if not results.stages:
                return first_round()
            if len(results.stages) == 1:
                return final(winners(results.results))   # from the first round's ranks
            return None                                  # finished

``run_league(config, schedule=...)`` asks for a stage, plays it to its end (every game recorded),
then asks for the next with the records of every game of the stages so far, until the schedule
returns None. So each stage is a pure function of the recorded results of the stages before it:
``--resume`` asks again from the first stage, with the records read back from the run folder, and
plays only what each stage still misses, which puts the run exactly where an uninterrupted one
would be (the same games, ids and seeds). A schedule must therefore depend on nothing but
``results`` and its own settings (not on timing, workers or the order games finished in: the
rows come sorted by game id). ``results.games`` and ``results.results`` are made when first read;
``results.since(k)`` holds only the ``results`` rows of stages ``k`` on, for a schedule that keeps
its own count of the stages before (a Swiss: tournament/events/swiss.py ``SwissCount``).

A stage may also carry the bots its games are played by (``Stage``: ``config.bots``' entries with
other parameters, the same names in the same order) and columns of the ``games`` table that hold
one value for all its games (records.columns' optional ones): a tune (kinds/tune.py) plays
each step's theta+ and theta- so, and records the theta they played with; like the games, they
must follow from ``results`` alone, which is what lets ``--resume`` rebuild them.

The SPRT (kinds/sprt.py: pairs until the test decides), a study (``OneStage``: its fixed
games) and a tune are schedules; a league's own round-robin is played by the driver directly, without one
(its fresh games go to the tasks as slices of the schedule, tournament/batches.py).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from records.columns import SCHEMAS
from records.read import read_table
from records.store import RunStore
from records.writer import RECEIPT_COLUMNS, Committed

from .scheduler import GameSpec


@dataclass
class Results:
    """What a schedule is told: the games of the stages played so far, and their records.

    ``stages``: each stage's games, as the schedule gave them. ``games`` and ``results``: the
    recorded rows of exactly those games, sorted by game id (and seat), with the columns of
    ``records.RECEIPT_COLUMNS``: games ``game_id, termination, fault_seat, duration_s``, results
    ``game_id, seat, bot, score, rank``."""

    stages: list[list[GameSpec]]
    games: pa.Table
    results: pa.Table

    def since(self, first: int) -> pa.Table:
        """The ``results`` rows of the games of the stages from ``first`` on only: what a schedule
        that keeps its own count of the stages before reads (a Swiss, tournament/events/swiss.py)."""
        return self.results.filter(pc.is_in(self.results["game_id"], _ids(self.stages[first:])))


class _RecordedResults(Results):
    """``Results`` of a driver's ``Recorded``, whose tables are made when first read: a schedule
    that reads only its newest stages (``since``) never pays for the whole run's rows."""

    def __init__(self, stages: list[list[GameSpec]], recorded: Recorded):
        self.stages, self._recorded, self._tables = stages, recorded, None

    @property
    def games(self) -> pa.Table:
        return self._all()["games"]

    @property
    def results(self) -> pa.Table:
        return self._all()["results"]

    def since(self, first: int) -> pa.Table:
        return self._recorded.rows(self.stages[first:])["results"]

    def _all(self) -> dict[str, pa.Table]:
        if self._tables is None:
            self._tables = self._recorded.rows(self.stages)
        return self._tables


@dataclass(frozen=True)
class Stage:
    """A stage's games, and (optional) the bots they are played by and columns for their records.

    ``bots``: entries of a resolved config's ``bots`` (dicts: name, type, params, seed,
    time_limit) that stand for ``config.bots`` in these games: as many, with the same names in the
    same order (the standings and the records name them so); None: ``config.bots``. ``columns``:
    ``games`` columns of an optional source (records.columns.OPTIONAL) and their one value for
    every game of the stage (``records.tables.with_columns``)."""

    games: list[GameSpec]
    bots: list[dict[str, Any]] | None = None
    columns: dict[str, Any] | None = None

    def config(self, config):
        """The ``LeagueConfig`` these games are played under: ``config`` with the stage's bots; a
        ValueError when they do not stand for the config's bots one for one, or cannot be built."""
        if self.bots is None:
            return config
        from dataclasses import replace

        from bots import bot_maker

        names = [b.name for b in config.bots]
        if [b.get("name") for b in self.bots] != names:
            raise ValueError(f"a stage's bots must be named as the config's ({', '.join(names)}), in order, "
                             f"not {', '.join(str(b.get('name')) for b in self.bots)}")
        bots = []
        for entry, own in zip(config.bots, self.bots):
            bot = replace(entry, **own)
            bot_maker(bot.type, bot.params)  # a ValueError names a parameter out of its range
            bots.append(bot)
        return replace(config, bots=tuple(bots))


class Schedule(Protocol):
    """Games that come in stages, each chosen from the results of the stages before it."""

    total: int  # the most games it may play (the progress bar's total; a bound, not a promise)

    def next_games(self, results: Results) -> list[GameSpec] | Stage | None:
        """The next stage's games (their bots index ``config.bots``, or the ``Stage``'s bots), or
        None: finished."""


@dataclass
class OneStage:
    """A schedule of one stage: these games (a study's, kinds/study.py)."""

    games: list[GameSpec]
    total: int = field(init=False)

    def __post_init__(self):
        self.total = len(self.games)

    def next_games(self, results: Results) -> list[GameSpec] | None:
        return None if results.stages else self.games


class Recorded:
    """The receipt rows (``RECEIPT_COLUMNS``) of the games a run has recorded, for ``Results``:
    read from the run (its local view's store, ``RunStore.viewed``) when first asked for, then
    added to as batches are accepted."""

    def __init__(self, run: RunStore):
        self.run = run
        self.tables: dict[str, list[pa.Table]] | None = None
        self.later: dict[str, list[pa.Table]] = {name: [] for name in RECEIPT_COLUMNS}

    def add(self, tables: dict[str, pa.Table] | Committed) -> None:
        if isinstance(tables, Committed):
            tables = tables.tables
        for name, cols in RECEIPT_COLUMNS.items():
            self.later[name].append(tables[name].select(cols))

    def results(self, stages: list[list[GameSpec]]) -> Results:
        """The records of the games of ``stages``, every one of which is recorded (read when a
        schedule first asks for them)."""
        if self.tables is None:  # what the run held before this driver (a resume): read once, first
            held = self.run.has_records()
            self.tables = {name: [read_table(self.run, name, cols)] if held else []
                           for name, cols in RECEIPT_COLUMNS.items()}
        return _RecordedResults([list(s) for s in stages], self)

    def rows(self, stages: list[list[GameSpec]]) -> dict[str, pa.Table]:
        """The ``games`` and ``results`` rows of the games of ``stages``, sorted by game id (and seat)."""
        ids = _ids(stages)
        out = {}
        for name, cols in RECEIPT_COLUMNS.items():
            parts = self.tables[name] + self.later[name]
            every = pa.concat_tables(parts).combine_chunks() if parts else _empty(name)  # one chunk: a quick filter
            self.tables[name], self.later[name] = [every], []
            table = every.filter(pc.is_in(every["game_id"], ids))
            keys = [("game_id", "ascending")] + ([("seat", "ascending")] if name == "results" else [])
            out[name] = table.sort_by(keys)
        if out["games"].num_rows != len(ids):  # the driver plays each stage to its end first
            raise RuntimeError(f"{out['games'].num_rows} of the {len(ids)} games of the stages asked for "
                               "are recorded")
        return out


def _ids(stages: list[list[GameSpec]]) -> pa.Array:
    return pa.array([g.game_id for stage in stages for g in stage], pa.string())


def _empty(name: str) -> pa.Table:
    return pa.schema([SCHEMAS[name].field(c) for c in RECEIPT_COLUMNS[name]]).empty_table()


def stages_of(schedule: Schedule, recorded: Recorded) -> Iterable[Stage]:
    """The schedule's stages, each asked once the one before it is played (the caller plays each
    stage to its end before taking the next). A game id given twice is a schedule's mistake."""
    stages: list[list[GameSpec]] = []
    seen: set[str] = set()
    while (stage := schedule.next_games(recorded.results(stages))) is not None:
        if not isinstance(stage, Stage):
            stage = Stage(list(stage))
        games = list(stage.games)
        if not games:
            raise ValueError(f"{type(schedule).__name__}.next_games gave a stage of no games "
                             "(None says the schedule is finished)")
        for g in games:
            if g.game_id in seen:
                raise ValueError(f"{type(schedule).__name__}.next_games gave game {g.game_id} twice")
            seen.add(g.game_id)
        yield stage
        stages.append(games)
