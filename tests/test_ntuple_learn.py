"""Learning the n-tuple value (learn/ntuple.py): temporal-difference targets and updates, the SGD
fit to outcomes, the model's file, and the chains of round ends read from position shards."""
from __future__ import annotations

import numpy as np
import pytest

from bots._evaluators import make_evaluator, ntuple_features
from bots.ntuple import SIZE, feature_matrix
from bots.value_file import model_bytes
from engine.rl import observation
from learn.data import read_positions, write_shards
from learn.ntuple import NTupleModel, average, fit, fit_td, read_chains, td_targets, td_update
from test_league_support import league
from test_ntuple import POSITIONS
from tournament.config import parse_config
from tournament.runner import run_league


def test_td_targets_are_the_lambda_returns():
    values = np.array([0.2, 0.4, 0.6])
    assert td_targets(values, 1.0, 0.0) == pytest.approx([0.4, 0.6, 1.0])      # TD(0): the next value
    assert td_targets(values, 1.0, 1.0) == pytest.approx([1.0, 1.0, 1.0])      # the result
    assert td_targets(values, 1.0, 0.5) == pytest.approx([0.6, 0.8, 1.0])      # 0.5 * 0.4 + 0.5 * 0.8, ...


@pytest.mark.parametrize("result", [1.0, -1.0])
def test_td_updates_move_a_chain_towards_the_result(result):
    chain = np.array([[1, 2], [3, 4], [5, 6]])        # three round ends, no entry shared
    model = NTupleModel.zeros(2)
    td_update(model, chain, result, lr=0.1, lam=0.0)
    first = model.predict(chain)
    assert first[0] == first[1] == 0 and first[2] * result > 0    # TD(0): only the last saw the result
    errors = [np.abs(result - first)]
    for _ in range(400):
        td_update(model, chain, result, lr=0.1, lam=0.0)
        errors.append(np.abs(result - model.predict(chain)))
    assert (np.diff(np.array(errors), axis=0) <= 1e-12).all()     # every value only comes closer
    assert (errors[-1] < 0.25).all() and errors[-1][2] <= errors[-1][1] <= errors[-1][0]
    untouched = np.delete(model.weights, chain.ravel())
    assert not untouched.any()
    again = NTupleModel.zeros(2)
    td_update(again, chain, result, lr=0.1, lam=1.0)              # TD(1): every one at once
    assert (again.predict(chain) * result > 0).all()


def targets(states):
    """A target to fit: the lead on points, squashed (a function the tables can approximate)."""
    return np.array([np.tanh((s.scores[0] - s.scores[1]) / 10) for s in states])


def test_the_fit_is_deterministic_lowers_the_loss_and_is_what_the_evaluator_plays():
    states = POSITIONS[2, "colored"] + POSITIONS[2, "gray"]
    indices = np.array([ntuple_features(s, 0) for s in states])
    y = targets(states)
    a, history = fit(indices, y, players=2, epochs=6, batch=8, lr=0.05, seed=4, val=(indices[:5], y[:5]))
    b, _ = fit(indices, y, players=2, epochs=6, batch=8, lr=0.05, seed=4)
    other, _ = fit(indices, y, players=2, epochs=6, batch=8, lr=0.05, seed=5)
    assert a.to_bytes() == b.to_bytes() != other.to_bytes()
    assert history.train[-1] < 0.5 * history.train[0] and len(history.held_out) == 6
    x = np.array([observation(s, 0)["observation"] for s in states])
    assert a.predict(feature_matrix(x, 2)) == pytest.approx(a.predict(indices))
    evaluator = make_evaluator("value", model_bytes=a.to_bytes(), value_scale=8.0)
    for state in states:
        v = (1 + a.predict(np.array([ntuple_features(state, p) for p in range(2)]))) / 2
        assert evaluator.value(state)[0] == pytest.approx((v[0] + 1 - v[1]) / 2, abs=1e-6)


def test_a_saved_model_loads_back_and_a_damaged_one_is_refused(tmp_path):
    model = NTupleModel(np.random.default_rng(2).normal(0, 0.1, SIZE).astype(np.float32), 3, {"seed": 2})
    model.save(tmp_path / "nt.azv")
    again = NTupleModel.load(tmp_path / "nt.azv")
    assert again.players == 3 and again.meta == {"seed": 2}
    indices = np.array([ntuple_features(s, 1) for s in POSITIONS[3, "colored"]])
    np.testing.assert_array_equal(again.predict(indices), model.predict(indices))
    np.testing.assert_array_equal(again.tables()["race"], model.weights[-200:].reshape(8, 5, 5))
    (tmp_path / "bad.azv").write_bytes(model.to_bytes()[:-3])
    with pytest.raises(ValueError, match=r"^\S*bad\.azv: truncated") as caught:
        NTupleModel.load(tmp_path / "bad.azv")
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match=r"azul-value/1 model, not an n-tuple value"):
        NTupleModel.from_bytes(model_bytes("value-2p-mlp"), "value-2p-mlp")


def test_chains_are_each_seats_round_ends_in_order_with_its_outcome(tmp_path):
    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=2, seed=11))
    assert run_league(config, progress=False).complete
    count = write_shards([tmp_path / "r"], tmp_path / "data")
    x, y, games = read_positions(tmp_path / "data")
    chains = read_chains(tmp_path / "data", players=2)
    assert len(chains) == 2 * len(set(games)) and sum(len(c) for c, _ in chains) == count
    rows = {tuple(r): t for r, t in zip(feature_matrix(x, 2).tolist(), y.tolist())}
    for chain, outcome in chains:
        assert all(rows[tuple(r)] == outcome for r in chain.tolist())
        rounds = [r[-4] for r in chain.tolist()]        # the score entry, by round first
        assert rounds == sorted(rounds)
    model, history = fit_td(chains, players=2, lam=0.5, epochs=3, lr=0.05, seed=1)
    assert history.train[-1] < history.train[0]
    assert fit_td(chains, players=2, lam=0.5, epochs=3, lr=0.05, seed=1)[0].to_bytes() == model.to_bytes()


def test_average_is_the_mean_of_the_tables_and_refuses_mixed_player_counts():
    rng = np.random.default_rng(3)
    a, b, c = (NTupleModel(rng.normal(size=SIZE).astype(np.float32), 2) for _ in range(3))
    mean = average([a, b, c], {"made": "test"})
    assert mean.players == 2 and mean.meta == {"made": "test"}
    assert np.allclose(mean.weights, (a.weights.astype(np.float64) + b.weights + c.weights) / 3, atol=1e-6)
    assert np.array_equal(average([a]).weights, a.weights)
    with pytest.raises(ValueError, match="^average: models of 2, 3 players"):
        average([a, NTupleModel(b.weights, 3)])
    with pytest.raises(ValueError, match="^average: no models"):
        average([])
