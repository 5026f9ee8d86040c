"""``azul review run``: the review of a run's recorded games, stored with the run as the side table
``reviews/`` (SPEC 11; docs/review.md, "Reviews of runs").

A review is not a run of its own: it writes into a run of any kind (finished, or one a driver is
still playing) through the run's store, a part of ``reviews/`` per batch of games
(``RunStore.write_side``: no lock, part ids of its own), so it never touches what the driver
writes. Each part holds whole games, so a review killed at any point goes on where it stopped:
``review_run`` skips the games the same analyser (its spec and model digests) has reviewed, and
a move is never reviewed twice. The games are those recorded when it starts; those played later
are reviewed by running it again. Batches are played in the driver's process (``workers=0``) or
as tasks on a local Ray (tournament.backends.start_local_ray) or a cluster; every search is
seeded from the run, the game and the ply (kinds.review_move.seed_of), so the table is the same
however many workers make it.
"""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyarrow as pa

from analysis.review_marks import default_analyser
from analysis.review_read import read_reviews
from records.columns import SIDE_SCHEMAS
from records.read import read_table
from records.store import RunStore, open_store
from tournament.errors import AzulError
from tournament.replay import walk_games

from .review_move import Analyser, review_game, seed_of

TABLE = "reviews"
BATCH_MOVES = 240  # moves a batch reviews, about: a part of reviews/ per batch


class ReviewError(AzulError):
    """Bad input to a review: one line naming what is wrong."""


@dataclass
class Game:
    """What a worker needs of one recorded game."""

    game_id: str
    players: int
    bots: list[str]
    plies: int


@dataclass
class ReviewProgress:
    games: int  # reviewed this time
    total: int  # to review this time
    moves: int
    seconds: float
    done_before: int  # reviewed by an earlier review with the same analyser


@dataclass
class ReviewOutcome:
    rows: list[dict]  # every reviewed move of the games asked for, this review's and earlier ones'
    reviewed: int  # games reviewed this time
    skipped: int  # games an earlier review had done
    analysers: dict[int, str]  # the analyser's label by player count


def recorded_games(store: RunStore) -> dict[str, Game]:
    """The run's recorded games by id, each with its players, bots by seat and plies."""
    games = read_table(store, "games", ["game_id", "num_players", "plies"]).to_pydict()
    results = read_table(store, "results", ["game_id", "seat", "bot"]).to_pydict()
    bots: dict[str, dict[int, str]] = defaultdict(dict)
    for gid, seat, bot in zip(results["game_id"], results["seat"], results["bot"]):
        bots[gid][seat] = bot
    return {gid: Game(gid, players, [bots[gid].get(s, "?") for s in range(players)], plies)
            for gid, players, plies in zip(games["game_id"], games["num_players"], games["plies"])}


def stored_reviews(store: RunStore) -> pa.Table:
    """The run's ``reviews`` table (empty when it has none; analysis.review_read reads it)."""
    rows = read_reviews([store])
    if rows is None:
        return SIDE_SCHEMAS[TABLE].empty_table()
    return rows.drop("players").to_arrow().cast(SIDE_SCHEMAS[TABLE])


def choose_games(games: dict[str, Game], wanted: Sequence[str] | None, sample: int | None,
                 run_id: str, where: str) -> list[Game]:
    """The games to review: those named (each must be recorded), else a seeded sample of
    ``sample`` games, else all, in game id order."""
    if wanted:
        missing = [g for g in dict.fromkeys(wanted) if g not in games]
        if missing:
            some = ", ".join(sorted(games)[:3]) + (f", ... ({len(games)} in all)" if len(games) > 3 else "")
            raise ReviewError(f"{where}: no recorded game {missing[0]!r} (games there: {some})")
        chosen = [games[g] for g in dict.fromkeys(wanted)]
    else:
        chosen = list(games.values())
        if sample is not None:
            if sample < 1:
                raise ReviewError(f"--sample must be at least 1, not {sample}")
            chosen = sorted(chosen, key=lambda g: seed_of(run_id, "sample", g.game_id))[:sample]
    return sorted(chosen, key=lambda g: g.game_id)


def review_batch(where: str, run_id: str, games: list[Game], specs: dict[int, str]) -> pa.Table:
    """Review whole games of the run at ``where`` (a task): the ``reviews`` rows of each."""
    store = open_store(where)
    analysers: dict[int, Analyser] = {}
    labels: dict[int, str] = {}
    by_id = {g.game_id: g for g in games}
    rows: list[dict] = []
    for gid, walk in walk_games(store, list(by_id)):
        game = by_id[gid]
        if game.players not in analysers:
            analysers[game.players] = Analyser.for_table(game.players, specs[game.players])
            labels[game.players] = analysers[game.players].label(game.players)
        for row in review_game(analysers[game.players], walk, run_id, gid, game.bots):
            rows.append({**row, "analyser": labels[game.players]})
    rows.sort(key=lambda r: (r["game_id"], r["ply"]))
    return pa.Table.from_pylist(rows, schema=SIDE_SCHEMAS[TABLE])


def batches(games: list[Game]) -> list[list[Game]]:
    """Games in batches of about ``BATCH_MOVES`` moves, in order."""
    out, batch, moves = [], [], 0
    for g in games:
        batch.append(g)
        moves += g.plies
        if moves >= BATCH_MOVES:
            out.append(batch)
            batch, moves = [], 0
    return out + ([batch] if batch else [])


def review_run(where: str, game_ids: Sequence[str] | None = None, analyser: str | None = None,
               workers: int = 0, sample: int | None = None, address: str | None = None,
               progress: Callable[[ReviewProgress], None] | None = None) -> ReviewOutcome:
    """Review the run at ``where`` (a folder or ``s3://`` URL) and store each batch of games as a
    part of its ``reviews/``; returns every review row of the games asked for by these analysers.
    Everything is checked before anything is written: the run, the games named, the analyser."""
    store = open_store(where)
    if not store.is_there() or not store.part_files("games"):
        raise ReviewError(f"{where}: no recorded games there (a run folder or s3:// URL of a league, an SPRT, ...)")
    games = recorded_games(store)
    run_id = read_table(store, "games", ["run_id"]).column("run_id")[0].as_py()
    chosen = choose_games(games, game_ids, sample, run_id, str(where))
    specs: dict[int, str] = {}
    labels: dict[int, str] = {}
    for players in sorted({g.players for g in chosen}):
        spec = analyser or default_analyser(players)
        try:
            made = Analyser.for_table(players, spec)
        except ValueError as exc:
            raise ReviewError(f"{exc} (the run's games are {players}-player)") from None
        specs[players], labels[players] = spec, made.label(players)
    if workers < 0:
        raise ReviewError(f"--workers must be 0 or more, not {workers}")
    before = stored_reviews(store)
    done = {(a, g) for a, g in zip(before.column("analyser").to_pylist(), before.column("game_id").to_pylist())}
    todo = [g for g in chosen if (labels[g.players], g.game_id) not in done]
    skipped = len(chosen) - len(todo)
    started = time.perf_counter()
    reviewed = moves = 0
    for table in _run_batches(str(where), run_id, batches(todo), specs, workers, address):
        store.write_side(TABLE, table)
        reviewed += len(set(table.column("game_id").to_pylist()))
        moves += table.num_rows
        if progress:
            progress(ReviewProgress(reviewed, len(todo), moves, time.perf_counter() - started, skipped))
    wanted = {g.game_id for g in chosen}
    rows = [r for r in stored_reviews(store).to_pylist()
            if r["game_id"] in wanted and r["analyser"] == labels[games[r["game_id"]].players]]
    rows.sort(key=lambda r: (r["game_id"], r["ply"]))
    return ReviewOutcome(rows, reviewed, skipped, labels)


def _run_batches(where: str, run_id: str, work: list[list[Game]], specs: dict[int, str], workers: int,
                 address: str | None):
    """Each batch's table as it is ready: in this process, or as Ray tasks (at most twice the
    workers in flight)."""
    if not work:
        return
    if workers == 0:
        for batch in work:
            yield review_batch(where, run_id, batch, specs)
        return
    import ray

    from tournament.backends import start_local_ray

    owned = not ray.is_initialized()
    if owned:
        if address:
            ray.init(address=address, log_to_driver=False, namespace="azul-league")
        else:
            start_local_ray(workers)
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(review_batch)
        pending = list(work)
        flying = []
        while pending or flying:
            while pending and len(flying) < 2 * workers:
                flying.append(task.remote(where, run_id, pending.pop(0), specs))
            ready, flying = ray.wait(flying, num_returns=1)
            yield ray.get(ready[0])
    finally:
        if owned:
            ray.shutdown()
