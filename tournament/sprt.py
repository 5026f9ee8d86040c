"""An SPRT on the league machinery: two bots, 2 players, seats rotated, one deal per pair, played
on Ray (or in process) until fishtest's GSPRT has its answer (analysis/sprt.py, docs/sprt.md).

    from tournament.sprt import SprtSettings, run_sprt
    outcome = run_sprt(SprtSettings(new="mcts:iterations=2000", base="mcts:iterations=500"))

The run is an ordinary league (``config.yaml``, the four record tables) with ``deals`` =
``max_pairs``, plus ``sprt.yaml`` (the test's settings), so ``azul elo``, ``standings``,
``report`` and ``replay`` read it as any league. While it plays, ``run_league``'s ``on_games``
hook collects each batch's pairs; the decision is taken on complete pairs in deal order only
(analysis/sprt_run.py), and when it is taken the league is stopped. ``--resume`` recomputes the
decision from the records and goes on only if there is none yet.
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import yaml

from analysis import sprt
from analysis.sprt_run import SETTINGS, SPRT_FILE, SprtResult, in_order, pair_cells, sprt_result
from records.parts import has_records

from .backends import LeagueError
from .config import LeagueConfig, parse_config
from .runner import LeagueSummary, run_dir_of, run_league
from .scheduler import derive_seed


@dataclass(frozen=True)
class SprtSettings:
    """An SPRT of bot ``new`` against bot ``base`` (bot specs, ``bots.spec``) and where to run it."""
    new: str
    base: str
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"
    max_pairs: int = 10000
    variant: str = "colored"
    seed: int = 0
    seeds: tuple[int | None, int | None] = (None, None)  # the bots' seeds; None: from ``seed``
    name: str = "sprt"
    out: str = "runs"
    workers: int | None = None
    address: str | None = None
    mlflow: bool = True

    def check(self) -> None:
        """A ValueError in one line for settings that cannot make a test."""
        sprt.check_hypotheses(self.elo0, self.elo1, self.model)
        sprt.bounds(self.alpha, self.beta)
        if isinstance(self.max_pairs, bool) or not isinstance(self.max_pairs, int) or self.max_pairs < 1:
            raise ValueError(f"max_pairs must be a whole number, 1 or more, not {self.max_pairs!r}")
        new_seed, base_seed = self.bot_seeds()
        if self.new.strip() == self.base.strip() and new_seed == base_seed:
            raise ValueError(f"both bots are {self.new!r} with seed {new_seed}: the same bot twice "
                             "(give them different seeds for an A/A test)")

    def bot_seeds(self) -> tuple[int, int]:
        return tuple(derive_seed(self.seed, "bot", i) % 2**31 if s is None else s
                     for i, s in enumerate(self.seeds))

    def bot_names(self) -> tuple[str, str]:
        """The spec texts; with a seed each when both bots have the same spec (an A/A test)."""
        new, base = self.new.strip(), self.base.strip()
        if new != base:
            return new, base
        s0, s1 = self.bot_seeds()
        return f"{new} (seed {s0})", f"{base} (seed {s1})"

    def league(self) -> LeagueConfig:
        """The league that plays the test: the two bots, 2 players, seats rotated, a deal a pair."""
        self.check()
        bots = [{"name": name, **_spec_entry(spec), "seed": seed}
                for name, spec, seed in zip(self.bot_names(), (self.new, self.base), self.bot_seeds())]
        league = parse_config({"name": self.name, "players": 2, "variant": self.variant,
                               "deals": self.max_pairs, "seats": "rotate", "seed": self.seed,
                               "out": self.out, "bots": bots}, source="sprt")
        return league.with_overrides(address=self.address, workers=self.workers,
                                     mlflow=None if self.mlflow else False)

    def saved(self) -> dict:
        """What ``sprt.yaml`` keeps: the bots' names and the test."""
        new, base = self.bot_names()
        return {"new": new, "base": base, "elo0": float(self.elo0), "elo1": float(self.elo1),
                "alpha": float(self.alpha), "beta": float(self.beta), "model": self.model,
                "max_pairs": self.max_pairs}


def _spec_entry(spec: str) -> dict:
    from bots.spec import parse_bot_spec

    kind, params = parse_bot_spec(spec)
    return {"type": kind, "params": params}


@dataclass(frozen=True)
class SprtProgress:
    """Where a running SPRT stands, after a batch of games: the pairs counted in deal order,
    their pentanomial, the LLR and its bounds, the Elo estimate, the games recorded."""
    pairs: int
    pentanomial: tuple[int, int, int, int, int]
    llr: float
    lower: float
    upper: float
    estimate: sprt.Estimate
    games: int
    seconds: float
    max_pairs: int


@dataclass
class SprtOutcome:
    result: SprtResult
    run_dir: Path
    seconds: float
    interrupted: bool = False
    played: int = 0  # games this run played
    mlflow_run_id: str | None = None
    mlflow_error: str | None = None
    summary: LeagueSummary | None = field(default=None, repr=False)


class _Tracker:
    """``run_league``'s ``on_games`` hook: collects the pairs and says when the test is decided."""

    def __init__(self, settings: dict, run_dir: Path, progress, start: float):
        self.s, self.progress, self.start = settings, progress, start
        self.frames: list[pl.DataFrame] = []
        self.games: list[pl.DataFrame] = []
        self.checked = 0
        self.decision: sprt.Decision | None = None
        self.lower, self.upper = sprt.bounds(settings["alpha"], settings["beta"])
        if has_records(run_dir):
            from analysis.records import read_records
            records = read_records(run_dir)
            self._keep(records["results"], records["games"])

    def _keep(self, results: pl.DataFrame, games: pl.DataFrame) -> None:
        self.frames.append(results.select("run_id", "game_id", "seat", "bot", "score", "rank"))
        self.games.append(games.select("run_id", "game_id", pl.col("deal").cast(pl.Int64)))

    def __call__(self, tables) -> bool:
        self._keep(pl.from_arrow(tables["results"]), pl.from_arrow(tables["games"]))
        results = pl.concat(self.frames).unique(["run_id", "game_id", "seat"])
        games = pl.concat(self.games).unique(["run_id", "game_id"])
        cells = in_order(pair_cells(results, games, self.s["new"]))[: self.s["max_pairs"]]
        if not cells:
            return False
        s = self.s
        d = sprt.decide(cells, s["elo0"], s["elo1"], s["alpha"], s["beta"], s["model"],
                        start=self.checked)
        self.checked = d.pairs if d.verdict != "undecided" else len(cells)
        if self.progress is not None:
            self.progress(SprtProgress(d.pairs, d.pentanomial, d.llr, self.lower, self.upper,
                                       sprt.elo_estimate(d.pentanomial, s["model"]), games.height,
                                       time.perf_counter() - self.start, s["max_pairs"]))
        if d.verdict != "undecided":
            self.decision = d
            return True
        return False


def run_sprt(settings: SprtSettings, *, resume: bool = False,
             progress: Callable[[SprtProgress], None] | None = None) -> SprtOutcome:
    """Play an SPRT until it has its answer (or ``max_pairs`` pairs, or a stop request)."""
    started = time.perf_counter()
    try:
        league = settings.league()
    except ValueError as exc:
        raise LeagueError(str(exc)) from None
    run_dir = run_dir_of(league)
    saved = settings.saved()
    path = run_dir / SPRT_FILE
    if has_records(run_dir):
        if not resume:
            raise LeagueError(f"{run_dir} already holds this test's records: add --resume to finish "
                              "it, or choose another --out or --name")
        before = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
        if not isinstance(before, dict):
            raise LeagueError(f"cannot resume {run_dir}: it is a league, not an SPRT (no {SPRT_FILE})")
        changed = [k for k in SETTINGS if k != "max_pairs" and before.get(k) != saved[k]]
        if changed:
            raise LeagueError(f"cannot resume {run_dir}: the test differs from the one it was "
                              f"started with in {', '.join(changed)}")
    outcome = SprtOutcome(None, run_dir, 0.0)  # type: ignore[arg-type]
    done = sprt_result(run_dir) if path.exists() and has_records(run_dir) else None
    if done is None or done.decision.verdict == "undecided" and done.decision.pairs < settings.max_pairs:
        run_dir.mkdir(parents=True, exist_ok=True)
        tmp = run_dir / f".{SPRT_FILE}.tmp"
        tmp.write_text(yaml.safe_dump(saved, sort_keys=False), encoding="utf-8")
        os.replace(tmp, path)
        tracker = _Tracker(saved, run_dir, progress, started)
        summary = run_league(league, resume=resume, on_games=tracker)
        outcome.summary, outcome.played = summary, summary.played
        outcome.interrupted = summary.interrupted
    outcome.result = sprt_result(run_dir)
    outcome.seconds = time.perf_counter() - started
    if league.mlflow.enabled and not outcome.interrupted and outcome.summary is not None:
        try:
            outcome.mlflow_run_id = log_sprt(league, outcome)
        except Exception as exc:  # the records are safe; MLflow is tried again on --resume
            outcome.mlflow_error = f"{type(exc).__name__}: {exc}"
    return outcome


def log_sprt(league: LeagueConfig, outcome: SprtOutcome) -> str:
    """Log the test to the league's MLflow run (``tournament.tracking``): its settings as params,
    verdict as a tag, and llr, pairs, elo, elo_low, elo_high, los as metrics."""
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.tracking import MlflowClient

    from .tracking import _quiet, log_league, tracking_uri

    run_id = log_league(league, outcome.run_dir, outcome.summary)
    _quiet()
    client = MlflowClient(tracking_uri=tracking_uri(league))
    r = outcome.result.as_dict()
    now = int(time.time() * 1000)
    metrics = [Metric(f"sprt.{k}", float(r[k]), now, 0) for k in
               ("llr", "lower", "upper", "pairs", "elo", "elo_low", "elo_high", "los", "pairs_after")
               if r[k] is not None and math.isfinite(float(r[k]))]
    params = [Param(f"sprt.{k}", str(v)) for k, v in outcome.result.settings.items()]
    client.log_batch(run_id, metrics=metrics, params=params,
                     tags=[RunTag("sprt.verdict", r["verdict"])])
    client.log_artifact(run_id, str(outcome.run_dir / SPRT_FILE))
    return run_id


def load_sprt_file(path: str | Path) -> dict:
    """The fields of an SPRT config file (YAML: the options of ``azul sprt`` by name, ``bots`` a
    list of the two specs); a ValueError names the file and the field."""
    known = {f for f in SprtSettings.__dataclass_fields__} | {"bots"}
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: an SPRT config is a mapping of fields ({', '.join(sorted(known))})")
    for key in data:
        if key not in known - {"new", "base"}:
            raise ValueError(f"{path}: {key}: unknown field (fields: {', '.join(sorted(known - {'new', 'base'}))})")
    bots = data.pop("bots", None)
    if bots is not None:
        if not isinstance(bots, list) or len(bots) != 2 or not all(isinstance(b, str) for b in bots):
            raise ValueError(f"{path}: bots: two bot specs, the new bot first, not {bots!r}")
        data["new"], data["base"] = bots
    if "seeds" in data:
        data["seeds"] = tuple(data["seeds"])
    return data

