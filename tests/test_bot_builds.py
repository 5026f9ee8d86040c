"""The compiled league loop builds each bot it asks in Python (mcts) once per worker and config bot
(and copy, in self-play), not once per game, and reads its model file as often: the same records
as a bot built fresh for every game (tests/test_records_fingerprint.py and the compiled-equals-
referee tests pass unchanged)."""
from __future__ import annotations

import bots.mcts as mcts
from bots import make_bot
from engine import new_game
from test_league_support import league
from tournament.config import parse_config
from tournament.runner import run_league


def test_mcts_bots_and_their_model_are_built_once_per_worker_not_per_game(tmp_path, monkeypatch):
    counts = {"builds": 0, "reads": 0}
    init, read = mcts.MCTSBot.__init__, mcts.model_bytes

    def counting_init(self, *args, **kwargs):
        counts["builds"] += 1
        init(self, *args, **kwargs)

    def counting_read(name):
        counts["reads"] += 1
        return read(name)

    monkeypatch.setattr(mcts.MCTSBot, "__init__", counting_init)
    monkeypatch.setattr(mcts, "model_bytes", counting_read)
    bots = [{"name": "value", "type": "mcts", "seed": 1, "params": {"evaluator": "value", "iterations": 5}},
            {"type": "greedy", "seed": 2}]
    seen = []
    for deals in (5, 30):
        counts.update(builds=0, reads=0)
        config = parse_config(league(tmp_path, bots, name=f"d{deals}", deals=deals, self_play=True))
        summary = run_league(config)
        assert summary.recorded == 4 * deals and summary.referee == "compiled"
        seen.append(dict(counts))
    # planning looks at each config bot (its compiled form); then one bot per copy of the mcts bot
    # (two in its self-play games), kept for every game: six times the games, the same builds
    assert seen[0] == seen[1] and seen[1]["builds"] <= 6 and seen[1]["reads"] == seen[1]["builds"]


def test_a_reseeded_bot_plays_as_one_built_with_that_seed():
    state = new_game(players=2, seed=11)
    fresh = make_bot("mcts", seed=7, iterations=30)
    reused = make_bot("mcts", seed=99, iterations=30)
    reused.act(state)  # a search with its own seed first
    reused.reseed(7)
    reused.reset()
    assert [fresh.act(state) for _ in range(2)] == [reused.act(state) for _ in range(2)]
    greedy = make_bot("greedy", seed=3)
    greedy.reseed(5)
    assert greedy.rng.random() == make_bot("greedy", seed=5).rng.random()
