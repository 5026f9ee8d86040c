"""Checks of the pure-Python reference rules against hand-computed numbers from the rules texts."""

import importlib.util
import pathlib
import random

import pytest

try:
    from engine import reference as ref
except ImportError:  # the compiled core is not built here: load the oracle file on its own
    _path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "reference.py"
    _spec = importlib.util.spec_from_file_location("azul_reference", _path)
    ref = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(ref)

COLOURS = "BYRKW"


def tiles_outside_bag(pos):
    """Count of each colour everywhere except the bag."""
    counts = dict(pos["lid"])
    text = "".join(pos["factories"]) + pos["center"]
    for board in pos["boards"]:
        text += "".join(board["lines"]) + "".join(board["wall"]) + board["floor"]
    for c in COLOURS:
        counts[c] += text.count(c)
    return counts


def position(players=2, variant="colored", boards=(), **fields):
    """A draft position: the given fields and board fields over a new game; the bag keeps 20 each."""
    pos = ref.new_position(players, variant)
    pos["phase"] = "draft"
    for seat, changes in enumerate(boards):
        pos["boards"][seat].update(changes)
    pos.update(fields)
    if "bag" not in fields:
        outside = tiles_outside_bag(pos)
        pos["bag"] = {c: 20 - outside[c] for c in COLOURS}
    return pos


def assert_conserved(pos):
    outside = tiles_outside_bag(pos)
    assert {c: outside[c] + pos["bag"][c] for c in COLOURS} == {c: 20 for c in COLOURS}, pos


def test_new_position():
    pos = ref.new_position(3, "gray")
    assert pos["phase"] == "refill" and pos["round"] == 1 and pos["marker"] == "center"
    assert pos["factories"] == [""] * 7 and pos["bag"] == {c: 20 for c in COLOURS}
    assert list(pos) == ["format", "variant", "players", "round", "phase", "to_move", "opener",
                         "factories", "center", "marker", "bag", "lid", "boards"]
    assert ref.legal_moves(pos) == []


def test_legal_move_order_and_factory_take():
    pos = position(factories=["BBRY", "", "", "", ""], center="K",
                   boards=[{"lines": ["", "R", "", "", "KKKKK"],
                            "wall": [".....", ".....", "..B..", ".....", "....."]}])
    moves = ref.legal_moves(pos)
    # line 2 holds red, wall row 3 has blue, line 5 is full
    assert moves == ["1B1", "1B4", "1BF", "1Y1", "1Y3", "1Y4", "1YF", "1R1", "1R2", "1R3", "1R4", "1RF",
                     "CK1", "CK3", "CK4", "CKF"]
    after = ref.play(pos, "1b4")
    assert pos["factories"][0] == "BBRY"  # the argument is never changed
    assert after["factories"][0] == "" and after["center"] == "YRK"
    assert after["boards"][0]["lines"][3] == "BB" and after["to_move"] == 1
    with pytest.raises(ValueError):
        ref.play(pos, "1B3")


def test_crossing_scores_five_and_top_to_bottom_scores_three():
    # Row 3: Y R already, blue completes a horizontal run of 3; yellow above it makes a vertical 2.
    pos = position(center="R", marker=1, boards=[
        {"lines": ["B", "WW", "BBB", "", ""], "wall": [".....", "..Y..", "...YR", ".....", "....."]},
        {"floor": "1"}])
    after = ref.play(pos, "CR5")
    board = after["boards"][0]
    # line 1 blue isolated: 1; line 2 white right below it: 2; line 3 blue crossing: 3 + 2 = 5
    assert board["wall"] == ["B....", "W.Y..", "..BYR", ".....", "....."]
    assert board["score"] == 1 + 2 + 5
    assert after["lid"]["W"] == 1 and after["lid"]["B"] == 2
    assert after["boards"][1]["score"] == 0  # the marker's slot costs 1, stopping at 0
    assert after["phase"] == "refill" and after["round"] == 2
    assert after["opener"] == after["to_move"] == after["marker"] == 1
    assert_conserved(after)


def test_marker_and_two_tiles_cost_four_and_stop_at_zero():
    pos = position(center="RR", boards=[{"score": 2, "lines": ["B", "", "", "", ""]}])
    after = ref.play(pos, "CRF")
    board = after["boards"][0]
    assert board["score"] == 0  # 2 + 1 wall point - (1 + 1 + 2) stops at 0
    assert board["floor"] == "" and after["lid"]["R"] == 2
    assert after["marker"] == after["opener"] == after["to_move"] == 0
    # the rulebook example: four tiles plus the marker cost 8
    pos = position(center="RRRR", boards=[{"score": 10}])
    assert ref.play(pos, "CRF")["boards"][0]["score"] == 2


def test_full_floor_costs_fourteen_and_overflow_goes_to_lid():
    pos = position(factories=["YYYY", "KKKK", "", "", ""], marker=1,
                   boards=[{"score": 20, "floor": "BBRRK"}, {"score": 10}])
    mid = ref.play(pos, "1YF")
    assert mid["boards"][0]["floor"] == "BBRRKYY" and mid["lid"]["Y"] == 2
    after = ref.play(mid, "2KF")
    assert [b["score"] for b in after["boards"]] == [6, 4]  # 20 - 14, 10 - (1 + 1 + 2 + 2)
    assert after["lid"] == {"B": 2, "Y": 4, "R": 2, "K": 5, "W": 0}
    assert_conserved(after)


def test_marker_taken_with_full_floor_is_kept_beside_the_board():
    pos = position(center="W", opener=0, to_move=1, boards=[{}, {"score": 20, "floor": "BBBBBBB"}])
    after = ref.play(pos, "CW1")
    assert after["boards"][1]["score"] == 20 + 1 - 14
    assert after["opener"] == after["marker"] == 1


def test_five_blue_lines_give_95_bonus_points():
    wall = ["".join(COLOURS[(col - r) % 5] if (col - r) % 5 else "." for col in range(5)) for r in range(5)]
    assert wall[0] == ".YRKW" and wall[1] == "W.YRK"
    pos = position(center="R", to_move=1, boards=[
        {"lines": ["B", "BB", "BBB", "BBBB", "BBBBB"], "wall": wall}, {}])
    after = ref.play(pos, "CRF")
    assert after["boards"][0]["wall"][4] == "YRKWB"
    # each blue completes its row and its column: 5 + 5 = 10, five times; bonus 5*2 + 5*7 + 5*10
    assert after["boards"][0]["score"] == 50 + 95
    assert after["boards"][1]["score"] == 0
    assert after["phase"] == "over" and after["ranks"] == [1, 2]
    assert after["opener"] == 0 and after["to_move"] == after["marker"] == 1


def test_floor_before_row_bonus():
    # Line 1 completes wall row 1 (5 points); a full floor costs 14, stopping at 0; then +2.
    pos = position(factories=["YYYY", "", "", "", ""], marker=1,
                   boards=[{"wall": ["B.RKW", ".....", ".....", ".....", "....."], "floor": "KKKK"},
                           {"score": 30, "floor": "1"}])
    after = ref.play(pos, "1Y1")
    assert after["boards"][0]["score"] == 2
    assert after["boards"][1]["score"] == 29
    assert after["phase"] == "over" and after["ranks"] == [2, 1] and after["round"] == 1


def test_round_without_centre_take_keeps_the_opener():
    pos = position(factories=["BBBB", "YYYY", "", "", ""], opener=1, to_move=1)
    after = ref.play(ref.play(pos, "1B5"), "2Y5")
    assert after["phase"] == "refill" and after["round"] == 2
    assert after["opener"] == after["to_move"] == after["marker"] == 1
    assert after["center"] == "" and [b["score"] for b in after["boards"]] == [0, 0]


def test_gray_tiling_stops_for_choices_and_drops_a_blocked_line():
    pos = position(variant="gray", factories=["RRRR", "", "", "", ""], to_move=1, boards=[
        {"score": 5, "lines": ["B", "YY", "", "", ""],
         "wall": [".....", "BRKW.", "....Y", ".....", "....."]},
        {"lines": ["", "", "KKK", "", ""]}])
    first = ref.play(pos, "1R5")
    assert first["phase"] == "tiling" and first["to_move"] == 0
    assert ref.legal_moves(first) == ["1@2", "1@3", "1@4", "1@5"]  # column 1 already has blue
    with pytest.raises(ValueError):
        ref.play(first, "1@1")
    second = ref.play(first, "1@5")
    # line 2 (yellow) has no legal square: its only empty column already holds yellow
    assert second["boards"][0]["floor"] == "YY" and second["boards"][0]["lines"][1] == ""
    assert second["boards"][0]["score"] == 6
    assert second["phase"] == "tiling" and second["to_move"] == 1
    assert ref.legal_moves(second) == ["3@1", "3@2", "3@3", "3@4", "3@5"]
    after = ref.play(second, "3@1")
    assert [b["score"] for b in after["boards"]] == [4, 1]  # 6 - (1 + 1); isolated tile
    assert after["boards"][1]["wall"][2] == "K...."
    assert after["lid"] == {"B": 0, "Y": 2, "R": 0, "K": 2, "W": 0}
    assert after["phase"] == "refill" and after["opener"] == after["to_move"] == after["marker"] == 0
    assert_conserved(after)


def refill_position(bag, lid):
    pos = ref.new_position(2)
    pos["round"], pos["marker"] = 3, 0
    pos["bag"], pos["lid"] = dict(bag), dict(lid)
    return pos


def test_forced_deal_recycles_the_lid_with_two_tiles_in_the_bag():
    pos = refill_position({"B": 1, "Y": 1, "R": 0, "K": 0, "W": 0},
                          {"B": 0, "Y": 0, "R": 10, "K": 10, "W": 10})
    deal = ["RYBR", "KKWW", "RRKW", "RWWK", "KRWR"]
    after = ref.deal(pos, deal)
    assert after["factories"] == ["BYRR", "KKWW", "RRKW", "RKWW", "RRKW"]
    assert after["bag"] == {"B": 0, "Y": 0, "R": 3, "K": 5, "W": 4}
    assert after["lid"] == {c: 0 for c in COLOURS}
    assert after["phase"] == "draft" and after["marker"] == "center" and after["to_move"] == 0
    for bad in (["RRKW", "BYRR", "KKWW", "RWWK", "KRWR"],   # bag tiles not drawn first
                ["RRRR", "KKWW", "RRKW", "RWWK", "KRWW"],   # bag tiles never drawn
                ["BYR", "KKWW", "RRKW", "RWWK", "KRWRR"]):  # wrong factory sizes
        with pytest.raises(ValueError):
            ref.deal(pos, bad)
    # a bag that holds exactly the deal leaves the lid alone
    pos = refill_position({"B": 20, "Y": 0, "R": 0, "K": 0, "W": 0},
                          {"B": 0, "Y": 3, "R": 0, "K": 0, "W": 0})
    after = ref.deal(pos, ["BBBB"] * 5)
    assert after["bag"]["B"] == 0 and after["lid"]["Y"] == 3
    # too few tiles: full factories first, then one partial one, then empty ones
    pos = refill_position({c: 0 for c in COLOURS}, {"B": 6, "Y": 0, "R": 0, "K": 0, "W": 0})
    with pytest.raises(ValueError):
        ref.deal(pos, ["BBB", "BBB", "", "", ""])
    after = ref.deal(pos, ["BBBB", "BB", "", "", ""])
    assert after["bag"] == after["lid"] == {c: 0 for c in COLOURS}
    # nothing left to deal: the game ends at once
    pos = refill_position({c: 0 for c in COLOURS}, {c: 0 for c in COLOURS})
    with pytest.raises(ValueError):
        ref.deal(pos, ["B", "", "", "", ""])
    after = ref.deal(pos, [""] * 5)
    assert after["phase"] == "over" and after["ranks"] == [1, 1]


def test_ranks():
    assert ref.ranks([70, 70, 50], [2, 3, 0]) == [2, 1, 3]
    assert ref.ranks([70, 70, 50, 80], [2, 2, 5, 0]) == [2, 2, 4, 1]
    assert ref.ranks([10, 10, 10], [1, 1, 1]) == [1, 1, 1]


def random_deal(pos, rng):
    """Draw tiles one by one as the rules do: from the bag, the whole lid moving in when it is empty."""
    bag = [c for c in COLOURS for _ in range(pos["bag"][c])]
    lid = [c for c in COLOURS for _ in range(pos["lid"][c])]
    factories = []
    for _ in pos["factories"]:
        tiles = ""
        while len(tiles) < 4 and (bag or lid):
            if not bag:
                bag, lid = lid, []
            tiles += bag.pop(rng.randrange(len(bag)))
        factories.append(tiles)
    return factories


def play_random_game(players, variant, rng):
    pos = ref.new_position(players, variant)
    moves = 0
    while pos["phase"] != "over":
        if pos["phase"] == "refill":
            pos = ref.deal(pos, random_deal(pos, rng))
        else:
            legal = ref.legal_moves(pos)
            assert legal and len(set(legal)) == len(legal)
            pos = ref.play(pos, rng.choice(legal))
            moves += 1
        assert_conserved(pos)
        assert all(len(b["floor"]) <= 7 for b in pos["boards"])
        assert pos["center"] == "".join(sorted(pos["center"], key=COLOURS.index))
        assert ("ranks" in pos) == (pos["phase"] == "over")
    assert sorted(pos["ranks"])[0] == 1
    return pos, moves


@pytest.mark.parametrize("players,variant", [(3, "colored"), (4, "colored"),
                                             (2, "gray"), (3, "gray"), (4, "gray")])
def test_random_games_other_setups(players, variant):
    rng = random.Random(1000 * players + len(variant))
    for _ in range(40):
        play_random_game(players, variant, rng)


def test_random_two_player_colored_games():
    rng = random.Random(12345)
    total_moves = total_rounds = 0
    for _ in range(200):
        pos, moves = play_random_game(2, "colored", rng)
        total_moves += moves
        total_rounds += pos["round"]
    assert 62 <= total_moves / 200 <= 78
    assert 5.8 <= total_rounds / 200 <= 7.4
