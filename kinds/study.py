"""Strategy studies by intervention: treatment and control on the same deals and bot seeds.

    from kinds.study import StudyConfig, run_study
    summary = run_study(StudyConfig(name="marker", bot="greedy",
                                    interventions=("marker=take", "marker=avoid"), deals=200))

For each deal and each studied seat, the game is played once with that seat's bot = base +
intervention (bots/intervention.py) and once with the base alone, against the same opponents
(the base bot by default, or ``field``), with the same deal seeds and the same bot seed in every
seat in both games (common random numbers). Without a field the control game is the same for
every studied seat, so it is played once per deal. The games run on the league driver as a
schedule of one stage (``run_league(..., schedule=OneStage(games))``: Ray workers, Parquet
records, ``--resume``); ``games.intervention``
names each game's intervention (``control`` for the control) and ``games.study_seat`` the seat
that plays it. ``analysis.studies`` pairs them. Method and findings: docs/studies.md.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.sequential import Design, Region, stop_look
from bots import make_bot
from bots.intervention import parse_intervention
from bots.spec import format_bot_spec, parse_bot_spec
from engine.errors import shown
from records.names import CONFIG_FILE, STUDY_FILE
from records.store import RunStore
from tournament.config import BotEntry, LeagueConfig, MlflowSettings, RaySettings
from tournament.errors import ConfigError
from tournament.fastloop import why_python_referee
from tournament.fields import check_finite
from tournament.runner import LeagueProgress, LeagueSummary, run_league, store_of
from tournament.scheduler import GameSpec, deal_seed, derive_seed, seat_cycle
from tournament.settings import (DEALS, MLFLOW, NAME, OUT, PLAYERS, SEED, VARIANT, WORKERS, Field, Settings, optional,
                                 whole)
from tournament.stages import OneStage

from .base import RunKind, command_line, load_settings_file, out_and_name, register

CONTROL = "control"  # games.intervention of a control game
KEYS = ("name", "bot", "interventions", "players", "variant", "deals", "seats", "field", "seed",
        "out", "workers", "mlflow", "expect", "metric", "stages", "width")
SEQUENTIAL = ("metric", "stages", "width")  # set only with expect (a study that stops when the answer is known)


def _region(value: Any, where: str) -> str:
    try:
        Region.parse(value)
    except ValueError as exc:
        raise ConfigError.of(where, str(exc)) from None
    return value


def _metric(value: Any, where: str) -> str:
    if value not in ("points", "win"):
        raise ConfigError.of(where, f"must be points or win, not {shown(value)}")
    return value


def _above_zero(value: Any, where: str) -> float:
    if not check_finite(value, where) > 0:
        raise ConfigError.of(where, f"must be a number above 0, not {shown(value)}")
    return value


# A sequential study's own settings (analysis/sequential.py; those every kind shares: tournament/settings.py)
EXPECT = Field("expect", optional(_region), None)
METRIC = Field("metric", _metric, "points")  # the effect the stopping rule reads (analysis.studies.METRICS)
STAGES = Field("stages", whole(1), 5)
WIDTH = Field("width", optional(_above_zero), None)


@dataclass(frozen=True)
class StudyConfig(Settings):
    """A study: the base bot (a spec), its interventions (``marker=take``, ``opening=line:1``...),
    the studied seats (None: every seat) and the opponents (``field``: specs, one for every
    other seat or one per other seat; empty: the base bot)."""

    name: str = NAME.attr()
    bot: str
    interventions: tuple[str, ...]
    players: int = PLAYERS.attr()
    variant: str = VARIANT.attr()
    deals: int = DEALS.attr(100)
    seats: tuple[int, ...] | None = None
    field: tuple[str, ...] = ()
    seed: int = SEED.attr()
    out: str = OUT.attr()
    workers: int | None = WORKERS.attr(0)  # 0: in this process; None: a local Ray with one worker per CPU
    mlflow: bool = MLFLOW.attr(False)  # log the run to MLflow as a league is (a study file and the commands: on)
    # a study that stops when the answer is known (analysis/sequential.py): the claim's region in the
    # metric's unit ("> X", "< X", "within X"); deals is then the most it plays, in ``stages`` looks;
    # ``width``: stop too once the stopping rule's interval is this narrow
    expect: str | None = EXPECT.attr()
    metric: str = METRIC.attr()
    stages: int = STAGES.attr()
    width: float | None = WIDTH.attr()
    labels: tuple[str, ...] = dataclasses.field(init=False, default=())

    def __post_init__(self):
        """The declared fields' checks (tournament/settings.py: the name, the run folder out/name
        never outside out, ...), then the study's own: a ConfigError naming the field."""
        self.check_fields()
        for key in ("interventions", "field", "seats"):
            value = getattr(self, key)
            if (value is not None or key != "seats") and not isinstance(value, tuple):
                raise ConfigError(f"{key}: must be a list, not {shown(value)}")
        _spec(self.bot, "bot")
        for i, spec in enumerate(self.field):
            _spec(spec, f"field[{i}]")
        if not self.interventions:
            raise ConfigError("interventions: a study needs at least one (e.g. marker=take)")
        labels = []
        for text in self.interventions:
            try:
                labels.append(parse_intervention(_params(text)).label)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"intervention {shown(text)}: {exc}") from None
        if len(set(labels)) < len(labels):
            raise ConfigError(f"an intervention is listed twice in {', '.join(labels)}")
        object.__setattr__(self, "labels", tuple(labels))
        studied = {k for label in labels for k in _params(label)}
        base = sorted(studied & set(parse_bot_spec(self.bot)[1]))
        if base:
            raise ConfigError(f"bot: {self.bot!r} already sets {', '.join(base)}, which the interventions "
                              f"({', '.join(labels)}) study: the control would play it too; give the base "
                              "bot without it")
        if self.seats is not None and (not self.seats or any(
                isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < self.players for s in self.seats)
                or len(set(self.seats)) < len(self.seats)):
            raise ConfigError(f"seats: must be distinct seats from 0 to {self.players - 1}, "
                              f"not {shown(list(self.seats))}")
        if len(self.field) not in (0, 1, self.players - 1):
            raise ConfigError(f"field: give one opponent spec, or one per other seat ({self.players - 1}), "
                              f"not {len(self.field)}")
        self._check_sequential()

    def _check_sequential(self) -> None:
        """The declared fields are checked (``check_fields``); what ties them together here."""
        if self.expect is None:
            declared = self.declared()
            for key in SEQUENTIAL:
                if getattr(self, key) != declared[key].default:
                    raise ConfigError(f"{key}: only a study that stops when the answer is known reads it; "
                                      "give expect too (docs/studies.md)")
        elif self.deals < 2 * self.stages:
            raise ConfigError(f"deals: {self.stages} stages need at least {2 * self.stages} deals, not {self.deals}")

    @property
    def design(self) -> Design | None:
        """The looks of a study that stops when the answer is known (None: every deal is played)."""
        return None if self.expect is None else Design.even(self.deals, self.stages)

    @property
    def plan(self) -> dict | None:
        """study.json's ``sequential``: what ``analysis.studies.sequential_effects`` reads back."""
        design = self.design
        return None if design is None else {
            "expect": str(Region.parse(self.expect)), "metric": self.metric, "looks": list(design.looks),
            "level": design.level, "width": self.width, "spending": "pocock"}

    @property
    def studied_seats(self) -> tuple[int, ...]:
        return tuple(range(self.players)) if self.seats is None else self.seats

    def treatment_spec(self, label: str) -> str:
        """The base bot's spec with the intervention added: ``mcts:iterations=300,marker=take``."""
        kind, params = parse_bot_spec(self.bot)
        return format_bot_spec(kind, {**params, **_params(label)})


def _params(text: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ValueError(f"an intervention is text like marker=take, not {shown(text)}")
    return parse_bot_spec(f"x:{text}")[1]


def _spec(spec: Any, where: str) -> None:
    if not isinstance(spec, str):
        raise ConfigError(f"{where}: a bot spec is text (TYPE:key=value,...), not {shown(spec)}")
    try:
        parse_bot_spec(spec)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_study(path: str | Path, **options) -> StudyConfig:
    """A study from YAML (the fields of ``StudyConfig``) with the command's options (out, mlflow)
    laid over it (``kinds.base.with_options``); a ConfigError names the file and why."""
    return load_settings_file(path, parse_study, **options)


def parse_study(data: Any, source: str = "study", default_name: str = "study") -> StudyConfig:
    """A study from a mapping as read from YAML; a ConfigError starts with ``source`` and names
    the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a study is a mapping of fields ({', '.join(KEYS)})")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ConfigError(f"{source}: {shown(unknown[0])}: unknown field (fields: {', '.join(KEYS)})")
    for key in ("bot", "interventions"):
        if key not in data:
            raise ConfigError(f"{source}: {key}: missing")
    data = {"name": default_name, "mlflow": True, **data}
    for key in ("interventions", "field", "seats"):
        if isinstance(data.get(key), str):
            data[key] = [data[key]]
        if isinstance(data.get(key), list):
            data[key] = tuple(data[key])
    try:
        return StudyConfig(**data)
    except ConfigError as exc:
        raise exc.at(source) from None


def league_config(study: StudyConfig) -> LeagueConfig:
    """The league config the games run under: bots = [base, base + each intervention, field...]
    (its identity is what ``--resume`` checks)."""
    entries = []
    for i, spec in enumerate(bot_specs(study)):
        try:
            kind, params = parse_bot_spec(spec)  # its errors name the spec
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        try:
            proto = make_bot(kind, seed=0, **params)
        except ValueError as exc:
            raise ConfigError(f"bot spec {spec!r}: {exc}") from None
        unfit = proto.table_error(study.players, study.variant)
        if unfit:
            raise ConfigError(f"bot spec {spec!r}: {unfit}")
        name = proto.name
        entries.append(BotEntry(name=name, type=kind, params=params, seed=derive_seed(study.seed, "bot", i)))
    return LeagueConfig(name=study.name, bots=tuple(entries), players=study.players, variant=study.variant,
                        deals=study.deals, seed=study.seed, out=study.out, self_play=True,
                        ray=RaySettings(workers=study.workers), mlflow=MlflowSettings(enabled=study.mlflow))


def bot_specs(study: StudyConfig) -> list[str]:
    """The study's bots, in the league config's order: base, base + each intervention, field."""
    specs = [study.bot] + [study.treatment_spec(label) for label in study.labels]
    return specs + [s for s in dict.fromkeys(study.field) if s not in specs]


def study_games(study: StudyConfig) -> list[GameSpec]:
    """Every game of the study, deal by deal: the control game(s), then each intervention in each
    studied seat. Ids ``d<deal>-control`` (``d<deal>-s<seat>-control`` with a field) and
    ``d<deal>-s<seat>-i<intervention number>``.

    A field of one spec per other seat takes the other seats in an order that turns with the deal
    (``scheduler.seat_cycle`` of the field): over a block of deals (2 at 3 players, 6 at 4) each
    field bot sits in each other seat, and after each other bot, equally often."""
    specs = bot_specs(study)
    field = [specs.index(s) for s in study.field] or [0]
    orders = seat_cycle(len(field), "balanced") if len(field) > 1 else [(0,)]

    def control(seat: int | None, d: int) -> tuple[int, ...]:  # the base in ``seat``, the field elsewhere
        order = orders[d % len(orders)]
        others = iter(field * study.players if len(field) == 1 else [field[i] for i in order])
        return tuple(0 if s == seat else next(others) for s in range(study.players))

    games = []
    for d in range(study.deals):
        dseed = deal_seed(study.seed, d)
        seeds = tuple(derive_seed(study.seed, "study", d, "seat", s) for s in range(study.players))
        for s in study.studied_seats if study.field else (None,):
            gid = f"d{d:05d}-control" if s is None else f"d{d:05d}-s{s}-control"
            games.append(GameSpec(gid, 0, d, s or 0, dseed, control(s, d), bot_seeds=seeds,
                                  intervention=CONTROL, study_seat=s))
        for s in study.studied_seats:
            base = control(s, d)
            for k, label in enumerate(study.labels):
                lineup = base[:s] + (k + 1,) + base[s + 1:]
                games.append(GameSpec(f"d{d:05d}-s{s}-i{k:02d}", 0, d, s, dseed, lineup, bot_seeds=seeds,
                                      intervention=label, study_seat=s))
    return games


# why a study's games are the Python referee's, whatever its bots (tournament.fastloop.compiled_batch)
REFEREE = "a study gives each game's seats their interventions and bot seeds, which only the Python referee plays"


def run_study(study: StudyConfig, *, resume: bool = False, fresh: bool = False,
              progress: Callable[[LeagueProgress], None] | None = None,
              on_written: Callable[[int], None] | None = None) -> LeagueSummary:
    """Play a study's games on the league driver and write ``study.json`` beside the records
    (also before the first game, so that a stopped study's folder says what it studied).
    ``on_written``: as ``run_league``'s (tests stop a study halfway with it)."""
    config = league_config(study)
    store = store_of(config)  # a folder, or a run on object storage
    if resume and not fresh and store.has_records():
        _check_same_plan(study, store)
    if fresh or not store.has_records():
        write_study_file(study, store)
    schedule = OneStage(study_games(study)) if study.expect is None else StudySchedule(study)
    summary = run_league(config, resume=resume, fresh=fresh, progress=progress, schedule=schedule, kind=STUDY,
                         on_written=on_written, referee_reasons=[*why_python_referee(config), REFEREE])
    write_study_file(study, store, complete=summary.complete)
    return summary


def _check_same_plan(study: StudyConfig, store: RunStore) -> None:
    """A resumed study stops by the plan it started with: a ConfigError naming what differs."""
    saved = _saved_study(store)
    before = (saved[0].get("sequential") if saved else None) or {}
    now = study.plan or {}
    for key in ("expect", "metric", "looks", "width"):
        if before.get(key) != now.get(key):
            field = "stages" if key == "looks" else key
            raise ConfigError(f"{field}: the study was started with {before.get(key)!r}, not {now.get(key)!r}; "
                              "a study resumes with the plan it started with (--fresh starts it over)")


class StudySchedule:
    """A study that stops when the answer is known, as a schedule of the league driver
    (tournament/stages.py): the deals of each look (``StudyConfig.design``) as a stage; after
    each, every intervention's stopping rule (analysis/sequential.py ``stop_look``) over the deals
    so far, in the planned metric; the study ends once every intervention has stopped (each is
    read on the deals up to its own stop), or at the last look. A pure function of the records,
    so ``--resume`` stops where an unbroken run would."""

    def __init__(self, study: StudyConfig):
        self.study, self.design, self.region = study, study.design, Region.parse(study.expect)
        self.games = study_games(study)
        self.total = len(self.games)  # at most

    def next_games(self, results) -> list[GameSpec] | None:
        k = len(results.stages)
        if k >= len(self.design.looks) or (k and self.stopped(results)):
            return None
        first = self.design.looks[k - 1] if k else 0
        return [g for g in self.games if first <= g.deal < self.design.looks[k]]

    def stopped(self, results) -> bool:
        """Whether every intervention's stopping rule has stopped on the stages played (their
        pairs read as a finished study's are: ``analysis.studies.study_pairs``)."""
        import pyarrow as pa

        from analysis.records import connect_tables
        from analysis.studies import deal_differences, study_pairs

        specs = [g for stage in results.stages for g in stage]
        games = pa.table({"run_id": [""] * len(specs), "game_id": [g.game_id for g in specs],
                          "num_players": [self.study.players] * len(specs), "deal": [g.deal for g in specs],
                          "intervention": [g.intervention for g in specs],
                          "study_seat": pa.array([g.study_seat for g in specs], pa.int64())})
        played = results.results.append_column("run_id", pa.array([""] * results.results.num_rows, pa.string()))
        with connect_tables({"games": games, "results": played}) as con:
            pairs = study_pairs(con)
        diffs = deal_differences(pairs, self.study.metric)
        return len(diffs) == len(self.study.labels) and all(
            stop_look(d, self.design, self.region, self.study.width) is not None for d in diffs.values())


def write_study_file(study: StudyConfig, run: RunStore, complete: bool = False) -> None:
    """``study.json``: the base bot, field and seats, and per intervention its label, bot spec and
    how a league shows that choice (``Intervention.observe``); for a study that stops when the
    answer is known its plan (``sequential``), and ``complete`` once its schedule has ended (it may
    end before every planned deal)."""
    record = {"format": "azul-study/1", "bot": study.bot, "players": study.players,
              "variant": study.variant, "deals": study.deals, "seats": list(study.studied_seats),
              "field": list(study.field),
              "interventions": [{"label": label, "spec": study.treatment_spec(label),
                                 "observe": parse_intervention(_params(label)).observe()}
                                for label in study.labels]}
    if study.plan is not None:
        record["sequential"] = {**study.plan, "complete": complete}
    RunStore(run).write_text(STUDY_FILE, json.dumps(record, indent=2) + "\n")


def _saved_study(run: RunStore) -> tuple[dict, dict] | None:
    """A study folder's ``study.json`` and ``config.yaml`` as mappings (None if either is unreadable)."""
    from tournament.config import read_stored_yaml

    store = RunStore(run)
    try:
        study = json.loads(store.read_text(STUDY_FILE))
        config = read_stored_yaml(store, CONFIG_FILE)
    except (OSError, ValueError):
        return None
    return (study, config) if isinstance(study, dict) and isinstance(config, dict) else None


class StudyKind(RunKind):
    """A study's run: treatment and control games on shared deals (one stage of the driver)."""

    name, label, article, settings = "study", "study", "a study", STUDY_FILE

    def finish_command(self, run: RunStore) -> str:
        out, name = out_and_name(run)  # a folder, or an s3:// run
        where = ["--out", out, "--name", name]
        saved = _saved_study(run)
        study, config = saved or ({}, {})
        labels = [i.get("label") for i in study.get("interventions", [])]
        if labels == ["marker=take", "marker=avoid"] and study.get("seats") == list(range(study.get("players", 0))):
            args = ["azul", "study", "marker", "--bot", str(study["bot"]), "--players", str(study["players"]),
                    "--variant", str(study["variant"]), "--deals", str(study["deals"]), "--seed",
                    str(config.get("seed"))]
            for spec in study.get("field", []):
                args += ["--field", str(spec)]
            plan = study.get("sequential")
            if isinstance(plan, dict):  # a study that stops when the answer is known: the same plan
                args += ["--expect", str(plan.get("expect")), "--metric", str(plan.get("metric")),
                         "--stages", str(len(plan.get("looks", [])))]
                args += [] if plan.get("width") is None else ["--width", f"{plan['width']:g}"]
            return command_line(args + where + ["--resume"])
        return (f"the azul study command (or study file) that started this study, with --resume and "
                f"its records in {command_line(where)} (azul study run FILE --out "
                f"{command_line([out])} --resume for a study file)")

    def planned_games(self, run: RunStore) -> int | None:
        saved = _saved_study(run)
        if saved is None:
            return None
        study, config = saved
        try:
            labels = tuple(i["label"] for i in study["interventions"])
            return len(study_games(StudyConfig(
                name=run.name, bot=study["bot"], interventions=labels, players=study["players"],
                variant=study["variant"], deals=study["deals"], seats=tuple(study["seats"]),
                field=tuple(study["field"]), seed=config["seed"])))
        except (ConfigError, KeyError, TypeError, ValueError):  # not a study's
            return None

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        """Every planned game recorded, or (a study that stops when the answer is known) its
        schedule ended: study.json's ``sequential.complete``."""
        if planned is not None and recorded >= planned:
            return True
        saved = _saved_study(run)
        plan = saved[0].get("sequential") if saved else None
        return isinstance(plan, dict) and plan.get("complete") is True


STUDY = register(StudyKind())
