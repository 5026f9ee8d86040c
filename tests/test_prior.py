"""The policy prior (issue 46; docs/bots.md, "The policy prior"): the compiled move features equal
the plain-Python reference at 2, 3 and 4 players on both walls, the prior is a distribution over
the legal moves, fitting moves it towards its targets, the model file keeps it as a section (a
damaged one refused by name), and MCTS's PUCT with it is deterministic, follows the prior, and
leaves the default search as it was."""
from __future__ import annotations

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots import _prior
from bots.model_container import Section, pack, unpack
from bots.prior import FEATURES, SECTION, PolicyPrior, reference_features
from bots.spec import bot_from_spec
from bots.value_file import model_bytes
from engine import GameState, new_game
from engine.notation import MOVES
from learn.policy import fit, log_loss, step, top1


def positions(players: int, variant: str, games: int, seed: int):
    """Positions of random games (before each move), every one with a legal move."""
    for g in range(games):
        rng = random.Random(seed * 100 + g)
        state = new_game(players=players, variant=variant, seed=seed * 100 + g)
        while state.phase != "over":
            if state.phase == "refill":
                state.deal(seed=rng.randrange(1 << 30))
                continue
            yield state
            state.play(rng.choice(state.legal_moves()))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_the_compiled_features_equal_the_reference(players, variant):
    seen = 0
    for state in positions(players, variant, 4, players):
        codes, compiled = _prior.features(state)
        ref_codes, reference = reference_features(state)
        assert codes == ref_codes
        assert np.array_equal(compiled, reference), state.to_json()
        seen += 1
    assert seen > 150


def test_the_prior_is_a_distribution_over_the_legal_moves_ordered_by_its_score():
    weights = np.random.default_rng(1).standard_normal(len(FEATURES))
    for state in positions(3, "colored", 2, 9):
        prior = _prior.prior(state, weights)
        assert set(prior) == {m.code for m in state.legal_moves()}
        assert sum(prior.values()) == pytest.approx(1) and min(prior.values()) > 0
        codes, features = _prior.features(state)
        scores = features @ weights
        order = np.argsort(scores)
        assert [prior[codes[i]] for i in order] == sorted(prior.values())


def synthetic(weights, count: int, seed: int, soft: bool):
    """Positions whose moves' features are drawn at random and whose targets come from the
    softmax of ``weights``: the move drawn from it, or (``soft``) the distribution itself."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 12))
        features = rng.normal(size=(n, len(FEATURES))).astype(np.float32)
        p = np.exp(features @ weights)
        p /= p.sum()
        target = p if soft else np.eye(n)[rng.choice(n, p=p)]
        out.append((features, target))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_prior_rollout_plays_the_draft_the_prior_scores_highest(players):
    weights = np.random.default_rng(players).standard_normal(len(FEATURES))
    drafts = 0
    for i, state in enumerate(positions(players, "gray" if players == 3 else "colored", 2, 20 + players)):
        code = _prior.rollout_move(state, weights, seed=i)
        assert code in {m.code for m in state.legal_moves()}
        if state.phase == "draft":
            codes, features = reference_features(state)
            scores = features.astype(np.float64) @ weights
            assert scores[codes.index(code)] == pytest.approx(scores.max())
            drafts += 1
    assert drafts > 50


def test_a_training_step_moves_the_prior_towards_hand_made_visit_distributions():
    planted = np.linspace(-1, 1, len(FEATURES))
    visits = synthetic(planted, 200, 3, soft=True)  # the search's visit shares, as targets
    start = np.zeros(len(FEATURES))
    moved = step(visits, start)
    assert log_loss(moved, visits) < log_loss(start, visits)
    assert np.dot(moved, planted) > 0


def test_fit_recovers_planted_weights_from_moves_played_and_beats_them_on_no_other():
    planted = np.linspace(-1, 1, len(FEATURES))
    played = synthetic(planted, 4000, 4, soft=False)
    w = fit(played)
    assert np.max(np.abs(w - planted)) < 0.15
    other = synthetic(planted, 1000, 5, soft=False)
    assert log_loss(w, other) < log_loss(np.zeros(len(FEATURES)), other)
    assert top1(w, other) > 0.4
    assert np.array_equal(fit(played), w)  # deterministic


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_prior_models_hold_the_value_and_a_policy_section(players):
    data = model_bytes(f"value-{players}p-prior")
    container = unpack(data, f"value-{players}p-prior")
    assert pack(container.value) == model_bytes(f"value-{players}p")  # the tables, unchanged
    prior = PolicyPrior.from_model(data, f"value-{players}p-prior")
    assert prior.players == players and prior.weights.shape == (len(FEATURES),)
    assert PolicyPrior.from_model(model_bytes(f"value-{players}p")) is None
    # each preset searches by PUCT with it (docs/train.md, "The policy prior")
    bot = bot_from_spec(f"mcts-{players}p", 1)
    assert (bot.prior, bot.models(players)) == ("model", (f"value-{players}p-prior",))


def test_a_damaged_policy_section_is_refused_by_name(tmp_path, monkeypatch):
    value = unpack(model_bytes("value-2p"), "value-2p").value
    bad = Section({"format": "azul-policy/9", "features": list(FEATURES), "players": 2},
                  {"weights": np.zeros(len(FEATURES), np.float32)})
    (tmp_path / "bad.azv").write_bytes(pack(value, {SECTION: bad}))
    (tmp_path / "league.yaml").write_text(
        "name: bad\nplayers: 2\ndeals: 1\nout: runs\nbots:\n  - {type: greedy}\n"
        "  - {name: p, type: mcts-2p, params: {model: bad.azv, prior: model, iterations: 50}}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["league", "run", "league.yaml", "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 1
    assert "azul-policy/9" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()
    short = Section({"format": "azul-policy/1", "features": list(FEATURES), "players": 2},
                    {"weights": np.zeros(3, np.float32)})
    with pytest.raises(ValueError, match="14 finite weights"):
        PolicyPrior.from_model(pack(value, {SECTION: short}), "short.azv")


@pytest.mark.parametrize("spec, message", [
    ("mcts:puct=2", "puct=2.0 is read only with prior=model"),
    ("mcts-2p:prior=model,exploration=0.3", "exploration=0.3 is UCT's constant"),
    ("mcts:prior=model", "needs evaluator=value"),
    ("mcts-3p:evaluator=heuristic", "needs evaluator=value and cutoff=round \\(or add prior=none\\)"),
    ("mcts-2p:cutoff=game", "or add prior=none"),
    ("mcts-3p:exploration=0.08", "or add prior=none to search by UCT"),
    ("mcts:evaluator=value,rollout=prior", "rollout=prior plays the policy prior's most likely draft"),
    ("mcts-2p:prior=none,rollout=prior", "add prior=model, or choose another rollout"),
])
def test_prior_parameters_that_would_do_nothing_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        bot_from_spec(spec, 1)


def test_a_table_without_a_policy_says_so_before_playing():
    bot = bot_from_spec("mcts-2p:model=value-2p", 1)
    assert "holds no policy section" in bot.table_error(2, "colored")
    assert bot_from_spec("mcts-2p", 1).table_error(2, "colored") is None
    assert bot_from_spec("mcts-2p:model=value-2p,prior=none", 1).table_error(2, "colored") is None


def test_puct_follows_the_prior_and_is_deterministic():
    state = new_game(players=2, seed=8)
    spec = "mcts-2p:model=value-2p-prior,prior=model,iterations=400"
    first = bot_from_spec(spec, 5).analyze(state)
    assert first == bot_from_spec(spec, 5).analyze(state)
    prior = PolicyPrior.from_model(model_bytes("value-2p-prior")).probabilities(state)
    visits = {r["move"]: r["visits"] for r in first}
    top = str(MOVES[max(prior, key=prior.get)])
    assert visits[top] >= sorted(visits.values())[-3]  # the prior's favourite is among the most searched
    unvisited = [code for code in prior if visits.get(str(MOVES[code]), 0) == 0]
    assert unvisited  # PUCT leaves unlikely moves alone (UCT tries every child once)
    assert max(prior[c] for c in unvisited) < max(prior.values())
    assert bot_from_spec(spec, 5).act(GameState.from_json(state.to_json())) in state.legal_moves()


def test_the_prior_rollout_is_deterministic_and_changes_what_the_search_sees():
    state = new_game(players=2, seed=8)
    first = bot_from_spec("mcts-2p:rollout=prior,iterations=300", 5).analyze(state)
    assert first == bot_from_spec("mcts-2p:rollout=prior,iterations=300", 5).analyze(state)
    assert first != bot_from_spec("mcts-2p:iterations=300", 5).analyze(state)


def test_the_games_of_played_positions_are_numbered_by_id_whatever_order_they_were_written(tmp_path, monkeypatch):
    """bench_prior fits the even games and checks the odd ones: which game is which must not
    depend on the order workers finished the games (the order the run's parts are read)."""
    from learn.policy import played_positions
    from test_league_support import league, walk_games_backwards
    from tournament.config import parse_config
    from tournament.runner import run_league

    run = run_league(parse_config(league(tmp_path, ["greedy", "heuristic"], name="order", deals=3, seed=5)),
                     progress=False).run_dir

    def seen():
        return sorted((g, features.tobytes(), target.tobytes())
                      for g, (features, target) in played_positions(run, every=3, limit=4))

    first = seen()
    walk_games_backwards(monkeypatch)
    assert {g for g, _, _ in first} == {0, 1, 2, 3}
    assert seen() == first
