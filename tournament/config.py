"""League configs: YAML files read into checked dataclasses, with errors that name the field.

    from tournament.config import load_config
    config = load_config("configs/quick.yaml")

Every field, its default and its meaning is in docs/league.md. ``LeagueConfig.to_dict()`` is the
resolved config (every default filled in) that a run writes beside its records.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from bots import bot_maker, bot_parameters as _parameters
from bots.value_file import resolved_model
from bots.spec import parse_bot_spec
from engine.errors import shown
from engine.rules import VARIANTS
from records.store import RunStore

from .fields import (MAX_SECONDS, MAX_SEED, _choice, _FieldError, _int, _kind, _known_keys, _name, _out, _seconds,
                     _section, _stage_bound)
from .scheduler import MATCHES, SEAT_MODES, count_games, deal_block, derive_seed

TOP_KEYS = ("name", "players", "variant", "deals", "seats", "match", "self_play", "seed", "out",
            "time_limit", "batch_games", "flush_seconds", "ray", "mlflow", "bots", "python_referee",
            "format", "challengers", "rounds", "pairs_per_match")
# A league's format (tournament/events/): the round-robin, or an event, with the key each one takes
FORMATS = ("round-robin", "gauntlet", "swiss", "knockout")
FORMAT_KEYS = {"gauntlet": "challengers", "swiss": "rounds", "knockout": "pairs_per_match"}
BOT_KEYS = ("name", "type", "params", "seed", "time_limit")
RAY_KEYS = ("address", "workers", "write")
WRITERS = ("driver", "workers")  # who writes the part files
MLFLOW_KEYS = ("enabled", "tracking_uri", "experiment")
# The fields that decide what the games are: a run resumes only under the same values. Its name
# is not one: a run folder copied or renamed is finished under its folder's name (``--name``).
IDENTITY = ("players", "variant", "seats", "match", "self_play", "seed", "time_limit",
            "bots", "format", "challengers", "rounds", "pairs_per_match")


class ConfigError(ValueError):
    """A config that cannot run; the message starts with the file and the field."""


@dataclass(frozen=True)
class BotEntry:
    """One bot of a league: a registered type (or ``module:Class``), its parameters and seed."""

    name: str
    type: str
    params: dict[str, Any]
    seed: int
    time_limit: float | None = None  # seconds per move; None: the league's time_limit

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "params": dict(self.params),
                "seed": self.seed, "time_limit": self.time_limit}


@dataclass(frozen=True)
class RaySettings:
    address: str | None = None  # join this cluster; None: RAY_ADDRESS, else a local Ray
    workers: int | None = None  # games played at once; 0: in the driver, without Ray
    write: str = "driver"  # who writes the part files: the driver, or each task its own (WRITERS)


@dataclass(frozen=True)
class MlflowSettings:
    enabled: bool = True
    tracking_uri: str | None = None  # None: sqlite:///<out>/mlflow.db
    experiment: str = "azul-league"


@dataclass(frozen=True)
class LeagueConfig:
    name: str
    bots: tuple[BotEntry, ...]
    players: int = 2
    variant: str = "colored"
    deals: int = 10
    seats: str = "balanced"
    seed: int = 0
    out: str = "runs"
    time_limit: float | None = None
    batch_games: int | None = None
    flush_seconds: float = 5.0
    ray: RaySettings = field(default_factory=RaySettings)
    mlflow: MlflowSettings = field(default_factory=MlflowSettings)
    match: str = "game"  # "series": every scheduled game is a two-game series
    self_play: bool = False  # also one table per bot with that bot in every seat
    # every game through the Python referee, even between built-in compiled bots (same records;
    # tournament/fastloop.py plays those in C otherwise)
    python_referee: bool = False
    # the format (FORMATS) and its setting: the challengers' names (gauntlet), the rounds (swiss),
    # the game pairs of a match (knockout); None for the formats that do not take it
    format: str = "round-robin"
    challengers: tuple[str, ...] | None = None
    rounds: int | None = None
    pairs_per_match: int | None = None
    ignored: tuple[str, ...] = ()  # fields given that the format does not use (a knockout's deals)
    # the bytes of the models the bots name (their ``model`` parameter), read once by the driver
    # (``with_models``) and handed to the workers with the config: no worker reads a model's file
    models: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    # the models each bot reads, by bot name (``bot_models``, found once by ``with_models``)
    model_names: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def total_games(self) -> int:
        """The games of the league (an event's: the most it may play)."""
        if self.format != "round-robin":
            from .events import event_schedule

            return event_schedule(self).total
        return count_games(len(self.bots), self.players, self.deals, self.seats, self.match,
                           self.self_play)

    def notes(self) -> list[str]:
        """One-line warnings about a config that runs but may not do what was meant."""
        unused = (f"deals: a knockout plays pairs_per_match ({self.pairs_per_match}) deals a match; the config's "
                  f"deals ({self.deals}) are not used") if "deals" in self.ignored else None
        return [n for n in (self.seating_note(), self.swiss_note(), unused) if n]

    def swiss_note(self) -> str | None:
        """For a Swiss of more rounds than can all pair new opponents, the round from which
        pairings repeat, else None."""
        if self.format != "swiss":
            return None
        n, k = len(self.bots), self.players
        per_round = (n // k) * math.comb(k, 2)  # pairs of bots that meet in one round
        new_rounds = math.comb(n, 2) // per_round if per_round else 0
        if self.rounds <= new_rounds:
            return None
        return (f"rounds: {self.rounds} rounds of {n} bots at {k}-player tables: every round can meet new "
                f"opponents only up to round {new_rounds}, pairings repeat after it")

    def seating_note(self) -> str | None:
        """A one-line warning for ``seats: rotate`` at 3 and 4 players, else None."""
        if self.seats != "rotate" or self.players < 3:
            return None
        return (f"seats: rotate at {self.players} players: each bot always follows the same bot, fixed by the "
                "order of bots: in the config (ratings can move by 100 Elo with that order); seats: balanced "
                "seats every bot after every other equally often")

    def event_settings(self) -> dict[str, Any]:
        """``format`` and its key, for an event (``to_dict`` has them then); {} for a round-robin."""
        if self.format == "round-robin":
            return {}
        key = FORMAT_KEYS[self.format]
        value = getattr(self, key)
        return {"format": self.format, key: list(value) if isinstance(value, tuple) else value}

    def to_dict(self) -> dict[str, Any]:
        """The resolved config: every field with its value, defaults filled in."""
        return {
            "name": self.name, "players": self.players, "variant": self.variant,
            "deals": self.deals, "seats": self.seats, "match": self.match,
            "self_play": self.self_play, "seed": self.seed, "out": self.out,
            "time_limit": self.time_limit, "batch_games": self.batch_games,
            "flush_seconds": self.flush_seconds,
            "ray": {"address": self.ray.address, "workers": self.ray.workers, "write": self.ray.write},
            "mlflow": {"enabled": self.mlflow.enabled, "tracking_uri": self.mlflow.tracking_uri,
                       "experiment": self.mlflow.experiment},
            "bots": [b.to_dict() for b in self.bots],
            "python_referee": self.python_referee,
            **self.event_settings(),  # a round-robin's resolved config is as it always was
        }

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def bot_models(self) -> dict[str, tuple[str, ...]]:
        """The models each bot reads at this league's tables, by bot name: those its ``model``
        names and those it implies (``evaluator=value`` without one, a preset's shipped tables)."""
        return {e.name: bot_maker(e.type, e.params)(e.seed).models(self.players) for e in self.bots}

    def with_models(self) -> LeagueConfig:
        """The config with the bytes of every model its bots read (``models``), read here once, and
        each model path that is still relative (a study's or an SPRT's ``--bot``) made absolute
        against the current folder, as the run keeps it."""
        from bots.value_file import resolve_models

        bots = tuple(replace(e, params={**e.params, "model": resolved_model(e.params["model"])})
                     if isinstance(e.params.get("model"), str) and "model" in _parameters(e.type) else e
                     for e in self.bots)
        config = replace(self, bots=bots)
        names = config.bot_models()  # each bot built once more here, to ask it
        return replace(config, model_names=names, models=resolve_models(m for ms in names.values() for m in ms))

    def model_pins(self) -> dict[str, list[dict[str, str]]]:
        """Each bot's models and the sha256 of their bytes, of a config ``with_models`` made (its
        ``model_names`` and ``models``; another config pins none): what ``run.json`` keeps so that a
        resume plays the same models (``tournament.run_folder``)."""
        from bots.value_file import model_digests

        digests = dict(model_digests(self.models))
        return {bot: [{"model": m, "sha256": digests[m]} for m in models]
                for bot, models in self.model_names.items() if models}

    def with_overrides(self, *, out: str | None = None, name: str | None = None, address: str | None = None,
                       workers: int | None = None, mlflow: bool | None = None,
                       python_referee: bool | None = None, write: str | None = None) -> LeagueConfig:
        """The config with command-line options applied (None leaves a field as it is)."""
        config = self
        if out is not None:
            config = replace(config, out=check_out(str(out), "--out"))
        if name is not None:
            config = replace(config, name=check_name(name, "--name"))
        if address is not None:
            config = replace(config, ray=replace(config.ray, address=address))
        if workers is not None:
            config = replace(config, ray=replace(config.ray, workers=check_int(workers, "--workers", 0)))
        if write is not None:
            if write not in WRITERS:
                raise ConfigError(f"--write must be one of {', '.join(WRITERS)}, not {write!r}")
            config = replace(config, ray=replace(config.ray, write=write))
        if mlflow is not None:
            config = replace(config, mlflow=replace(config.mlflow, enabled=mlflow))
        if python_referee is not None:
            config = replace(config, python_referee=python_referee)
        return config


def load_config(path: str | Path) -> LeagueConfig:
    """Read and check a league config file; raise ConfigError naming the file and the field."""
    path = Path(path)
    return parse_config(read_yaml(path), source=str(path), default_name=path.stem, base=path.parent)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader reading ``1e300`` and ``2E-5`` as numbers, as YAML 1.2 does (PyYAML,
    on YAML 1.1, takes a number without a dot for text, which a check then refused as not a number)."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+[eE][-+]?[0-9]+$"),
                              list("-+0123456789"))


def read_yaml(path: str | Path) -> Any:
    """The contents of a YAML file (a league, study or SPRT config), or a ConfigError of one line
    naming the file and why: missing, unreadable, or not YAML (with the line and column)."""
    return _yaml_of(lambda: Path(path).read_text(encoding="utf-8"), str(path))


def read_stored_yaml(store: RunStore, name: str) -> Any:
    """``read_yaml`` of a run's settings file ``name`` (records/names.py), through its store."""
    return _yaml_of(lambda: store.read_text(name), store.where(name))


def _yaml_of(read, where: str) -> Any:
    try:
        text = read()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader, with YAML 1.2's floats
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: {yaml_error_text(exc)}") from None


def yaml_error_text(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: ``line L, column C: not valid YAML (what, while what from line
    L', column C')``; PyYAML's own text spans several lines with an excerpt of the file."""
    def at(mark) -> str:
        return f"line {mark.line + 1}, column {mark.column + 1}"

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        what = " ".join(str(exc.problem or "").split())
        if exc.context:
            what += f", {' '.join(exc.context.split())}"
            if exc.context_mark is not None:
                what += f" from {at(exc.context_mark)}"
        return f"{at(exc.problem_mark)}: not valid YAML ({what})"
    return f"not valid YAML ({' '.join(str(exc).split())})"


def parse_config(data: Any, source: str = "config", default_name: str = "league",
                 base: str | Path | None = None) -> LeagueConfig:
    """Check a config mapping (as read from YAML) and build the LeagueConfig. A bot's model given
    by a relative path is read from ``base`` (the config file's folder; None: the current folder)
    and kept as an absolute path, so that the stored config reads the same file from anywhere."""
    try:
        return _parse(data, default_name, base)
    except _FieldError as exc:
        raise ConfigError(f"{source}: {exc.field}: {exc.reason}") from None


# ---------------------------------------------------------------- checking (each field: tournament/fields.py)
def _parse(data: Any, default_name: str, base: str | Path | None = None) -> LeagueConfig:
    if not isinstance(data, dict):
        raise _FieldError("(top level)", f"a config is a mapping of fields, not {_kind(data)}")
    _known_keys(data, TOP_KEYS, "")
    name = _name(data.get("name", default_name), "name")
    players = _int(data.get("players", 2), "players", 2, 4)
    variant = _choice(data.get("variant", "colored"), "variant", VARIANTS)
    deals = _int(data.get("deals", 10), "deals", 1)
    seats = _choice(data.get("seats", "balanced"), "seats", SEAT_MODES)
    if deals % deal_block(players, seats):
        raise _FieldError("deals", f"must be even at {players} players with seats: {seats} (its seatings "
                                   f"balance who follows whom over each pair of deals), not {deals}; "
                                   f"or seats: permute (24 games a deal)")
    match = _choice(data.get("match", "game"), "match", MATCHES)
    self_play = data.get("self_play", False)
    if not isinstance(self_play, bool):
        raise _FieldError("self_play", f"must be true or false, not {shown(self_play)}")
    python_referee = data.get("python_referee", False)
    if not isinstance(python_referee, bool):
        raise _FieldError("python_referee", f"must be true or false, not {shown(python_referee)}")
    seed = _int(data.get("seed", 0), "seed", 0, MAX_SEED)
    out = _out(data.get("out", "runs"), "out")
    time_limit = _seconds(data.get("time_limit"), "time_limit")
    batch = data.get("batch_games")
    batch = None if batch is None else _int(batch, "batch_games", 1)
    flush = data.get("flush_seconds", 5.0)
    if isinstance(flush, bool) or not isinstance(flush, (int, float)) or not 0 <= flush <= MAX_SECONDS:
        raise _FieldError("flush_seconds", f"must be a number of seconds, 0 to {MAX_SECONDS:g}, not {shown(flush)}")
    ray = _section(data.get("ray"), "ray", RAY_KEYS)
    address = ray.get("address")
    if address is not None and (not isinstance(address, str) or not address):
        raise _FieldError("ray.address", f"must be an address like 10.0.0.5:6379 or 'auto', not {shown(address)}")
    workers = ray.get("workers")
    workers = None if workers is None else _int(workers, "ray.workers", 0)
    write = ray.get("write", "driver")
    if write not in WRITERS:
        raise _FieldError("ray.write", f"must be one of {', '.join(WRITERS)} (who writes the part files), "
                                       f"not {shown(write)}")
    ml = _section(data.get("mlflow"), "mlflow", MLFLOW_KEYS)
    enabled = ml.get("enabled", True)
    if not isinstance(enabled, bool):
        raise _FieldError("mlflow.enabled", f"must be true or false, not {shown(enabled)}")
    uri = ml.get("tracking_uri")
    if uri is not None and (not isinstance(uri, str) or not uri):
        raise _FieldError("mlflow.tracking_uri", f"must be a URI like sqlite:///runs/mlflow.db, not {shown(uri)}")
    experiment = ml.get("experiment", "azul-league")
    if not isinstance(experiment, str) or not experiment:
        raise _FieldError("mlflow.experiment", f"must be a name, not {shown(experiment)}")
    bots = _bots(data.get("bots"), seed, players, variant, base)
    if len(bots) < players and not self_play:  # with self_play, the self tables still play
        raise _FieldError("bots", f"{len(bots)} bot(s) for {players}-player tables: a league needs "
                                  f"at least {players} (or self_play: true)")
    event = _event(data, players, bots, self_play)
    _stage_bound(event.get("format"), [b.name for b in bots], players, deals, seats, match, event.get("challengers"))
    return LeagueConfig(
        name=name, bots=tuple(bots), players=players, variant=variant, deals=deals, seats=seats,
        seed=seed, out=out, time_limit=time_limit, batch_games=batch, flush_seconds=float(flush),
        ray=RaySettings(address, workers, write), mlflow=MlflowSettings(enabled, uri, experiment), match=match,
        self_play=self_play, python_referee=python_referee, **event)


def _event(data: dict, players: int, bots: list[BotEntry], self_play: bool) -> dict[str, Any]:
    """The format and its setting (``FORMAT_KEYS``), checked: the LeagueConfig's fields."""
    fmt = _choice(data.get("format", "round-robin"), "format", FORMATS)
    for f, key in FORMAT_KEYS.items():
        if key in data and f != fmt:
            raise _FieldError(key, f"is a setting of format: {f}, not of format: {fmt}")
    if fmt == "round-robin":
        return {}
    if self_play:
        raise _FieldError("self_play", f"is for a round-robin, not format: {fmt}")
    if fmt == "gauntlet":
        value = data.get("challengers")
        names = [b.name for b in bots]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise _FieldError("challengers", f"a gauntlet needs a list of the names of the bots that play every "
                                             f"other bot, not {shown(value)}")
        unknown = [v for v in value if v not in names]
        if unknown:
            raise _FieldError("challengers", f"{shown(unknown[0])} is not the name of a bot of the league "
                                             f"(bots: {', '.join(names)})")
        if len(set(value)) != len(value):
            raise _FieldError("challengers", "names a bot twice")
        pool = len(bots) - len(set(value))
        if pool < players - 1:
            raise _FieldError("challengers", f"leaves {pool} pool bot(s): a {players}-player table holds one "
                                             f"challenger and {players - 1} pool bot(s)")
        return {"format": fmt, "challengers": tuple(n for n in names if n in value)}
    if fmt == "swiss":
        if "rounds" not in data:
            raise _FieldError("rounds", "missing: a Swiss event needs its number of rounds")
        return {"format": fmt, "rounds": _int(data["rounds"], "rounds", 1, 1000)}
    if players != 2:
        raise _FieldError("players", f"a knockout is played at 2 players, not {players}")
    ignored = ("deals",) if "deals" in data else ()  # a knockout's are pairs_per_match: said, not refused
    pairs = _int(data.get("pairs_per_match", 1), "pairs_per_match", 1, 10000)
    return {"format": fmt, "ignored": ignored, "pairs_per_match": pairs}


def _bots(value: Any, league_seed: int, players: int = 2, variant: str = "colored",
          base: str | Path | None = None) -> list[BotEntry]:
    if value is None:
        raise _FieldError("bots", "missing: list the bots of the league (type, params, seed)")
    if not isinstance(value, list) or not value:
        raise _FieldError("bots", f"must be a non-empty list of bots, not {shown(value)}")
    entries, names = [], {}
    for i, item in enumerate(value):
        where = f"bots[{i}]"
        if isinstance(item, str):  # a bot spec: TYPE or TYPE:key=value,...
            try:
                kind, params = parse_bot_spec(item)
            except ValueError as exc:
                raise _FieldError(where, str(exc)) from None
            item = {"type": kind, "params": params}
        if not isinstance(item, dict):
            raise _FieldError(where, f"a bot is a mapping with type, params and seed, not {_kind(item)}")
        _known_keys(item, BOT_KEYS, where + ".")
        bot_type = item.get("type")
        if not isinstance(bot_type, str) or not bot_type:
            raise _FieldError(f"{where}.type", f"missing: a registered bot type or module:Class, not {shown(bot_type)}")
        params = item.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise _FieldError(f"{where}.params", f"must be a mapping of parameter names to values, not {shown(params)}")
        if isinstance(params.get("model"), str) and "model" in _parameters(bot_type):
            params = {**params, "model": resolved_model(params["model"], base)}
        seed = item.get("seed")
        seed = derive_seed(league_seed, "bot", i) % 2**31 if seed is None else _int(seed, f"{where}.seed", 0, MAX_SEED)
        time_limit = _seconds(item.get("time_limit"), f"{where}.time_limit")
        try:
            proto = bot_maker(bot_type, params)(seed)
        except ValueError as exc:
            text = str(exc)
            field_name = f"{where}.type" if "unknown bot type" in text or "cannot import" in text \
                or "not a Bot" in text else f"{where}.params"
            raise _FieldError(field_name, text) from None
        unfit = proto.table_error(players, variant)
        if unfit:  # found now, not as a traceback at its first move
            raise _FieldError(f"{where}.params", unfit)
        name = item.get("name", proto.name)
        name = _name(name, f"{where}.name")
        if name in names:
            raise _FieldError(f"{where}.name", f"{shown(name)} is already the name of bots[{names[name]}]: "
                                               "give each bot a distinct name")
        names[name] = i
        entries.append(BotEntry(name=name, type=bot_type, params=dict(params), seed=seed,
                                time_limit=time_limit))
    return entries


def check_int(value: Any, where: str, low: int, high: int | None = None) -> int:
    """``value`` as a whole number from ``low`` (to ``high``): a league config's check, with its
    error as a ConfigError naming ``where``, for the settings made without one (--workers, a
    study's or an SPRT's fields)."""
    return _checked(_int, value, where, low, high)


def check_choice(value: Any, where: str, choices: tuple[str, ...]) -> str:
    """``value`` as one of ``choices`` (a league config's check; a ConfigError naming ``where``)."""
    return _checked(_choice, value, where, choices)


def check_out(value: Any, where: str = "out") -> str:
    """``value`` as where a run goes: a folder, or an ``s3://BUCKET/PREFIX`` URL (a run on object
    storage; every kind's out takes one)."""
    return _checked(_out, value, where)


def _checked(check, value: Any, where: str, *args):
    try:
        return check(value, where, *args)
    except _FieldError as exc:
        raise ConfigError(f"{exc.field}: {exc.reason}") from None


def check_name(value: Any, where: str = "name") -> str:
    """``value`` as a run's or bot's name (a ConfigError naming ``where`` and stating the rule,
    ``fields.NAME_RULE``, otherwise): the one rule for names, a league config's, for the runs made
    without one (kinds/study.py, kinds/sprt.py, kinds/tune_config.py), the bots of ``--bot`` specs
    (azul_cli/series.py, azul_cli/study.py) and the web table's player (web/play_setup.py)."""
    try:
        return _name(value, where)
    except _FieldError as exc:
        raise ConfigError(str(exc)) from None


