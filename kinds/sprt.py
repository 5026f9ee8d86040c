"""An SPRT on the league machinery: two bots, 2 players, seats rotated, one deal per pair, played
on Ray (or in process) until fishtest's GSPRT has its answer (analysis/sprt.py, docs/sprt.md).

    from kinds.sprt import SprtSettings, run_sprt
    outcome = run_sprt(SprtSettings(new="mcts:iterations=2000", base="mcts:iterations=500"))

The run is an ordinary league (``config.yaml``, the four record tables) with ``deals`` =
``max_pairs``, plus ``sprt.yaml`` (the test's settings), so ``azul elo``, ``standings``,
``report`` and ``replay`` read it as any league. The test is a schedule of the league driver
(``SprtSchedule``, tournament/stages.py): stages of pairs in deal order, each played to its end;
after each, the decision is taken on the pairs so far (analysis/sprt_run.py), and the next stage
comes only while there is none. A stage is ``STAGE_PAIRS`` pairs, or a quarter of the pairs so
far when that is more, so the test plays at most a quarter more pairs than its decision needs.
The stages depend on nothing but the recorded results, so ``--resume`` (which asks for them again
from the records) plays exactly the games an uninterrupted run plays, to the same decision.
"""
from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import yaml

from analysis import sprt
from analysis.sprt_run import SprtResult, in_order, pair_cells, sprt_result
from records.folder import run_kind
from records.names import CONFIG_FILE, MLFLOW_RUN_FILE, SPRT_FILE
from records.store import RunStore

from .base import NoteDetail, RunKind, StatusDetail, command_line, out_and_name, register
from engine.errors import field_name, shown

from tournament.config import BotEntry, LeagueConfig, bot_seed, league_config, read_yaml
from tournament.errors import ConfigError, LeagueError
from tournament.fields import MAX_SEED, check_finite, check_int
from tournament.settings import ADDRESS, MLFLOW, NAME, OUT, SEED, VARIANT, WORKERS, Field, Settings, one_of, whole
from tournament.runner import LeagueSummary, run_league, store_of
from tournament.scheduler import GameSpec, Slice, league_games
from tournament.stages import Results
from tournament.tracking import logged

STAGE_PAIRS = 16  # pairs in a stage of the test, at least
STAGE_GROWTH = 4  # ... or the pairs so far over this, when that is more


def _bot_spec(value, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError.of(where, f"a bot spec is text (TYPE:key=value,...), not {shown(value)}")
    return value


def _seeds(value, where: str) -> tuple[int | None, int | None]:
    if not isinstance(value, tuple) or len(value) != 2:
        raise ConfigError.of(where, f"two bot seeds (or null for one from seed), not {shown(value)}")
    return tuple(None if v is None else check_int(v, f"{where}[{i}]", 0, MAX_SEED) for i, v in enumerate(value))


# An SPRT's settings (a training's gate takes its own of these: kinds/train_config.py)
NEW, BASE = Field("new", _bot_spec), Field("base", _bot_spec)
ELO0, ELO1 = Field("elo0", check_finite, 0.0), Field("elo1", check_finite, 5.0)
ALPHA, BETA = Field("alpha", check_finite, 0.05), Field("beta", check_finite, 0.05)
MODEL = Field("model", one_of(sprt.MODELS), "normalized")
MAX_PAIRS = Field("max_pairs", whole(1), 10000)
SEEDS = Field("seeds", _seeds, (None, None))  # the bots' seeds; None: from ``seed``


@dataclass(frozen=True)
class SprtSettings(Settings):
    """An SPRT of bot ``new`` against bot ``base`` (bot specs, ``bots.spec``) and where to run it."""
    new: str = NEW.attr()
    base: str = BASE.attr()
    elo0: float = ELO0.attr()
    elo1: float = ELO1.attr()
    alpha: float = ALPHA.attr()
    beta: float = BETA.attr()
    model: str = MODEL.attr()
    max_pairs: int = MAX_PAIRS.attr()
    variant: str = VARIANT.attr()
    seed: int = SEED.attr()
    seeds: tuple[int | None, int | None] = SEEDS.attr()
    names: tuple[str, str] | None = None  # the bots' names in the records; None: from their specs
    name: str = NAME.attr("sprt")
    out: str = OUT.attr()
    workers: int | None = WORKERS.attr()
    address: str | None = ADDRESS.attr()
    mlflow: bool = MLFLOW.attr()

    def check(self) -> None:
        """A ConfigError in one line, naming the field, for settings that cannot make a test:
        each declared field's check (tournament/settings.py), then the test's hypotheses and
        bounds, and two bots that differ."""
        self.check_fields()
        try:
            sprt.check_hypotheses(self.elo0, self.elo1, self.model)
            sprt.bounds(self.alpha, self.beta)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        new_seed, base_seed = self.bot_seeds()
        if self.new.strip() == self.base.strip() and new_seed == base_seed:
            raise ConfigError(f"both bots are {self.new!r} with seed {new_seed}: the same bot twice "
                              "(give them different seeds for an A/A test)")

    def bot_seeds(self) -> tuple[int, int]:
        return tuple(bot_seed(self.seed, i) if s is None else s for i, s in enumerate(self.seeds))

    def bot_names(self) -> tuple[str, str]:
        """The bots' ``names`` if given, else their own names, as a league names them
        (``bots.spec.spec_name``: ``mcts-2p(iterations=200)``), or the spec texts with '_' for '/'
        where two different specs give one name; with a seed each when both bots have the same
        name (an A/A test)."""
        if self.names is not None:
            return tuple(self.names)
        new, base = _own_name(self.new), _own_name(self.base)
        if new == base and self.new.strip() != self.base.strip():
            new, base = (s.strip().replace("/", "_") for s in (self.new, self.base))
        if new != base:
            return new, base
        s0, s1 = self.bot_seeds()
        return f"{new} (seed {s0})", f"{base} (seed {s1})"

    def league(self) -> LeagueConfig:
        """The league that plays the test: the two bots, 2 players, seats rotated, a deal a pair."""
        self.check()
        bots = [BotEntry.of_spec(name, spec, seed)
                for name, spec, seed in zip(self.bot_names(), (self.new, self.base), self.bot_seeds())]
        league = league_config("sprt", self.name, bots, players=2, variant=self.variant, deals=self.max_pairs,
                               seats="balanced", seed=self.seed, out=self.out)
        return league.with_overrides(address=self.address, workers=self.workers,
                                     mlflow=None if self.mlflow else False)

    def saved(self) -> dict:
        """What ``sprt.yaml`` keeps: the bots' names and the test."""
        new, base = self.bot_names()
        return {"new": new, "base": base, "elo0": float(self.elo0), "elo1": float(self.elo1),
                "alpha": float(self.alpha), "beta": float(self.beta), "model": self.model,
                "max_pairs": self.max_pairs}


def _own_name(spec: str) -> str:
    """A bot's name in the test: the one a league gives it (``bots.spec.spec_name``), or the
    spec's text when it cannot be built (the league's config check then names the field)."""
    from bots.spec import spec_name

    try:
        return spec_name(spec)
    except ValueError:
        return spec.strip()


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
    run_dir: Path | str  # a folder, or the run's s3:// URL
    seconds: float
    interrupted: bool = False
    played: int = 0  # games this run played
    mlflow_run_id: str | None = None
    mlflow_error: str | None = None
    summary: LeagueSummary | None = field(default=None, repr=False)


class SprtSchedule:
    """The test as a schedule of the league driver (tournament/stages.py): stages of pairs in deal
    order (deal d: games ``t000-d<d>-a00`` and ``-a01``), until the test decides or ``max_pairs``."""

    def __init__(self, league: LeagueConfig, settings: dict, progress, start: float):
        self.league, self.s, self.progress, self.start = league, settings, progress, start
        self.total = 2 * settings["max_pairs"]
        self.lower, self.upper = sprt.bounds(settings["alpha"], settings["beta"])

    def next_games(self, results: Results) -> list[GameSpec] | None:
        asked = sum(map(len, results.stages)) // 2  # pairs: deals 0 .. asked - 1
        if asked and self.decide(results).verdict != "undecided":
            return None
        n = min(max(STAGE_PAIRS, asked // STAGE_GROWTH), self.s["max_pairs"] - asked)
        return list(league_games(self.league, Slice(2 * asked, 2 * (asked + n)))) if n > 0 else None

    def decide(self, results: Results) -> sprt.Decision:
        """The decision on the pairs of ``results``, in deal order (and the progress line's report)."""
        s = self.s
        games = pl.DataFrame({"run_id": "", "game_id": [g.game_id for stage in results.stages for g in stage],
                              "deal": [g.deal for stage in results.stages for g in stage]})
        cells = in_order(pair_cells(pl.from_arrow(results.results).with_columns(run_id=pl.lit("")), games,
                                    s["new"]))
        d = sprt.decide(cells, s["elo0"], s["elo1"], s["alpha"], s["beta"], s["model"], s["max_pairs"])
        if self.progress is not None:
            self.progress(SprtProgress(d.pairs, d.pentanomial, d.llr, self.lower, self.upper,
                                       sprt.elo_estimate(d.pentanomial, s["model"]), games.height,
                                       time.perf_counter() - self.start, s["max_pairs"]))
        return d


# What decides a test's games and its decision, and the option that sets each: a resumed test
# keeps them (``check_resumable``); ``max_pairs`` may only grow.
KEPT = (("new", "--bot (the new bot)"), ("base", "--bot (the base bot)"), ("variant", "--variant"),
        ("seed", "--seed"), ("seeds", "--bot-seed"), ("elo0", "--elo0"), ("elo1", "--elo1"),
        ("alpha", "--alpha"), ("beta", "--beta"), ("model", "--model"))


def stored_fields(run: RunStore) -> dict | None:
    """The ``SprtSettings`` fields of the test in ``run`` (a folder, an ``s3://`` run or a
    store: its ``sprt.yaml`` and ``config.yaml``: the bots, the test, the variant and the seeds),
    or None when it holds no test; a ValueError names a file that cannot be read. ``azul sprt
    --resume`` takes what its options do not restate from here."""
    store = RunStore(run)
    if not store.exists(SPRT_FILE):
        return None
    try:
        test = yaml.safe_load(store.read_text(SPRT_FILE))
        config = yaml.safe_load(store.read_text(CONFIG_FILE))
        bots = config["bots"]
        fields = {k: test[k] for k in ("elo0", "elo1", "alpha", "beta", "model", "max_pairs")}
        fields["new"], fields["base"] = (_stored_spec(str(test[k]), bots[i]) for i, k in enumerate(("new", "base")))
        fields.update(variant=config["variant"], seed=config["seed"], seeds=(bots[0]["seed"], bots[1]["seed"]),
                      names=(str(bots[0]["name"]), str(bots[1]["name"])))  # as its records name them
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"{store}: cannot read the test it holds from {SPRT_FILE} and config.yaml "
                         f"({type(exc).__name__}: {exc})") from None
    return fields


def _stored_spec(name: str, entry: dict) -> str:
    """The spec of a stored bot: its name in ``sprt.yaml`` (an A/A test's carries " (seed N)"),
    when that is a spec of its ``config.yaml`` entry; else the entry's type and params as a spec."""
    from bots.spec import format_bot_spec, parse_bot_spec

    name = re.sub(r" \(seed \d+\)$", "", name)
    try:
        if parse_bot_spec(name) == (entry["type"], dict(entry.get("params") or {})):
            return name
    except ValueError:
        pass
    return format_bot_spec(entry["type"], entry.get("params") or {})


def check_resumable(settings: SprtSettings, before: SprtSettings, run: RunStore) -> None:
    """A test resumes only as itself: the same bots, variant, seeds and hypotheses (a LeagueError
    naming each setting that differs, with the test's value and the new one); ``max_pairs`` may
    grow, never shrink."""
    now, then = _kept(settings), _kept(before)
    changed = [f"{option} is {_shown(now[k])} but the test was started with {_shown(then[k])}"
               for k, option in KEPT if now[k] != then[k]]
    if settings.max_pairs < before.max_pairs:
        changed.append(f"--max-pairs is {settings.max_pairs} but the test was started with {before.max_pairs}: "
                       "a test's limit can only be raised (its records may hold pairs beyond the new one)")
    if changed:
        raise LeagueError(f"cannot resume {run}: {'; '.join(changed)} (--fresh starts the test over, "
                          "or choose another --out or --name)")


def _shown(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _kept(settings: SprtSettings) -> dict:
    from bots.spec import format_bot_spec, parse_bot_spec
    from bots.value_file import resolved_model

    values = {k: getattr(settings, k) for k, _ in KEPT}
    for key in ("new", "base"):  # the bot itself (its type and parameters), not its text or name
        kind, params = parse_bot_spec(values[key])
        if isinstance(params.get("model"), str):  # a model path as the run keeps it: absolute
            params["model"] = resolved_model(params["model"])
        values[key] = format_bot_spec(kind, dict(sorted(params.items())))
    values.update(seeds=list(settings.bot_seeds()), **{k: float(values[k]) for k in ("elo0", "elo1", "alpha", "beta")})
    return values


def run_sprt(settings: SprtSettings, *, resume: bool = False, fresh: bool = False,
             progress: Callable[[SprtProgress], None] | None = None,
             on_written: Callable[[int], None] | None = None,
             referee_reasons: list[str] | None = None) -> SprtOutcome:
    """Play an SPRT until it has its answer (or ``max_pairs`` pairs, or a stop request).
    ``resume``: go on with the test in the run folder (the same test: ``check_resumable``);
    ``fresh``: delete the folder's records first (as ``run_league``'s). Nothing in the folder
    changes before the settings pass their checks. ``on_written``: as ``run_league``'s (tests
    stop a test halfway with it). ``referee_reasons``: as ``run_league``'s (a command that printed
    them already hands them on, so they are worked out once)."""
    started = time.perf_counter()
    if resume and fresh:
        raise LeagueError("--resume and --fresh: choose one")
    try:
        league = settings.league()
    except ValueError as exc:
        raise LeagueError(str(exc)) from None
    store = store_of(league)  # a folder, or a run on object storage
    run_dir, saved = store.root, settings.saved()
    if store.has_records() and not fresh:
        if not resume:
            raise LeagueError(f"{run_dir} already holds this test's records: add --resume to finish "
                              "it, --fresh to start it over, or choose another --out or --name")
        kind = run_kind(store.view(parts=False))
        if kind != SPRT.name:
            raise LeagueError(SPRT.refuse(run_dir, kind))
        try:
            before = stored_fields(store)
        except ValueError as exc:
            raise LeagueError(str(exc)) from None
        if before is None:
            raise LeagueError(f"cannot resume {run_dir}: it holds no {SPRT_FILE} (the test's settings)")
        check_resumable(settings, SprtSettings(**before), run_dir)
    holder = store.holder()
    if holder is not None:
        raise LeagueError(f"{run_dir}: another driver (pid {holder}) is writing this run")
    store.write_text(SPRT_FILE, yaml.safe_dump(saved, sort_keys=False))
    was_logged = store.exists(MLFLOW_RUN_FILE)
    summary = run_league(league, resume=resume, fresh=fresh, on_written=on_written,
                         schedule=SprtSchedule(league, saved, progress, started), kind=SPRT,
                         referee_reasons=referee_reasons)
    outcome = SprtOutcome(sprt_result(store.view()), run_dir, time.perf_counter() - started, summary.interrupted,
                          summary.played, summary=summary)
    if league.mlflow.enabled and not outcome.interrupted and (summary.played or not was_logged):
        outcome.mlflow_run_id, outcome.mlflow_error = logged(lambda: log_sprt(league, outcome))
    return outcome


def log_sprt(league: LeagueConfig, outcome: SprtOutcome) -> str:
    """Log the test to the league's MLflow run (``tournament.tracking``): its settings as params,
    verdict as a tag, and llr, pairs, elo, elo_low, elo_high, los as metrics."""
    from mlflow.entities import Metric, Param, RunTag

    from tournament.tracking import log_league, mlflow_client, tracking_uri

    run_id = log_league(league, outcome.run_dir, outcome.summary)
    client = mlflow_client(tracking_uri(league))
    r = outcome.result.as_dict()
    now = int(time.time() * 1000)
    metrics = [Metric(f"sprt.{k}", float(r[k]), now, 0) for k in
               ("llr", "lower", "upper", "pairs", "elo", "elo_low", "elo_high", "los", "pairs_after")
               if r[k] is not None and math.isfinite(float(r[k]))]
    params = [Param(f"sprt.{k}", str(v)) for k, v in outcome.result.settings.items()]
    client.log_batch(run_id, metrics=metrics, params=params,
                     tags=[RunTag("sprt.verdict", r["verdict"])])
    client.log_artifact(run_id, str(RunStore(outcome.run_dir).local(SPRT_FILE)))
    return run_id


def load_sprt_file(path: str | Path) -> dict:
    """The fields of an SPRT config file (YAML: the options of ``azul sprt`` by name, ``bots`` a
    list of the two specs); a ValueError names the file and the field."""
    known = {f for f in SprtSettings.__dataclass_fields__} | {"bots"}
    data = read_yaml(path)  # a ConfigError, a ValueError, of one line
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ValueError(f"{path}: an SPRT config is a mapping of fields ({', '.join(sorted(known))})")
    for key in data:
        if key not in known - {"new", "base"}:
            raise ValueError(f"{path}: {field_name(key)}: unknown field (fields: {', '.join(sorted(known - {'new', 'base'}))})")
    bots = data.pop("bots", None)
    if bots is not None:
        if not isinstance(bots, list) or len(bots) != 2 or not all(isinstance(b, str) for b in bots):
            raise ValueError(f"{path}: bots: two bot specs, the new bot first, not {bots!r}")
        data["new"], data["base"] = bots
    if isinstance(data.get("seeds"), list):
        data["seeds"] = tuple(data["seeds"])
    return data


class SprtDetail(StatusDetail):
    """An SPRT as it stands: its test (``SprtResult.as_dict``: LLR, bounds, verdict, pairs...)
    and the most pairs it plays; its run page draws the LLR's path (``sprt_path``)."""

    parts = ("sprt_path",)

    def __init__(self, test: dict, max_pairs: int):
        self.test, self.max_pairs = test, max_pairs

    def as_dict(self) -> dict:
        return {"test": self.test, "max_pairs": self.max_pairs}

    def until_decided(self) -> str:
        return f", at most {self.max_pairs:,} pairs ({2 * self.max_pairs:,} games)"

    def complete(self) -> str:
        t = self.test
        if t["verdict"] != "undecided":
            return f"complete ({t['verdict']} after {t['pairs']:,} pairs)"
        return f"complete (undecided after the most pairs, {self.max_pairs:,})"

    def ahead(self) -> str | None:
        t = self.test
        return f"LLR {t['llr']:.2f} in [{t['lower']:.2f}, {t['upper']:.2f}] after {t['pairs']:,} pairs: {t['verdict']}"


class SprtKind(RunKind):
    """An SPRT's run: a 2-player league of two bots played stage by stage until the test decides."""

    name, label, article, settings = "sprt", "SPRT", "an SPRT", SPRT_FILE
    decides = True

    def finish_command(self, run: RunStore) -> str:
        out, name = out_and_name(run)  # a folder, or an s3:// run
        where = ["--out", out, "--name", name]
        try:
            test = stored_fields(run)  # the settings as a resume reads them back
        except ValueError:
            test = None
        if test is None:
            return (f"azul sprt with the settings that started this test, and {command_line(where)} --resume "
                    f"(its {SPRT_FILE} or config.yaml is missing or unreadable)")
        args = ["azul", "sprt", "--bot", test["new"], "--bot", test["base"]]
        for key in ("elo0", "elo1", "alpha", "beta", "model"):
            value = test[key]
            args += [f"--{key}", f"{value:g}" if isinstance(value, float) else str(value)]
        args += ["--max-pairs", str(test["max_pairs"]), "--variant", str(test["variant"]), "--seed", str(test["seed"])]
        for seed in test["seeds"]:
            args += ["--bot-seed", str(seed)]
        return command_line(args + where + ["--resume"])

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        result = self._result(run)
        if result is None:
            return False
        return result.decision.verdict != "undecided" or result.decision.pairs >= result.settings["max_pairs"]

    def detail(self, run: RunStore) -> StatusDetail:
        result = self._result(run)
        if result is None:
            return NoteDetail(f"its {SPRT_FILE} is unreadable")
        return SprtDetail(result.as_dict(), result.settings["max_pairs"])

    @staticmethod
    def _result(run: RunStore) -> SprtResult | None:
        try:
            return sprt_result(run.view())  # analysis reads the run's folder
        except (ValueError, OSError, yaml.YAMLError):  # a damaged sprt.yaml: no decision to read
            return None


SPRT = register(SprtKind())
