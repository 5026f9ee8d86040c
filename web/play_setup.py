"""What a person chooses for a table in the browser, checked before anything is played.

Only the built-in bots and their presets sit at the table (``TABLE_BOTS``: random, greedy,
heuristic, mcts and every preset registered on them, such as ``heuristic-4p`` or ``mcts-2p``),
with their search budgets capped (``MAX_ITERATIONS`` a move, ``MAX_SECONDS`` a move; a spec that
sets no budget plays ``MAX_ITERATIONS``) and only the models shipped with the package
(``bots.value_file.shipped_models``). ``external`` programs and ``module:Class`` bots run code of
the server's machine: the page refuses them. Every refusal is a ``ValueError`` of one line that
the page shows.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from bots import Bot
from bots.registry import BOTS, bot_maker, declared
from bots.spec import bot_from_spec, format_bot_spec, parse_bot_spec
from bots.value_file import shipped_models
from records.columns import COLUMNS
from tournament.config import check_int
from tournament.config import check_name as league_name
from tournament.scheduler import derive_seed

BASE_BOTS = ("random", "greedy", "heuristic", "mcts")
MAX_ITERATIONS = 2000  # search iterations a move, at most
MAX_SECONDS = 1.0  # thinking time a move, at most
HINT_ITERATIONS = 1000  # the MCTS behind the teaching mode's hint
MAX_NAME = 40  # characters of the person's name
VARIANTS = ("colored", "gray")
# The seed is game 1's deal seed, which the records keep in games.deal_seed (records/columns.py):
# a signed integer of that column's width, so 0 .. 2**63 - 1 (a league's seeds reach 2**64 - 1 only
# because its deal seeds are derived from it).
_DEAL_SEED = next(c.type for c in COLUMNS if (c.table, c.name) == ("games", "deal_seed"))
MAX_SEED = 2 ** (_DEAL_SEED.bit_width - 1) - 1


def table_bots() -> list[str]:
    """The bot types the table offers: the built-in ones and their presets, by name."""
    bases = [BOTS[b] for b in BASE_BOTS if b in BOTS]
    return [name for name, cls in BOTS.items() if any(issubclass(cls, b) for b in bases)]


@dataclass(frozen=True)
class Setup:
    """A table's checked choices: ``specs`` are the bots' specs in seat order (None: the person)."""

    specs: tuple[str | None, ...]
    variant: str
    teach: bool
    series: bool
    name: str
    seed: int

    @property
    def players(self) -> int:
        return len(self.specs)

    @property
    def seat(self) -> int:
        return self.specs.index(None)

    def bots(self) -> dict[int, Bot]:
        """The bots by seat, each seeded from the table's seed and its seat (as ``azul series``)."""
        return {s: bot_from_spec(spec, derive_seed(self.seed, "bot", s) % 2**31)
                for s, spec in enumerate(self.specs) if spec is not None}


def table_spec(spec: str) -> str:
    """The spec as the table plays it (a budget added where it sets none), or a ValueError saying
    why the page does not play it."""
    offered = ", ".join(table_bots())
    kind, params = parse_bot_spec(spec)
    if kind == "external":
        raise ValueError(f"bot {spec!r}: external programs are not played from the page (only the "
                         f"built-in bots: {offered}); play them with azul play --vs")
    if ":" in kind:
        raise ValueError(f"bot {spec!r}: module:Class bots are not played from the page (only the "
                         f"built-in bots: {offered})")
    if kind not in table_bots():
        raise ValueError(f"bot {spec!r}: the table offers {offered}")
    declared_names = {p.name: p for p in declared(BOTS[kind])}
    params = dict(params)
    if "model" in params and params["model"] not in shipped_models():
        raise ValueError(f"bot {spec!r}: model={params['model']}: the table plays only the shipped models "
                         f"({', '.join(shipped_models())})")
    iterations, seconds = params.get("iterations"), params.get("seconds")
    if _number(iterations) and iterations > MAX_ITERATIONS:
        raise ValueError(f"bot {spec!r}: iterations={iterations}: the table plays at most "
                         f"{MAX_ITERATIONS} iterations a move")
    if _number(seconds) and seconds > MAX_SECONDS:
        raise ValueError(f"bot {spec!r}: seconds={seconds}: the table plays at most {MAX_SECONDS:g} s a move")
    budget = declared_names.get("iterations")
    if budget is not None and iterations is None and seconds is None and budget.default > MAX_ITERATIONS:
        params["iterations"] = MAX_ITERATIONS
    try:
        bot_maker(kind, params)  # every parameter checked, nothing built yet
    except ValueError as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None
    return format_bot_spec(kind, params)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_name(name: str, bot_names: list[str]) -> str:
    """The person's name as the records will hold it (spaces trimmed), or a ValueError."""
    name = league_name((name or "").strip() or "person", "your name")  # as a league's bot names
    if len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"your name: at most {MAX_NAME} printable characters, not {name!r}")
    if name in bot_names or name in BOTS:
        raise ValueError(f"your name: {name!r} is a bot's name; choose another, so the ratings tell you apart")
    return name


def check_seed(text: str) -> int:
    """The seed the form gives (empty: one drawn), checked against what the records hold before
    anything is played: a whole number from 0 to ``MAX_SEED``; a ValueError naming the field and
    the rule."""
    if not text:
        return secrets.randbelow(2**31)
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"the seed: a whole number, 0 or more, not {text!r} (or empty to draw one)")
    try:
        return check_int(int(text), "the seed", 0, MAX_SEED)  # a league config's check
    except ValueError as exc:
        raise ValueError(f"{exc}: the records keep it as a signed {_DEAL_SEED.bit_width}-bit number "
                         f"(games.deal_seed), so at most 2**{_DEAL_SEED.bit_width - 1} - 1") from None


def check_setup(form: dict[str, str]) -> tuple[Setup, dict[int, Bot]]:
    """The table the form asks for, and its bots by seat: ``bot1``..``bot3`` (the opponents, empty for none), ``seat``,
    ``variant``, ``teach``, ``series``, ``name``, ``seed`` (empty: drawn); a ValueError names the
    first mistake."""
    texts = [form.get(f"bot{i}", "").strip() for i in (1, 2, 3)]
    given = [t for t in texts if t]
    if not given:
        raise ValueError("choose at least one opponent (2 to 4 players)")
    specs = [table_spec(t) for t in given]
    players = len(specs) + 1
    seat_text = form.get("seat", "0").strip()
    if not seat_text.isdigit() or int(seat_text) >= players:
        raise ValueError(f"your seat: a {players}-player game has seats 0 to {players - 1}, not {seat_text!r}")
    seat = int(seat_text)
    variant = form.get("variant", "colored")
    if variant not in VARIANTS:
        raise ValueError(f"the wall: {' or '.join(VARIANTS)}, not {variant!r}")
    seed = check_seed(form.get("seed", "").strip())
    seats: list[str | None] = list(specs)
    seats.insert(seat, None)
    setup = Setup(tuple(seats), variant, form.get("teach") == "on", form.get("series") == "on", "", seed)
    bots = setup.bots()
    for s, bot in bots.items():
        unfit = bot.table_error(players, variant)
        if unfit:
            raise ValueError(f"seat {s}: {unfit}")
    name = check_name(form.get("name", ""), [b.name for b in bots.values()])
    return Setup(setup.specs, variant, setup.teach, setup.series, name, seed), bots
