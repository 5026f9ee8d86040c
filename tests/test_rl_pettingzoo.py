"""The PettingZoo environment: PettingZoo's own API and seed tests, and what the numbers mean."""
import re

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from engine import IllegalMoveError  # noqa: E402
from engine.rl import observation, pettingzoo_env, split_observation  # noqa: E402


def play(env, seed, pick_seed=0):
    """Play a whole game with random legal actions; return the actions, rewards and final game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(pick_seed)
    actions, rewards = [], {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            rewards[agent] = reward
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
    return actions, rewards, env.game


def test_pettingzoo_api_test():
    api_test(pettingzoo_env(seed=1), num_cycles=1000)
    api_test(pettingzoo_env(players=3, variant="gray", seed=2), num_cycles=1000)


@pytest.mark.parametrize("players,variant", [(2, "colored"), (4, "gray")])
def test_pettingzoo_seed_test(players, variant):
    seed_test(lambda: pettingzoo_env(players=players, variant=variant), num_cycles=500)


def test_same_seed_same_game_and_other_seeds_other_deals():
    env = pettingzoo_env()
    first = play(env, seed=11)
    again = play(env, seed=11)
    assert first[0] == again[0] and first[2] == again[2]
    fresh = play(pettingzoo_env(seed=11), seed=None)  # the constructor's seed serves the first reset
    assert fresh[0] == first[0]
    env.reset(seed=11)
    deal = env.game.to_json()["factories"]
    env.reset(seed=12)
    assert env.game.to_json()["factories"] != deal


def test_agents_observe_their_own_board_first_and_the_mover_gets_the_mask():
    env = pettingzoo_env(players=3, seed=4)
    env.reset()
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    assert env.agent_selection == "player_1"
    for seat, agent in enumerate(env.agents):
        seen = env.observe(agent)
        direct = observation(env.game, seat)
        assert np.array_equal(seen["observation"], direct["observation"])
        assert np.array_equal(seen["action_mask"], direct["action_mask"])
        assert seen["action_mask"].any() == (agent == "player_1")
        fields = split_observation(seen["observation"], 3)
        assert fields["to_move"][(1 - seat) % 3] == 1
        assert fields["board0.floor"].sum() == len(env.game.to_json()["boards"][seat]["floor"])


@pytest.mark.parametrize("players", [2, 3])
def test_win_rewards_at_the_end_only(players):
    env = pettingzoo_env(players=players)
    _, rewards, game = play(env, seed=3)
    ranks = game.to_json()["ranks"]
    assert sum(rewards.values()) == pytest.approx(0)
    winners = ranks.count(1)
    for seat, agent in enumerate(env.possible_agents):
        want = 1 / winners if ranks[seat] == 1 else -1 / (players - winners)
        assert rewards[agent] == pytest.approx(0 if winners == players else want)
    assert env.agents == []


def test_score_rewards_are_score_minus_mean():
    env = pettingzoo_env(players=3, reward="score")
    _, rewards, game = play(env, seed=8)
    scores = game.scores
    for seat, agent in enumerate(env.possible_agents):
        assert rewards[agent] == pytest.approx(scores[seat] - sum(scores) / 3)


def test_illegal_action_raises_and_changes_nothing():
    env = pettingzoo_env(seed=2)
    env.reset()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.game.to_json()
    with pytest.raises(IllegalMoveError, match="illegal move"):
        env.step(illegal)
    assert env.game.to_json() == before
    with pytest.raises(ValueError, match="action must be a move code from 0 to 324"):
        env.step(325)


def test_render_ansi_is_the_plain_text_board():
    """engine.text draws it (no import from azul_cli); its status line is the terminal's."""
    from azul_cli.render import status_line
    from engine.text import board_text

    env = pettingzoo_env(render_mode="ansi", seed=5)
    env.reset()
    text = env.render()
    assert text == board_text(env.game.to_json())
    assert text.startswith("Azul, 2 players, colored wall | round 1 | draft | seat 0 to move")
    assert text.splitlines()[0] == status_line(env.game.to_json()).plain
    assert re.search(r"\nfactories  1:[BYRKW]{4} 2:[BYRKW]{4} ", text) and "seat 1  score 0" in text and "\x1b[" not in text
    assert "seat 0  score 0  < to move" in text and "5 . . . . . | y r k w b" in text
    quiet = pettingzoo_env(seed=5)
    quiet.reset()
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


@pytest.mark.parametrize("kwargs,message", [
    ({"players": 5}, "players must be 2, 3 or 4, not 5"),
    ({"variant": "blue"}, "variant must be 'colored' or 'gray', not 'blue'"),
    ({"reward": "x"}, "reward must be 'win' or 'score', not 'x'"),
    ({"render_mode": "human"}, "render_mode must be None or 'ansi', not 'human'"),
    ({"seed": 1.5}, "seed must be an integer or None, not 1.5"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pettingzoo_env(**kwargs)


def test_step_before_reset_says_so():
    with pytest.raises(RuntimeError, match="reset"):
        pettingzoo_env().step(0)


# ---------------------------------------------------------------- edges: the round limit, order, actions
def floor_first(mask):
    """A policy that stalls the game: a draft to the floor whenever one is legal."""
    legal = np.flatnonzero(mask)
    floor = [a for a in legal if a < 300 and a % 6 == 5]
    return int(floor[0] if floor else legal[0])


def test_a_game_that_never_ends_is_truncated_after_max_rounds():
    from engine.rl.common import MAX_ROUNDS, final_returns

    env = pettingzoo_env(seed=1, reward="score")
    env.reset(seed=1)
    steps, ended = 0, {}
    for agent in env.agent_iter(max_iter=50_000):
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            ended[agent] = (reward, termination, truncation)
            env.step(None)
            continue
        env.step(floor_first(obs["action_mask"]))
        steps += 1
    assert env.game.phase == "refill" and env.game.round == MAX_ROUNDS + 1  # round 101 never dealt
    expected = final_returns(env.game, "score")
    assert ended == {agent: (expected[s], False, True) for s, agent in enumerate(env.possible_agents)}
    assert steps < 50_000 and env.agents == []


def test_last_render_and_step_outside_a_game_say_so():
    env = pettingzoo_env(seed=3, render_mode="ansi")
    for call in (env.last, env.render, lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) first"):
            call()
    play(env, seed=3)
    for call in (env.last, lambda: env.step(None), lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"after the game ended .*: call reset\(\) for a new game"):
            call()
    assert env.render()  # the final position can still be drawn
    env.reset(seed=4)
    assert env.last()[2] is False


@pytest.mark.parametrize("action", [1.5, 2.0, np.float64(1.0), True, "1", None, np.array([1])])
def test_an_action_that_is_not_an_integer_code_is_refused(action):
    env = pettingzoo_env(seed=2)
    env.reset()
    before = env.game.to_json()
    with pytest.raises(ValueError, match=r"action must be a move code from 0 to 324 \(an integer\)"):
        env.step(action)
    assert env.game.to_json() == before


def test_numpy_integer_actions_are_accepted():
    env = pettingzoo_env(seed=2)
    env.reset()
    from engine import Move

    expected = env.game.clone()
    for wrap in (lambda code: code, np.array):  # a numpy int64, then a 0-d array
        code = np.flatnonzero(env.last()[0]["action_mask"])[-1]
        expected.play(Move(int(code)))
        env.step(wrap(code))
        assert env.game.to_json() == expected.to_json()
