"""External programs in a league: started outside the move clock, kept from game to game, told the
referee's time limit."""
from __future__ import annotations

import sys
from pathlib import Path

from test_league_game import play
from test_league_support import league
from tournament.backends import _CONTEXTS, close_kept_bots
from tournament.scheduler import bot_game_seed

BROKEN = str(Path(__file__).resolve().parents[1] / "examples" / "broken_bots.py")


def external(name: str, mode: str, arg: str, **params) -> dict:
    return {"name": name, "type": "external", "params": {"command": [sys.executable, BROKEN, mode, arg], **params}}


def test_start_up_is_not_charged_to_the_first_move(tmp_path):
    # the program needs 1 s to start: more than a move's 0.3 s, within its start-up limit of 20 s
    slow = external("slow", "slow-start", "1.0", startup_time=20.0)
    try:
        _, t = play(league(tmp_path, [slow, "random"], deals=1, time_limit=0.3))
    finally:
        close_kept_bots()
    assert [g["termination"] for g in t["games"]] == ["normal", "normal"], [g["error"] for g in t["games"]]


def test_a_program_is_kept_between_games_and_reset(tmp_path):
    log = tmp_path / "log.txt"
    config = league(tmp_path, [external("logger", "log", str(log)), "random"], deals=3, time_limit=0.5)
    try:
        cfg, t = play(config)
        (kept,) = [c.kept for c in _CONTEXTS.values()]
        process = kept[("logger", 0)].process
        assert process.poll() is None  # still running after the batch, for the next one
    finally:
        close_kept_bots()
    assert process.poll() is not None and not _CONTEXTS
    games = [g["game_id"] for g in t["games"]]
    assert len(games) == 6 and all(g["termination"] == "normal" for g in t["games"])
    lines = log.read_text().splitlines()
    starts = [line for line in lines if not line.startswith("move ")]
    # one start-up, then a reset before every further game, each with that game's seed
    seeds = [str(bot_game_seed(cfg.bots[0].seed, gid, 0)) for gid in games]
    assert starts == [f"hello {seeds[0]}"] + [f"reset {seed}" for seed in seeds[1:]]
    # time_left is the referee's limit (no move_time lowers it), less what the referee already spent
    left = [float(line.split()[1]) for line in lines if line.startswith("move ")]
    assert left and all(0.1 < x <= 0.5 for x in left)


def test_move_time_only_lowers_the_referee_limit(tmp_path):
    log = tmp_path / "log.txt"
    try:
        play(league(tmp_path, [external("logger", "log", str(log), move_time=0.2), "random"], deals=1,
                    time_limit=0.5), limit=1)
        close_kept_bots()
        play(league(tmp_path, [external("logger", "log", str(log), move_time=30.0), "random"], deals=1,
                    time_limit=0.5, name="u"), limit=1)
    finally:
        close_kept_bots()
    left = [float(line.split()[1]) for line in log.read_text().splitlines() if line.startswith("move ")]
    first = left.index(max(left))
    assert max(left) <= 0.5 and all(x <= 0.2 for x in left[:first])
