"""A tune: SPSA (kinds/spsa.py) over game pairs on the league driver, as fishtest tunes engines
(docs/tune.md).

    from kinds.tune import run_tune
    from kinds.tune_config import load_tune_file
    outcome = run_tune(load_tune_file("examples/tune.yaml"))
    outcome.params, outcome.spec

The run is a league whose bots are ``<bot>+`` and ``<bot>-`` (theta+ and theta-), and at 3 or 4
players the field, played by ``TuneSchedule``, a schedule of the league driver
(tournament/stages.py): one stage per SPSA step, ``batch`` pairs, each a ``Stage`` whose bots
are theta+ and theta- of that step and whose games record the step and theta (``games.tune_step``,
``tune_theta``, ``tune_plus``, ``tune_minus``: JSON objects of the tuned values). Pair d is two
games on deal d: lineup d of the balanced seating's cycle (``scheduler.seat_cycle``; members
theta+, theta-, field...), then the same lineup with theta+ and theta- swapped, so each pair
cancels the deal and the seats between the two, and across pairs every bot sits in every seat
and after every other bot equally often (over 2 pairs at 2 players, 6 at 3, 24 at 4). A game scores +1 for theta+ when it ranks above theta-, -1
below, 0 level; a step's result is the sum over its games, and theta moves by fishtest's rule.
theta after step s depends on nothing but the recorded results of steps up to s, so ``--resume``
(which asks for the stages again from the records) rebuilds the same trajectory.
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import yaml

from records.names import REPORT_FILES, TUNE_FIGURE, TUNE_FILE, TUNE_RESULT
from records.store import RunStore
from tournament.config import BotEntry, LeagueConfig, bot_seed, league_config, read_stored_yaml
from tournament.errors import ConfigError, LeagueError
from tournament.runner import LeagueSummary, run_league, store_of
from tournament.scheduler import GameSpec, deal_seed, game_id, seat_cycle
from tournament.stages import Results, Stage
from tournament.tracking import logged

from .base import RunKind, StatusDetail, register, settings_command
from .spsa import Spsa, rounded, steps, summary
from .tune_config import SAVED, TuneConfig, parse_tune



def side_names(config: TuneConfig) -> tuple[str, str]:
    """The names of theta+ and theta- in the records: ``<bot>+`` and ``<bot>-``."""
    base = config.bot.rpartition(":")[2] if ":" in config.bot else config.bot
    return f"{base}+", f"{base}-"


def league_of(config: TuneConfig, address: str | None = None, mlflow: bool = True) -> LeagueConfig:
    """The league the tune plays: theta+, theta- (at the start values), then the field."""
    start = {p.name: p.value(p.inside(p.start)) for p in config.params}
    plus, minus = side_names(config)
    bots = [BotEntry(plus, config.bot, {**config.fixed, **start}, bot_seed(config.seed, 0)),
            BotEntry(minus, config.bot, {**config.fixed, **start}, bot_seed(config.seed, 1))]
    taken = {plus, minus}
    for i, spec in enumerate(config.field):
        name = spec if spec not in taken else f"{spec} #{i + 1}"
        taken.add(name)
        bots.append(BotEntry.of_spec(name, spec, bot_seed(config.seed, len(bots))))
    league = league_config("tune", config.name, bots, players=config.players, variant=config.variant,
                           deals=config.pairs, seats="rotate", seed=config.seed, out=config.out)
    return league.with_overrides(address=address, workers=config.workers, mlflow=None if mlflow else False)


@dataclass(frozen=True)
class TuneStep:
    """One SPSA step: its number, the pairs before it, theta (internal) before and after, the
    values theta+ and theta- played, and theta+'s result (wins minus losses against theta-)."""
    step: int
    first_pair: int
    pairs: int
    theta: list[float]
    plus: dict
    minus: dict
    result: int
    after: list[float]


@dataclass(frozen=True)
class TuneProgress:
    steps: int  # steps finished
    total_steps: int
    pairs: int  # pairs counted
    values: dict  # theta now, as bot values
    seconds: float


class TuneSchedule:
    """The tune as a schedule of the league driver: one ``Stage`` per SPSA step."""

    def __init__(self, config: TuneConfig, league: LeagueConfig, progress=None, start: float = 0.0):
        self.config, self.progress, self.started = config, progress, start
        self.spsa = Spsa(list(config.params), config.pairs, config.seed)
        self.plan = steps(config.pairs, config.batch)
        self.total = config.total_games
        self.entries = [b.to_dict() for b in league.bots]
        self.lineups = seat_cycle(config.players, "balanced")
        self.theta = self.spsa.start()
        self.done: list[TuneStep] = []

    def next_games(self, results: Results) -> Stage | None:
        while len(self.done) < len(results.stages):  # the steps played since the last call
            self._count(len(self.done), results)
        if self.progress is not None and self.done:
            s = self.done[-1]
            self.progress(TuneProgress(len(self.done), len(self.plan), s.first_pair + s.pairs,
                                       self.spsa.values(self.theta), time.perf_counter() - self.started))
        if len(results.stages) == len(self.plan):
            return None
        return self.stage(len(results.stages))

    def stage(self, step: int) -> Stage:
        """Step ``step``'s games, bots (theta+, theta-, the field) and columns."""
        first, n = self.plan[step]
        plus, minus = self._sides(step)
        games = []
        for d in range(first, first + n):
            lineup = self.lineups[d % len(self.lineups)]
            swapped = tuple({0: 1, 1: 0}.get(m, m) for m in lineup)
            for a, seats in enumerate((lineup, swapped)):
                games.append(GameSpec(game_id(0, d, a), 0, d, a, deal_seed(self.config.seed, d), seats))
        bots = [{**self.entries[0], "params": {**self.config.fixed, **plus}},
                {**self.entries[1], "params": {**self.config.fixed, **minus}}] + self.entries[2:]
        columns = {"tune_step": step, "tune_theta": json.dumps(self.spsa.values(self.theta)),
                   "tune_plus": json.dumps(plus), "tune_minus": json.dumps(minus)}
        return Stage(games, bots, columns)

    def _count(self, step: int, results: Results) -> None:
        """theta after step ``step``, from the recorded ranks of its games."""
        first, n = self.plan[step]
        ids = pa.array([g.game_id for g in results.stages[step]], pa.string())
        rows = results.results.filter(pc.is_in(results.results["game_id"], ids)).to_pylist()
        plus, minus = (self.entries[0]["name"], self.entries[1]["name"])
        ranks: dict[str, dict[str, int]] = {}
        for r in rows:
            ranks.setdefault(r["game_id"], {})[r["bot"]] = r["rank"]
        result = sum((g[minus] > g[plus]) - (g[minus] < g[plus]) for g in ranks.values())
        before, (plus_values, minus_values) = self.theta, self._sides(step)
        self.theta = self.spsa.update(self.theta, step, first + n - 1, result)
        self.done.append(TuneStep(step, first, n, before, plus_values, minus_values, result, self.theta))

    def _sides(self, step: int) -> tuple[dict, dict]:
        """The values theta+ and theta- play with in step ``step`` (theta as it is before it)."""
        first, n = self.plan[step]
        plus, minus = (self.spsa.values(t) for t in self.spsa.sides(self.theta, step, first + n - 1))
        return plus, minus


@dataclass
class TuneOutcome:
    run_dir: Path | str  # a folder, or the run's s3:// URL
    config: TuneConfig
    steps: list[TuneStep]
    seconds: float
    interrupted: bool = False
    played: int = 0  # games this run played
    summary: LeagueSummary | None = field(default=None, repr=False)
    mlflow_run_id: str | None = None
    mlflow_error: str | None = None

    @property
    def pairs(self) -> int:
        return sum(s.pairs for s in self.steps)

    def final(self) -> dict[str, dict]:
        """Per tuned parameter: mean and sd over the trajectory's tail, the last value."""
        return summary(list(self.config.params), [s.after for s in self.steps], self.config.tail)

    def params(self) -> dict:
        """The final values as the spec gives them (the tail's mean, 4 significant digits)."""
        return {p.name: rounded(p, f["mean"]) for p, f in zip(self.config.params, self.final().values())}

    def spec(self) -> str:
        return self.config.spec(self.params())

    def yaml_fragment(self) -> str:
        """A league config's bot entry for the tuned bot."""
        name = f"{side_names(self.config)[0][:-1]}-tuned"
        entry = {"name": name, "type": self.config.bot, "params": {**self.config.fixed, **self.params()}}
        return yaml.safe_dump([entry], sort_keys=False)

    def as_dict(self) -> dict:
        final = self.final()
        return {"params": self.params(), "pairs": self.pairs, "spec": self.spec(),
                "steps": len(self.steps), "total_pairs": self.config.pairs, "complete": not self.interrupted
                and len(self.steps) == self.config.steps,
                "spread": {k: v["sd"] for k, v in final.items()}, "last": {k: v["last"] for k, v in final.items()},
                "start": {p.name: p.start for p in self.config.params}, "bot": self.config.bot,
                "fixed": dict(self.config.fixed), "players": self.config.players, "tail": self.config.tail,
                "yaml": self.yaml_fragment(), "run_dir": str(self.run_dir),
                "trajectory": [{"step": s.step, "pairs": s.first_pair + s.pairs, "result": s.result,
                                "theta": {p.name: math.exp(u) if p.log else u
                                          for p, u in zip(self.config.params, s.after)}}
                               for s in self.steps]}


def run_tune(config: TuneConfig, *, resume: bool = False, fresh: bool = False, address: str | None = None,
             mlflow: bool = True, progress: Callable[[TuneProgress], None] | None = None,
             on_written: Callable[[int], None] | None = None, league: LeagueConfig | None = None,
             referee_reasons: list[str] | None = None) -> TuneOutcome:
    """Play a tune to its last step (or a stop request) and return its outcome; writes
    ``tune.yaml`` first, ``tune.json`` and the paths' plot (``tune.svg``) once finished.
    ``league``: the tune's league (``league_of(config, address, mlflow)``) when the caller built it
    already (to print who referees), else built here; ``referee_reasons``: as ``run_league``'s
    (the command that printed them hands them on)."""
    started = time.perf_counter()
    try:
        league = league or league_of(config, address, mlflow)
    except ConfigError as exc:
        raise LeagueError(str(exc)) from None
    store = store_of(league)  # a folder, or a run on object storage
    run_dir, saved = store.root, config.saved()
    if resume and not fresh and store.has_records() and store.exists(TUNE_FILE):
        try:
            before = read_stored_yaml(store, TUNE_FILE)
        except ConfigError as exc:  # one line: the file, the line and column
            raise LeagueError(f"cannot resume: {exc}") from None
        if isinstance(before, dict):
            changed = [k for k in SAVED if before.get(k) != saved[k]]
            if changed:
                raise LeagueError(f"cannot resume {run_dir}: the tune differs from the one it was started "
                                  f"with in {', '.join(changed)} (use --fresh to start over, or another --out)")
    if fresh or not store.has_records() or not store.exists(TUNE_FILE):
        store.write_text(TUNE_FILE, yaml.safe_dump(saved, sort_keys=False))
    schedule = TuneSchedule(config, league, progress, started)
    summary_ = run_league(league, resume=resume, fresh=fresh, on_written=on_written, schedule=schedule, kind=TUNE,
                          referee_reasons=referee_reasons)
    outcome = TuneOutcome(run_dir, config, schedule.done, time.perf_counter() - started, summary_.interrupted,
                          summary_.played, summary_)
    if summary_.complete:
        store.write_text(TUNE_RESULT, json.dumps(outcome.as_dict(), indent=1) + "\n")
        from analysis.tune import path_figure

        done = outcome.as_dict()
        store.write_text(TUNE_FIGURE, path_figure(done["trajectory"], done["params"], done["start"]))
        if league.mlflow.enabled:
            outcome.mlflow_run_id, outcome.mlflow_error = logged(lambda: log_tune(league, outcome))
    return outcome


def log_tune(league: LeagueConfig, outcome: TuneOutcome) -> str:
    """Log the tune to the league's MLflow run: theta per step (``theta.<param>``, step = pairs
    counted), the final values (``tuned.<param>``, ``tuned.<param>.sd``) and tune.json, tune.svg."""
    from mlflow.entities import Metric, Param

    from tournament.tracking import log_league, metric_key, mlflow_client, tracking_uri

    run_id = log_league(league, outcome.run_dir, outcome.summary)
    client = mlflow_client(tracking_uri(league))
    now = int(time.time() * 1000)
    metrics = []
    for row in outcome.as_dict()["trajectory"]:
        metrics += [Metric(metric_key(f"theta.{k}"), float(v), now, row["pairs"]) for k, v in row["theta"].items()]
    for k, f in outcome.final().items():
        metrics += [Metric(metric_key(f"tuned.{k}"), float(f["mean"]), now, 0),
                    Metric(metric_key(f"tuned.{k}.sd"), float(f["sd"]), now, 0)]
    for i in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[i:i + 1000],
                         params=[Param("tune.spec", outcome.spec())] if i == 0 else [])
    store = RunStore(outcome.run_dir)
    for name in (TUNE_FILE, TUNE_RESULT, TUNE_FIGURE):
        client.log_artifact(run_id, str(store.local(name)))
    return run_id


def tune_path(folder: Path) -> list[dict] | None:
    """A tune's steps in its records (analysis/tune.py): theta at each step's start, the pairs by
    its end; None unless the records are a tune's."""
    from analysis.records import check_runs, connect
    from analysis.tune import side_names, tune_steps

    runs = check_runs(folder)
    con = connect(runs)
    try:
        return tune_steps(con, side_names(folder))
    finally:
        con.close()


class TuneDetail(StatusDetail):
    """A tune as it stands: nothing besides the counts in its status; ahead, its final parameters
    once it has finished (``tune.json``), else the parameters of its last step recorded."""

    def __init__(self, run: RunStore):
        self.run = run

    def ahead(self) -> str | None:
        from analysis.tune import read_result

        final = (read_result(self.run.view()) or {}).get("params")  # a finished tune's outcome
        if final:
            return "final " + ", ".join(f"{k}={v:.4g}" for k, v in final.items())
        try:
            steps = tune_path(self.run.view())  # None unless the records are a tune's
        except Exception:  # noqa: BLE001 - damaged records: the run page names the part
            return None
        if steps:
            return "theta " + ", ".join(f"{k}={v:.4g}" for k, v in steps[-1]["theta"].items())
        return None


class TuneKind(RunKind):
    """A tune's run: SPSA steps, each a stage of game pairs (``TuneSchedule``)."""

    name, label, article, settings = "tune", "tune", "a tune", TUNE_FILE
    owned = (TUNE_RESULT, TUNE_FIGURE, *REPORT_FILES)

    def finish_command(self, run: RunStore) -> str:  # tune.yaml: the tune as it started, named as the run
        return settings_command(run, ["azul", "tune"], TUNE_FILE, "TUNE.yaml", "the tune file that started it")

    def planned_games(self, run: RunStore) -> int | None:
        try:
            store = RunStore(run)
            data = read_stored_yaml(store, TUNE_FILE)
            return parse_tune(data, store.where(TUNE_FILE)).total_games if isinstance(data, dict) else None
        except ConfigError:
            return None

    def detail(self, run: RunStore) -> StatusDetail:
        return TuneDetail(run)


TUNE = register(TuneKind())
