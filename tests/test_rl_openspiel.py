"""The OpenSpiel game python_azul: OpenSpiel's conformance test, chance nodes, serialization, MCTS."""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

from engine import GameState, new_game  # noqa: E402
from engine.rl import observation, register_openspiel, win_returns  # noqa: E402
from engine.rules import COLOURS  # noqa: E402

register_openspiel()
register_openspiel()  # a second call is harmless


def load(**params):
    return pyspiel.load_game("python_azul", params)


def random_walk(state, rng, stop=None):
    """Apply random actions (chance with the state's odds) until terminal or ``stop(state)``."""
    while not state.is_terminal() and not (stop and stop(state)):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("params,sims", [({}, 3), ({"players": 3, "variant": "gray"}, 1), ({"players": 4}, 1)])
def test_openspiel_random_sim_test(params, sims):
    pyspiel.random_sim_test(load(**params), num_sims=sims, serialize=True, verbose=False)


def test_parameters_and_registration():
    assert "python_azul" in pyspiel.registered_names()
    game = load()
    assert game.num_players() == 2 and game.get_parameters() == {"players": 2, "variant": "colored"}
    assert game.num_distinct_actions() == 325 and game.max_chance_outcomes() == 5
    assert load(players=4, variant="gray").observation_tensor_size() == 699
    with pytest.raises(Exception, match="players must be 2, 3 or 4, not 5"):
        load(players=5)
    with pytest.raises(Exception, match="variant must be 'colored' or 'gray', not 'blue'"):
        load(variant="blue")


def test_chance_outcomes_are_the_bag_counts_over_the_total():
    rng = random.Random(1)
    state = load(players=3).new_initial_state()
    seen = 0
    while not state.is_terminal():
        if state.is_chance_node():
            bag = state.position_json()["bag"]
            total = sum(bag.values())
            outcomes = state.chance_outcomes()
            assert [a for a, _ in outcomes] == [i for i, c in enumerate(COLOURS) if bag[c]]
            assert [p for _, p in outcomes] == pytest.approx([bag[c] / total for c in COLOURS if bag[c]])
            seen += 1
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen >= 28  # at least one full deal of 7 factories


def deal_by_draws(game, position, factories):
    """Apply chance outcomes drawing ``factories`` tile by tile from ``position`` (phase refill)."""
    state = game.new_initial_state()
    state.set_position(position)
    for text in factories:
        left = [COLOURS.index(x) for x in text]
        while left:  # within a factory, any order; the bag's last tiles come before the lid's
            assert state.is_chance_node()
            possible = dict(state.chance_outcomes())
            colour = next(c for c in left if c in possible)
            left.remove(colour)
            state.apply_action(colour)
    return state


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_drawing_tile_by_tile_makes_the_seeded_deal(seed):
    """A seeded deal's factories, drawn as chance outcomes, give the same position; here the bag
    holds 6 tiles, so the lid must refill it during the deal."""
    rng = random.Random(seed)
    state = new_game(2, seed=rng.randrange(2**32))
    while state.phase != "refill":
        state.play(rng.choice(state.legal_moves()))
    pos = state.to_json()
    # Move all but 6 bag tiles into the lid: a legal refill position.
    bag, lid = pos["bag"], pos["lid"]
    keep = 6
    for c in COLOURS:
        moved = max(0, min(bag[c], sum(bag.values()) - keep))
        bag[c] -= moved
        lid[c] += moved
    low = GameState.from_json(pos)
    seeded = low.clone()
    seeded.deal(seed=seed)
    drawn = deal_by_draws(load(), low, seeded.to_json()["factories"])
    assert drawn.position == seeded
    assert not drawn.is_chance_node()


def test_observation_tensor_shows_the_deal_in_progress():
    game = load()
    state = game.new_initial_state()
    for colour in (0, 0, 2, 4, 1):  # B B R W into factory 1, Y into factory 2
        state.apply_action(colour)
    tensor = np.array(state.observation_tensor(0))
    assert tensor[:10].tolist() == [2, 0, 1, 0, 1, 0, 1, 0, 0, 0]
    bag = state.position_json()["bag"]
    assert bag == {"B": 18, "Y": 19, "R": 19, "K": 20, "W": 19}
    assert state.information_state_tensor(1) == state.observation_tensor(1)
    assert state.information_state_string(0).endswith("0 0 2 4 1")


def test_tensors_match_the_engine_observation_at_decision_nodes():
    rng = random.Random(7)
    state = load(players=3, variant="gray").new_initial_state()
    checked = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            for p in range(3):
                want = observation(state.position, p)["observation"]
                assert np.array_equal(np.array(state.observation_tensor(p), np.float32), want)
            assert state.legal_actions() == [m.code for m in state.position.legal_moves()]
            checked += 1
        random_walk(state, rng, stop=lambda s, n=len(state.history()): len(s.history()) > n)
    assert checked > 20
    assert state.returns() == win_returns(state.position.to_json()["ranks"])
    assert sum(state.returns()) == pytest.approx(0)


def test_serialize_round_trips():
    game = load(players=2, variant="gray")
    rng = random.Random(2)
    state = game.new_initial_state()
    for length in (0, 7, 30, 45, 80, 120):
        random_walk(state, rng, stop=lambda s, n=length: len(s.history()) >= n)
        again = game.deserialize_state(state.serialize())
        assert again.history() == state.history()
        assert str(again) == str(state) and again.position == state.position
        assert again.observation_tensor(0) == state.observation_tensor(0)
        if not state.is_terminal():
            assert again.legal_actions() == state.legal_actions()
            if state.is_chance_node():
                assert again.chance_outcomes() == state.chance_outcomes()


def test_same_chance_outcomes_same_game():
    game = load()
    a = random_walk(game.new_initial_state(), random.Random(4))
    b = game.new_initial_state()
    for action in a.history():
        b.apply_action(action)
    assert str(a) == str(b) and a.returns() == b.returns()


def test_openspiel_mcts_bot_plays_a_game():
    game = load()
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8,
                       evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)), random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(outcomes, p=probs))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert moves > 10 and sorted(state.returns()) == [-1.0, 1.0] or state.returns() == [0.0, 0.0]


# ---------------------------------------------------------------- edges: the round limit, serialization
def test_a_game_that_never_ends_is_truncated_within_max_game_length():
    from engine.rl.common import MAX_ROUNDS, standing_ranks
    from engine.rl.openspiel_game import max_game_length

    game = load()
    assert game.max_game_length() == max_game_length(2) == MAX_ROUNDS * (8 * 5 + 5 * 2)
    state = game.new_initial_state()
    for _ in range(game.max_game_length()):  # every draft to the floor that can go there: no row completes
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            legal = state.legal_actions()
            state.apply_action(next((a for a in legal if a < 300 and a % 6 == 5), legal[0]))
    assert len(state.history()) <= game.max_game_length()
    assert state.position.phase == "refill" and state.position.round == MAX_ROUNDS + 1
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
    assert state.returns() == win_returns(standing_ranks(state.position))
    with pytest.raises(Exception, match="after the end of the game"):
        state.apply_action(0)
    again = game.deserialize_state(state.serialize())
    assert again.is_terminal() and again.returns() == state.returns()


def test_serialize_is_json_and_round_trips_from_a_set_position():
    game = load(players=3)
    start = new_game(players=3, seed=5)
    start.play(start.legal_moves()[4])
    state = game.new_initial_state()
    state.set_position(start)
    random_walk(state, random.Random(3), stop=lambda s: len(s.history()) >= 40)
    text = state.serialize()
    assert text.startswith('{"format":"python_azul-state/1","start":{"format":"azul-position/1"')
    again = game.deserialize_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    assert again.serialize() == text


def test_deserialize_never_unpickles(tmp_path):
    import base64
    import os
    import pickle

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    crafted = ("history=\nmove_number=0\n__dict__="
               + base64.b64encode(pickle.dumps({"position": Payload()})).decode())
    game = load()
    with pytest.raises(ValueError, match="not a serialized state"):
        game.deserialize_state(crafted)
    assert not marker.exists()


@pytest.mark.parametrize("text, words", [
    pytest.param("[" * 100_000, "not a serialized state", id="nested-too-deep"),
    ('{"format": "python_azul-state/1", "start": null}', "has the fields format, start, actions"),
    ('{"format": "python_azul-state/1", "start": null, "actions": [1.5]}', "actions must be a list of integers"),
    ('{"format": "python_azul-state/1", "start": null, "actions": [7]}', r"action 0 \(7\) is not legal"),
    ('{"format": "python_azul-state/1", "start": {"format": "azul-position/1"}, "actions": []}',
     "serialized state: start: "),
])
def test_deserialize_refuses_what_serialize_does_not_write(text, words):
    with pytest.raises(ValueError, match=words):
        load().deserialize_state(text)
