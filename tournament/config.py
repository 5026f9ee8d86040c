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
from records.store import RunStore

from .errors import ConfigError
from .fields import (MAX_SECONDS, MAX_SEED, check_choice, check_flag, check_int, check_name, check_out,  # noqa: F401
                     check_seconds, kind_of, known_keys, section, stage_bound)
from .scheduler import MATCHES, SEAT_MODES, count_games, deal_block, derive_seed
from .settings import ADDRESS, DEALS, MLFLOW, NAME, OUT, PLAYERS, SEED, VARIANT, WORKERS, Field, Settings, one_of, \
    optional, whole

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


def _flush(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_SECONDS:
        raise ConfigError.of(where, f"must be a number of seconds, 0 to {MAX_SECONDS:g}, not {shown(value)}")
    return float(value)


def _writer(value: Any, where: str) -> str:
    if value not in WRITERS:
        raise ConfigError.of(where, f"must be one of {', '.join(WRITERS)} (who writes the part files), "
                                    f"not {shown(value)}")
    return value


def _uri(value: Any, where: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError.of(where, f"must be a URI like sqlite:///runs/mlflow.db, not {shown(value)}")
    return value


def _experiment(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError.of(where, f"must be a name, not {shown(value)}")
    return value


# A league's own settings (those every kind shares: tournament/settings.py)
SEATS = Field("seats", one_of(SEAT_MODES), "balanced")
MATCH = Field("match", one_of(MATCHES), "game")
SELF_PLAY = Field("self_play", check_flag, False)
PYTHON_REFEREE = Field("python_referee", check_flag, False)
TIME_LIMIT = Field("time_limit", check_seconds, None)
BATCH_GAMES = Field("batch_games", optional(whole(1)), None)
FLUSH_SECONDS = Field("flush_seconds", _flush, 5.0)
WRITE = Field("write", _writer, "driver")
ENABLED = MLFLOW.but(key="enabled")  # mlflow.enabled
TRACKING_URI = Field("tracking_uri", _uri, None)
EXPERIMENT = Field("experiment", _experiment, "azul-league")


@dataclass(frozen=True)
class BotEntry:
    """One bot of a league: a registered type (or ``module:Class``), its parameters and seed."""

    name: str
    type: str
    params: dict[str, Any]
    seed: int
    time_limit: float | None = None  # seconds per move; None: the league's time_limit

    @classmethod
    def of_spec(cls, name: str, spec: str, seed: int) -> BotEntry:
        """The bot a spec names (``bots.spec``: ``TYPE:key=value,...``) as the league's bot
        ``name``; a ValueError says why a spec is not one."""
        kind, params = parse_bot_spec(spec)
        return cls(name=name, type=kind, params=params, seed=seed)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "params": dict(self.params),
                "seed": self.seed, "time_limit": self.time_limit}


@dataclass(frozen=True)
class RaySettings(Settings):
    address: str | None = ADDRESS.attr()  # join this cluster; None: RAY_ADDRESS, else a local Ray
    workers: int | None = WORKERS.attr()  # games played at once; 0: in the driver, without Ray
    write: str = WRITE.attr()  # who writes the part files: the driver, or each task its own (WRITERS)


@dataclass(frozen=True)
class MlflowSettings(Settings):
    enabled: bool = ENABLED.attr()
    tracking_uri: str | None = TRACKING_URI.attr()  # None: sqlite:///<out>/mlflow.db
    experiment: str = EXPERIMENT.attr()


@dataclass(frozen=True)
class LeagueConfig(Settings):
    name: str = NAME.attr()
    bots: tuple[BotEntry, ...]
    players: int = PLAYERS.attr()
    variant: str = VARIANT.attr()
    deals: int = DEALS.attr()
    seats: str = SEATS.attr()
    seed: int = SEED.attr()
    out: str = OUT.attr()
    time_limit: float | None = TIME_LIMIT.attr()
    batch_games: int | None = BATCH_GAMES.attr()
    flush_seconds: float = FLUSH_SECONDS.attr()
    ray: RaySettings = field(default_factory=RaySettings)
    mlflow: MlflowSettings = field(default_factory=MlflowSettings)
    match: str = MATCH.attr()  # "series": every scheduled game is a two-game series
    self_play: bool = SELF_PLAY.attr()  # also one table per bot with that bot in every seat
    # every game through the Python referee, even between built-in compiled bots (same records;
    # tournament/fastloop.py plays those in C otherwise)
    python_referee: bool = PYTHON_REFEREE.attr()
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
    except ConfigError as exc:
        raise exc.at(source) from None


# ---------------------------------------------------------------- checking (each field: tournament/fields.py)
def _parse(data: Any, default_name: str, base: str | Path | None = None) -> LeagueConfig:
    if not isinstance(data, dict):
        raise ConfigError.of("(top level)", f"a config is a mapping of fields, not {kind_of(data)}")
    known_keys(data, TOP_KEYS, "")
    name = NAME.read(data, default=default_name)
    players, variant, deals, seats = PLAYERS.read(data), VARIANT.read(data), DEALS.read(data), SEATS.read(data)
    _deal_block(deals, players, seats)
    match, self_play, python_referee = MATCH.read(data), SELF_PLAY.read(data), PYTHON_REFEREE.read(data)
    seed, out, time_limit = SEED.read(data), OUT.read(data), TIME_LIMIT.read(data)
    batch, flush = BATCH_GAMES.read(data), FLUSH_SECONDS.read(data)
    ray = section(data.get("ray"), "ray", RAY_KEYS)
    ray = RaySettings(*(f.read(ray, f"ray.{f.key}") for f in RaySettings.declared().values()))
    ml = section(data.get("mlflow"), "mlflow", MLFLOW_KEYS)
    ml = MlflowSettings(*(f.read(ml, f"mlflow.{f.key}") for f in MlflowSettings.declared().values()))
    bots = _bots(data.get("bots"), seed, players, variant, base)
    config = LeagueConfig(
        name=name, bots=tuple(bots), players=players, variant=variant, deals=deals, seats=seats,
        seed=seed, out=out, time_limit=time_limit, batch_games=batch, flush_seconds=flush,
        ray=ray, mlflow=ml, match=match, self_play=self_play, python_referee=python_referee)
    return _with_event(config, data)


def league_config(source: str, name: str, bots: list[BotEntry], **settings: Any) -> LeagueConfig:
    """The league of a kind's run (an SPRT's, a tune's, a training's self-play or gate), made
    typed: ``LeagueConfig(name=name, bots=bots, **settings)`` with every field and bot checked as
    ``parse_config`` checks a file's (a bot's relative ``model`` path made absolute against the
    current folder); a ConfigError starts with ``source``."""
    try:
        return _checked(LeagueConfig(name=name, bots=tuple(bots), **settings))
    except ConfigError as exc:
        raise exc.at(source) from None


def _checked(config: LeagueConfig) -> LeagueConfig:
    checked = config.check_fields()
    _deal_block(checked["deals"], checked["players"], checked["seats"])
    ray, ml = config.ray.check_fields("ray."), config.mlflow.check_fields("mlflow.")
    names: dict[str, int] = {}
    bots = [_bot(i, e.type, e.params, e.seed, e.name, e.time_limit, checked["seed"], checked["players"],
                 checked["variant"], None, names) for i, e in enumerate(config.bots)]
    config = replace(config, **checked, bots=tuple(bots), ray=RaySettings(**ray), mlflow=MlflowSettings(**ml))
    return _with_event(config, config.event_settings())


def _deal_block(deals: int, players: int, seats: str) -> None:
    if deals % deal_block(players, seats):
        raise ConfigError.of("deals", f"must be even at {players} players with seats: {seats} (its seatings "
                                      f"balance who follows whom over each pair of deals), not {deals}; "
                                      f"or seats: permute (24 games a deal)")


def _with_event(config: LeagueConfig, data: dict) -> LeagueConfig:
    """The config with its format and that format's setting (``FORMAT_KEYS``) checked, from ``data``."""
    if len(config.bots) < config.players and not config.self_play:  # with self_play, the self tables still play
        raise ConfigError.of("bots", f"{len(config.bots)} bot(s) for {config.players}-player tables: a league needs "
                                     f"at least {config.players} (or self_play: true)")
    event = _event(data, config.players, list(config.bots), config.self_play)
    stage_bound(event.get("format"), [b.name for b in config.bots], config.players, config.deals, config.seats,
                config.match, event.get("challengers"))
    return replace(config, **event)


def _event(data: dict, players: int, bots: list[BotEntry], self_play: bool) -> dict[str, Any]:
    """The format and its setting (``FORMAT_KEYS``), checked: the LeagueConfig's fields."""
    fmt = check_choice(data.get("format", "round-robin"), "format", FORMATS)
    for f, key in FORMAT_KEYS.items():
        if key in data and f != fmt:
            raise ConfigError.of(key, f"is a setting of format: {f}, not of format: {fmt}")
    if fmt == "round-robin":
        return {}
    if self_play:
        raise ConfigError.of("self_play", f"is for a round-robin, not format: {fmt}")
    if fmt == "gauntlet":
        value = data.get("challengers")
        names = [b.name for b in bots]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise ConfigError.of("challengers", f"a gauntlet needs a list of the names of the bots that play every "
                                             f"other bot, not {shown(value)}")
        unknown = [v for v in value if v not in names]
        if unknown:
            raise ConfigError.of("challengers", f"{shown(unknown[0])} is not the name of a bot of the league "
                                             f"(bots: {', '.join(names)})")
        if len(set(value)) != len(value):
            raise ConfigError.of("challengers", "names a bot twice")
        pool = len(bots) - len(set(value))
        if pool < players - 1:
            raise ConfigError.of("challengers", f"leaves {pool} pool bot(s): a {players}-player table holds one "
                                             f"challenger and {players - 1} pool bot(s)")
        return {"format": fmt, "challengers": tuple(n for n in names if n in value)}
    if fmt == "swiss":
        if "rounds" not in data:
            raise ConfigError.of("rounds", "missing: a Swiss event needs its number of rounds")
        return {"format": fmt, "rounds": check_int(data["rounds"], "rounds", 1, 1000)}
    if players != 2:
        raise ConfigError.of("players", f"a knockout is played at 2 players, not {players}")
    ignored = ("deals",) if "deals" in data else ()  # a knockout's are pairs_per_match: said, not refused
    pairs = check_int(data.get("pairs_per_match", 1), "pairs_per_match", 1, 10000)
    return {"format": fmt, "ignored": ignored, "pairs_per_match": pairs}


def _bots(value: Any, league_seed: int, players: int = 2, variant: str = "colored",
          base: str | Path | None = None) -> list[BotEntry]:
    if value is None:
        raise ConfigError.of("bots", "missing: list the bots of the league (type, params, seed)")
    if not isinstance(value, list) or not value:
        raise ConfigError.of("bots", f"must be a non-empty list of bots, not {shown(value)}")
    entries, names = [], {}
    for i, item in enumerate(value):
        where = f"bots[{i}]"
        if isinstance(item, str):  # a bot spec: TYPE or TYPE:key=value,...
            try:
                kind, params = parse_bot_spec(item)
            except ValueError as exc:
                raise ConfigError.of(where, str(exc)) from None
            item = {"type": kind, "params": params}
        if not isinstance(item, dict):
            raise ConfigError.of(where, f"a bot is a mapping with type, params and seed, not {kind_of(item)}")
        known_keys(item, BOT_KEYS, where + ".")
        bot_type = item.get("type")
        if not isinstance(bot_type, str) or not bot_type:
            raise ConfigError.of(f"{where}.type", f"missing: a registered bot type or module:Class, not {shown(bot_type)}")
        params = item.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise ConfigError.of(f"{where}.params", f"must be a mapping of parameter names to values, not {shown(params)}")
        entries.append(_bot(i, bot_type, params, item.get("seed"), item.get("name", _UNNAMED), item.get("time_limit"),
                            league_seed, players, variant, base, names))
    return entries


_UNNAMED = object()  # a bot given no name: it goes by its own (``Bot.name``)


def _bot(i: int, bot_type: str, params: dict, seed: Any, name: Any, time_limit: Any, league_seed: int, players: int,
         variant: str, base: str | Path | None, names: dict[str, int]) -> BotEntry:
    """The ``i``-th bot of a league, checked: its model path absolute, its seed (None: from the
    league's), built once (its type and parameters, and whether it plays this table), its name
    (``_UNNAMED``: its own) distinct from those in ``names``, which it joins."""
    where = f"bots[{i}]"
    if isinstance(params.get("model"), str) and "model" in _parameters(bot_type):
        params = {**params, "model": resolved_model(params["model"], base)}
    seed = bot_seed(league_seed, i) if seed is None else check_int(seed, f"{where}.seed", 0, MAX_SEED)
    time_limit = check_seconds(time_limit, f"{where}.time_limit")
    try:
        proto = bot_maker(bot_type, params)(seed)
    except ValueError as exc:
        text = str(exc)
        field_name = f"{where}.type" if "unknown bot type" in text or "cannot import" in text \
            or "not a Bot" in text else f"{where}.params"
        raise ConfigError.of(field_name, text) from None
    unfit = proto.table_error(players, variant)
    if unfit:  # found now, not as a traceback at its first move
        raise ConfigError.of(f"{where}.params", unfit)
    name = check_name(proto.name if name is _UNNAMED else name, f"{where}.name")
    if name in names:
        raise ConfigError.of(f"{where}.name", f"{shown(name)} is already the name of bots[{names[name]}]: "
                                              "give each bot a distinct name")
    names[name] = i
    return BotEntry(name=name, type=bot_type, params=dict(params), seed=seed, time_limit=time_limit)


def bot_seed(league_seed: int, i: int) -> int:
    """The seed of a league's ``i``-th bot when it is given none."""
    return derive_seed(league_seed, "bot", i) % 2**31
