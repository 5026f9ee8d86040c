"""Replay recorded games: a game's record is enough to rebuild it, without its seed (SPEC section 5).

    from tournament import replay
    state = replay("runs/quick", "t000-d00000-a00")   # the final position of that game
    state.scores

Each round is dealt with the forced deal of ``rounds.factories`` (factory strings joined by single
spaces, an empty factory an empty string) and the round's moves are played in ply order.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from engine import GameState, new_game
from records.checks import check_run_dir, naming_damage
from records.parts import committed_parts, part_path
from records.store import RunStore


def replay_game(variant: str, players: int, deals: Sequence[str],
                moves: Sequence[tuple[int, str]], opener: int = 0) -> GameState:
    """Rebuild a game: ``deals[r-1]`` is round r's ``factories`` text; ``moves`` are (round, move);
    ``opener`` the seat that opened round 1 (``rounds.opener``: 1 in game two of a series)."""
    state = new_game(players=players, variant=variant, opener=opener)
    for *_, state, _ in _walk(variant, players, deals, opener, [(0, rnd, None, move) for rnd, move in moves]):
        pass
    return state


def replay(run: RunStore, game_id: str) -> GameState:
    """The final position of one recorded game of a run."""
    for gid, state in replay_games(run, [game_id]):
        return state
    raise KeyError(f"{run}: no recorded game {game_id!r}")


def replay_games(run: RunStore, game_ids: Sequence[str] | None = None) -> Iterator[tuple[str, GameState]]:
    """(game id, final position) for recorded games of a run (all of them by default).

    Reads one part at a time (a part of each table holds the same games), so memory stays small.
    """
    for gid, variant, players, opener, walk in _walks(run, game_ids):
        state = new_game(players=players, variant=variant, opener=opener)  # a game never dealt
        for *_, state, _ in walk:
            pass
        yield gid, state


def walk_games(run: RunStore, game_ids: Sequence[str] | None = None) -> Iterator[tuple[str, Iterator[tuple]]]:
    """(game id, its walk) for recorded games of a run (all of them by default), one part at a time.

    A walk yields (plies, round, seat, move, state, rounds scored) after each deal and each move;
    ``state`` is one GameState played on (clone it to keep a position), ``seat`` None for a deal.
    """
    for gid, *_, walk in _walks(run, game_ids):
        yield gid, walk


def walk_numbered(run: RunStore, game_ids: Iterable[str], limit: int | None = None) -> Iterator[
        tuple[int, str, Iterator[tuple]]]:
    """(number, game id, its walk) for the first ``limit`` of ``game_ids`` in the order of their
    ids, numbered in that order: a split by number (fit the even games, check the odd ones) is
    then the same however the run's parts were written (workers finish games in no fixed order).
    The games come in the order read."""
    numbers = {gid: g for g, gid in enumerate(sorted(set(game_ids))[:limit])}
    for gid, walk in walk_games(run, list(numbers)):
        yield numbers[gid], gid, walk


def _walks(run: RunStore, game_ids: Sequence[str] | None) -> Iterator[tuple]:
    wanted = None if game_ids is None else _array(set(game_ids))
    folder = RunStore(run).view()  # a run on object storage: its local view
    check_run_dir(folder)  # a damaged part: one error naming it (DamagedRecords)
    for number in committed_parts(folder):
        tables = {}
        for name, columns in (("games", ["game_id", "variant", "num_players"]),
                              ("rounds", ["game_id", "round", "seat", "opener", "factories"]),
                              ("moves", ["game_id", "ply", "round", "seat", "move"])):
            with naming_damage(folder):  # damage inside the part: DamagedRecords naming it
                t = pq.read_table(part_path(folder, name, number), columns=columns)
            if wanted is not None:
                t = t.filter(pc.is_in(t.column("game_id"), value_set=wanted))
            tables[name] = t
        yield from _walk_part(tables["games"], tables["rounds"], tables["moves"])


def _walk_part(games, rounds, moves) -> Iterator[tuple[str, Iterator[tuple]]]:
    deals: dict[str, dict[int, str]] = defaultdict(dict)
    openers: dict[str, int] = {}
    r = rounds.filter(pc.equal(rounds.column("seat"), 0)).to_pydict()
    for gid, rnd, opener, factories in zip(r["game_id"], r["round"], r["opener"], r["factories"]):
        deals[gid][rnd] = factories
        if rnd == 1:
            openers[gid] = opener
    played: dict[str, list[tuple[int, int, int, str]]] = defaultdict(list)
    m = moves.to_pydict()
    for gid, ply, rnd, seat, move in zip(m["game_id"], m["ply"], m["round"], m["seat"], m["move"]):
        played[gid].append((ply, rnd, seat, move))
    g = games.to_pydict()
    for gid, variant, players in zip(g["game_id"], g["variant"], g["num_players"]):
        rounds_of = deals.get(gid, {})
        opener = openers.get(gid, 0)
        yield gid, variant, players, opener, _walk(variant, players, [rounds_of[k] for k in sorted(rounds_of)],
                                                   opener, sorted(played.get(gid, [])))


def _array(values):
    import pyarrow as pa
    return pa.array(sorted(values), pa.string())


# ---------------------------------------------------------------- step by step, for viewers
@dataclass
class Step:
    """One step of a replay: a deal (``move`` None) or a move, and the position after it."""

    index: int          # 0 for the first deal
    ply: int            # moves played so far
    round: int
    seat: int | None    # the seat that moved; None for a deal
    move: str | None    # the move in notation; None for a deal
    rounds_done: int    # rounds scored so far (their score_after is final)
    position: dict      # azul-position/1 JSON after this step


@dataclass
class ReplayGame:
    """A recorded game, its metadata and its steps (see ``replay_steps``)."""

    run_dir: str
    game_id: str
    variant: str
    players: int
    termination: str
    error: str | None
    bots: list[str]                  # per seat
    scores: list[int]                # results.score per seat
    ranks: list[int]                 # results.rank per seat
    round_scores: list[list[int]]    # round_scores[r-1][seat]: rounds.score_after
    steps: list[Step] = field(default_factory=list)

    @property
    def plies(self) -> int:
        return sum(1 for s in self.steps if s.move is not None)

    def to_dict(self) -> dict:
        """Plain JSON-ready data (what the HTML page embeds)."""
        return asdict(self)


def replay_steps(run: RunStore, game_id: str) -> ReplayGame:
    """Every step of one recorded game: each deal and each move, with the position after it.

    Raises ValueError when ``run`` is not a run folder with records, KeyError (its message
    names a few of the game ids there) when the run has no game ``game_id``.
    """
    folder = RunStore(run).view()  # a run on object storage: its local view
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such run folder")
    check_run_dir(folder)
    parts = committed_parts(folder)
    if not parts:
        raise ValueError(f"{folder}: no recorded games (a run folder has games/, results/, moves/, rounds/)")
    seen: list[str] = []
    with naming_damage(folder):  # damage inside a part: DamagedRecords naming it
        for number in parts:
            ids = pq.read_table(part_path(folder, "games", number), columns=["game_id"]).column("game_id").to_pylist()
            if game_id in ids:
                return _steps_of(folder, number, game_id)
            seen.extend(ids)
    hint = ", ".join(sorted(seen)[:3]) + (f", ... ({len(seen)} in all)" if len(seen) > 3 else "")
    raise KeyError(f"{folder}: no recorded game {game_id!r} (games there: {hint})")


def _part_rows(folder: Path, name: str, number: int, game_id: str) -> dict[str, list]:
    t = pq.read_table(part_path(folder, name, number))
    return t.filter(pc.equal(t.column("game_id"), game_id)).to_pydict()


def _steps_of(folder: Path, number: int, game_id: str) -> ReplayGame:
    g = _part_rows(folder, "games", number, game_id)
    res = _part_rows(folder, "results", number, game_id)
    rnd = _part_rows(folder, "rounds", number, game_id)
    mv = _part_rows(folder, "moves", number, game_id)
    players = g["num_players"][0]
    by_seat = sorted(zip(res["seat"], res["bot"], res["score"], res["rank"]))
    deals: dict[int, str] = {}
    openers: dict[int, int] = {}
    scores: dict[int, list[int]] = defaultdict(lambda: [0] * players)
    for r, seat, opener, factories, after in zip(rnd["round"], rnd["seat"], rnd["opener"],
                                                 rnd["factories"], rnd["score_after"]):
        deals[r], openers[r] = factories, opener
        scores[r][seat] = after
    game = ReplayGame(str(folder), game_id, g["variant"][0], players, g["termination"][0], g["error"][0],
                      [b for _, b, _, _ in by_seat], [s for _, _, s, _ in by_seat],
                      [k for _, _, _, k in by_seat], [scores[r] for r in sorted(scores)])
    moves = sorted(zip(mv["ply"], mv["round"], mv["seat"], mv["move"]))
    for ply, r, seat, move, state, done in _walk(game.variant, players, [deals[r] for r in sorted(deals)],
                                                  openers.get(1, 0), moves):
        game.steps.append(Step(len(game.steps), ply, r, seat, move, done, state.to_json()))
    return game


def _walk(variant: str, players: int, deals: Sequence[str], opener: int,
          moves: Sequence[tuple[int, int, int, str]]) -> Iterator[tuple]:
    """(plies, round, seat, move, state, rounds scored) after each deal and each move.

    ``moves`` are (ply, round, seat, move) in ply order; a seat of None is not checked.
    """
    state = new_game(players=players, variant=variant, opener=opener)
    by_round: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for _, r, seat, move in moves:
        by_round[r].append((seat, move))
    ply = 0
    for r, factories in enumerate(deals, 1):
        if state.phase != "refill":
            raise ValueError(f"round {r}: the record deals again, but the game is in phase {state.phase}")
        state.deal(factories=factories.split(" "))
        yield ply, r, None, None, state, r if state.phase == "over" else r - 1
        for seat, move in by_round.pop(r, ()):
            if seat is not None and seat != state.to_move:
                raise ValueError(f"ply {ply + 1}: the record has seat {seat} move, but seat {state.to_move} is to move")
            state.play(move)
            ply += 1
            yield ply, r, seat, move, state, r if state.phase in ("refill", "over") else r - 1
    if by_round:
        raise ValueError(f"moves recorded in rounds {sorted(by_round)} that were never dealt")
