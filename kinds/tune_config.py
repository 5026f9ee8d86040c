"""A tune's file (``azul tune FILE``, docs/tune.md): read and checked into ``TuneConfig``, with one
error line naming the file and the field, as a league config's (tournament/config.py).

    name: tune-heuristic        # the run folder's name under out (default tune)
    bot: heuristic              # a type, or a spec with fixed parameters: heuristic:denial=0.8
    fixed: {reply: 1.0}         # more fixed parameters (optional)
    params:                     # the tuned ones: names, or name: {start, min, max, c_end, r_end, scale}
      line: {}
      marker: {c_end: 0.5}
    players: 2                  # 2, 3 or 4; at 3 and 4 ``field`` fills the other seats
    field: [greedy]             # players - 2 bot specs (default: the bot at its fixed parameters)
    variant: colored
    pairs: 400                  # game pairs in all
    batch: 8                    # pairs per SPSA step
    seed: 0
    tail: 0.2                   # the share of the last steps whose theta is averaged
    out: runs                   # taken literally (no ~ or $VAR)
    workers: 0                  # optional, as --workers
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.registry import bot_parameters, check_params
from bots.spec import format_bot_spec, parse_bot_spec
from engine.errors import field_name

from tournament.config import read_yaml
from tournament.errors import ConfigError
from tournament.settings import NAME, OUT, PLAYERS, SEED, VARIANT, WORKERS, Field, Settings, whole
from .base import with_options
from .spsa import TunedParam, tuned_param

KEYS = ("name", "bot", "fixed", "params", "players", "field", "variant", "pairs", "batch", "seed", "tail",
        "out", "workers")
SAVED = ("bot", "fixed", "params", "players", "field", "variant", "pairs", "batch", "seed", "tail")  # what the games are
DEFAULT_BATCH = 8
MAX_PAIRS = 10_000_000  # a tune's pairs (its steps are a list)
MAX_BATCH = 100_000  # the pairs of one step (one stage, built in memory)
DEFAULT_TAIL = 0.2


def _tail(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ConfigError.of(where, f"the share of the last steps averaged, above 0 and at most 1, not {value!r}")
    return float(value)


# A tune's own settings (those every kind shares: tournament/settings.py)
PAIRS = Field("pairs", whole(1, MAX_PAIRS), 100)  # its steps are planned in memory
BATCH = Field("batch", whole(1, MAX_BATCH), DEFAULT_BATCH)  # a step's games too
TAIL = Field("tail", _tail, DEFAULT_TAIL)


@dataclass(frozen=True)
class TuneConfig(Settings):
    """A checked tune: the bot type, its fixed parameters, the tuned ones (``TunedParam``), the
    table (players, field, variant) and the budget (pairs, batch), the seed."""

    name: str = NAME.attr()
    bot: str
    fixed: dict[str, Any]
    params: tuple[TunedParam, ...]
    players: int = PLAYERS.attr()
    field: tuple[str, ...] = ()
    variant: str = VARIANT.attr()
    pairs: int = PAIRS.attr()
    batch: int = BATCH.attr()
    seed: int = SEED.attr()
    tail: float = TAIL.attr()
    out: str = OUT.attr()
    workers: int | None = WORKERS.attr()

    @property
    def steps(self) -> int:
        return math.ceil(self.pairs / self.batch)

    @property
    def total_games(self) -> int:
        """The tune's games: a pair is theta+ and theta- on one deal, seats swapped (2 games)."""
        return 2 * self.pairs

    def spec(self, values: dict[str, Any] | None = None) -> str:
        """The bot as a spec: its fixed parameters and ``values`` of the tuned ones."""
        return format_bot_spec(self.bot, {**self.fixed, **(values or {})})

    def saved(self) -> dict:
        """What ``tune.yaml`` keeps: the file's fields, every tuned parameter's resolved, with the
        run's name (``azul tune RUN/tune.yaml --out DIR --resume`` finishes the run)."""
        return {"name": self.name, "bot": self.bot, "fixed": dict(self.fixed),
                "params": {p.name: p.as_dict() for p in self.params}, "players": self.players,
                "field": list(self.field), "variant": self.variant, "pairs": self.pairs, "batch": self.batch,
                "seed": self.seed, "tail": self.tail, "out": self.out}


def load_tune_file(path: str | Path, **overrides) -> TuneConfig:
    """A tune file read and checked, with the command's options (out, workers) laid over it
    (``kinds.base.with_options``). A ConfigError says ``FILE: field: what is wrong`` in one line."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a tune file is a mapping of fields ({', '.join(KEYS)})")
    data = with_options(data, **overrides)
    return parse_tune(data, str(path))


def parse_tune(data: dict, source: str = "tune") -> TuneConfig:
    try:
        return _parse(data)
    except ConfigError as exc:
        raise exc.at(source) from None


def _parse(data: dict) -> TuneConfig:
    for key in data:
        if key not in KEYS:
            raise ConfigError.of(field_name(key), f"unknown field (fields: {', '.join(KEYS)})")
    name = NAME.read(data, default="tune")
    spec = data.get("bot")
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"bot: missing: the bot type to tune, or its spec (heuristic, mcts:iterations=200), not {spec!r}")
    try:
        bot, fixed = parse_bot_spec(spec)
        bot_parameters(bot)
    except ValueError as exc:
        raise ConfigError(f"bot: {exc}") from None
    more = data.get("fixed") or {}
    if not isinstance(more, dict):
        raise ConfigError(f"fixed: a mapping of parameter names to values, not {more!r}")
    fixed = {**fixed, **more}
    try:
        check_params(bot, fixed)
    except ValueError as exc:
        raise ConfigError(f"fixed: {exc}") from None
    players, pairs, batch = PLAYERS.read(data), PAIRS.read(data), BATCH.read(data)
    seed, variant, tail = SEED.read(data), VARIANT.read(data), TAIL.read(data)
    out, workers = OUT.read(data), WORKERS.read(data)  # out: a folder, or s3://BUCKET/PREFIX
    given = _params(data.get("params"))
    params = []
    for pname, fields in given.items():
        if pname in fixed:
            raise ConfigError(f"params.{pname}: also a fixed parameter (tune it or fix it)")
        try:
            params.append(tuned_param(bot, pname, fields, pairs))
        except ValueError as exc:
            raise ConfigError(f"params.{exc}") from None
        t = params[-1]
        try:  # a parameter the fixed settings leave unread tunes nothing (bots: parameters_error)
            check_params(bot, {**fixed, pname: _away_from_default(bot, pname, t.low, t.high, t.integer)})
        except ValueError as exc:
            raise ConfigError(f"params.{pname}: tunes nothing with these settings ({exc})") from None
    field_specs = data.get("field")
    if field_specs is None:
        field_specs = [format_bot_spec(bot, fixed)] * (players - 2)
    if not isinstance(field_specs, list) or len(field_specs) != players - 2 or not all(
            isinstance(s, str) for s in field_specs):
        raise ConfigError(f"field: {players - 2} bot spec(s) for the other seats of a {players}-player table, "
                     f"not {field_specs!r}")
    for i, s in enumerate(field_specs):
        try:
            kind, values = parse_bot_spec(s)
            check_params(kind, values)
        except ValueError as exc:
            raise ConfigError(f"field[{i}]: {exc}") from None
    return TuneConfig(name, bot, fixed, tuple(params), players, tuple(field_specs), variant, pairs, batch, seed,
                      tail, out, workers)


def _away_from_default(bot: str, name: str, low: float, high: float, integer: bool) -> float | int:
    """A value of the tuned range that is not the parameter's default (its ends: one differs)."""
    value = high if bot_parameters(bot)[name].default != high else low
    return int(value) if integer else float(value)


def _params(value: Any) -> dict[str, dict]:
    """The tuned parameters as ``{name: {field: value}}`` from a list of names (or of mappings
    with a ``name``) or a mapping of names to fields (or null)."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                items.append((item, {}))
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                items.append((item["name"], {k: v for k, v in item.items() if k != "name"}))
            else:
                raise ConfigError(f"params[{i}]: a parameter's name, or a mapping with its name, not {item!r}")
    else:
        raise ConfigError(f"params: missing: the parameters to tune, a list of names or a mapping of names to "
                     f"start, min, max, c_end, r_end, scale; not {value!r}")
    if not items:
        raise ConfigError("params: no parameter to tune")
    out: dict[str, dict] = {}
    for pname, fields in items:
        if pname in out:
            raise ConfigError(f"params: {pname} is given twice")
        if fields is not None and not isinstance(fields, dict):
            raise ConfigError(f"params.{pname}: a mapping of start, min, max, c_end, r_end, scale, not {fields!r}")
        out[str(pname)] = dict(fields or {})
    return out
