"""Interventions: a base bot constrained at one class of decisions, free everywhere else.

Written in the one spec syntax, after the base bot's own parameters (docs/bots.md,
"Interventions")::

    mcts:iterations=1000,marker=avoid       never collect the marker while another move exists
    greedy:marker=take                      collect it whenever a centre move that does is legal
    heuristic:opening=line:1                the seat's first draft move of the game: to line 1
    greedy:opening=floor,when=round         the seat's first draft move of every round: to the floor
    random:allow=all                        every move allowed at every decision (A/A: no change)
    greedy:marker=useful                    collect it only when a partly filled line stays for next round
    mcts-2p:columns=1.4,deny=0.5            a plan: biases, in points, added where the bot ranks moves

A plan (``colours``, ``columns``, ``rows``, ``deny``; docs/bots.md, "Plans") adds to each move's
value a bias in points (``bots._policies.plan_biases``): the change the move makes to the mover's
progress towards the bonuses, and the greedy value it takes from the next seat. Greedy and the
heuristic add it to their move values, MCTS to its root children's means (``choose_planned``).

A move class (``opening=...``) is one or more terms joined by ``+`` (all must hold): ``factory``
or ``centre`` (the source), ``taken:N`` (N tiles taken), ``line:N`` (to pattern line N) or
``floor``, or ``any``. Under a constraint the base bot still chooses as itself, among the allowed
moves (``Bot.choose_among``): MCTS restricts its root, greedy and heuristic take their
best-valued allowed move, random draws among them. When no legal move falls in the class the
decision is left free. ``registry.make_bot`` builds these from the keys in ``KEYS``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import GameState, Move

from .base import Bot, CompiledForm
from .registry import register_wrapper

PLAN = ("colours", "columns", "rows", "deny")  # a plan's weights, in points (docs/bots.md, "Plans")
KEYS = ("marker", "opening", "when", "allow", *PLAN)
MARKER = ("take", "avoid", "useful")
PLAN_LIMIT = 100.0  # the largest plan weight, in points, either sign
WHEN = ("game", "round")
SOURCES = {"factory": "factory", "centre": "centre", "center": "centre"}


@dataclass(frozen=True)
class MoveClass:
    """A class of draft moves by source, tiles taken and destination (line 1-5, 0 the floor);
    None leaves that part free."""

    source: str | None = None
    taken: int | None = None
    line: int | None = None

    def holds(self, source: str, taken: int, line: int) -> bool:
        return ((self.source is None or self.source == source)
                and (self.taken is None or self.taken == taken)
                and (self.line is None or self.line == line))


def parse_class(text: Any) -> MoveClass:
    """``"centre+line:1"`` -> ``MoveClass("centre", None, 1)``; a ValueError names a bad term."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a move class is text like line:1, floor or centre+taken:2, not {text!r}")
    parts: dict[str, Any] = {}
    for term in text.lower().split("+"):
        term = term.strip()
        key, _, value = term.partition(":")
        if term == "any":
            continue
        if term in SOURCES:
            key, number = "source", SOURCES[term]
        elif term == "floor":
            key, number = "line", 0
        elif key in ("line", "taken") and value.isdigit() and (
                1 <= int(value) <= (5 if key == "line" else 20)):
            number = int(value)
        else:
            raise ValueError(f"unknown move class term {term!r} in {text!r} (terms: factory, centre, "
                             "taken:N, line:1..5, floor, any; join them with +)")
        if key in parts:
            raise ValueError(f"move class {text!r} gives the {key} twice")
        parts[key] = number
    return MoveClass(**parts)


@dataclass(frozen=True)
class Intervention:
    """What a wrapper constrains: the marker (take, avoid, or take only when useful), the opening
    (a move class at the seat's first draft move of the game or of every round), or nothing
    (allow=all); or the plan it biases the bot's ranking of moves by (``plan``: the weights of
    ``PLAN``, in points)."""

    marker: str | None = None
    opening: str | None = None  # the move class as written
    when: str = "game"
    allow_all: bool = False
    plan: tuple[float, float, float, float] | None = None

    @property
    def label(self) -> str:
        """The intervention in spec form: ``marker=take``, ``opening=floor,when=round``,
        ``columns=1.4,deny=0.5`` (a plan's nonzero weights, or ``colours=0`` when all are 0)."""
        if self.plan is not None:
            shown = [f"{k}={w:g}" for k, w in zip(PLAN, self.plan) if w] or ["colours=0"]
            return ",".join(shown)
        if self.marker:
            return f"marker={self.marker}"
        if self.opening:
            return f"opening={self.opening}" + (",when=round" if self.when == "round" else "")
        return "allow=all"

    def observe(self) -> dict[str, Any]:
        """How a league shows this choice (for the observational comparison in analysis.studies):
        ``what`` (``marker`` or ``opening``), ``took`` (marker: taking it is the treatment),
        ``when`` and the class's ``source``/``taken``/``line``."""
        if self.marker in ("take", "avoid"):  # marker=useful is a rule, not one choice a league shows
            return {"what": "marker", "took": self.marker == "take"}
        if self.opening:
            c = parse_class(self.opening)
            return {"what": "opening", "when": self.when, "source": c.source, "taken": c.taken,
                    "line": c.line}
        return {"what": "none"}

    def allowed(self, state: GameState, first_move: bool) -> list[Move] | None:
        """The moves allowed now (None: the decision is free). ``first_move``: this is the seat's
        first draft move of the game (``when=game``) or of the round (``when=round``)."""
        if self.allow_all:
            return state.legal_moves()
        if state.phase != "draft" or (self.opening and not first_move) or self.plan is not None:
            return None
        pos = state.to_json()
        moves = state.legal_moves()
        if self.marker:
            free = pos["marker"] == "center"
            taking = [m for m in moves if free and m.from_center]
            if self.marker == "useful":
                taking = [m for m in taking if not useful(state, m)]
            keep = taking if self.marker == "take" else [m for m in moves if m not in taking]
        else:
            cls = parse_class(self.opening)
            keep = [m for m in moves if cls.holds(*_facts(pos, m))]
        return keep if keep and len(keep) < len(moves) else None


def useful(state: GameState, move: Move) -> bool:
    """``marker=useful``'s condition for a move that collects the marker: after it, the mover holds
    a pattern line that is partly filled (not empty, not full), which stays on its board into the
    next round, where opening the round lets it take that line's colour first."""
    after = state.clone()
    after.play(move)
    lines = after.to_json()["boards"][state.to_move]["lines"]
    return any(0 < len(line) < k + 1 for k, line in enumerate(lines))


def _weight(key: str, value: Any) -> float:
    """A plan weight: a number of points within PLAN_LIMIT either side; a ValueError names the key."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not abs(value) <= PLAN_LIMIT:
        raise ValueError(f"{key} is a plan weight in points, a number from -{PLAN_LIMIT:g} to {PLAN_LIMIT:g}, "
                         f"not {value!r}")
    return float(value)


def _facts(pos: dict, move: Move) -> tuple[str, int, int]:
    """A draft move's (source, tiles taken, line; 0 for the floor) in position ``pos``."""
    tiles = pos["center"] if move.from_center else pos["factories"][move.factory - 1]
    return ("centre" if move.from_center else "factory", tiles.count(move.colour), move.line or 0)


def parse_intervention(params: dict[str, Any]) -> Intervention:
    """The intervention named by a spec's wrapper keys (``KEYS``); a ValueError says what is wrong."""
    unknown = set(params) - set(KEYS)
    if unknown:
        raise ValueError(f"unknown intervention key {sorted(unknown)[0]!r} (keys: {', '.join(KEYS)})")
    chosen = [k for k in ("marker", "opening", "allow") if k in params] + (
        ["a plan"] if set(PLAN) & set(params) else [])
    if len(chosen) != 1:
        raise ValueError("an intervention is one of marker=take|avoid|useful, opening=CLASS, allow=all or a "
                         "plan (colours=, columns=, rows=, deny=: points)"
                         + (f", not {' and '.join(chosen)} together" if chosen else ""))
    marker, opening, allow = params.get("marker"), params.get("opening"), params.get("allow")
    when = params.get("when", "game")
    if "when" in params and not opening:
        raise ValueError("when=game|round goes with opening=CLASS only")
    if chosen == ["a plan"]:
        return Intervention(plan=tuple(_weight(k, params.get(k, 0.0)) for k in PLAN))
    if when not in WHEN:
        raise ValueError(f"when must be one of {', '.join(WHEN)}, not {when!r}")
    if "marker" in params and marker not in MARKER:
        raise ValueError(f"marker must be one of {', '.join(MARKER)}, not {marker!r}")
    if "allow" in params and allow != "all":
        raise ValueError(f"allow must be 'all' (the A/A wrapper), not {allow!r}")
    if opening is not None:
        if parse_class(opening) == MoveClass():
            raise ValueError(f"opening={opening} allows every move: it constrains nothing (allow=all is "
                             "the A/A wrapper; give a class such as line:1, floor or centre)")
        opening = opening.lower()
    return Intervention(marker=marker, opening=opening, when=when, allow_all=allow == "all")


class Intervened(Bot):
    """A base bot under an intervention: the base chooses among the allowed moves, or freely."""

    def __init__(self, base: Bot, intervention: Intervention):
        super().__init__(base.seed)
        self.base, self.intervention = base, intervention
        self.type_name = base.type_name
        self._moved: set[int] = set()  # rounds in which this seat has made a draft move

    @property
    def name(self) -> str:
        """The base's name and the intervention: ``greedy+marker=take``."""
        return f"{self.base.name}+{self.intervention.label}"

    def reset(self) -> None:
        self.base.reset()
        self._moved = set()

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.base.reseed(seed)

    def table_error(self, players: int, variant: str) -> str | None:
        return self.base.table_error(players, variant)

    def models(self, players: int) -> tuple[str, ...]:
        return self.base.models(players)

    def close(self) -> None:
        close = getattr(self.base, "close", None)
        if callable(close):
            close()

    def act(self, state: GameState) -> Move:
        first = False
        if state.phase == "draft":
            if self._moved and state.round < max(self._moved):  # a new game without reset
                self._moved = set()
            first = not self._moved if self.intervention.when == "game" else state.round not in self._moved
            self._moved.add(state.round)
        if self.intervention.plan is not None:
            return self.base.choose_planned(state, self.intervention.plan)
        allowed = self.intervention.allowed(state, first)
        return self.base.act(state) if allowed is None else self.base.choose_among(state, allowed)

    def compiled_form(self) -> CompiledForm | None:
        """An intervention that remembers nothing between moves (all but ``opening``) is asked
        once per move by the compiled loop, as the referee asks it (``callback``)."""
        return None if self.intervention.opening else CompiledForm("callback")


def wrap(make, params: dict[str, Any]):
    """``make(seed) -> Bot`` wrapped in the intervention of ``params`` (checked now; a plan only
    around a bot that ranks its moves)."""
    intervention = parse_intervention(params)
    if intervention.plan is not None:
        base = make(0)
        if type(base).choose_planned is Bot.choose_planned:
            raise ValueError(f"a plan ({', '.join(PLAN)}) biases how a bot ranks its moves, and "
                             f"{base.type_name} ranks none: plan with greedy, heuristic or mcts")
    return lambda seed: Intervened(make(seed), intervention)


register_wrapper(KEYS, wrap)
