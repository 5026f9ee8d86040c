"""Properties of the engine's public API (SPEC sections 3 and 4, docs/engine.md), over random games.

Random games are driven by a ``random.Random`` that owns every choice: the move played and the
seed of every deal. Along them the tests check what must hold at every step (tile conservation,
JSON and pickle round trips, the attributes agreeing with ``to_json``, scores never negative),
what ``clone`` and the deal seeds promise (independence, determinism, no generator kept in the
state), and the errors the API raises for moves, deals and arguments it refuses.
"""
import copy
import json
import pickle
import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (COLOURS, GameState, IllegalMoveError, Move, new_game,
                    random_playouts)
from engine.notation import MOVES, TILING_BASE

SETUPS = [(p, v) for v in ("colored", "gray") for p in (2, 3, 4)]
DRAFT_MOVES = MOVES[:TILING_BASE]      # all 300 draft codes, factories 1-9 and the centre

seeds = st.integers(min_value=0, max_value=2**32 - 1)
setups = st.sampled_from(SETUPS)


# ---------------------------------------------------------------- helpers

def step(state, rng):
    """One step of a random game: a deal in refill, else a uniformly chosen legal move."""
    if state.phase == "refill":
        seed = rng.randrange(2**32)
        state.deal(seed=seed)
        return f"deal {seed}"
    move = rng.choice(state.legal_moves())
    state.play(move)
    return str(move)


def walk(players, variant, seed):
    """Yield the state of a random game after its first deal and after every later step."""
    rng = random.Random(seed)
    state = new_game(players=players, variant=variant, seed=rng.randrange(2**32))
    yield state
    while not state.is_over:
        step(state, rng)
        yield state


def play_out(state, rng, limit=None):
    """Play random steps until the game is over (or `limit` steps); return what was done."""
    done = []
    while not state.is_over and (limit is None or len(done) < limit):
        done.append(step(state, rng))
    return done


def tile_counts(position):
    """How many tiles of each colour the position holds, everywhere, counted from its JSON."""
    counts = {c: position["bag"][c] + position["lid"][c] for c in COLOURS}
    texts = list(position["factories"]) + [position["center"]]
    for board in position["boards"]:
        texts += board["lines"] + board["wall"] + [board["floor"]]
    for text in texts:
        for ch in text:
            if ch in counts:
                counts[ch] += 1
            else:
                assert ch in ".1", f"unexpected character {ch!r} in {text!r}"
    return counts


def state_at(players, variant, seed, phase, skip=0):
    """A state from a random game in the given phase (the `skip`-th time it is reached)."""
    rng = random.Random(seed)
    state = new_game(players=players, variant=variant, seed=rng.randrange(2**32))
    while True:
        if state.phase == phase:
            if skip == 0:
                return state
            skip -= 1
        if state.is_over:
            return None
        step(state, rng)


# ---------------------------------------------------------------- invariants along random games

@settings(max_examples=60, deadline=None)
@given(seed=seeds, setup=setups)
def test_every_step_conserves_tiles_and_agrees_with_its_json(seed, setup):
    players, variant = setup
    for state in walk(players, variant, seed):
        position = state.to_json()
        assert tile_counts(position) == {c: 20 for c in COLOURS}
        # the attributes agree with the JSON
        assert state.scores == [b["score"] for b in position["boards"]]
        assert all(score >= 0 for score in state.scores)
        assert state.phase == position["phase"]
        assert state.to_move == position["to_move"]
        assert state.round == position["round"]
        assert state.variant == position["variant"] == variant
        assert state.players == position["players"] == players
        assert len(position["boards"]) == players
        assert len(position["factories"]) == 2 * players + 1
        assert state.is_over == (position["phase"] == "over")
        assert ("ranks" in position) == state.is_over
        if state.phase in ("refill", "over"):
            assert state.legal_moves() == []
        else:
            assert state.legal_moves(), f"no legal move in phase {state.phase}"
        if variant == "colored":
            assert state.phase != "tiling"
    assert state.is_over


@settings(max_examples=60, deadline=None)
@given(seed=seeds, setup=setups)
def test_final_ranks_follow_scores_then_complete_rows(seed, setup):
    players = setup[0]
    for state in walk(*setup, seed):
        pass
    position = state.to_json()
    scores, ranks = state.scores, position["ranks"]
    rows = [sum("." not in row for row in b["wall"]) for b in position["boards"]]
    assert len(ranks) == players and min(ranks) == 1
    for i, j in combinations(range(players), 2):
        if scores[i] > scores[j]:
            assert ranks[i] < ranks[j], (scores, ranks)
        if scores[i] < scores[j]:
            assert ranks[i] > ranks[j], (scores, ranks)
    # the exact rule: one plus the number of seats strictly better on (score, complete rows)
    key = list(zip(scores, rows))
    assert ranks == [1 + sum(other > mine for other in key) for mine in key]


@settings(max_examples=30, deadline=None)
@given(seed=seeds, setup=setups)
def test_json_round_trip_at_every_step(seed, setup):
    for state in walk(*setup, seed):
        position = state.to_json()
        back = GameState.from_json(position)
        assert back.to_json() == position
        assert GameState.from_json(json.dumps(position)).to_json() == position
        assert back.legal_moves() == state.legal_moves()
        assert back == state
        # to_json hands out a fresh dict: changing it changes nothing
        position["boards"][0]["score"] += 1000
        position["factories"][0] = "XXXX"
        assert state.to_json() == back.to_json()


@settings(max_examples=25, deadline=None)
@given(seed=seeds, setup=setups, every=st.integers(min_value=3, max_value=8))
def test_pickle_round_trip_and_the_copy_plays_on_identically(seed, setup, every):
    rng = random.Random(seed)
    for n, state in enumerate(walk(*setup, seed)):
        if n % every:
            continue
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):  # 0 and 1: see the note below
            back = pickle.loads(pickle.dumps(state, protocol))
            assert type(back) is GameState
            assert back.to_json() == state.to_json()
        # play both on with the same choices: same moves, same deals, same positions
        original = state.clone()
        branch_seed = rng.randrange(2**32)
        a, b = random.Random(branch_seed), random.Random(branch_seed)
        for _ in range(20):
            if original.is_over:
                break
            assert back.legal_moves() == original.legal_moves()
            assert step(original, a) == step(back, b)
            assert back.to_json() == original.to_json()
        assert back.is_over == original.is_over


@pytest.mark.parametrize("protocol", [0, 1])
def test_a_state_pickles_with_the_old_protocols_too(protocol):
    state = new_game(3, "gray", seed=2)
    assert pickle.loads(pickle.dumps(state, protocol)).to_json() == state.to_json()


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_move_pickles_to_its_interned_object(protocol):
    for move in MOVES:
        assert pickle.loads(pickle.dumps(move, protocol)) is move
        assert copy.copy(move) == move and copy.deepcopy(move) == move
        assert Move.parse(str(move)) is move
        assert Move.parse(str(move).lower()) is move


# ---------------------------------------------------------------- clone, copy, deepcopy

@settings(max_examples=30, deadline=None)
@given(seed=seeds, setup=setups, at=st.integers(min_value=0, max_value=120),
       how=st.sampled_from(["clone", "copy", "deepcopy"]))
def test_a_copy_is_independent_both_ways(seed, setup, at, how):
    make = {"clone": GameState.clone, "copy": copy.copy, "deepcopy": copy.deepcopy}[how]
    rng = random.Random(seed)
    state = new_game(*setup, seed=rng.randrange(2**32))
    play_out(state, rng, limit=at)
    before = state.to_json()

    other = make(state)
    assert type(other) is GameState and other is not state
    assert other.to_json() == before and other == state
    # playing and dealing the copy to the end leaves the original as it was
    done = play_out(other, random.Random(seed + 1))
    assert state.to_json() == before
    if not state.is_over:
        assert done, "the copy could not be played"

    # and the other way: a fresh copy stays put while the original plays on
    snapshot = make(state)
    play_out(state, random.Random(seed + 2))
    assert snapshot.to_json() == before
    # the copy still plays: it shares nothing with the finished original
    play_out(snapshot, random.Random(seed + 3))
    assert snapshot.is_over


# ---------------------------------------------------------------- seeds and deals

@pytest.mark.parametrize("players,variant", SETUPS)
def test_new_game_is_determined_by_its_seed(players, variant):
    for s in (0, 1, 7, 2**32 - 1, 2**40 + 3):
        assert new_game(players, variant, seed=s).to_json() == new_game(players, variant, seed=s).to_json()
    deals = [tuple(new_game(players, variant, seed=s).to_json()["factories"]) for s in range(40)]
    pairs = list(combinations(deals, 2))
    differ = sum(a != b for a, b in pairs)
    assert differ >= 0.95 * len(pairs), f"only {differ} of {len(pairs)} seed pairs deal differently"
    # the variant changes the board, not the deal
    assert (new_game(players, "colored", seed=5).to_json()["factories"]
            == new_game(players, "gray", seed=5).to_json()["factories"])


@settings(max_examples=20, deadline=None)
@given(seed=seeds, setup=setups, skip=st.integers(min_value=0, max_value=3))
def test_deal_seeds_on_clones_mid_game(seed, setup, skip):
    state = state_at(*setup, seed, "refill", skip)
    if state is None:
        return
    # same seed, same deal
    a, b = state.clone(), state.clone()
    a.deal(seed=12345)
    b.deal(seed=12345)
    assert a.to_json() == b.to_json()
    assert a.phase == "draft" or a.is_over
    # different seeds, different deals (mostly: only a near-empty bag can repeat itself)
    deals = []
    for s in range(12):
        c = state.clone()
        c.deal(seed=s)
        deals.append(tuple(c.to_json()["factories"]))
    left = sum(state.to_json()["bag"].values()) + sum(state.to_json()["lid"].values())
    if left >= 8:
        assert len(set(deals)) >= 10, deals


@settings(max_examples=20, deadline=None)
@given(seed=seeds, setup=setups, skip=st.integers(min_value=0, max_value=3),
       deal_seed=seeds, clone_seed=seeds)
def test_the_state_holds_no_generator(seed, setup, skip, deal_seed, clone_seed):
    state = state_at(*setup, seed, "refill", skip)
    if state is None:
        return
    # a position read from JSON has no history at all: it is the control
    control = GameState.from_json(state.to_json())
    # a clone, dealt with another seed and played to the end, ...
    guess = state.clone()
    guess.deal(seed=clone_seed)
    play_out(guess, random.Random(clone_seed))
    # ... and a pickled copy, dealt too, change nothing of the original's next deal
    pickled = pickle.loads(pickle.dumps(state))
    pickled.deal(seed=clone_seed ^ 1)
    state.deal(seed=deal_seed)
    control.deal(seed=deal_seed)
    assert state.to_json() == control.to_json()
    # and a deal of a clone consumes nothing of the original
    fresh = new_game(*setup)
    fresh.deal(seed=deal_seed)
    twice = new_game(*setup)
    twice.clone().deal(seed=deal_seed)
    twice.deal(seed=deal_seed)
    assert fresh.to_json() == twice.to_json()


def test_dealing_the_same_seed_twice_in_one_game_repeats_nothing_hidden():
    """Two games dealt the same seed every round, one of them also cloned and dealt on the side
    before each deal, stay identical to the end."""
    for players, variant in SETUPS:
        rng_a, rng_b, rng_side = random.Random(99), random.Random(99), random.Random(100)
        a, b = new_game(players, variant), new_game(players, variant)
        while not a.is_over:
            if a.phase == "refill":
                side = b.clone()
                side.deal(seed=rng_side.randrange(2**32))
                play_out(side, rng_side, limit=10)
            assert step(a, rng_a) == step(b, rng_b)
            assert a.to_json() == b.to_json()
        assert b.is_over


# ---------------------------------------------------------------- legal and illegal moves

def assert_refused(state, move):
    before = state.to_json()
    with pytest.raises(IllegalMoveError):
        state.play(move)
    assert state.to_json() == before, f"a refused {move} changed the state"


@settings(max_examples=30, deadline=None)
@given(seed=seeds, setup=setups, at=st.integers(min_value=0, max_value=40))
def test_legal_moves_play_and_every_other_move_is_refused(seed, setup, at):
    rng = random.Random(seed)
    state = new_game(*setup, seed=rng.randrange(2**32))
    play_out(state, rng, limit=at)
    if state.is_over:
        return
    if state.phase == "refill":
        step(state, rng)
    legal = state.legal_moves()
    assert legal and len(set(legal)) == len(legal)
    assert legal == sorted(legal, key=lambda m: m.code), "legal moves out of notation order"
    for move in legal:
        c = state.clone()
        c.play(move)
        c = state.clone()
        c.play(str(move).lower())
    before = state.to_json()
    legal_set = set(legal)
    for move in MOVES:
        if move in legal_set:
            continue
        assert_refused(state, move)
        # as notation too, and the error is a ValueError
        with pytest.raises(ValueError):
            state.play(str(move))
    assert state.to_json() == before
    if state.phase == "draft":
        assert all(not m.is_tiling for m in legal)
    else:  # gray tiling: placements only, all of the same line
        assert state.phase == "tiling" and all(m.is_tiling for m in legal)
        assert len({m.line for m in legal}) == 1


@settings(max_examples=15, deadline=None)
@given(seed=seeds, setup=st.sampled_from([s for s in SETUPS if s[1] == "gray"]),
       skip=st.integers(min_value=0, max_value=4))
def test_gray_tiling_refuses_every_draft(seed, setup, skip):
    state = state_at(*setup, seed, "tiling", skip)
    if state is None:
        return
    for move in DRAFT_MOVES:
        assert_refused(state, move)
    for move in state.legal_moves():
        state.clone().play(move)


@pytest.mark.parametrize("players,variant", SETUPS)
def test_refill_and_over_have_no_moves_and_refuse_every_move(players, variant):
    fresh = new_game(players, variant)
    mid = state_at(players, variant, 3, "refill", 1)
    over = state_at(players, variant, 3, "over")
    for state in (fresh, mid, over):
        assert state is not None
        assert state.legal_moves() == []
        for move in MOVES:
            assert_refused(state, move)


@pytest.mark.parametrize("players,variant", SETUPS)
def test_deal_is_refused_outside_refill(players, variant):
    states = [new_game(players, variant, seed=4), state_at(players, variant, 4, "over")]
    if variant == "gray":
        states.append(state_at(players, variant, 4, "tiling"))
    for state in states:
        assert state is not None and state.phase != "refill"
        before = state.to_json()
        with pytest.raises(IllegalMoveError, match="refill"):
            state.deal(seed=1)
        factories = ["BBBB"] * (2 * players + 1)
        with pytest.raises(IllegalMoveError):
            state.deal(factories=factories)
        assert state.to_json() == before


def test_deal_needs_exactly_one_of_seed_and_factories():
    for state in (new_game(2), state_at(3, "gray", 8, "refill", 1)):
        before = state.to_json()
        factories = ["BBRY", "KWWY", "RRRR", "BYKW", "YYKK", "BBBB", "YYYY"][: len(before["factories"])]
        for kwargs in ({}, {"seed": 1, "factories": factories}, {"seed": None, "factories": None}):
            with pytest.raises(ValueError, match="seed"):
                state.deal(**kwargs)
            assert state.to_json() == before
        state.deal(seed=1)  # and either alone still works
        assert state.phase == "draft"


# ---------------------------------------------------------------- argument errors

@pytest.mark.parametrize("players", [1, 5, 0, -2, "2", True, False, 2.0, None])
def test_new_game_rejects_bad_players(players):
    with pytest.raises(ValueError, match="players"):
        new_game(players=players)


@pytest.mark.parametrize("variant", ["grey", "Gray", "coloured", "", None, 1])
def test_new_game_rejects_bad_variant(variant):
    with pytest.raises(ValueError, match="variant"):
        new_game(variant=variant)


# ---------------------------------------------------------------- random_playouts

def test_random_playouts_is_seeded():
    a = random_playouts(500, players=3, variant="gray", seed=5)
    assert a == random_playouts(500, players=3, variant="gray", seed=5)
    assert a["games"] == 500
    b = random_playouts(500, players=3, variant="gray", seed=6)
    assert (a["moves"], a["rounds"], a["score"]) != (b["moves"], b["rounds"], b["score"])
    results = {tuple(random_playouts(200, players=2, seed=s).values()) for s in range(10)}
    assert len(results) >= 9


def test_random_playouts_of_no_games():
    for players, variant in SETUPS:
        assert random_playouts(0, players=players, variant=variant, seed=3) == {
            "games": 0, "moves": 0, "rounds": 0, "score": 0}


@pytest.mark.parametrize("kwargs,word", [
    ({"games": 10, "players": 1}, "players"),
    ({"games": 10, "players": 5}, "players"),
    ({"games": 10, "variant": "grey"}, "variant"),
    ({"games": 10, "variant": "Colored"}, "variant"),
    ({"games": -1}, "games"),
])
def test_random_playouts_rejects_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        random_playouts(**kwargs)


def test_random_playout_figures():
    n = 20_000
    coloured = random_playouts(n, players=2, variant="colored", seed=2024)
    assert coloured["games"] == n
    assert 69.5 <= coloured["moves"] / n <= 71.1, coloured
    assert 6.45 <= coloured["rounds"] / n <= 6.75, coloured
    assert coloured["score"] >= 0
    gray = random_playouts(5_000, players=2, variant="gray", seed=2024)
    assert gray["moves"] / 5_000 > coloured["moves"] / n
    for players in (3, 4):
        r = random_playouts(2_000, players=players, seed=1)
        assert r["games"] == 2_000 and r["moves"] > 0 and r["rounds"] >= 2_000 * 5


def test_random_playouts_agree_with_the_python_api_on_average():
    """Uniform random games played through GameState have about the same length as in the core
    (uniform over legal moves; the core is uniform over the same triples)."""
    rng = random.Random(7)
    games, moves, rounds = 150, 0, 0
    for _ in range(games):
        state = new_game(2, "colored")
        while not state.is_over:
            if state.phase == "refill":
                rounds += 1
                step(state, rng)
            else:
                step(state, rng)
                moves += 1
    assert 66 <= moves / games <= 75
    assert 6.0 <= rounds / games <= 7.2


# random_playouts draws its moves and deals its own way (its own generator, one draw per move,
# one generator call per factory); these check that scheme against the rules and random_move's
# distribution. engine._playouts' test hooks: _checked_playouts plays the same games with every move
# passed through check_move and every position counted to 100 tiles; _playout_draws draws from
# one position without playing.
from engine import _playouts  # noqa: E402


@pytest.mark.parametrize("players,variant", SETUPS)
def test_random_playouts_play_only_legal_moves_and_keep_every_tile(players, variant):
    checked = _playouts._checked_playouts(1_500, players, variant, 11)
    assert checked == random_playouts(1_500, players=players, variant=variant, seed=11)
    assert checked["moves"] > 1_500 * 50


def positions_to_draw_from():
    """Per setup, 3 draft positions of a random game, and 2 gray tiling positions with a choice."""
    found = []
    for i, (players, variant) in enumerate(SETUPS):
        rng = random.Random(40 + i)
        state, draft, tiling = new_game(players, variant), 0, 0
        while draft < 3 or (variant == "gray" and tiling < 2):
            if state.is_over:
                state = new_game(players, variant)
            step(state, rng)
            if state.phase == "tiling" and len(state.legal_moves()) > 1 and tiling < 2:
                found.append(state.clone())
                tiling += 1
            elif state.phase == "draft" and draft < 3 and rng.random() < 0.1:
                found.append(state.clone())
                draft += 1
    return found


POSITIONS = positions_to_draw_from()


@pytest.mark.parametrize("index", range(24))
def test_the_playout_picker_is_uniform_over_the_legal_moves(index):
    state = POSITIONS[index]
    legal = state._core.legal_codes()
    n = 400 * len(legal)
    counts = _playouts._playout_draws(state._core, n, 1000 + index)
    assert set(counts) == set(legal)            # only legal moves, and every one of them
    expected = n / len(legal)
    chi2 = sum((counts[code] - expected) ** 2 / expected for code in legal)
    df = len(legal) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5 + 10, (chi2, df)   # about 5 standard deviations


# Uniform random 2-player coloured games, measured over 2,000,000 games of the core at 79636ae
# (benchmarks/engine.py --stats checks a million games against them).
PINNED = {"moves": 70.341, "rounds": 6.597, "points": 2.957}


def test_random_playout_statistics_match_the_pinned_figures():
    """300,000 games in 150 batches: each mean within 4 standard errors of the pinned figure."""
    batches, batch = 150, 2_000
    per = {key: [] for key in PINNED}
    for b in range(batches):
        t = random_playouts(batch, players=2, variant="colored", seed=500 + b)
        per["moves"].append(t["moves"] / batch)
        per["rounds"].append(t["rounds"] / batch)
        per["points"].append(t["score"] / (2 * batch))
    for key, values in per.items():
        mean = sum(values) / batches
        sd = (sum((v - mean) ** 2 for v in values) / (batches - 1)) ** 0.5
        se = sd / batches ** 0.5
        assert abs(mean - PINNED[key]) < 4 * se, (key, mean, se)
        assert se < 0.01 * PINNED[key]          # the test can tell a 4% shift from chance
