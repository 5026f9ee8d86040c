"""League games between built-in compiled bots, played in C (tournament/_fastloop.pyx), records as arrays.

A bot class says how the compiled loop plays it (``Bot.compiled_form``: one of the loop's
``KINDS``, or none). ``compiled_plan(config)`` is the plan for a config whose games can all be
played by the compiled loop, and ``why_python_referee(config)`` says, a line per seat (config
bot) or setting, why the Python referee must play them instead: a bot class with no compiled
form (an external program, an intervention that remembers its moves (``opening``), any other), a ``time_limit``
(only the referee times moves), or ``python_referee: true``. ``play_compiled`` then plays a
batch and builds the four Arrow tables from column arrays: per-move strings (``move``,
``source``, ``color``, ``bot``, ``game_id``) are dictionary columns over small lookup arrays
(``records.tables.build_table``, ``records.tables.coded``), which Parquet writes without hashing each string.

The rows are those the Python referee (tournament/game.py) writes, column for column, except the
timing: ``duration_s`` is the game's time in C and ``think_ms`` is the game's average per move
(the compiled loop does not time each move). A ``callback`` seat (mcts) is asked for its move
in Python (its search runs in C), once per move.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from bots import Bot, bot_class, bot_maker
from bots.base import CompiledForm
from bots._policies import WEIGHT_NAMES
from engine import GameState
from engine import __version__ as ENGINE_VERSION
from engine.notation import MOVES
from engine.rules import COLOURS
from records.tables import build_table, coded

from ._fastloop import DEAL_ROOM, DEAL_TEXT, KINDS, MOVE_ROOM, ROUND_ROOM, play_games
from .scheduler import GameSpec, bot_game_seed, event_columns, series_id

# per move code: the text columns and nullable numbers the referee derives from a Move (the text
# columns as an index into a small array of values: records.tables.coded)
_MOVE = pa.array([str(m) for m in MOVES], pa.string())
_SOURCES = pa.array(["factory", "center"], pa.string())
_SOURCE = np.array([-1 if m.is_tiling else int(m.from_center) for m in MOVES], np.int32)  # -1: null
_FACTORY = pa.array([m.factory for m in MOVES], pa.int32())
_LINE = pa.array([m.line for m in MOVES], pa.int32())
_COLUMN = pa.array([m.column for m in MOVES], pa.int32())
_COLOUR = pa.array(list(COLOURS), pa.string())


@dataclass
class Plan:
    """How the compiled loop plays a config's bots: per config bot, its kind, weights and maker."""

    names: list[str]
    seeds: list[int]
    kinds: list[int]
    weights: list[list[float]]
    makers: list  # seed -> bot, for the seats asked in Python (mcts)
    players: int
    gray: bool
    built: dict = field(default_factory=dict)  # (config bot, copy) -> its bot, built once per plan

    def bot(self, b: int, copy: int, seed: int):
        """Config bot ``b``'s copy ``copy`` (self-play seats the same bot more than once), built on
        first use and kept with the plan (one plan per worker and config: backends._context), set
        to play as built with ``seed``."""
        bot = self.built.get((b, copy))
        if bot is None:
            bot = self.built[(b, copy)] = self.makers[b](seed)
        else:
            bot.reseed(seed)
        return bot


def compiled_plan(config, makers: list | None = None) -> Plan | None:
    """The plan for a ``LeagueConfig`` when the compiled loop can play every game of it, else None.
    ``makers``: each config bot's maker (seed -> bot) when the caller has them (a worker's seats:
    the spec checked once), else made here."""
    forms, why = _forms(config, makers)
    if why:
        return None
    weights = [[float(form.weights.get(k, 0.0)) for k in WEIGHT_NAMES] for form, _ in forms]
    return Plan([e.name for e in config.bots], [e.seed for e in config.bots],
                [KINDS[form.kind] for form, _ in forms], weights, [make for _, make in forms],
                config.players, config.variant == "gray")


def why_python_referee(config) -> list[str]:
    """Why the Python referee plays a ``LeagueConfig``'s games: one line per reason, naming the
    seat (config bot) or setting; empty when the compiled loop can play them all."""
    return _forms(config)[1]


def _forms(config, makers: list | None = None) -> tuple[list[tuple[CompiledForm | None, Callable | None]], list[str]]:
    """Per config bot its compiled form and maker (seed -> bot), and why the referee must play."""
    why = []
    if config.python_referee:
        why.append("python_referee: true (--python-referee) sends every game to the referee")
    if config.time_limit is not None:
        why.append(f"time_limit: {config.time_limit:g} s a move (only the referee times moves)")
    forms = []
    for i, entry in enumerate(config.bots):
        seat = f"bot {entry.name!r} (bots[{i}])"
        if entry.time_limit is not None:
            why.append(f"{seat}: time_limit {entry.time_limit:g} s a move (only the referee times moves)")
        form, make, reason = _form(entry, makers[i] if makers else None)
        if reason:
            why.append(f"{seat}: {reason}")
        forms.append((form, make))
    return forms, why


def _form(entry, make: Callable | None = None) -> tuple[CompiledForm | None, Callable | None, str | None]:
    """A config bot's (``BotEntry``) compiled form and maker (``make``, if given), or why it has none."""
    cls = bot_class(entry.type)
    if cls.compiled_form is Bot.compiled_form:  # declares none: not built here
        if cls.type_name == "external":
            return None, None, "an external program, which only the referee can ask for moves"
        return None, None, f"its class {cls.__module__}:{cls.__qualname__} declares no compiled form"
    make = make or bot_maker(entry.type, entry.params)
    proto = make(0)
    form = proto.compiled_form()
    if type(proto) is not cls and (form is None or form.kind != "callback"):
        # a wrapper its spec asked for (bots.registry.register_wrapper): asked in Python or not at all
        return None, None, f"a wrapper (an intervention) around its {entry.type} bot has no compiled form"
    if form is None:
        return None, None, (f"its class {cls.__module__}:{cls.__qualname__} has no compiled form for "
                            "these parameters")
    if form.kind not in KINDS:
        return None, None, (f"its compiled form {form.kind!r} is not one the compiled loop plays "
                            f"({', '.join(KINDS)})")
    return form, make, None


def compiled_batch(specs: list[GameSpec]) -> bool:
    """Whether the compiled loop plays these games (not a study's: interventions, given bot seeds)."""
    return all(s.intervention is None and not s.bot_seeds for s in specs)


def play_compiled(plan: Plan, specs: list[GameSpec], run_id: str) -> dict[str, pa.Table]:
    """Play ``specs`` in C and return their records as the four Arrow tables."""
    return play_columns(plan, specs).tables(run_id)


def play_columns(plan: Plan, specs: list[GameSpec]) -> Played:
    """Play ``specs`` in C; their records as column arrays (``.tables(run_id)`` makes the tables)."""
    n, P = len(specs), plan.players
    seat_bot = np.array([s.seats for s in specs], np.int32).reshape(n, P)
    # copies[g, s]: the earlier seats of game g with the same bot (self-play; scheduler.bot_game_seed)
    copies = np.zeros((n, P), np.int32)
    for s in range(1, P):
        copies[:, s] = (seat_bot[:, :s] == seat_bot[:, s:s + 1]).sum(axis=1)
    ids = [s.game_id for s in specs]
    ids_view = memoryview("".join(ids).encode("ascii"))
    id_off = np.zeros(n + 1, np.int32)
    np.cumsum([len(i) for i in ids], out=id_off[1:])
    kinds = np.array(plan.kinds, np.int32)[seat_bot]
    bot_seeds = np.array(plan.seeds, np.uint64)[seat_bot]
    weights = np.array(plan.weights, np.float64)[seat_bot]
    deal_seeds = np.array([s.deal_seed for s in specs], np.uint64)
    openers = np.array([s.opener for s in specs], np.int32)
    act = _Asker(plan, specs, seat_bot, copies)
    out = Played(specs, plan, seat_bot)
    start = 0
    while start < n:
        part = slice(start, n)
        start += out.play(start, P, plan.gray, openers[part], kinds[part], bot_seeds[part], copies[part],
                          ids_view[id_off[start]:], id_off[start:] - id_off[start], weights[part], deal_seeds[part],
                          act.offset(start))
    return out


class BotRaised(Exception):
    """A bot asked in Python for its move raised: the batch is played again by the Python referee,
    which records the game as that seat's forfeit (tournament/backends.py), as it would have."""


class _Asker:
    """The move of an mcts seat, asked of the plan's bot for that config bot and copy, reseeded and
    reset for each game as the referee would build it fresh (the same moves: its search depends on
    nothing but the seed, the position and its settings)."""

    def __init__(self, plan: Plan, specs, seat_bot, copies):
        self.plan, self.specs, self.seat_bot, self.copies = plan, specs, seat_bot, copies
        self.playing: dict[tuple[int, int], tuple[int, int]] = {}  # (bot, copy) -> the (game, seat) it plays
        self.base = 0

    def offset(self, start: int) -> _Asker:
        self.base = start
        return self

    def __call__(self, g: int, seat: int, state: GameState) -> int:
        key = (self.base + g, seat)
        b, copy = int(self.seat_bot[key]), int(self.copies[key])
        if self.playing.get((b, copy)) == key:
            bot = self.plan.built[(b, copy)]
        else:  # a new game for this bot (or another game's turn, when games interleave)
            bot = self.plan.bot(b, copy, bot_game_seed(self.plan.seeds[b], self.specs[key[0]].game_id, copy))
            bot.reset()
            self.playing[(b, copy)] = key
        try:
            return bot.act(state).code
        except Exception as exc:  # noqa: BLE001 - whatever a bot raises is its forfeit, as in the referee
            raise BotRaised(f"{self.plan.names[b]}: {type(exc).__name__}: {exc}") from exc


_MOVE_COLS = ("g", "ply", "round", "seat", "code", "colour", "taken", "to_floor", "marker", "legal")
_ROUND_COLS = ("g", "round", "seat", "opener", "deal", "wall_points", "floor_penalty", "score_after")
_RESULT_COLS = ("score", "rank", "rows", "columns", "colours", "bonus", "penalty")


class Played:
    """The column arrays of a batch: chunks of moves, rounds and deal texts; per game and seat facts."""

    def __init__(self, specs: list[GameSpec], plan: Plan, seat_bot: np.ndarray):
        self.specs, self.plan, self.seat_bot = specs, plan, seat_bot
        n, players = seat_bot.shape
        self.moves: list[dict] = []
        self.rounds: list[dict] = []
        self.deals: list[pa.Array] = []
        self.n_deals = 0
        self.games = {"rounds": np.zeros(n, np.int32), "plies": np.zeros(n, np.int32),
                      "duration": np.zeros(n, np.float64)}
        self.results = {k: np.zeros((n, players), np.int32) for k in _RESULT_COLS}

    def play(self, first, players, gray, openers, kinds, bot_seeds, copies, id_bytes, id_off, weights,
             deal_seeds, act) -> int:
        """Play games ``first``.. (as many as the arrays hold); return how many were played."""
        k = len(openers)
        cap_m = min(k * 160, 400_000) + MOVE_ROOM
        cap_r = min(k * 12, 30_000) * players + ROUND_ROOM * players
        cap_d = min(k * 12, 30_000) + DEAL_ROOM
        moves = {c: np.empty(cap_m, np.int32) for c in _MOVE_COLS}
        rounds = {c: np.empty(cap_r, np.int32) for c in _ROUND_COLS}
        games = {"rounds": self.games["rounds"][first:], "plies": self.games["plies"][first:],
                 "duration": self.games["duration"][first:]}
        results = {c: self.results[c][first:].reshape(-1) for c in _RESULT_COLS}
        text, offsets = np.empty(cap_d * DEAL_TEXT, np.int8), np.zeros(cap_d + 1, np.int32)
        done, nm, nr, nd = play_games(players, gray, openers, kinds, bot_seeds, copies, id_bytes, id_off,
                                      weights, deal_seeds, act, moves, rounds, games, results, text, offsets)
        moves = {c: v[:nm] for c, v in moves.items()}
        moves["g"] += first
        rounds = {c: v[:nr] for c, v in rounds.items()}
        rounds["g"] += first
        rounds["deal"] += self.n_deals
        self.moves.append(moves)
        self.rounds.append(rounds)
        self.deals.append(pa.StringArray.from_buffers(
            nd, pa.py_buffer(offsets[:nd + 1].tobytes()), pa.py_buffer(text[:offsets[nd]].tobytes())))
        self.n_deals += nd
        return done

    def tables(self, run_id: str) -> dict[str, pa.Table]:
        """The four record tables of the batch."""
        specs, plan, seat_bot = self.specs, self.plan, self.seat_bot
        n, P = seat_bot.shape
        moves = _joined(self.moves, _MOVE_COLS)
        rounds = _joined(self.rounds, _ROUND_COLS)
        game_ids = pa.array([s.game_id for s in specs], pa.string())
        bot_names = pa.array(plan.names, pa.string())
        plies = self.games["plies"]
        think = self.games["duration"] * 1000.0 / np.maximum(plies, 1)
        i32 = pa.int32()
        gm, code = moves["g"], moves["code"]
        source = _SOURCE[code]
        cols = {
            "game_id": coded(gm, game_ids), "ply": moves["ply"], "round": moves["round"], "seat": moves["seat"],
            "bot": coded(seat_bot[gm, moves["seat"]], bot_names), "move": coded(code, _MOVE),
            "source": coded(source, _SOURCES, mask=source < 0), "factory": _FACTORY.take(code),
            "color": coded(moves["colour"], _COLOUR),
            "taken": pa.array(moves["taken"], i32, mask=moves["taken"] < 0), "line": _LINE.take(code),
            "to_floor": moves["to_floor"], "took_marker": moves["marker"].astype(bool),
            "legal_moves": moves["legal"], "think_ms": think[gm], "column": _COLUMN.take(code),
        }
        out = {"moves": build_table("moves", cols, run_id)}
        gr = rounds["g"]
        deals = pa.concat_arrays(self.deals) if self.deals else pa.array([], pa.string())
        out["rounds"] = build_table("rounds", {
            "game_id": coded(gr, game_ids), "round": rounds["round"], "seat": rounds["seat"],
            "opener": rounds["opener"], "factories": deals.take(rounds["deal"]),
            "wall_points": rounds["wall_points"], "floor_penalty": rounds["floor_penalty"],
            "score_after": rounds["score_after"]}, run_id)
        x = self.results
        rg = np.repeat(np.arange(n), P)
        out["results"] = build_table("results", {
            "game_id": game_ids.take(rg), "seat": np.tile(np.arange(P, dtype=np.int32), n),
            "bot": bot_names.take(seat_bot.ravel()), "score": x["score"].ravel(), "rank": x["rank"].ravel(),
            "is_winner": x["rank"].ravel() == 1, "complete_rows": x["rows"].ravel(),
            "complete_columns": x["columns"].ravel(), "complete_colors": x["colours"].ravel(),
            "bonus_points": x["bonus"].ravel(), "floor_penalty_total": x["penalty"].ravel()}, run_id)
        out["games"] = build_table("games", {
            "game_id": game_ids, "deal_seed": [s.deal_seed for s in specs],
            "variant": ["gray" if plan.gray else "colored"] * n, "num_players": np.full(n, P, np.int32),
            "rounds": self.games["rounds"], "plies": plies, "termination": ["normal"] * n, "error": [None] * n,
            "duration_s": self.games["duration"], "engine_version": [ENGINE_VERSION] * n,
            "table": [s.table for s in specs], "deal": [s.deal for s in specs],
            "arrangement": [s.arrangement for s in specs], "fault_seat": [None] * n,
            "series_id": [series_id(s) for s in specs], "series_game": [s.series_game for s in specs],
            **event_columns(specs)}, run_id)
        return out


def _joined(chunks: list[dict], names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The chunks' columns end to end (rows in game order: the chunks play games in order)."""
    return {c: np.concatenate([ch[c] for ch in chunks]) if chunks else np.zeros(0, np.int32) for c in names}
