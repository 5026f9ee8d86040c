"""The review of a game, move by move (SPEC 11; docs/review.md): for each move an analyser's best
move, each seat's calibrated win probability, and what the played move gave up against the best,
in win probability and in expected points.

    analyser = Analyser.for_table(players=2)   # default_analyser(2): mcts-2p:iterations=1000, its shipped map
    row = analyser.review_move(state, Move.parse("1B2"), seed=7)
    rows = review_game(analyser, walk, run_id, game_id, bots)  # one recorded game (tournament.replay.walk_games)

How a move is measured (docs/review.md, "How a move is measured"): one search of the budget from
the position gives the analyser's choice (``best``) and its principal variation; then the best
move and the played one each get a search of the same budget of their own, the root restricted
to that move alone (``prune=floor`` cannot drop it), so both are valued by as many iterations
from the same seed. Each seat's mean value through the move goes through the calibrated map
(analysis/calibration.py) to win probabilities that sum to 1. Expected points are the mean final
score of greedy playouts to the game's end after each move (``bots._mcts.playout_points``: the
analyser's own rollout policy), because the search's values are shares of opponents beaten, not
points. Every search and playout is seeded from the run, the game and the ply, so a review is the
same however many workers make it.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis.calibration import CalibrationMap
from analysis.review_marks import default_analyser, move_class
from bots import _mcts
from bots.mcts import MCTSBot
from bots.spec import bot_from_spec
from bots.value_file import model_bytes, model_digests, models_folder
from engine import GameState, Move
from records.store import RunStore

PLAYOUTS = 64  # greedy playouts to the game's end a candidate move, for its expected points
CALIBRATION = "calibration-{players}p.json"  # the shipped maps, beside the models (bots/models/)


def calibration_path(players: int) -> Path:
    return models_folder() / CALIBRATION.format(players=players)


def shipped_calibration(players: int) -> dict:
    """The shipped calibration file of ``players`` (its map, what analyser it was fitted for, its check)."""
    path = calibration_path(players)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"no calibration shipped for {players} players ({path})") from None


def seed_of(*parts) -> int:
    """A 63-bit seed from the run, the game and the ply (the same on every worker)."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass
class Analyser:
    """An MCTS bot at a budget in iterations, the calibrated map of its player count, and the
    number of playouts a candidate move gets."""

    spec: str
    bot: MCTSBot
    calibration: CalibrationMap | None
    playouts: int = PLAYOUTS

    @classmethod
    def for_table(cls, players: int, spec: str | None = None, playouts: int = PLAYOUTS,
                  calibrated: bool = True) -> Analyser:
        """The analyser ``spec`` (default: ``default_analyser(players)``) with the shipped map of
        ``players`` (none with ``calibrated=False``: what the map is fitted from); a ValueError
        names what is wrong with the spec."""
        spec = spec or default_analyser(players)
        bot = bot_from_spec(spec, 0)
        if not isinstance(bot, MCTSBot):
            raise ValueError(f"analyser {spec!r}: an analyser is an MCTS bot (mcts, mcts-2p, mcts-3p, mcts-4p)")
        if bot.seconds is not None:
            raise ValueError(f"analyser {spec!r}: give its budget in iterations, not seconds (a review is the "
                             "same for the same seed)")
        error = bot.table_error(players, "colored")
        if error:
            raise ValueError(f"analyser {spec!r}: {error}")
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, not {playouts}")
        calibration = CalibrationMap.from_dict(shipped_calibration(players)["map"]) if calibrated else None
        return cls(spec, bot, calibration, playouts)

    @property
    def iterations(self) -> int:
        return self.bot.iterations

    def label(self, players: int) -> str:
        """The spec with the digests of the models it reads (the ``analyser`` column)."""
        names = self.bot.models(players)
        digests = model_digests({name: model_bytes(name) for name in names})
        return self.spec + "".join(f" {name}@sha256:{digest[:16]}" for name, digest in digests)

    def choice(self, state: GameState, seed: int) -> tuple[Move, list[str]]:
        """The analyser's move and its principal variation (notation) after one search."""
        self.bot.seed = seed
        rows = self.bot.analyze(state, self.iterations)
        return Move.parse(rows[0]["move"]), rows[0]["pv"]

    def values_through(self, state: GameState, move: Move, seed: int) -> list[float]:
        """Each seat's mean value over a search of the whole budget with ``move`` the root's only child."""
        self.bot.seed = seed
        search = self.bot._run(state, self.iterations, [move.code])
        return search.child_values(move.code)

    def wins_through(self, state: GameState, move: Move, seed: int) -> list[float]:
        """Each seat's calibrated win probability after ``move`` (they sum to 1)."""
        if self.calibration is None:
            raise ValueError("this analyser has no calibrated map (calibrated=False)")
        return [float(p) for p in self.calibration.apply(self.values_through(state, move, seed))]

    def points_through(self, state: GameState, move: Move, seed: int) -> list[float]:
        """Each seat's expected final score after ``move``: greedy playouts to the game's end."""
        return _mcts.playout_points(state, move.code, self.playouts, seed)

    def review_move(self, state: GameState, played: Move | str, seed: int) -> dict:
        """The review of one move: ``best``, ``pv``, ``wins`` (each seat's win probability before
        the move, the best move's), ``wins_played`` (after the played one), ``win_before``,
        ``win_loss`` (never below 0: a played move that measured better gave up nothing; ``wins``
        against ``wins_played`` says by how much), ``points_best``, ``points_played`` (the mover's),
        ``points_loss``, ``class``."""
        played = Move.parse(played) if isinstance(played, str) else played
        seat = state.to_move
        best, pv = self.choice(state, seed)
        wins = self.wins_through(state, best, seed)
        wins_played = wins if played == best else self.wins_through(state, played, seed)
        points = self.points_through(state, best, seed)
        points_played = points if played == best else self.points_through(state, played, seed)
        win_loss = max(0.0, wins[seat] - wins_played[seat])  # the played move measured better: 0 given up
        return {"best": str(best), "pv": " ".join(pv), "wins": wins, "wins_played": wins_played,
                "win_before": wins[seat], "win_loss": win_loss,
                "points_best": points[seat], "points_played": points_played[seat],
                "points_loss": points[seat] - points_played[seat],
                "class": move_class(str(played), str(best), win_loss)}


def move_kind(state: GameState, move: Move) -> tuple[str, bool, bool]:
    """(source ``factory``, ``center`` (the moves table's words) or ``tiling``, whether it puts
    tiles on the floor, whether it takes the marker) of ``move`` in ``state`` (before it is
    played), as the engine says what the move does (``GameState.step``'s ``Played``)."""
    if state.phase == "tiling":
        return "tiling", False, False
    played = state.clone().step(move)
    return ("center" if str(move)[0] == "C" else "factory"), played.to_floor > 0, played.took_marker


def review_game(analyser: Analyser, walk: Iterable[tuple], run_id: str, game_id: str,
                bots: Sequence[str], plies: set[int] | None = None) -> Iterator[dict]:
    """The rows of one recorded game's review (the ``reviews`` table's columns but ``analyser``),
    from its walk (``tuple(plies, round, seat, move, state, rounds scored)`` after each deal and
    each move: tournament.replay.walk_games); ``plies``: only those plies (1-based)."""
    before: GameState | None = None
    for ply, rnd, seat, move, state, _ in walk:
        if move is not None and before is not None and (plies is None or ply in plies):
            played = Move.parse(move)
            source, to_floor, marker = move_kind(before, played)
            row = analyser.review_move(before, played, seed_of(run_id, game_id, ply))
            yield {"run_id": run_id, "game_id": game_id, "ply": ply, "round": rnd, "seat": seat,
                   "bot": bots[seat], "move": move, **row, "source": source, "to_floor": to_floor,
                   "took_marker": marker, "iterations": analyser.iterations}
        before = state.clone() if state.phase in ("draft", "tiling") else None


def calibration_rows(run: RunStore, analyser: str, every: int, limit: int | None = None,
                     key: str | None = None) -> tuple[int, dict[str, np.ndarray]]:
    """(players, rows) to fit and check a calibrated map on (analysis.calibration): every
    ``every``-th position before a move (counting the walk's deals too) of a run's recorded games
    (the first ``limit`` by game id), each seat valued as a review values a position (the
    analyser's choice, then each seat's mean value through it alone; ``analyser`` a spec, its map
    not read), its outcome its share of first place; ``game`` numbers the games in the order of
    their ids (tournament.replay.walk_numbered), the rows in that order. The searches are seeded
    from ``key`` (the run as its store names it, by default), the game and the walk's step."""
    from records.read import read_table
    from tournament.replay import walk_numbered

    results = read_table(run, "results", ["game_id", "seat", "rank"]).to_pydict()
    ranks: dict[str, dict[int, int]] = {}
    for gid, seat, rank in zip(results["game_id"], results["seat"], results["rank"]):
        ranks.setdefault(gid, {})[seat] = rank
    bot = None
    rows: dict[str, list] = {"game": [], "position": [], "value": [], "won": []}
    players, position = None, 0
    for g, gid, walk in walk_numbered(run, ranks, limit):
        firsts = [s for s, r in ranks[gid].items() if r == 1]
        for i, (_, _, _, _, state, _) in enumerate(walk):
            if state.phase not in ("draft", "tiling") or i % every:
                continue
            players = state.players
            bot = bot or Analyser.for_table(players, analyser, calibrated=False)
            seed = seed_of(str(run) if key is None else key, gid, i)
            for seat, value in enumerate(bot.values_through(state, bot.choice(state, seed)[0], seed)):
                rows["game"].append(g)
                rows["position"].append(position)
                rows["value"].append(value)
                rows["won"].append(1 / len(firsts) if seat in firsts else 0.0)
            position += 1
    out = {k: np.array(v) for k, v in rows.items()}
    order = np.argsort(out["game"], kind="stable")   # by game id; a game's positions in play order
    out = {k: v[order] for k, v in out.items()}
    if len(order):
        pos = out["position"]
        out["position"] = np.cumsum(np.r_[0, pos[1:] != pos[:-1]])
    return players, out
