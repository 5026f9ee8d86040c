"""Bots that tunes reach: the six heuristic weights MCTS's round-end value takes as parameters
(bots/mcts.py, bots/_evaluators.pyx HeuristicValue): declared as the heuristic's, defaults
unchanged, each one reaching the evaluation; and the heuristic's tuned presets (bots/heuristic.py)."""
import math
import pickle

import pytest

from bots import bot_parameters, make_bot
from bots._evaluators import HeuristicValue
from bots._policies import Policy
from test_mcts_evaluators import ROUND_ENDS

SIX = {"line": 1.5, "later": 0.6, "column": 1.2, "row": 0.1, "colour_set": 2.0, "marker": -1.0}


def test_mcts_declares_the_six_weights_as_the_heuristic_does():
    mcts, heuristic = bot_parameters("mcts"), bot_parameters("heuristic")
    for name in SIX:
        assert mcts[name] == heuristic[name]
    assert "denial" not in mcts and "reply" not in mcts and "floor_risk" not in mcts


def test_the_weights_reach_the_round_end_value():
    evaluator, policy = HeuristicValue(value_scale=8.0, **SIX), Policy("heuristic", weights=SIX)
    default = HeuristicValue(value_scale=8.0)
    moved = 0
    for state in ROUND_ENDS:
        n = state.players
        e = [min(policy.evaluate(state, p), 0.0) for p in range(n)]
        want = [sum(1 / (1 + math.exp((e[q] - e[p]) / 8.0)) for q in range(n) if q != p) / (n - 1)
                for p in range(n)]
        assert evaluator.value(state) == pytest.approx(want, abs=1e-12)
        moved += evaluator.value(state) != default.value(state)
    assert moved > len(ROUND_ENDS) // 2


@pytest.mark.parametrize("name", list(SIX))
def test_each_weight_is_read(name):
    changed = HeuristicValue(value_scale=8.0, **{name: SIX[name]})
    default = HeuristicValue(value_scale=8.0)
    assert any(changed.value(s) != default.value(s) for s in ROUND_ENDS)


def test_the_defaults_play_as_before():
    from engine import new_game

    state = new_game(2, "colored", seed=3)
    explicit = make_bot("mcts", seed=5, iterations=300, **{k: bot_parameters("heuristic")[k].default for k in SIX})
    assert explicit.analyze(state) == make_bot("mcts", seed=5, iterations=300).analyze(state)
    assert make_bot("mcts", seed=5, iterations=300, marker=-3.0).name == "mcts(iterations=300, marker=-3.0)"


def test_a_preset_is_the_heuristic_with_tuned_defaults():
    from bots.heuristic import PRESETS, HeuristicBot
    from bots.spec import bot_from_spec
    from engine import new_game

    assert bot_parameters("heuristic")["marker"].default == 1.5  # the heuristic's own: unchanged
    for name, weights in PRESETS.items():
        bot = bot_from_spec(name, seed=4)
        assert isinstance(bot, HeuristicBot) and bot.name == name
        assert {k: bot.weights[k] for k in weights} == weights
        assert {k: bot_parameters(name)[k].default for k in weights} == weights
        assert bot.compiled_form().weights == bot.weights
        changed = bot_from_spec(f"{name}:marker=2", seed=4)
        assert changed.weights["marker"] == 2.0 and changed.name == f"{name}(marker=2)"
        same = make_bot("heuristic", seed=4, **weights)
        state = new_game(4, "colored", seed=9)
        while state.phase in ("draft", "tiling"):
            move = bot.act(state)
            assert move == same.act(state)
            state.play(move)


def test_the_mcts_preset_is_mcts_with_tuned_constants():
    from bots.mcts import PRESETS, MCTSBot
    from bots.spec import bot_from_spec
    from engine import new_game

    assert bot_parameters("mcts")["prune"].default != PRESETS["mcts-2p"]["prune"]
    bot = bot_from_spec("mcts-2p:iterations=60", seed=3)
    assert isinstance(bot, MCTSBot) and bot.name == "mcts-2p(iterations=60)"
    assert (bot.evaluator, bot.prior, bot.puct, bot.prune, bot.model) == ("value", "model", 1.0, "floor",
                                                                          "value-2p-prior")
    assert bot_from_spec("mcts-2p:iterations=60,puct=0.5", seed=3).name == "mcts-2p(iterations=60, puct=0.5)"
    assert pickle.loads(pickle.dumps(bot)).name == bot.name  # travels to Ray workers by its class
    same = make_bot("mcts", seed=3, iterations=60, **PRESETS["mcts-2p"])
    state = new_game(2, "colored", seed=4)
    for _ in range(6):
        move = bot.act(state)
        assert move == same.act(state)
        state.play(move)


def test_a_preset_of_an_unknown_parameter_is_refused():
    from bots.heuristic import HeuristicBot
    from bots.registry import register_preset

    with pytest.raises(TypeError, match="no parameter 'nope'"):
        register_preset("heuristic-x", HeuristicBot, {"nope": 1.0}, "a mistake")
