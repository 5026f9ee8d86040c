"""The checks of a settings field: each takes a value and where it sits (``bots[0].seed``) and
returns it checked, or raises the ``ConfigError`` (tournament/errors.py) naming that field and the
rule it breaks (``ConfigError.of``). tournament/settings.py declares the fields of every kind of
run with them, and tournament/config.py reads a league config with them (``parse_config`` adds
the file to the error). ``name_error`` is the one rule for names (``NAME_RULE``: printable
characters, at most ``MAX_NAME``, no '/', no leading '.'), for runs and bots alike.
"""
from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from engine.errors import field_name, shown
from records.store import open_root

from .errors import ConfigError
from .scheduler import arrangements

MAX_SEED = 2**64 - 1  # seeds: 0..2**64-1
MAX_SECONDS = 1e6  # time_limit and flush_seconds: positive, at most 1e6 s (11 days)


# the error of one field: ``ConfigError.of`` (this name is kept for the lines of ``_out`` below)
def known_keys(mapping: dict, known: tuple[str, ...], prefix: str) -> None:
    for key in mapping:
        if key not in known:
            raise ConfigError.of(f"{prefix}{field_name(key)}", f"unknown field (fields here: {', '.join(known)})")


def section(value: Any, where: str, known: tuple[str, ...]) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError.of(where, f"must be a mapping ({', '.join(known)}), not {kind_of(value)}")
    known_keys(value, known, where + ".")
    return value


def check_int(value: Any, where: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError.of(where, f"must be a whole number, not {shown(value)}")
    if value < low or (high is not None and value > high):
        span = (f"{low} or more" if high is None else f"{low} or more and below 2**64" if high == MAX_SEED
                else f"from {low} to {high}")
        raise ConfigError.of(where, f"must be {span}, not {shown(value)}")
    return value


def check_seconds(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_SECONDS:
        raise ConfigError.of(where, f"must be a positive number of seconds up to {MAX_SECONDS:g} (or null "
                                 f"for none), not {shown(value)}")
    return float(value)


def check_choice(value: Any, where: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError.of(where, f"must be one of {', '.join(choices)}, not {shown(value)}")
    return value


# The one rule for names: a run's (its folder under out) and a bot's (in the records, the
# standings, CSV and the web view), in league configs, --bot specs, SPRTs, studies, tunes and the
# web table. 128, not the web table's 40: the name a bot goes by when given none spells its spec
# (a study's ``mcts(seconds=0.01, exploration=0.1458, value_scale=2.598)+opening=factory+taken:2,when=round``
# is 92 characters; an SPRT's A/A test adds `` (seed N)``), and a run's stored config keeps it.
MAX_NAME = 128
NAME_RULE = (f"a name is 1 to {MAX_NAME} printable characters, none a tab, newline, NUL or other control or "
             "format character such as a right-to-left mark; without '/' and not starting with '.'")


_CONTROLS = {"\t": "a tab", "\n": "a newline", "\r": "a carriage return", "\x00": "a NUL",
             "\x1b": "an escape"}
_CATEGORIES = {"Cc": "a control character", "Cf": "a format character", "Cs": "a surrogate",
               "Co": "a private-use character", "Cn": "an unassigned code point", "Zl": "a line separator",
               "Zp": "a paragraph separator", "Zs": "a space other than ' '"}


def name_error(value: Any) -> str | None:
    """What breaks the rule for names (``NAME_RULE``) in ``value``, or None for a good name."""
    if not isinstance(value, str):
        return "it is not text"
    if not value.strip():
        return "it is empty" if not value else "it is only spaces"
    if len(value) > MAX_NAME:
        return f"it is {len(value)} characters long"
    if value.startswith("."):
        return "it starts with '.'"
    if "/" in value:
        return "it holds a '/'"
    bad = next((c for c in value if not c.isprintable()), None)  # Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs but ' '
    if bad is not None:
        code, at = f"U+{ord(bad):04X}", value.index(bad)
        if bad in _CONTROLS:
            return f"it holds {_CONTROLS[bad]} ({code}) at {at}"
        name = unicodedata.name(bad, "")
        kind = _CATEGORIES.get(unicodedata.category(bad), "a character that is not printable")
        return f"it holds {code} {name} ({kind}) at {at}" if name else f"it holds {code} ({kind}) at {at}"
    return None


def check_name(value: Any, where: str = "name") -> str:
    """``value`` as a run's or bot's name: the one rule for names (``NAME_RULE``), stated in the error."""
    why = name_error(value)
    if why:
        raise ConfigError.of(where, f"must be a non-empty name without '/', not {shown(value, 60)}: {why} "
                                 f"({NAME_RULE})")
    return value


def kind_of(value: Any) -> str:
    return "nothing" if value is None else f"a {type(value).__name__} ({shown(value, 40)})"


def _out(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError.of(where, f"must be a folder name, not {shown(value)}")
    # s3://B/P, or as a command's Path option leaves it, s3:/B/P: never a local folder named "s3:"
    try:
        root = open_root(value)  # s3:// checked as a URL; anything else a local folder
    except ValueError as exc:
        raise ConfigError.of(where, str(exc)) from None
    if root.folder() is None:
        return str(root)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:/", value):
        raise ConfigError.of(where, f"{shown(value)}: a local folder or s3://BUCKET/PREFIX")
    return value


def check_out(value: Any, where: str = "out") -> str:
    """``value`` as where a run goes: a folder, or an ``s3://BUCKET/PREFIX`` URL (a run on object
    storage; every kind's out takes one), as the run keeps it."""
    return _out(value, where)


def check_flag(value: Any, where: str) -> bool:
    """``value`` as true or false."""
    if not isinstance(value, bool):
        raise ConfigError.of(where, f"must be true or false, not {shown(value)}")
    return value


def check_address(value: Any, where: str) -> str | None:
    """``value`` as a Ray cluster's address, or None (a local Ray, or RAY_ADDRESS)."""
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError.of(where, f"must be an address like 10.0.0.5:6379 or 'auto', not {shown(value)}")
    return value


def check_finite(value: Any, where: str) -> int | float:
    """``value`` as a finite number (an int beyond any float is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(_float(value)):
        raise ConfigError.of(where, f"must be a finite number, not {shown(value)}")
    return value


def _float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an int beyond any float
        return math.inf


MAX_STAGE_GAMES = 1_000_000  # the games of one stage of an event, built in memory (a round-robin streams)


def stage_bound(fmt: str | None, names: list[str], players: int, deals: int, seats: str, match: str,
                 challengers: tuple[str, ...] | None) -> None:
    """A gauntlet (one stage) or a Swiss round builds its games in memory: past MAX_STAGE_GAMES a
    field error on ``deals``, before anything runs, not a MemoryError."""
    if fmt not in ("gauntlet", "swiss"):
        return
    if fmt == "swiss":
        tables = len(names) // players  # a round's pairings (events/swiss.py)
    else:
        from .events.gauntlet import gauntlet_tables

        tables = len(gauntlet_tables(len(names), players, [names.index(c) for c in challengers]))
    games = tables * deals * len(arrangements(players, seats)) * (2 if match == "series" else 1)
    if games > MAX_STAGE_GAMES:
        what = "a Swiss round" if fmt == "swiss" else "a gauntlet"
        raise ConfigError.of("deals", f"{deals:,} deals make {games:,} games in {what}, more than the "
                                   f"{MAX_STAGE_GAMES:,} one stage may hold: fewer deals (or a round-robin, which "
                                   "streams its games)")
