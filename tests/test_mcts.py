"""The MCTS bot: legal and deterministic moves, no peeking at the referee's deals, analysis rows,
parameter errors, and a decision study of rules text 004."""
import json
import pickle
import random

import pytest

from bots import make_bot
from bots.mcts import MCTSBot
from engine import GameState, new_game

COLOURS = "BYRKW"
N_FACTORIES = {2: 5, 3: 7, 4: 9}


def random_positions(players, variant, seed, every=7):
    """Positions met in one game of random moves: every `every`-th one, and every tiling one."""
    rng = random.Random(seed)
    state = new_game(players, variant, seed=seed)
    found, ply = [], 0
    while state.phase != "over":
        if state.phase == "refill":
            state.deal(seed=rng.getrandbits(32))
            continue
        if state.phase == "tiling" or ply % every == 0:
            found.append(state.clone())
        state.play(rng.choice(state.legal_moves()))
        ply += 1
    return found


def position(boards, center="", factories=(), marker="center", to_move=0, opener=0, round=4):
    """A position from its boards and table; every other tile lies in the bag."""
    factories = list(factories) + [""] * (N_FACTORIES[len(boards)] - len(factories))
    placed = "".join(factories) + center + "".join(
        b["floor"] + "".join(b["lines"]) + "".join(b["wall"]) for b in boards)
    return GameState.from_json({
        "format": "azul-position/1", "variant": "colored", "players": len(boards), "round": round,
        "phase": "draft", "to_move": to_move, "opener": opener, "factories": factories,
        "center": center, "marker": marker, "bag": {c: 20 - placed.count(c) for c in COLOURS},
        "lid": {c: 0 for c in COLOURS}, "boards": boards})


def board(score=0, lines=("", "", "", "", ""), wall=(".....",) * 5, floor=""):
    return {"score": score, "lines": list(lines), "wall": list(wall), "floor": floor}


# ---------------------------------------------------------------- legal, deterministic, read-only


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_moves_are_legal_and_the_shown_state_is_untouched(players, variant):
    bot = MCTSBot(seed=players, iterations=150)
    tiling = 0
    for state in random_positions(players, variant, seed=10 * players + len(variant)):
        before = state.to_json()
        move = bot.act(state)
        assert move in state.legal_moves()
        assert state.to_json() == before
        tiling += state.phase == "tiling"
    if variant == "gray":
        assert tiling > 0, "no gray tiling position was searched"


def test_the_other_rollouts_and_the_game_cutoff_play_legal_moves():
    states = random_positions(3, "gray", seed=5, every=11)
    for params in [{"rollout": "greedy"}, {"rollout": "heuristic"}, {"cutoff": "game"},
                   {"rollout": "greedy", "cutoff": "game"}]:
        bot = make_bot("mcts", seed=2, iterations=100, **params)
        for state in states:
            assert bot.act(state) in state.legal_moves()


def test_fixed_seed_and_iterations_give_the_same_search():
    state = random_positions(2, "colored", seed=3)[4]
    a = MCTSBot(seed=7, iterations=3000).analyze(state)
    b = MCTSBot(seed=7, iterations=3000).analyze(state)
    assert a == b
    bot = MCTSBot(seed=7, iterations=3000)
    assert bot.act(state) == bot.act(state)       # nothing carried between searches
    assert MCTSBot(seed=8, iterations=3000).analyze(state) != a


def test_a_time_budget_searches_and_plays_a_legal_move():
    state = new_game(2, seed=4)
    bot = MCTSBot(seed=1, seconds=0.05)
    assert bot.act(state) in state.legal_moves()
    assert bot._search.iterations_done > 100


def test_a_full_node_pool_stops_growing_the_tree_not_the_search():
    state = new_game(4, seed=5)
    bot = MCTSBot(seed=1, iterations=3000, max_nodes=1000)
    rows = bot.analyze(state)
    assert sum(r["visits"] for r in rows) == 3000 and bot._search.nodes_used <= 1000
    assert bot.act(state) in state.legal_moves()


def test_the_bot_pickles_without_its_tree():
    bot = MCTSBot(seed=3, iterations=200)
    state = new_game(2, seed=9)
    move = bot.act(state)
    copy = pickle.loads(pickle.dumps(bot))
    assert copy.act(state) == move


# ---------------------------------------------------------------- chance is the bot's own


def test_the_search_depends_only_on_the_position_and_the_seed():
    state = random_positions(3, "colored", seed=8)[3]
    move = MCTSBot(seed=5, iterations=1000).act(state)
    assert MCTSBot(seed=5, iterations=1000).act(GameState.from_json(state.to_json())) == move
    assert MCTSBot(seed=5, iterations=1000).act(GameState.from_json(json.dumps(state.to_json()))) == move


def test_games_with_other_future_deals_agree_until_the_next_deal():
    """Same first deal, same bot seeds, different referee seeds for later deals: round 1 is
    played identically (the bots never read the referee's generator); the games then diverge."""
    def game(deal_seed):
        referee = random.Random(deal_seed)
        seats = [MCTSBot(seed=11, iterations=200, cutoff="game"), MCTSBot(seed=12, iterations=200)]
        state = new_game(2, seed=1)
        record = []
        while state.phase != "over" and state.round <= 2:
            if state.phase == "refill":
                state.deal(seed=referee.getrandbits(32))
                record.append(("deal", tuple(state.to_json()["factories"])))
                continue
            move = seats[state.to_move].act(state)
            record.append((state.round, str(move)))
            state.play(move)
        return record

    a, b = game(100), game(200)
    first_deal = next(i for i, r in enumerate(a) if r[0] == "deal")
    assert a[:first_deal] == b[:first_deal]
    assert a[first_deal] != b[first_deal]


# ---------------------------------------------------------------- analysis


def test_analyze_rows_are_consistent_with_act():
    state = random_positions(2, "colored", seed=6)[2]
    bot = MCTSBot(seed=2, iterations=4000)
    rows = bot.analyze(state)
    legal = {str(m) for m in state.legal_moves()}
    assert {r["move"] for r in rows} == legal
    assert sum(r["visits"] for r in rows) == 4000
    assert [r["visits"] for r in rows] == sorted((r["visits"] for r in rows), reverse=True)
    assert rows[0]["move"] == str(bot.act(state))
    for r in rows:
        assert 0.0 <= r["value"] <= 1.0
        assert r["pv"][0] == r["move"] and 1 <= len(r["pv"]) <= 8
    assert len(rows[0]["pv"]) >= 3
    # An explicit budget overrides the bot's own (and its time budget).
    assert sum(r["visits"] for r in MCTSBot(seconds=5.0).analyze(state, iterations=500)) == 500


def floor_drafts_a_line_takes_whole(state):
    """The floor drafts whose tiles one legal pattern line of the same source and colour takes
    all of (line k holds k tiles), worked out from the position's JSON."""
    pos = state.to_json()
    lines = pos["boards"][state.to_move]["lines"]
    moves = [m for m in state.legal_moves() if not m.is_tiling]
    taken = {}
    for m in moves:
        source = pos["center"] if m.from_center else pos["factories"][m.factory - 1]
        taken[str(m)] = source.count(m.colour)
    return {str(m) for m in moves if m.line is None and any(
        o.line is not None and (o.factory, o.from_center, o.colour) == (m.factory, m.from_center, m.colour)
        and o.line - len(lines[o.line - 1]) >= taken[str(m)] for o in moves)}


@pytest.mark.parametrize("players", [2, 4])
def test_prune_floor_leaves_out_exactly_the_floor_drafts_a_line_takes_whole(players):
    pruned_some = 0
    for state in random_positions(players, "colored", seed=40 + players, every=3):
        legal = {str(m) for m in state.legal_moves()}
        dropped = floor_drafts_a_line_takes_whole(state)
        rows = MCTSBot(seed=1, iterations=300, prune="floor").analyze(state)
        assert {r["move"] for r in rows} == legal - dropped
        assert {r["move"] for r in MCTSBot(seed=1, iterations=300).analyze(state)} == legal
        pruned_some += bool(dropped)
    assert pruned_some >= 3


def test_prune_keeps_the_moves_a_caller_allows():
    state = new_game(2, seed=3)
    floor = [m for m in state.legal_moves() if m.line is None]
    assert floor and floor_drafts_a_line_takes_whole(state) >= {str(m) for m in floor}
    bot = MCTSBot(seed=1, iterations=200, prune="floor")
    assert bot.choose_among(state, floor[:3]) in floor[:3]


def test_analyze_refuses_a_position_without_a_move():
    with pytest.raises(ValueError, match="phase refill"):
        MCTSBot().analyze(new_game(2))


# ---------------------------------------------------------------- parameters


@pytest.mark.parametrize("params, name", [
    ({"iterations": 0}, "iterations"), ({"iterations": 2.5}, "iterations"),
    ({"rollout": "foo"}, "rollout"), ({"cutoff": "turn"}, "cutoff"),
    ({"seconds": 0}, "seconds"), ({"seconds": -1.0}, "seconds"),
    ({"exploration": -0.1}, "exploration"), ({"value_scale": 0}, "value_scale"),
    ({"evaluator": "leader"}, "evaluator"), ({"evaluator": 1}, "evaluator"), ({"model": 3}, "model"),
    ({"prune": "all"}, "prune"),
])
def test_bad_parameters_name_the_parameter(params, name):
    # make_bot checks; building MCTSBot directly is the unchecked path, for checked values.
    with pytest.raises(ValueError, match=f"^mcts: parameter {name} must be "):
        make_bot("mcts", **params)


def test_the_name_shows_the_budget_and_what_differs_from_the_defaults():
    assert MCTSBot(iterations=5000).name == "mcts(iterations=5000)"
    assert MCTSBot(seconds=0.5, rollout="random").name == "mcts(seconds=0.5, rollout=random)"


# ---------------------------------------------------------------- a decision study (rules 004)


def test_decision_complete_now_or_avoid_overflow_prefers_line_two():
    # "Take the same two blues into line one or line two ... Here line two saves floor cost."
    state = position([board(score=3), board(floor="1")], center="BB", marker=1)
    for params in ({}, {"cutoff": "game"}):      # scored at the round's end, or played out
        rows = MCTSBot(seed=1, iterations=2000, **params).analyze(state)
        assert rows[0]["move"] == "CB2", params
        value = {r["move"]: r["value"] for r in rows}
        assert value["CB2"] > value["CB1"], params


def test_position_values_are_each_seats_mean_through_the_move_played():
    """``position_values``: per seat, the mean value of the iterations through the most visited root
    child (what a review maps to win probabilities); at 2 players the two sum to 1 and the
    mover's is the played move's value that ``analyze`` shows."""
    from bots.spec import bot_from_spec

    for players in (2, 3, 4):
        state = new_game(players=players)
        state.deal(seed=players)
        bot = bot_from_spec(f"mcts-{players}p:iterations=300", 5)
        values = bot.position_values(state)
        assert len(values) == players and all(0 <= v <= 1 for v in values)
        if players == 2:
            assert sum(values) == pytest.approx(1.0)
            assert values[state.to_move] == pytest.approx(bot.analyze(state)[0]["value"])
        assert bot.position_values(state) == values  # the same search for the same seed
    with pytest.raises(ValueError, match="not one of the root's children"):
        bot._search.child_values(10_000)
