"""The RL bridges as bots: PolicyBot (a PettingZoo-style policy in a league) and openspiel_mcts."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import IllegalMoveError, new_game
from engine.rl import observation
from test_league_support import league
from tournament.backends import play_batch
from bots import make_bot
from tournament.config import parse_config
from tournament.scheduler import schedule

from bots.policy import PolicyBot, first_legal

ROOT = Path(__file__).resolve().parent.parent


class LastLegal(PolicyBot):
    """A subclass policy, as a league config names it: ``type: test_rl_bots:LastLegal``."""

    def choose(self, obs, mask):
        return int(np.flatnonzero(mask)[-1])


def test_policy_bot_plays_what_the_policy_chooses():
    calls = []

    def spy(obs, mask):
        calls.append((obs.copy(), mask.copy()))
        return first_legal(obs, mask)

    state = new_game(2, seed=4)
    move = PolicyBot(policy=spy).act(state)
    assert move == state.legal_moves()[0]
    seen = observation(state)
    assert np.array_equal(calls[0][0], seen["observation"]) and np.array_equal(calls[0][1], seen["action_mask"])
    assert LastLegal().act(state) == state.legal_moves()[-1]


def test_policy_bot_errors():
    with pytest.raises(ValueError, match="give policy='module:function'"):
        PolicyBot()
    with pytest.raises(ValueError, match="is not 'module:function'"):
        PolicyBot(policy="bots.policy")
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        PolicyBot(policy="no_such_module:act")
    with pytest.raises(ValueError, match="has no callable 'nothing'"):
        PolicyBot(policy="bots.policy:nothing")
    bad = PolicyBot(policy=lambda obs, mask: int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(IllegalMoveError, match="the action mask does not allow"):
        bad.act(new_game(2, seed=1))


def test_policy_bots_play_a_league(tmp_path):
    config = parse_config(league(tmp_path, [
        {"name": "first", "type": "bots.policy:PolicyBot", "params": {"policy": "bots.policy:first_legal"}},
        {"name": "last", "type": "test_rl_bots:LastLegal"},
    ], deals=2))
    assert make_bot("bots.policy:PolicyBot", seed=1, policy="bots.policy:first_legal").name == \
        "policy(bots.policy:first_legal)"
    specs = list(schedule(len(config.bots), config.players, config.deals, config.seats, config.seed))
    tables = play_batch(config, specs, config.name)
    games = tables["games"].to_pylist()
    assert len(games) == 4 and {g["termination"] for g in games} == {"normal"}
    assert {r["bot"] for r in tables["results"].to_pylist()} == {"first", "last"}


def test_openspiel_mcts_bot():
    pytest.importorskip("pyspiel")
    from bots.openspiel_mcts import OpenSpielMCTSBot
    from bots.registry import make_bot

    state = new_game(2, seed=6)
    before = state.to_json()
    bot = make_bot("openspiel_mcts", seed=3, iterations=60)
    assert isinstance(bot, OpenSpielMCTSBot) and bot.name == "openspiel_mcts(iterations=60)"
    move = bot.act(state)
    assert move in state.legal_moves() and state.to_json() == before
    assert make_bot("openspiel_mcts", seed=3, iterations=60).act(state) == move  # seeded
    python = OpenSpielMCTSBot(seed=1, iterations=5, rollout="openspiel").act(state)
    assert python in state.legal_moves()
    gray = new_game(3, "gray", seed=2)
    assert OpenSpielMCTSBot(seed=1, iterations=20).act(gray) in gray.legal_moves()
    for kwargs, message in [({"iterations": 0}, "iterations must be an integer from 1 to 10000000, not 0"),
                            ({"rollout": "x"}, "rollout must be one of 'compiled', 'openspiel', not 'x'"),
                            ({"uct_c": -1}, "uct_c must be a number from 0 to 100, not -1")]:
        with pytest.raises(ValueError, match=message):
            make_bot("openspiel_mcts", **kwargs)  # the registry checks the declared ranges


@pytest.mark.parametrize("script,args", [("pettingzoo_random.py", ["--players", "3"]),
                                         ("openspiel_mcts.py", ["--simulations", "8"])])
def test_examples_run(script, args):
    pytest.importorskip("pettingzoo" if "pettingzoo" in script else "pyspiel")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "moves" in out.stdout
