"""engine.rl's observation vectors, masks and rewards (no PettingZoo or OpenSpiel needed)."""
import random
import subprocess
import sys

import numpy as np
import pytest

from engine import GameState, new_game
from engine.rl import N_ACTIONS, observation, observation_layout, split_observation, win_returns
from engine.rl.common import score_returns
from engine.rules import COLOURS, FACTORIES


def random_positions(players, variant, seed, every=3):
    """Positions along a random game (draft and tiling ones), one in ``every``."""
    rng = random.Random(seed)
    state = new_game(players, variant, seed=rng.randrange(2**32))
    n = 0
    while not state.is_over:
        if state.phase == "refill":
            state.deal(seed=rng.randrange(2**32))
            continue
        if n % every == 0:
            yield state.clone()
        n += 1
        state.play(rng.choice(state.legal_moves()))
    yield state


def expected_fields(pos, seat):
    """The observation fields of docs/rl.md, computed from the position JSON."""
    n = pos["players"]
    counts = lambda text: [text.count(c) for c in COLOURS]  # noqa: E731
    marker = [0] * (n + 1)
    marker[0 if pos["marker"] == "center" else 1 + (pos["marker"] - seat) % n] = 1
    to_move = [0] * n
    to_move[(pos["to_move"] - seat) % n] = 1
    out = {
        "factories": [counts(f) for f in pos["factories"]], "centre": counts(pos["center"]),
        "marker": marker, "to_move": to_move,
        "bag": [pos["bag"][c] for c in COLOURS], "lid": [pos["lid"][c] for c in COLOURS],
        "round": [pos["round"]], "tiling": [int(pos["phase"] == "tiling")],
    }
    for rel in range(n):
        board = pos["boards"][(seat + rel) % n]
        lines = np.zeros((5, 5))
        for k, line in enumerate(board["lines"]):
            if line:
                lines[k, COLOURS.index(line[0])] = len(line)
        wall = np.zeros((5, 5, 5))
        for r, row in enumerate(board["wall"]):
            for col, x in enumerate(row):
                if x != ".":
                    wall[r, col, COLOURS.index(x)] = 1
        out[f"board{rel}.lines"] = lines
        out[f"board{rel}.wall"] = wall
        out[f"board{rel}.floor"] = counts(board["floor"]) + [board["floor"].count("1")]
        out[f"board{rel}.score"] = [board["score"]]
    return out


@pytest.mark.parametrize("players,variant", [(2, "colored"), (3, "gray"), (4, "colored"), (4, "gray")])
def test_observation_fields_match_the_position_json(players, variant):
    checked = 0
    for state in random_positions(players, variant, seed=players * 10 + len(variant)):
        pos = state.to_json()
        for seat in range(players):
            fields = split_observation(observation(state, seat)["observation"], players)
            for name, want in expected_fields(pos, seat).items():
                assert np.array_equal(fields[name], np.asarray(want, np.float32).reshape(fields[name].shape)), \
                    (name, seat, pos)
            checked += 1
    assert checked > 30


def test_layout_covers_the_vector_once():
    for players in (2, 3, 4):
        layout = observation_layout(players)
        size = len(observation(new_game(players, seed=1))["observation"])
        covered = np.zeros(size, int)
        for at, shape in layout.values():
            covered[at:at + int(np.prod(shape))] += 1
        assert (covered == 1).all()
        assert layout["factories"][1] == (FACTORIES[players], 5)
    assert len(observation(new_game(2, seed=1))["observation"]) == 361


@pytest.mark.parametrize("players,variant", [(2, "colored"), (3, "gray")])
def test_action_mask_is_the_legal_move_codes(players, variant):
    for state in random_positions(players, variant, seed=5, every=1):
        mask = observation(state)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
        assert list(np.flatnonzero(mask)) == [m.code for m in state.legal_moves()]
        if not state.is_over:
            other = (state.to_move + 1) % players
            assert not observation(state, other)["action_mask"].any()


def test_observation_is_read_only_and_checks_the_seat():
    state = new_game(2, seed=3)
    before = state.to_json()
    observation(state, 1)
    assert state.to_json() == before
    with pytest.raises(ValueError, match="seat must be from 0 to 1, not 2"):
        observation(state, 2)


def test_win_returns_split_plus_one_and_minus_one():
    assert win_returns([1, 2]) == [1.0, -1.0]
    assert win_returns([1, 1]) == [0.0, 0.0]
    assert win_returns([2, 1, 2]) == [-0.5, 1.0, -0.5]
    assert win_returns([1, 1, 3]) == [0.5, 0.5, -1.0]
    assert win_returns([1, 1, 3, 3]) == [0.5, 0.5, -0.5, -0.5]
    assert win_returns([1, 1, 1, 4]) == pytest.approx([1 / 3, 1 / 3, 1 / 3, -1.0])
    assert score_returns([10, 20, 30]) == [-10.0, 0.0, 10.0]


def test_engine_imports_without_the_rl_libraries():
    code = ("import sys, engine, engine.rl, bots.policy\n"
            "bad = [m for m in ('pettingzoo', 'pyspiel', 'open_spiel', 'gymnasium') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_position_read_from_json_observes_like_the_played_one():
    state = next(s for i, s in enumerate(random_positions(2, "colored", seed=9)) if i == 4)
    again = GameState.from_json(state.to_json())
    assert np.array_equal(observation(state)["observation"], observation(again)["observation"])
