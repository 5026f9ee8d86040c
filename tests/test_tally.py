"""The driver's running tally: ``Tally.add_tables`` (whole columns) counts exactly as ``add_game``
does game by game, in game-id order: 2, 3 and 4 players, self-play, shared firsts, faults, rows
in any order and a results row without its game."""
import random

import pyarrow as pa
import pytest

from tournament.standings import Tally

KEYS = ("games", "wins", "shared", "points", "share", "rank_sum", "faults", "seated", "failures")


def _league(seed: int, n: int):
    rng = random.Random(seed)
    played = []
    for i in range(n):
        players = rng.choice([2, 3, 4])
        alone = rng.random() < 0.2
        names = [rng.choice("abcd")] * players if alone else rng.sample("abcd", players)
        scores = [rng.choice([0, 0, rng.randint(0, 90)]) for _ in range(players)]
        ranks = [1 + sum(q > s for q in scores) for s in scores]
        termination = rng.choice(["normal"] * 5 + ["error", "timeout"])
        fault = None if termination == "normal" else rng.randrange(players)
        played.append((f"g{rng.randint(0, 10**6):07d}-{i}", names, scores, ranks, termination, fault))
    return rng, played


def test_add_tables_counts_as_add_game_does():
    rng, played = _league(3, 3000)
    one_by_one = Tally(list("abcd"))
    for gid, names, scores, ranks, termination, fault in sorted(played):
        one_by_one.add_game(names, scores, ranks, termination, fault)
    games = {"game_id": [], "termination": [], "fault_seat": []}
    results = {"game_id": [], "seat": [], "bot": [], "score": [], "rank": []}
    for gid, names, scores, ranks, termination, fault in played:
        for key, value in zip(games, (gid, termination, fault)):
            games[key].append(value)
        seats = list(range(len(names)))
        rng.shuffle(seats)
        for s in seats:
            for key, value in zip(results, (gid, s, names[s], scores[s], ranks[s])):
                results[key].append(value)
    for key, value in zip(results, ("not-a-game", 0, "a", 50, 1)):  # no games row: left out
        results[key].append(value)
    whole = Tally(list("abcd"))
    whole.add_tables(pa.table(games), pa.table(results))
    assert whole.total == one_by_one.total == 3000
    for key in KEYS:  # the float sums too, bit for bit: the same order of additions
        assert dict(getattr(whole, key)) == dict(getattr(one_by_one, key)), key
    assert whole.leader() == one_by_one.leader()


def test_the_league_table_and_azul_standings_count_alike():
    """The live tally and ``analysis.stats.standings`` are one count (analysis.totals): the same
    games, wins, shared firsts, win rate, score share and mean score per bot, self-play left out."""
    import polars as pl

    from analysis.stats import standings

    _, played = _league(5, 2000)
    tally = Tally(list("abcd"))
    rows, games = [], []
    for gid, names, scores, ranks, termination, fault in played:
        tally.add_game(names, scores, ranks, termination, fault)
        rows += [{"run_id": "r", "game_id": gid, "seat": s, "bot": names[s], "score": scores[s],
                  "rank": ranks[s], "floor_penalty_total": 0, "bonus_points": 0} for s in range(len(names))]
        games.append({"run_id": "r", "game_id": gid, "fault_seat": fault})
    league = {r.bot: r for r in tally.standings()}
    # a forfeiting seat's share is 0 (analysis.totals): the standings read the faults from games
    table = standings(pl.DataFrame(rows), pl.DataFrame(games, schema={"run_id": pl.String,
                                                                      "game_id": pl.String,
                                                                      "fault_seat": pl.Int32}))
    assert set(table["bot"]) == set(league) == set("abcd")
    for r in table.iter_rows(named=True):
        mine = league[r["bot"]]
        assert (mine.games, mine.wins, mine.shared) == (r["games"], r["wins"], r["shared"])
        assert mine.win_rate == pytest.approx(r["win_rate"], rel=1e-12)
        assert mine.score_share == pytest.approx(r["score_share"], rel=1e-12)
        assert mine.mean_score == pytest.approx(r["mean_score"], rel=1e-12)
