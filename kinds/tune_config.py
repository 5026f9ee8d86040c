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
from engine.rules import VARIANTS

from tournament.config import MAX_SEED, ConfigError, check_choice, check_int, check_name, check_out, read_yaml
from .base import with_options
from .spsa import TunedParam, tuned_param

KEYS = ("name", "bot", "fixed", "params", "players", "field", "variant", "pairs", "batch", "seed", "tail",
        "out", "workers")
SAVED = ("bot", "fixed", "params", "players", "field", "variant", "pairs", "batch", "seed", "tail")  # what the games are
DEFAULT_BATCH = 8
MAX_PAIRS = 10_000_000  # a tune's pairs (its steps are a list)
MAX_BATCH = 100_000  # the pairs of one step (one stage, built in memory)
DEFAULT_TAIL = 0.2


@dataclass(frozen=True)
class TuneConfig:
    """A checked tune: the bot type, its fixed parameters, the tuned ones (``TunedParam``), the
    table (players, field, variant) and the budget (pairs, batch), the seed."""

    name: str
    bot: str
    fixed: dict[str, Any]
    params: tuple[TunedParam, ...]
    players: int = 2
    field: tuple[str, ...] = ()
    variant: str = "colored"
    pairs: int = 100
    batch: int = DEFAULT_BATCH
    seed: int = 0
    tail: float = DEFAULT_TAIL
    out: str = "runs"
    workers: int | None = None

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
    except (_Field, ConfigError) as exc:  # the league's checks (check_int...) raise ConfigError
        raise ConfigError(f"{source}: {exc}") from None


class _Field(Exception):
    pass


def _parse(data: dict) -> TuneConfig:
    for key in data:
        if key not in KEYS:
            raise _Field(f"{field_name(key)}: unknown field (fields: {', '.join(KEYS)})")
    try:
        name = check_name(data.get("name", "tune"))
    except ConfigError as exc:
        raise _Field(str(exc)) from None
    spec = data.get("bot")
    if not isinstance(spec, str) or not spec.strip():
        raise _Field(f"bot: missing: the bot type to tune, or its spec (heuristic, mcts:iterations=200), not {spec!r}")
    try:
        bot, fixed = parse_bot_spec(spec)
        bot_parameters(bot)
    except ValueError as exc:
        raise _Field(f"bot: {exc}") from None
    more = data.get("fixed") or {}
    if not isinstance(more, dict):
        raise _Field(f"fixed: a mapping of parameter names to values, not {more!r}")
    fixed = {**fixed, **more}
    try:
        check_params(bot, fixed)
    except ValueError as exc:
        raise _Field(f"fixed: {exc}") from None
    players = check_int(data.get("players", 2), "players", 2, 4)
    pairs = check_int(data.get("pairs", 100), "pairs", 1, MAX_PAIRS)  # its steps are planned in memory
    batch = check_int(data.get("batch", DEFAULT_BATCH), "batch", 1, MAX_BATCH)  # a step's games too
    seed = check_int(data.get("seed", 0), "seed", 0, MAX_SEED)
    variant = check_choice(data.get("variant", "colored"), "variant", VARIANTS)
    tail = data.get("tail", DEFAULT_TAIL)
    if isinstance(tail, bool) or not isinstance(tail, (int, float)) or not 0 < tail <= 1:
        raise _Field(f"tail: the share of the last steps averaged, above 0 and at most 1, not {tail!r}")
    out = check_out(data.get("out", "runs"))  # a folder, or s3://BUCKET/PREFIX
    workers = data.get("workers")
    workers = None if workers is None else check_int(workers, "workers", 0)
    given = _params(data.get("params"))
    params = []
    for pname, fields in given.items():
        if pname in fixed:
            raise _Field(f"params.{pname}: also a fixed parameter (tune it or fix it)")
        try:
            params.append(tuned_param(bot, pname, fields, pairs))
        except ValueError as exc:
            raise _Field(f"params.{exc}") from None
        t = params[-1]
        try:  # a parameter the fixed settings leave unread tunes nothing (bots: parameters_error)
            check_params(bot, {**fixed, pname: _away_from_default(bot, pname, t.low, t.high, t.integer)})
        except ValueError as exc:
            raise _Field(f"params.{pname}: tunes nothing with these settings ({exc})") from None
    field_specs = data.get("field")
    if field_specs is None:
        field_specs = [format_bot_spec(bot, fixed)] * (players - 2)
    if not isinstance(field_specs, list) or len(field_specs) != players - 2 or not all(
            isinstance(s, str) for s in field_specs):
        raise _Field(f"field: {players - 2} bot spec(s) for the other seats of a {players}-player table, "
                     f"not {field_specs!r}")
    for i, s in enumerate(field_specs):
        try:
            kind, values = parse_bot_spec(s)
            check_params(kind, values)
        except ValueError as exc:
            raise _Field(f"field[{i}]: {exc}") from None
    return TuneConfig(name, bot, fixed, tuple(params), players, tuple(field_specs), variant, pairs, batch, seed,
                      float(tail), out, workers)


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
                raise _Field(f"params[{i}]: a parameter's name, or a mapping with its name, not {item!r}")
    else:
        raise _Field(f"params: missing: the parameters to tune, a list of names or a mapping of names to "
                     f"start, min, max, c_end, r_end, scale; not {value!r}")
    if not items:
        raise _Field("params: no parameter to tune")
    out: dict[str, dict] = {}
    for pname, fields in items:
        if pname in out:
            raise _Field(f"params: {pname} is given twice")
        if fields is not None and not isinstance(fields, dict):
            raise _Field(f"params.{pname}: a mapping of start, min, max, c_end, r_end, scale, not {fields!r}")
        out[str(pname)] = dict(fields or {})
    return out
