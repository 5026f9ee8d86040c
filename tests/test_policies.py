"""The greedy and heuristic bots (bots/_policies.pyx): values on hand-built positions, legality,
determinism and read-only play over random positions of every size and variant.

Printed wall (row r, colour c in column (c + r) mod 5):
    row 1  B Y R K W
    row 2  W B Y R K
    row 3  K W B Y R
    row 4  R K W B Y
    row 5  Y R K W B
"""
import random

import pytest

from bots import make_bot
from bots._policies import Policy, default_weight_values
from engine import GameState, Move, new_game

COLOURS = "BYRKW"
N_FACTORIES = {2: 5, 3: 7, 4: 9}


def board(score=0, lines=None, wall=None, floor=""):
    """One board; lines {line number: tiles} and wall {row number: five characters}, 1-based."""
    rows = ["....."] * 5
    for r, text in (wall or {}).items():
        rows[r - 1] = text
    pattern = [""] * 5
    for k, text in (lines or {}).items():
        pattern[k - 1] = text
    return {"score": score, "lines": pattern, "wall": rows, "floor": floor}


def position(*boards, factories=(), center="", marker="center", variant="colored", to_move=0):
    """Seat to_move drafts; every tile not placed elsewhere is in the bag."""
    factories = list(factories) + [""] * (N_FACTORIES[len(boards)] - len(factories))
    placed = "".join(factories) + center + "".join(
        b["floor"] + "".join(b["lines"]) + "".join(b["wall"]) for b in boards)
    return GameState.from_json({
        "format": "azul-position/1", "variant": variant, "players": len(boards), "round": 3,
        "phase": "draft", "to_move": to_move, "opener": 0, "factories": factories,
        "center": center, "marker": marker,
        "bag": {c: 20 - placed.count(c) for c in COLOURS}, "lid": dict.fromkeys(COLOURS, 0),
        "boards": list(boards),
    })


def greedy_values(state):
    return {str(Move(code)): value for code, value in Policy("greedy").values(state).items()}


def choice(kind, state, seed=0):
    return str(make_bot(kind, seed=seed).act(state))


# ---------------------------------------------------------------- greedy's value, by hand


def test_greedy_complete_now_or_avoid_overflow():
    # 004, "Complete now or avoid overflow?": the same two blues complete line one with one
    # fallen tile (1 - 1) or line two with none (1 - 0). Greedy takes line two.
    s = position(board(score=3), board(floor="1"), center="BB", marker=1)
    values = greedy_values(s)
    assert values == {"CB1": 0, "CB2": 1, "CB3": 0, "CB4": 0, "CB5": 0, "CBF": -2}
    assert choice("greedy", s) == "CB2"
    assert choice("heuristic", s) == "CB2"


def test_greedy_prefers_the_completion_beside_wall_tiles():
    # Row 3 holds black and white in columns 1 and 2; a blue completing line 3 lands beside
    # them (a run of three: 3 points), a blue in line 1 lands alone (1 point).
    s = position(board(lines={3: "BB"}, wall={3: "KW..."}), board(), factories=["BRRY", "KKWW"])
    values = greedy_values(s)
    assert values["1B3"] == 3 and values["1B1"] == 1 and values["1B2"] == 0
    assert values["1BF"] == -1
    assert choice("greedy", s) == "1B3"


def test_greedy_counts_lines_completed_above_first():
    # Line 1 is already full of blue (row 1, column 1); white completing line 2 goes right
    # below it and scores 2 when the rows are tiled top to bottom.
    s = position(board(lines={1: "B", 2: "W"}), board(), factories=["WYYR", "KKBB"])
    assert greedy_values(s)["1W2"] == 2


@pytest.mark.parametrize("floor, cost", [("", 1), ("R", 1), ("RY", 2), ("RYKWB", 3), ("RYKWBBY", 0)])
def test_greedy_charges_the_marker_its_slot(floor, cost):
    # Two reds complete line 2 (1 point) from the factory or from the centre; the centre also
    # floors the marker, in the next free slot (1, 1, 2, 2, 2, 3, 3); a full floor keeps it
    # beside the board at no cost (000's house rule).
    s = position(board(floor=floor), board(), factories=["RRBY"], center="RRK")
    values = greedy_values(s)
    assert values["1R2"] == 1
    assert values["CR2"] == 1 - cost
    if cost:
        assert choice("greedy", s) == "1R2"


def test_greedy_gray_line_without_a_square_falls():
    # Gray wall: red completing line 2 has no square (its empty squares' columns hold red),
    # so both tiles would fall: -2. A single red elsewhere costs nothing now.
    s = position(board(score=5, lines={2: "R"}, wall={1: "...R.", 2: "BYK..", 3: "....R"}),
                 board(floor="1"), center="R", marker=1, variant="gray")
    values = greedy_values(s)
    assert values["CR2"] == -2 and values["CRF"] == -1 and values["CR4"] == 0
    assert choice("greedy", s) in ("CR4", "CR5")


def test_gray_tiling_moves_choose_the_column_that_scores():
    # The gray lesson: line 3 (blue) may go to columns 2, 4 or 5; column 2 sits beside the
    # black and under the white (2 + 2 = 4 points).
    s = position(board(lines={3: "BB"}, wall={1: "..B..", 2: ".W...", 3: "K...."}),
                 board(lines={1: "Y"}, floor="1"), center="B", marker=1, variant="gray")
    s.play("CB3")
    assert s.phase == "tiling"
    assert greedy_values(s) == {"3@2": 4, "3@4": 1, "3@5": 1}
    assert choice("greedy", s) == "3@2"
    assert choice("heuristic", s) == "3@2"


# ---------------------------------------------------------------- the evaluation and weights


def test_evaluate_is_a_score_difference():
    s = new_game(2, seed=3)
    policy = Policy("heuristic")
    assert policy.evaluate(s, 0) == pytest.approx(0) and policy.evaluate(s, 1) == pytest.approx(0)
    rng = random.Random(5)
    while s.phase != "over":
        s.deal(seed=rng.getrandbits(32)) if s.phase == "refill" else s.play(rng.choice(s.legal_moves()))
    a, b = s.scores
    assert policy.evaluate(s, 0) == pytest.approx(a - b)
    assert policy.evaluate(s, 1) == pytest.approx(b - a)
    with pytest.raises(ValueError, match="seat"):
        policy.evaluate(s, 2)


def test_heuristic_weights_are_the_c_defaults_and_checked():
    bot = make_bot("heuristic")
    assert bot.weights == default_weight_values()
    assert make_bot("heuristic", denial=0.5, line=2).weights["line"] == 2.0
    assert bot.name == "heuristic" and make_bot("heuristic", denial=0.8).name == "heuristic(denial=0.8)"
    for name, bad in [("later", 1.5), ("denial", -1.0), ("column", float("nan")), ("marker", 11)]:
        with pytest.raises(ValueError, match=name):
            make_bot("heuristic", **{name: bad})
    with pytest.raises(ValueError, match="unknown parameter"):
        make_bot("heuristic", nonsense=1.0)
    with pytest.raises(ValueError, match="greedy"):
        Policy("fancy")


# ---------------------------------------------------------------- legal, deterministic, read-only


def random_positions(players, variant, count, seed):
    """Positions from random play (draft and gray tiling), each a fresh independent state."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        s = new_game(players, variant, seed=rng.getrandbits(32))
        while s.phase != "over" and len(found) < count:
            if s.phase == "refill":
                s.deal(seed=rng.getrandbits(32))
                continue
            if rng.random() < 0.3 or s.phase == "tiling":
                found.append(s.clone())
            s.play(rng.choice(s.legal_moves()))
    return found


@pytest.mark.parametrize("variant", ["colored", "gray"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_play_legal_deterministic_moves_without_touching_the_state(players, variant):
    tiling = 0
    for s in random_positions(players, variant, 60, seed=players * 10 + len(variant)):
        before = s.to_json()
        legal = s.legal_moves()
        tiling += s.phase == "tiling"
        for kind in ("greedy", "heuristic"):
            move = make_bot(kind, seed=7).act(s)
            assert move in legal
            assert make_bot(kind, seed=7).act(s) == move
            assert s.to_json() == before
    if variant == "gray":
        assert tiling > 0


@pytest.mark.parametrize("variant", ["colored", "gray"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_between_greedy_and_heuristic(players, variant):
    bots = [make_bot("greedy" if i % 2 else "heuristic", seed=i) for i in range(players)]
    s = new_game(players, variant)
    rng = random.Random(players)
    while s.phase != "over":
        if s.phase == "refill":
            s.deal(seed=rng.getrandbits(32))
        else:
            s.play(bots[s.to_move].act(s))      # play() raises on an illegal move
    assert s.round >= 2


def test_greedy_beats_random_over_seat_swapped_deals():
    # Robust, not a benchmark: over 60 two-player deals, each played with the seats swapped,
    # greedy wins (ties half) at least 90% (it wins essentially all; benchmarks/bench_strength.py).
    greedy, rand = make_bot("greedy", seed=1), make_bot("random", seed=2)
    points = 0.0
    for deal in range(60):
        for seats in ((greedy, rand), (rand, greedy)):
            s = new_game(2)
            for bot in seats:
                bot.reset()
            while s.phase != "over":
                if s.phase == "refill":
                    s.deal(seed=deal * 64 + s.round)
                else:
                    s.play(seats[s.to_move].act(s))
            ranks = s.to_json()["ranks"]
            mine, theirs = (ranks[0], ranks[1]) if seats[0] is greedy else (ranks[1], ranks[0])
            points += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert points / 120 >= 0.9
