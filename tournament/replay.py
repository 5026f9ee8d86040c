"""Replay recorded games: a game's record is enough to rebuild it, without its seed (SPEC section 5).

    from tournament import replay
    state = replay("runs/quick", "t000-d00000-a00")   # the final position of that game
    state.scores

Each round is dealt with the forced deal of ``rounds.factories`` (factory strings joined by single
spaces, an empty factory an empty string) and the round's moves are played in ply order.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from engine import GameState, new_game

from .records import committed_parts, part_path


def replay_game(variant: str, players: int, deals: Sequence[str],
                moves: Sequence[tuple[int, str]]) -> GameState:
    """Rebuild a game: ``deals[r-1]`` is round r's ``factories`` text; ``moves`` are (round, move)."""
    by_round: dict[int, list[str]] = defaultdict(list)
    for rnd, move in moves:
        by_round[rnd].append(move)
    state = new_game(players=players, variant=variant)
    for r, factories in enumerate(deals, 1):
        if state.phase != "refill":
            raise ValueError(f"round {r}: the record deals again, but the game is in phase {state.phase}")
        state.deal(factories=factories.split(" "))
        for move in by_round.pop(r, ()):
            state.play(move)
    if by_round:
        raise ValueError(f"moves recorded in rounds {sorted(by_round)} that were never dealt")
    return state


def replay(run_dir: str | Path, game_id: str) -> GameState:
    """The final position of one recorded game of a run."""
    for gid, state in replay_games(run_dir, [game_id]):
        return state
    raise KeyError(f"{run_dir}: no recorded game {game_id!r}")


def replay_games(run_dir: str | Path, game_ids: Sequence[str] | None = None) -> Iterator[tuple[str, GameState]]:
    """(game id, final position) for recorded games of a run (all of them by default).

    Reads one part at a time (a part of each table holds the same games), so memory stays small.
    """
    wanted = None if game_ids is None else _array(set(game_ids))
    for number in committed_parts(Path(run_dir)):
        tables = {}
        for name, columns in (("games", ["game_id", "variant", "num_players"]),
                              ("rounds", ["game_id", "round", "seat", "factories"]),
                              ("moves", ["game_id", "ply", "round", "move"])):
            t = pq.read_table(part_path(Path(run_dir), name, number), columns=columns)
            if wanted is not None:
                t = t.filter(pc.is_in(t.column("game_id"), value_set=wanted))
            tables[name] = t
        yield from _replay_part(tables["games"], tables["rounds"], tables["moves"])


def _replay_part(games, rounds, moves) -> Iterator[tuple[str, GameState]]:
    deals: dict[str, dict[int, str]] = defaultdict(dict)
    r = rounds.filter(pc.equal(rounds.column("seat"), 0)).to_pydict()
    for gid, rnd, factories in zip(r["game_id"], r["round"], r["factories"]):
        deals[gid][rnd] = factories
    played: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    m = moves.to_pydict()
    for gid, ply, rnd, move in zip(m["game_id"], m["ply"], m["round"], m["move"]):
        played[gid].append((ply, rnd, move))
    g = games.to_pydict()
    for gid, variant, players in zip(g["game_id"], g["variant"], g["num_players"]):
        rounds_of = deals.get(gid, {})
        plies = sorted(played.get(gid, []))
        yield gid, replay_game(variant, players, [rounds_of[k] for k in sorted(rounds_of)],
                               [(rnd, move) for _, rnd, move in plies])


def _array(values):
    import pyarrow as pa
    return pa.array(sorted(values), pa.string())
