"""League games between built-in compiled bots, played in C (tournament/_fastloop.pyx), records as arrays.

``compiled_plan(config)`` says whether a config's games can all be played by the compiled loop:
every bot a built-in ``random``, ``greedy``, ``heuristic`` or ``mcts`` (no wrapper, no external
program), no ``time_limit`` anywhere, and not ``python_referee: true``. ``play_compiled`` then
plays a batch and builds the four Arrow tables from column arrays: per-move strings (``move``,
``source``, ``color``, ``bot``, ``game_id``) are taken from small lookup arrays by index.

The rows are those the Python referee (tournament/game.py) writes, column for column, except the
timing: ``duration_s`` is the game's time in C and ``think_ms`` is the game's average per move
(the compiled loop does not time each move). An ``mcts`` seat's move is asked of the bot in
Python (its search runs in C), once per move.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analysis.schema import SCHEMAS
from bots import bot_class, bot_maker
from bots._policies import WEIGHT_NAMES
from bots.greedy import GreedyBot
from bots.heuristic import HeuristicBot
from bots.mcts import MCTSBot
from bots.random_bot import RandomBot
from engine import GameState
from engine import __version__ as ENGINE_VERSION
from engine.notation import MOVES
from engine.rules import COLOURS

from ._fastloop import KINDS, play_games
from .scheduler import GameSpec, bot_game_seed, round_seed, series_id

_KIND = {RandomBot: KINDS["random"], GreedyBot: KINDS["greedy"], HeuristicBot: KINDS["heuristic"],
         MCTSBot: KINDS["callback"]}
_FIRST_ROUNDS = 8  # round seeds computed per game up front; a longer game is played again with more

# per move code: the text columns and nullable numbers the referee derives from a Move
_MOVE = pa.array([str(m) for m in MOVES], pa.string())
_SOURCE = pa.array([None if m.is_tiling else "center" if m.from_center else "factory" for m in MOVES], pa.string())
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


def compiled_plan(config: dict) -> Plan | None:
    """The plan for a (resolved) config when the compiled loop can play every game of it, else None."""
    if config.get("python_referee") or config["time_limit"] is not None:
        return None
    kinds, weights, makers = [], [], []
    for entry in config["bots"]:
        if entry["time_limit"] is not None or bot_class(entry["type"]) not in _KIND:
            return None
        make = bot_maker(entry["type"], entry["params"])
        proto = make(0)
        if type(proto) not in _KIND:  # a wrapper (an intervention) around a built-in bot
            return None
        kinds.append(_KIND[type(proto)])
        w = getattr(proto, "weights", None) or {}
        weights.append([float(w.get(k, 0.0)) for k in WEIGHT_NAMES])
        makers.append(make)
    return Plan([e["name"] for e in config["bots"]], [e["seed"] for e in config["bots"]], kinds, weights,
                makers, config["players"], config["variant"] == "gray")


def compiled_batch(specs: list[GameSpec]) -> bool:
    """Whether the compiled loop plays these games (not a study's: interventions, given bot seeds)."""
    return all(s.intervention is None and not s.bot_seeds for s in specs)


def play_compiled(plan: Plan, specs: list[GameSpec], run_id: str) -> dict[str, pa.Table]:
    """Play ``specs`` in C and return their records as the four Arrow tables."""
    n, P = len(specs), plan.players
    seat_bot = np.array([s.seats for s in specs], np.int32).reshape(n, P)
    seeds = np.zeros((n, P), np.uint64)
    kinds = np.array([[plan.kinds[b] for b in s.seats] for s in specs], np.int32).reshape(n, P)
    weights = np.array([[plan.weights[b] for b in s.seats] for s in specs], np.float64).reshape(n, P, -1)
    for g, spec in enumerate(specs):
        names = [plan.names[b] for b in spec.seats]
        for s, b in enumerate(spec.seats):
            seeds[g, s] = bot_game_seed(plan.seeds[b], spec.game_id, names[:s].count(names[s]))
    openers = np.array([s.opener for s in specs], np.int32)
    out = _Out(n, P)
    pending, rounds = np.arange(n), _FIRST_ROUNDS
    seed_cache: dict[int, list[int]] = {}
    while len(pending):
        rseeds = np.array([_round_seeds(seed_cache, specs[g].deal_seed, rounds) for g in pending], np.uint64)
        sub_seeds, sub_kinds = seeds[pending], kinds[pending]
        act = _Asker(plan, specs, pending, seat_bot, sub_seeds)
        start, again = 0, []
        while start < len(pending):
            part = slice(start, len(pending))
            done, statuses = out.play(pending[part], P, plan.gray, openers[pending[part]], sub_kinds[part],
                                      sub_seeds[part], weights[pending[part]], rseeds[part], act.offset(start))
            again.extend(pending[start:start + done][statuses[:done] != 0])
            start += done
        pending, rounds = np.array(again, np.int64), rounds * 2
    return out.tables(specs, plan, seat_bot, run_id)


def _round_seeds(cache: dict[int, list[int]], deal_seed: int, rounds: int) -> list[int]:
    got = cache.setdefault(deal_seed, [])
    while len(got) < rounds:
        got.append(round_seed(deal_seed, len(got) + 1))
    return got[:rounds]


class _Asker:
    """The move of an mcts seat, asked of a bot built for that game and seat as the referee builds it."""

    def __init__(self, plan: Plan, specs, games, seat_bot, seeds):
        self.plan, self.specs, self.games, self.seat_bot, self.seeds = plan, specs, games, seat_bot, seeds
        self.bots: dict[tuple[int, int], object] = {}
        self.base = 0

    def offset(self, start: int) -> _Asker:
        self.base = start
        return self

    def __call__(self, g: int, seat: int, core) -> int:
        key = (self.base + g, seat)
        bot = self.bots.get(key)
        if bot is None:
            seed = int(self.seeds[key])
            bot = self.bots[key] = self.plan.makers[self.seat_bot[self.games[key[0]], seat]](seed)
            bot.reset()
        return bot.act(GameState(core)).code


_MOVE_COLS = ("g", "ply", "round", "seat", "code", "colour", "taken", "to_floor", "marker", "legal")
_ROUND_COLS = ("g", "round", "seat", "opener", "deal", "wall_points", "floor_penalty", "score_after")
_RESULT_COLS = ("score", "rank", "rows", "columns", "colours", "bonus", "penalty")


class _Out:
    """The column arrays of a batch: chunks of moves, rounds and deal texts; per game and seat facts."""

    def __init__(self, n: int, players: int):
        self.moves: list[dict] = []
        self.rounds: list[dict] = []
        self.deals: list[pa.Array] = []
        self.n_deals = 0
        self.games = {"rounds": np.zeros(n, np.int32), "plies": np.zeros(n, np.int32),
                      "duration": np.zeros(n, np.float64)}
        self.results = {k: np.zeros((n, players), np.int32) for k in _RESULT_COLS}

    def play(self, games, players, gray, openers, kinds, seeds, weights, rseeds, act):
        k = len(games)
        cap_m, cap_r, cap_d = max(k * 160, 1200), max(k * 10 * players, 60 * players), max(k * 10, 60)
        moves = {c: np.empty(cap_m, np.int32) for c in _MOVE_COLS}
        rounds = {c: np.empty(cap_r, np.int32) for c in _ROUND_COLS}
        games_out = {"rounds": np.zeros(k, np.int32), "plies": np.zeros(k, np.int32),
                     "status": np.zeros(k, np.int32), "duration": np.zeros(k, np.float64)}
        results = {c: np.zeros((k, players), np.int32) for c in _RESULT_COLS}
        text, offsets = np.empty(cap_d * 48, np.int8), np.zeros(cap_d + 1, np.int32)
        done, nm, nr, nd = play_games(players, gray, openers, kinds, seeds, weights, rseeds, act,
                                      moves, rounds, games_out, results, text, offsets)
        if done == 0:
            raise RuntimeError("compiled league loop: no game fitted its arrays")
        status = games_out["status"]
        ok = status[:done] == 0
        where = games[:done][ok]
        for c in ("rounds", "plies", "duration"):
            self.games[c][where] = games_out[c][:done][ok]
        for c in _RESULT_COLS:
            self.results[c][where] = results[c][:done][ok]
        moves = {c: v[:nm] for c, v in moves.items()}
        moves["g"] = games[moves["g"]]
        rounds = {c: v[:nr] for c, v in rounds.items()}
        rounds["g"] = games[rounds["g"]]
        rounds["deal"] = rounds["deal"] + self.n_deals
        self.moves.append(moves)
        self.rounds.append(rounds)
        self.deals.append(pa.StringArray.from_buffers(
            nd, pa.py_buffer(offsets[:nd + 1].tobytes()), pa.py_buffer(text[:offsets[nd]].tobytes())))
        self.n_deals += nd
        return done, status

    def tables(self, specs: list[GameSpec], plan: Plan, seat_bot, run_id: str) -> dict[str, pa.Table]:
        n, P = seat_bot.shape
        moves = _joined(self.moves, _MOVE_COLS)
        rounds = _joined(self.rounds, _ROUND_COLS)
        game_ids = pa.array([s.game_id for s in specs], pa.string())
        bot_names = pa.array(plan.names, pa.string())
        plies = self.games["plies"]
        think = self.games["duration"] * 1000.0 / np.maximum(plies, 1)
        i32 = pa.int32()
        gm, code = moves["g"], moves["code"]
        cols = {
            "game_id": game_ids.take(gm), "ply": moves["ply"], "round": moves["round"], "seat": moves["seat"],
            "bot": bot_names.take(seat_bot[gm, moves["seat"]]), "move": _MOVE.take(code),
            "source": _SOURCE.take(code), "factory": _FACTORY.take(code), "color": _COLOUR.take(moves["colour"]),
            "taken": pa.array(moves["taken"], i32, mask=moves["taken"] < 0), "line": _LINE.take(code),
            "to_floor": moves["to_floor"], "took_marker": moves["marker"].astype(bool),
            "legal_moves": moves["legal"], "think_ms": think[gm], "column": _COLUMN.take(code),
        }
        out = {"moves": _table("moves", cols, run_id, len(gm))}
        gr = rounds["g"]
        deals = pa.concat_arrays(self.deals) if self.deals else pa.array([], pa.string())
        out["rounds"] = _table("rounds", {
            "game_id": game_ids.take(gr), "round": rounds["round"], "seat": rounds["seat"],
            "opener": rounds["opener"], "factories": deals.take(rounds["deal"]),
            "wall_points": rounds["wall_points"], "floor_penalty": rounds["floor_penalty"],
            "score_after": rounds["score_after"]}, run_id, len(gr))
        x = self.results
        rg = np.repeat(np.arange(n), P)
        out["results"] = _table("results", {
            "game_id": game_ids.take(rg), "seat": np.tile(np.arange(P, dtype=np.int32), n),
            "bot": bot_names.take(seat_bot.ravel()), "score": x["score"].ravel(), "rank": x["rank"].ravel(),
            "is_winner": x["rank"].ravel() == 1, "complete_rows": x["rows"].ravel(),
            "complete_columns": x["columns"].ravel(), "complete_colors": x["colours"].ravel(),
            "bonus_points": x["bonus"].ravel(), "floor_penalty_total": x["penalty"].ravel()}, run_id, n * P)
        out["games"] = _table("games", {
            "game_id": game_ids, "deal_seed": [s.deal_seed for s in specs],
            "variant": ["gray" if plan.gray else "colored"] * n, "num_players": np.full(n, P, np.int32),
            "rounds": self.games["rounds"], "plies": plies, "termination": ["normal"] * n, "error": [None] * n,
            "duration_s": self.games["duration"], "engine_version": [ENGINE_VERSION] * n,
            "table": [s.table for s in specs], "deal": [s.deal for s in specs],
            "arrangement": [s.arrangement for s in specs], "fault_seat": [None] * n,
            "series_id": [series_id(s) for s in specs], "series_game": [s.series_game for s in specs]},
            run_id, n)
        return out


def _joined(chunks: list[dict], names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The chunks' columns end to end, rows in game order (games played again come back in place)."""
    cols = {c: np.concatenate([ch[c] for ch in chunks]) if chunks else np.zeros(0, np.int32) for c in names}
    if len(chunks) > 1:
        order = np.argsort(cols["g"], kind="stable")
        cols = {c: v[order] for c, v in cols.items()}
    return cols


def _table(name: str, cols: dict, run_id: str, n: int) -> pa.Table:
    schema = SCHEMAS[name]
    arrays = []
    for f in schema:
        v = pa.array([run_id], f.type).take(np.zeros(n, np.int32)) if f.name == "run_id" else cols[f.name]
        arrays.append(v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(v, f.type))
    return pa.Table.from_arrays(arrays, schema=schema)
