"""The compiled league loop (tournament/fastloop.py) writes the rows the Python referee writes.

Leagues of every built-in compiled bot type (random, greedy, heuristic, mcts), 2, 3 and 4 players,
both walls, ``match: series`` and ``self_play``, are played twice: by the compiled loop and with
``python_referee: true``; every table's rows, sorted, are the same but for the timing columns.
"""
from __future__ import annotations

import json
import random
from hashlib import blake2b

import pytest

from test_league_support import league, ray_address  # noqa: F401
from tournament import read_table
from tournament import _seeds
from tournament._fastloop import random_below
from tournament.config import parse_config
from tournament.fastloop import compiled_plan
from tournament.runner import run_league
from tournament.scheduler import bot_game_seed, round_seed

SKIP = {"run_id", "think_ms", "duration_s"}
BOTS = ["random", "greedy", "heuristic",
        {"name": "heuristic-d", "type": "heuristic", "seed": 4, "params": {"denial": 0.6}},
        {"name": "mcts-20", "type": "mcts", "seed": 9, "params": {"iterations": 20}}]
LEAGUES = [dict(players=2, variant="colored", deals=5, match="series", self_play=True),
           dict(players=3, variant="gray", deals=2, self_play=True),
           dict(players=4, variant="colored", deals=2, match="series"),
           dict(players=2, variant="gray", deals=6),
           dict(players=4, variant="gray", deals=2, self_play=True)]


def _rows(run_dir, name):
    table = read_table(run_dir, name)
    return sorted(json.dumps({k: v for k, v in r.items() if k not in SKIP}, sort_keys=True)
                  for r in table.to_pylist())


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    played = []
    for i, fields in enumerate(LEAGUES):
        runs = {}
        for python in (False, True):
            tmp = tmp_path_factory.mktemp(f"l{i}{python}")
            config = parse_config(league(tmp, BOTS, name="c", seed=17, flush_seconds=0, python_referee=python,
                                         **fields))
            assert (compiled_plan(config) is None) == python
            summary = run_league(config, progress=False)
            assert summary.complete and summary.recorded == config.total_games
            runs[python] = tmp / "c"
        played.append(runs)
    return played


def test_the_compiled_loop_writes_the_python_referees_rows(both):
    games = 0
    for runs in both:
        for name in ("games", "results", "moves", "rounds"):
            compiled, python = _rows(runs[False], name), _rows(runs[True], name)
            assert compiled == python, name
        games += len(read_table(runs[False], "games"))
    assert games >= 500


def test_the_compiled_loop_records_a_games_average_think_time(both):
    moves = read_table(both[0][False], "moves").to_pydict()
    per_game: dict[str, set] = {}
    for gid, ms in zip(moves["game_id"], moves["think_ms"]):
        per_game.setdefault(gid, set()).add(ms)
    assert all(len(v) == 1 for v in per_game.values())
    played = read_table(both[0][True], "moves").to_pydict()["think_ms"]
    assert len(set(played)) > len(per_game)  # the referee times each move


def test_the_random_bots_generator_is_pythons():
    for seed in (0, 7, 2**32 - 1, 2**32, 2**62 + 99):
        for n in (1, 2, 5, 37, 150):
            r = random.Random(seed)
            assert random_below(seed, n, 500) == [r._randbelow(n) for _ in range(500)]


def test_the_seed_hash_is_blake2b():
    """derive_seed's one hash (tournament/_seeds.pyx, shared with the loop) is BLAKE2b-64 read
    big-endian and halved, for texts of every length across the 128-byte block edges."""
    rng = random.Random(3)
    for n in list(range(0, 300)) + [383, 384, 385, 1000]:
        text = bytes(rng.getrandbits(8) for _ in range(n))
        assert _seeds.seed_of(text) == int.from_bytes(blake2b(text, digest_size=8).digest(), "big") >> 1


def test_the_loops_seeds_are_the_schedulers():
    """The texts the loop builds in C for round and bot seeds are scheduler.derive_seed's, over
    message lengths across the 128-byte block edge and seeds of every size."""
    rng = random.Random(5)
    for _ in range(3000):
        seed = rng.getrandbits(rng.choice([1, 8, 31, 32, 63, 64]))
        rnd = rng.randint(1, 40)
        assert _seeds.round_seed(seed, rnd) == round_seed(seed, rnd)
        game_id = f"t{rng.randint(0, 999):03d}-d{rng.randint(0, 99999):05d}-a{rng.randint(0, 23)}"
        game_id += "s" * rng.randint(0, 160)
        copy = rng.choice([0, 0, 1, 2, 3])
        assert _seeds.bot_seed(seed, game_id, copy) == bot_game_seed(seed, game_id, copy)
    with pytest.raises(ValueError, match="longer than 200"):
        _seeds.bot_seed(1, "g" * 201)


@pytest.mark.parametrize("change", [
    {"time_limit": 1.0}, {"python_referee": True},
    {"bots": [{"name": "a", "type": "greedy", "time_limit": 2.0}, "random"]},
    {"bots": ["random", {"name": "m", "type": "greedy", "params": {"opening": "floor"}}]},  # remembers its moves
])
def test_the_python_referee_plays_what_the_compiled_loop_cannot(tmp_path, change):
    data = league(tmp_path, ["greedy", "random"])
    data.update(change)
    config = parse_config(data)
    assert compiled_plan(config) is None
    assert compiled_plan(parse_config(league(tmp_path, ["greedy", "random", "heuristic", "mcts"])))


@pytest.mark.parametrize("workers", [0, 2])
def test_a_bot_that_raises_in_the_compiled_loop_forfeits_as_in_the_referee(tmp_path, workers, request):
    """A bot asked in Python that raises: its game is its forfeit, the league goes on, and the rows
    are the Python referee's (the batch is played again by the referee), not a traceback."""
    bots = [{"name": "flaky", "type": "test_league_support:FlakyMcts", "seed": 5, "params": {"iterations": 5}},
            "greedy"]
    ray = {"workers": workers}
    if workers:  # Ray tasks: the session's Ray, whose workers import the test's bot
        ray["address"] = request.getfixturevalue("ray_address")
    runs = {}
    for python in (False, True):
        config = parse_config(league(tmp_path / str(python), bots, name="f", deals=6, seed=3, flush_seconds=0,
                                     python_referee=python, ray=ray))
        assert (compiled_plan(config) is None) == python
        summary = run_league(config, progress=False)
        assert summary.complete and summary.recorded == 12
        runs[python] = tmp_path / str(python) / "f"
    games = read_table(runs[False], "games").to_pylist()
    forfeits = [g for g in games if g["termination"] == "error"]
    assert 0 < len(forfeits) < len(games) and all("flaky" in g["error"] for g in forfeits)
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(runs[False], name) == _rows(runs[True], name), name
