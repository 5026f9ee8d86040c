"""SPSA's arithmetic (kinds/spsa.py) and its convergence on the synthetic game
(kinds/spsa_simulation.py), without the engine."""
import math

import pytest

from kinds.spsa import GAMMA, Spsa, steps, summary, tuned_param
from kinds.spsa_simulation import convergence


def test_defaults_come_from_the_registry():
    line = tuned_param("heuristic", "line", {}, pairs=1000)
    assert (line.start, line.low, line.high, line.log) == (0.5, 0.0, 10.0, False)
    assert line.c_end == pytest.approx(0.5) and line.r_end == pytest.approx(0.06)
    scale = tuned_param("mcts", "value_scale", {}, pairs=1000)  # 0.01..1000: a log scale
    assert scale.log and scale.start == 8.0
    assert scale.c_end == pytest.approx(math.log(1e5) / 20)
    it = tuned_param("mcts", "iterations", {"min": 100, "max": 5000, "scale": "linear"}, 10)
    assert it.integer and isinstance(it.value(1234.6), int) and it.value(1234.6) == 1235


@pytest.mark.parametrize("given, message", [
    ({"c_end": 0}, "line.c_end: must be above 0"),
    ({"min": -1}, "line.min: -1 is outside line's declared range 0 to 10"),
    ({"start": 5, "max": 4}, "line.start: must be from min 0 to max 4, not 5"),
    ({"scale": "log"}, "line.scale: a log scale needs min above 0"),
    ({"speed": 1}, "line.speed: unknown field"),
])
def test_bad_fields_are_named(given, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        tuned_param("heuristic", "line", given, pairs=100)


def test_only_numbers_are_tuned():
    with pytest.raises(ValueError, match="rollout: only numbers"):
        tuned_param("mcts", "rollout", {}, 100)
    with pytest.raises(ValueError, match="nope: heuristic has no such parameter"):
        tuned_param("heuristic", "nope", {}, 100)


def test_fishtest_gains():
    p = tuned_param("heuristic", "line", {"c_end": 0.4, "r_end": 0.01}, pairs=500)
    spsa = Spsa([p], pairs=500)
    assert spsa.c_k(499)[0] == pytest.approx(0.4)  # c_end at the last pair
    assert spsa.a_k(499)[0] == pytest.approx(0.01 * 0.4 ** 2)  # a_end = r_end * c_end^2
    assert spsa.c_k(0)[0] == pytest.approx(0.4 * 500 ** GAMMA)
    assert spsa.A == 50


def test_flips_sides_and_update_are_deterministic_and_clipped():
    params = [tuned_param("heuristic", n, {}, 100) for n in ("line", "later", "marker")]
    a, b = Spsa(params, 100, seed=3), Spsa(params, 100, seed=3)
    assert [a.flips(s) for s in range(20)] == [b.flips(s) for s in range(20)]
    assert len({tuple(a.flips(s)) for s in range(20)}) > 1
    theta = a.start()
    plus, minus = a.sides(theta, 0, 7)
    for p, u, hi, lo in zip(params, theta, plus, minus):
        assert p.low <= min(hi, lo) and max(hi, lo) <= p.high
        assert hi != lo
    moved = a.update(theta, 0, 7, 1e9)  # a huge result: clipped to the range
    assert all(m in (p.low, p.high) for p, m in zip(params, moved))
    assert a.values(moved) == {p.name: m for p, m in zip(params, moved)}


def test_steps_and_summary():
    assert steps(10, 4) == [(0, 4), (4, 4), (8, 2)]
    p = tuned_param("heuristic", "line", {}, 10)
    out = summary([p], [[1.0], [2.0], [3.0], [4.0]], tail=0.5)
    assert out["line"]["mean"] == 3.5 and out["line"]["steps"] == 2 and out["line"]["last"] == 4.0


def test_spsa_finds_the_optimum_of_the_synthetic_game():
    """Two heuristic weights and a log-scale value_scale, every field at its default, 2000
    pairs in steps of 8: within a tenth of each span of the optimum in at least 90% of seeds."""
    shares = convergence(pairs=2000, batch=8, seeds=20)
    assert shares["all"] >= 0.9, shares
