"""The MCTS leaf evaluators (bots/_evaluators.pyx): what each gives at a round's end, how the bot's
evaluator parameter chooses one, and that only a search stopped at a round cut-off asks it."""
import math
import random

import pytest

from bots import bot_parameters, make_bot
from bots._evaluators import EVALUATORS, Evaluator, HeuristicValue, ScoreValue, make_evaluator
from bots.mcts import MCTSBot
from bots._policies import Policy
from engine import new_game


def round_ends(players, variant, seed, bot=None):
    """The positions at each round's end (phase refill, the game not over) of a game: random moves,
    or ``bot``'s (greedy: points scored, so score tables are reached; a random game's mostly stay 0)."""
    rng = random.Random(seed)
    state = new_game(players, variant, seed=seed)
    found = []
    while state.phase != "over":
        if state.phase == "refill":
            if state.round > 1:
                found.append(state.clone())
            state.deal(seed=rng.getrandbits(32))
        else:
            state.play(bot.act(state) if bot is not None else rng.choice(state.legal_moves()))
    return found


def shares(keys):
    """Each seat's share of opponents with a smaller key (a tie counts half)."""
    n = len(keys)
    return [sum(1.0 if keys[p] > keys[q] else 0.5 if keys[p] == keys[q] else 0.0
                for q in range(n) if q != p) / (n - 1) for p in range(n)]


ROUND_ENDS = [s for players in (2, 3, 4) for variant in ("colored", "gray")
              for s in round_ends(players, variant, seed=players + 7 * len(variant))]


def test_the_evaluator_parameter_offers_the_registered_evaluators():
    p = bot_parameters("mcts")["evaluator"]
    assert p.choices == tuple(EVALUATORS) == ("heuristic", "score", "value") and p.default == "heuristic"
    assert type(make_evaluator("score", value_scale=8.0)) is ScoreValue
    with pytest.raises(ValueError, match=r"^mcts: unknown evaluator 'leader' \(known: heuristic, score, value\)"):
        make_evaluator("leader", value_scale=8.0)
    with pytest.raises(ValueError, match="needs a model"):
        make_evaluator("value", value_scale=8.0)
    with pytest.raises(TypeError, match="base class"):
        Evaluator()


@pytest.mark.parametrize("scale", [8.0, 2.5])
def test_heuristic_value_is_the_soft_share_of_the_heuristic_evaluation(scale):
    policy, evaluator = Policy("heuristic"), HeuristicValue(value_scale=scale)
    for state in ROUND_ENDS:
        n = state.players
        e = [min(policy.evaluate(state, p), 0.0) for p in range(n)]
        want = [sum(1 / (1 + math.exp((e[q] - e[p]) / scale)) for q in range(n) if q != p) / (n - 1)
                for p in range(n)]
        assert evaluator.value(state) == pytest.approx(want, abs=1e-12)


def test_score_value_ranks_the_seats_by_points_then_complete_rows():
    evaluator = make_evaluator("score", value_scale=8.0)
    differ = 0
    for state in ROUND_ENDS:
        boards = state.to_json()["boards"]
        rows = [sum("." not in row for row in b["wall"]) for b in boards]
        assert evaluator.value(state) == shares([(b["score"], r) for b, r in zip(boards, rows)])
        differ += evaluator.value(state) != HeuristicValue(value_scale=8.0).value(state)
    assert differ > len(ROUND_ENDS) // 2


def test_an_evaluator_values_only_a_round_end():
    with pytest.raises(ValueError, match=r"^mcts: an evaluator values a position at a round's end "
                                         r"\(phase refill\), not in phase draft"):
        HeuristicValue(value_scale=8.0).value(new_game(2, seed=1))


def test_the_evaluator_is_asked_at_a_round_cutoff_and_never_at_the_game_end():
    state = new_game(2, seed=1)
    for cutoff, same in (("round", False), ("game", True)):  # built unchecked: cutoff=game reads no evaluator
        heuristic = MCTSBot(seed=3, iterations=400, cutoff=cutoff).analyze(state)
        score = MCTSBot(seed=3, iterations=400, cutoff=cutoff, evaluator="score").analyze(state)
        assert (heuristic == score) is same, cutoff
    with pytest.raises(ValueError, match="evaluator=score is read only with cutoff=round"):
        make_bot("mcts", cutoff="game", evaluator="score")  # so a spec that sets both is refused
    bot = make_bot("mcts", seed=3, iterations=50, evaluator="score")
    assert bot.name == "mcts(iterations=50, evaluator=score)" and bot.act(state) in state.legal_moves()
