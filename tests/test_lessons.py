"""The worked lessons of the rules texts, played through the engine's public API.

Rules text 004 (shared/rules/004_ed8c2d5c23440493.txt) teaches fourteen lessons and three
decision studies with exact numbers; each test here builds the position just before the
lesson's action (azul-position/1), plays it and checks those numbers. Then the house rules of
text 000 and the edge cases of SPEC 3b, the engine's error messages, and the gray-wall variant.

The lessons use one board; the other seat is a bystander. On the coloured wall tiling is
automatic once the last tile is drafted, so a lesson's tiles are the last ones on the table.
Printed wall (row r, colour c in column (c + r) mod 5):
    row 1  B Y R K W
    row 2  W B Y R K
    row 3  K W B Y R
    row 4  R K W B Y
    row 5  Y R K W B
"""

import pytest

from engine import GameState, IllegalMoveError, InvalidPositionError, Move

COLOURS = "BYRKW"
PRINTED = ["BYRKW", "WBYRK", "KWBYR", "RKWBY", "YRKWB"]
N_FACTORIES = {2: 5, 3: 7, 4: 9}
ZERO = {c: 0 for c in COLOURS}


# ---------------------------------------------------------------- helpers


def board(score=0, lines=None, wall=None, floor=""):
    """One board; lines {line number: tiles} and wall {row number: five characters}, 1-based."""
    rows = ["....."] * 5
    for r, text in (wall or {}).items():
        rows[r - 1] = text
    pattern = [""] * 5
    for k, text in (lines or {}).items():
        pattern[k - 1] = text
    return {"score": score, "lines": pattern, "wall": rows, "floor": floor}


def full_wall_except(missing):
    """The printed wall with, in each row r, the colour missing[r - 1] left empty."""
    return {r + 1: PRINTED[r].replace(missing[r], ".") for r in range(5)}


def position(*boards, factories=(), center="", marker="center", bag=None, lid=None,
             variant="colored", phase="draft", to_move=0, opener=0, round=4):
    """A GameState built from the parts a test cares about.

    Factories not given are empty. Whichever of bag and lid is not given holds every tile
    not placed elsewhere, so that each colour totals 20 (by default the lid is empty).
    """
    factories = list(factories) + [""] * (N_FACTORIES[len(boards)] - len(factories))
    placed = "".join(factories) + center + "".join(
        b["floor"] + "".join(b["lines"]) + "".join(b["wall"]) for b in boards)
    given = {c: (bag if bag is not None else lid or {}).get(c, 0) for c in COLOURS}
    rest = {c: 20 - placed.count(c) - given[c] for c in COLOURS}
    assert min(rest.values()) >= 0, f"the test position uses too many tiles: {rest}"
    bag, lid = (given, rest) if bag is not None else (rest, given)
    return GameState.from_json({
        "format": "azul-position/1", "variant": variant, "players": len(boards),
        "round": round, "phase": phase, "to_move": to_move, "opener": opener,
        "factories": factories, "center": center, "marker": marker,
        "bag": bag, "lid": lid, "boards": list(boards),
    })


def play(state, *moves):
    for move in moves:
        state.play(move)
    return state.to_json()


def legal(state, prefix=""):
    return [str(m) for m in state.legal_moves() if str(m).startswith(prefix)]


def tiles(text):
    """A factory or centre string in canonical order, for comparing (order has no meaning)."""
    return "".join(sorted(text, key=COLOURS.index))


# ---------------------------------------------------------------- the fourteen lessons


def test_lesson_01_take_a_factory_batch():
    # "A factory with blue, blue, red and yellow yields both blues; red and yellow move to
    # the center and the factory empties." The filled line earns no points yet (000).
    s = position(board(score=3), board(), factories=["BBRY", "KKWW"])
    p = play(s, "1B2")
    me = p["boards"][0]
    assert me["lines"] == ["", "BB", "", "", ""]
    assert me["floor"] == ""
    assert p["factories"][0] == ""
    assert tiles(p["factories"][1]) == "KKWW"
    assert tiles(p["center"]) == "YR"
    assert p["marker"] == "center"
    assert p["phase"] == "draft" and p["to_move"] == 1
    assert s.scores == [3, 0]


def test_lesson_02_center_pick_takes_the_marker_first():
    # "Take center reds into line three; watch the floor. The marker costs a floor slot in
    # exchange for starting next round." Marker first, then the tile that did not fit.
    s = position(board(score=5), board(), center="RRRRY", opener=1, to_move=0)
    p = play(s, "CR3")
    me = p["boards"][0]
    assert me["lines"][2] == "RRR"
    assert me["floor"] == "1R"
    assert p["marker"] == 0
    assert p["center"] == "Y"
    assert p["phase"] == "draft" and p["to_move"] == 1

    p = play(s, "CY1")                      # the last tile: the round is tiled
    assert p["phase"] == "refill"
    me, other = p["boards"]
    assert me["wall"][2] == "....R"         # red, row 3: +1
    assert me["lines"][2] == "" and me["floor"] == ""
    assert s.scores == [5 + 1 - 2, 1]       # floor "1R": 1 + 1
    assert other["wall"][0] == ".Y..."
    assert p["lid"] == {"B": 0, "Y": 0, "R": 3, "K": 0, "W": 0}   # two from line 3, one from floor
    assert p["to_move"] == 0 and p["opener"] == 0 and p["marker"] == 0
    assert p["round"] == 5


def test_lesson_03_overflow_cannot_split():
    # "With two blues in line three, taking three more fills one space and drops two; they
    # cannot go to line four."
    s = position(board(lines={3: "BB"}), board(), factories=["BBBY", "KKWW"])
    p = play(s, "1B3")
    me = p["boards"][0]
    assert me["lines"] == ["", "", "BBB", "", ""]
    assert me["floor"] == "BB"
    assert tiles(p["center"]) == "Y"
    assert p["bag"]["B"] == 20 - 5


def test_lesson_04_colour_and_wall_restrictions():
    # "Line two holds red and wall row three already has blue; neither can accept blue."
    s = position(board(lines={2: "R"}, wall={3: "..B.."}), board(), factories=["BBYK", "KKWW"])
    before = s.to_json()
    with pytest.raises(IllegalMoveError, match="(?i)line 2 holds red"):
        s.play("1B2")
    with pytest.raises(IllegalMoveError, match="(?i)wall row 3 already has blue"):
        s.play("1B3")
    assert s.to_json() == before            # a refused move changes nothing
    assert legal(s, "1B") == ["1B1", "1B4", "1B5", "1BF"]
    p = play(s, "1B4")
    assert p["boards"][0]["lines"] == ["", "R", "", "BB", ""]


def test_lesson_04_wall_row_blocks_only_its_own_line():
    # "A red in wall row two blocks red in pattern line two; line three may still accept it."
    s = position(board(wall={2: "...R."}), board(), factories=["RRBB", "KKWW"])
    assert legal(s, "1R") == ["1R1", "1R3", "1R4", "1R5", "1RF"]
    p = play(s, "1R3")
    assert p["boards"][0]["lines"][2] == "RR"


def test_lesson_05_choose_the_floor():
    # "You may decline a pattern line, but must place the entire batch."
    s = position(board(), board(), factories=["YYYB", "KKWW"])
    assert "1YF" in legal(s)
    p = play(s, "1YF")
    me = p["boards"][0]
    assert me["floor"] == "YYY"
    assert me["lines"] == ["", "", "", "", ""]
    assert tiles(p["center"]) == "B"


def test_legal_moves_order():
    # docs/rules.md: source (factories 1..N, then C), colour (B Y R K W), destination (1..5, F).
    s = position(board(lines={1: "B"}, wall={2: ".B..."}), board(),
                 factories=["", "YYYB"], center="KR")
    assert legal(s) == [
        "2B3", "2B4", "2B5", "2BF",         # line 1 is full, wall row 2 has blue
        "2Y2", "2Y3", "2Y4", "2Y5", "2YF",  # line 1 holds blue
        "CR2", "CR3", "CR4", "CR5", "CRF",
        "CK2", "CK3", "CK4", "CK5", "CKF",
    ]


def test_lesson_06_complete_and_incomplete_lines():
    # "Three yellows in line four stay put; two reds in line two yield one wall tile and one
    # discard."
    s = position(board(score=0, lines={2: "R", 4: "YYY"}), board(score=3, floor="1"),
                 center="R", marker=1)
    p = play(s, "CR2")
    me = p["boards"][0]
    assert p["phase"] == "refill"
    assert me["wall"][1] == "...R."
    assert me["lines"] == ["", "", "", "YYY", ""]
    assert p["lid"]["R"] == 1
    assert s.scores == [1, 2]


def test_lesson_07_an_isolated_tile_scores_one():
    # "Only uninterrupted orthogonal neighbors connect; an isolated tile scores one."
    # Red beyond a gap in row 1 and the diagonal blue in row 2 do not connect.
    s = position(board(score=4, wall={1: "..R..", 2: ".B..."}), board(floor="1"),
                 center="B", marker=1)
    p = play(s, "CB1")
    assert p["boards"][0]["wall"][:2] == ["B.R..", ".B..."]
    assert s.scores[0] == 5


def test_lesson_08_score_a_crossing():
    # "Three horizontally plus two vertically earns five; the new tile counts in both."
    # Row 3 holds white and yellow beside blue's square, row 2 yellow above it; the black in
    # row 5 is cut off by the empty row-4 square.
    s = position(board(score=10, lines={3: "BB"}, wall={2: "..Y..", 3: ".W.Y.", 5: "..K.."}),
                 board(floor="1"), center="B", marker=1)
    p = play(s, "CB3")
    assert p["boards"][0]["wall"][2] == ".WBY."
    assert s.scores[0] == 15
    assert p["lid"]["B"] == 2


def test_lesson_09_resolve_top_to_bottom():
    # "Blue earns one, then cyan immediately below it earns two, for three total."
    s = position(board(lines={1: "B", 2: "W"}), board(floor="1"), center="W", marker=1)
    p = play(s, "CW2")
    assert p["boards"][0]["wall"][:2] == ["B....", "W...."]
    assert s.scores[0] == 3                 # not 4: the blue is scored before the white exists


def test_lesson_10_score_before_floor_cost():
    # "Three slots cost four: two existing points plus one wall point minus four stops at
    # zero." (Floor first would give max(0, 2 - 4) + 1 = 1.)
    s = position(board(score=2), board(score=6), center="RRR")
    p = play(s, "CR1")                      # marker, then two reds that do not fit
    assert p["phase"] == "refill"
    assert p["boards"][0]["wall"][0] == "..R.."
    assert s.scores == [0, 6]
    assert p["boards"][0]["floor"] == ""
    assert p["lid"]["R"] == 2
    assert p["marker"] == 0 and p["to_move"] == 0


def test_lesson_11_full_floor_costs_fourteen():
    # "All seven slots are occupied; extra ordinary tiles go to the lid and the floor still
    # costs fourteen."
    s = position(board(score=20, floor="BBKKR"), board(score=3, floor="1"),
                 factories=["YYYY", "WWWW"], marker=1)
    p = play(s, "1YF")
    assert p["boards"][0]["floor"] == "BBKKRYY"
    assert p["lid"] == {"B": 0, "Y": 2, "R": 0, "K": 0, "W": 0}

    p = play(s, "2W5")                      # the bystander drafts the last tiles
    assert p["phase"] == "refill"
    assert s.scores == [20 - 14, 2]
    assert p["boards"][0]["floor"] == ""
    assert p["lid"] == {"B": 2, "Y": 4, "R": 1, "K": 2, "W": 0}
    assert p["boards"][1]["lines"][4] == "WWWW"


def test_lesson_12_a_row_triggers_the_ending_floor_before_bonus():
    # "The complete wall row ends play; resolve the floor before adding row bonuses."
    # 0 + 5 (a row of five) - 8 (floor KK1WW) stops at 0, then +2 for the row: 2.
    # (Bonus before floor would give max(0, 0 + 5 + 2 - 8) = 0.)
    s = position(board(score=0, wall={1: "BYRK."}, floor="KK"), board(score=1), center="WWW")
    p = play(s, "CW1")
    assert p["phase"] == "over"
    assert p["boards"][0]["wall"][0] == "BYRKW"
    assert s.scores == [2, 1]
    assert p["ranks"] == [1, 2]


def test_lesson_12_a_full_pattern_line_alone_does_not_end():
    s = position(board(lines={5: "YYYY"}), board(floor="1"), center="Y", marker=1)
    p = play(s, "CY5")
    assert p["boards"][0]["wall"][4] == "Y...."
    assert p["phase"] == "refill"


def test_lesson_13_stacking_bonuses_95():
    # "Initially every wall row lacks blue ... Placing the five blues gives
    # 5x2+5x7+5x10=95 bonus points." Each blue also completes a row of five and a column of
    # five as it is placed: 10 points each, 50 in all.
    s = position(board(score=60, lines={1: "B", 2: "BB", 3: "BBB", 4: "BBBB", 5: "BBBB"},
                       wall=full_wall_except("BBBBB")),
                 board(score=10, floor="1"), center="B", marker=1, round=9)
    p = play(s, "CB5")
    assert p["phase"] == "over"
    assert p["boards"][0]["wall"] == PRINTED
    assert s.scores == [60 + 50 + 95, 9]
    assert p["ranks"] == [1, 2]
    assert p["lid"]["B"] == 0 + 1 + 2 + 3 + 4


def test_lesson_14_refill_with_two_tiles_in_the_bag():
    # "If two bag tiles remain for a four-tile factory, place them and draw two recycled
    # discards; do not recycle wall tiles." A forced deal: factory 1 gets the bag's blue and
    # yellow plus two reds from the lid, which has moved into the bag.
    s = position(board(score=7, lines={3: "RR"}, wall={1: "B....", 2: "WB..."}),
                 board(score=9, lines={4: "KKK"}, wall={1: ".Y..."}),
                 bag={"B": 1, "Y": 1}, phase="refill", round=3, to_move=1, opener=1, marker=1)
    before = s.to_json()
    assert before["lid"] == {"B": 17, "Y": 18, "R": 18, "K": 17, "W": 19}
    deal = ["BYRR", "KKWW", "BBYY", "RKWB", "YRKW"]
    s.deal(factories=deal)
    p = s.to_json()
    assert p["phase"] == "draft" and p["to_move"] == 1 and p["marker"] == "center"
    assert [tiles(f) for f in p["factories"]] == [tiles(f) for f in deal]
    assert p["lid"] == ZERO
    assert p["bag"] == {"B": 14, "Y": 15, "R": 14, "K": 13, "W": 15}
    assert [b["wall"] for b in p["boards"]] == [b["wall"] for b in before["boards"]]
    assert [b["lines"] for b in p["boards"]] == [b["lines"] for b in before["boards"]]
    assert s.scores == [7, 9]


def test_lesson_14_random_refill_draws_the_bag_first():
    s = position(board(), board(), bag={"B": 1, "Y": 1}, phase="refill", round=3, marker=0)
    s.deal(seed=11)
    p = s.to_json()
    first = p["factories"][0]
    assert len(first) == 4 and "B" in first and "Y" in first
    assert all(len(f) == 4 for f in p["factories"])
    assert p["lid"] == ZERO
    assert sum(p["bag"].values()) == 2 + 98 - 20


def test_refill_rejects_a_deal_that_skips_the_bag_tiles():
    s = position(board(), board(), bag={"B": 1, "Y": 1}, phase="refill", round=3, marker=0)
    before = s.to_json()
    with pytest.raises(ValueError):
        s.deal(factories=["RRRR", "KKKK", "WWWW", "RRKK", "WWRR"])
    assert s.to_json() == before


def test_lesson_14_the_bag_tiles_go_on_the_first_factory():
    # "If two bag tiles remain for a four-tile factory, place them and draw two recycled
    # discards": factory 1 is filled first, so it holds the bag's blue and yellow. A deal
    # with them on factory 2 is not one that drawing could produce (docs/rules.md).
    s = position(board(), board(), bag={"B": 1, "Y": 1}, phase="refill", round=3, marker=0)
    before = s.to_json()
    with pytest.raises(ValueError):
        s.deal(factories=["RRRR", "BYKK", "WWWW", "RRKK", "WWRR"])
    assert s.to_json() == before


def test_refill_moves_the_lid_only_when_a_draw_needs_it():
    # docs/rules.md: a bag that empties on the last tile of a deal leaves the lid alone.
    s = position(board(), board(), bag={c: 4 for c in COLOURS}, phase="refill", round=3,
                 marker=0)
    lid = s.to_json()["lid"]
    s.deal(factories=["BYRK", "WBYR", "KWBY", "RKWB", "YRKW"])
    p = s.to_json()
    assert p["bag"] == ZERO
    assert p["lid"] == lid


def crowded_boards():
    """Four boards that hold all 100 tiles: walls of 20 (each row lacks one colour), and 20
    tiles on incomplete lines. Seat 0's wall has columns 3 and 4 complete."""
    return [
        board(score=30, wall=full_wall_except("BWRKY"), lines={2: "W", 4: "KKK", 5: "YYYY"}),
        board(score=25, wall=full_wall_except("YRKWB"), lines={5: "BBBB"}),
        board(score=40, wall=full_wall_except("RKWBY"), lines={2: "K", 3: "WW"}),
        board(score=35, wall=full_wall_except("KWBYR"), lines={2: "W", 5: "RRRR"}),
    ]


def test_refill_with_bag_and_lid_short_leaves_factories_partly_supplied():
    # 000: "If both bag and lid are empty, begin with the factories only partly supplied."
    # Eight tiles are left: two blues in the bag, two blues and four yellows in the lid.
    boards = crowded_boards()
    boards[0]["lines"][4] = boards[1]["lines"][4] = ""
    s = position(*boards, bag={"B": 2}, phase="refill", round=11, to_move=2, opener=2, marker=2)
    assert s.to_json()["lid"] == {"B": 2, "Y": 4, "R": 0, "K": 0, "W": 0}
    empty = [""] * 7
    for bad in (["BBYY", "BBY"] + empty,             # a tile left behind
                ["BBYY", "BYY", "B"] + empty[1:],    # two factories partly filled
                ["BBYY", "BBYYY"] + empty):          # five tiles on a factory
        with pytest.raises(ValueError):
            s.deal(factories=bad)
    s.deal(factories=["BBYY", "BBYY"] + empty)
    p = s.to_json()
    assert [len(f) for f in p["factories"]] == [4, 4] + [0] * 7
    assert p["bag"] == ZERO and p["lid"] == ZERO
    assert p["phase"] == "draft" and p["to_move"] == 2 and p["marker"] == "center"


# ---------------------------------------------------------------- the three decision studies


def test_decision_complete_now_or_avoid_overflow():
    # "Line one completes with one fallen tile; line two completes without overflow. Here
    # line two saves floor cost."
    def base():
        return position(board(score=3), board(floor="1"), center="BB", marker=1)

    one = base()
    p1 = play(one, "CB1")
    two = base()
    p2 = play(two, "CB2")
    assert p1["boards"][0]["wall"][0] == "B...."
    assert p2["boards"][0]["wall"][1] == ".B..."
    assert one.scores[0] == 3 + 1 - 1       # one wall point, one floor point
    assert two.scores[0] == 3 + 1           # one wall point, no floor
    assert p1["lid"]["B"] == 1 and p2["lid"]["B"] == 1   # the fallen tile, the discarded tile


def test_decision_claim_initiative_or_avoid_the_floor():
    # "Both fill the same line. Center claims initiative and a floor slot; factory avoids
    # that slot but sends blue and yellow to the center for opponents."
    def base():
        return position(board(), board(), factories=["RRBY", "KKWW"], center="RRK",
                        opener=1, to_move=0)

    center = base()
    pc = play(center, "CR2")
    factory = base()
    pf = play(factory, "1R2")
    for p in (pc, pf):
        assert p["boards"][0]["lines"][1] == "RR"
    assert pc["boards"][0]["floor"] == "1" and pc["marker"] == 0
    assert tiles(pc["center"]) == "K" and tiles(pc["factories"][0]) == "BYRR"
    assert pf["boards"][0]["floor"] == "" and pf["marker"] == "center"
    assert tiles(pf["center"]) == "BYRRK" and pf["factories"][0] == ""

    # Played out, the centre take makes seat 0 the next opener; the factory take leaves the
    # marker for seat 1, who then takes from the centre first.
    p = play(center, "1RF", "CY1", "CB3", "CK3", "2K4", "CWF")
    assert p["phase"] == "refill" and p["to_move"] == 0 and p["marker"] == 0
    p = play(factory, "CK1", "2K4", "CR3", "CWF", "CB2", "CY5")
    assert p["phase"] == "refill" and p["to_move"] == 1 and p["marker"] == 1


def test_decision_end_now_or_keep_building():
    # "Line one completes a wall row: five points, one floor cost and two end-bonus points,
    # ending play. Line three places elsewhere and continues."
    def base():
        return position(board(score=10, lines={3: "Y"}, wall={1: "B.RKW"}),
                        board(score=12, floor="1"), center="YY", marker=1)

    now = base()
    p = play(now, "CY1")
    assert p["phase"] == "over"
    assert p["boards"][0]["wall"][0] == "BYRKW"
    assert p["boards"][0]["lines"][2] == "Y"            # the incomplete line earns nothing
    assert now.scores == [10 + 5 - 1 + 2, 12 - 1]
    assert p["ranks"] == [1, 2]

    later = base()
    p = play(later, "CY3")
    assert p["phase"] == "refill"
    assert p["boards"][0]["wall"][2] == "...Y."
    assert later.scores == [10 + 1, 12 - 1]
    assert "ranks" not in p


# ---------------------------------------------------------------- house rules (000) and SPEC 3b


def test_marker_taken_with_a_full_floor_stays_beside_the_board():
    # 000: "keep it beside the board to remember the opener, with no extra penalty beyond the
    # seven occupied spaces."
    s = position(board(score=20, floor="BBBKKKR"), board(), factories=["", "KKKK"],
                 center="RR", opener=1, to_move=0)
    p = play(s, "CR1")
    me = p["boards"][0]
    assert p["marker"] == 0
    assert me["floor"] == "BBBKKKR" and "1" not in me["floor"]
    assert me["lines"][0] == "R"
    assert p["lid"]["R"] == 1                # the red that did not fit
    assert GameState.from_json(p).to_json() == p         # the position reads back

    p = play(s, "2K4")
    assert p["phase"] == "refill"
    assert s.scores == [20 + 1 - 14, 1]
    assert p["to_move"] == 0 and p["opener"] == 0 and p["marker"] == 0


def test_marker_takes_the_seventh_slot_and_the_tiles_go_to_the_lid():
    s = position(board(floor="BBBKKK"), board(), factories=["", "KKKK"], center="RRR")
    p = play(s, "CR1")
    assert p["boards"][0]["floor"] == "BBBKKK1"
    assert p["lid"]["R"] == 2


def test_marker_goes_first_after_earlier_floor_tiles():
    s = position(board(floor="KK"), board(), factories=["", "KKWW"], center="RRR")
    p = play(s, "CR1")
    assert p["boards"][0]["floor"] == "KK1RR"


def test_full_floor_marker_position_is_valid_but_a_missing_marker_is_not():
    full = board(floor="BBBKKKR")
    position(full, board(), center="RR", marker=0, factories=["KKKK"])
    with pytest.raises(InvalidPositionError):
        position(board(floor="BBK"), board(), center="RR", marker=0, factories=["KKKK"])


def test_a_round_without_centre_takes_keeps_its_opener():
    s = position(board(), board(score=4), factories=["BBBB"], opener=1, to_move=0)
    p = play(s, "1B4")
    assert p["phase"] == "refill"
    assert p["boards"][0]["wall"][3] == "...B."
    assert p["to_move"] == 1 and p["opener"] == 1 and p["marker"] == 1
    assert s.scores == [1, 4]


def test_four_player_deal_with_no_tile_left_ends_the_game():
    # SPEC 3b: bag and lid empty, every tile on a wall or a pattern line; the deal ends the
    # game at once, with end bonuses. Seat 0's wall has columns 3 and 4 complete: +14.
    for seed_or_forced in ({"seed": 5}, {"factories": [""] * 9}):
        s = position(*crowded_boards(), phase="refill", round=11, to_move=2, opener=2, marker=2)
        assert s.to_json()["bag"] == ZERO and s.to_json()["lid"] == ZERO
        s.deal(**seed_or_forced)
        p = s.to_json()
        assert p["phase"] == "over"
        assert s.scores == [44, 25, 40, 35]
        assert p["ranks"] == [1, 4, 2, 3]
        assert p["factories"] == [""] * 9


def test_ranks_share_a_tie_and_skip_the_next_rank():
    # Seats 0 and 1 both complete row 1 (+5, +2 bonus) to 20; seat 2 pays the marker.
    s = position(board(score=13, wall={1: "BYRK."}),
                 board(score=13, lines={1: "W"}, wall={1: "BYRK."}),
                 board(score=10, floor="1"), center="W", marker=2)
    p = play(s, "CW1")
    assert p["phase"] == "over"
    assert s.scores == [20, 20, 9]
    assert p["ranks"] == [1, 1, 3]


def test_a_score_tie_goes_to_more_complete_rows():
    # Seat 1 completes two rows: W in row 1 (5) then K under it in row 2 (5 + 2), bonus 4,
    # marker -1: 12 + 15 = 27. Seat 0 completes one row: 20 + 5 + 2 = 27.
    s = position(board(score=20, lines={1: "W"}, wall={1: "BYRK."}),
                 board(score=12, lines={2: "KK"}, wall={1: "BYRK.", 2: "WBYR."}, floor="1"),
                 center="WK", marker=1, to_move=1)
    p = play(s, "CW1", "CK5")
    assert p["phase"] == "over"
    assert s.scores == [27, 27]
    assert p["ranks"] == [2, 1]


# ---------------------------------------------------------------- error messages


def test_error_factory_has_no_such_colour():
    s = position(board(), board(), factories=["", "", "", "BBRK"])
    with pytest.raises(IllegalMoveError, match="(?i)factory 4 has no yellow"):
        s.play("4Y1")


def test_error_line_is_full():
    s = position(board(lines={1: "B"}), board(), factories=["BBRK"])
    with pytest.raises(IllegalMoveError, match="(?i)line 1 is full"):
        s.play("1B1")


def test_error_not_the_drafting_phase():
    s = position(board(), board(), phase="refill", round=3, marker=0)
    with pytest.raises(IllegalMoveError, match="(?i)not the drafting phase"):
        s.play("1B2")
    assert isinstance(IllegalMoveError("x"), ValueError)


def test_move_parse_is_case_insensitive():
    assert str(Move.parse("cr3")) == "CR3"
    assert str(Move.parse("2yf")) == "2YF"


# ---------------------------------------------------------------- the gray-wall variant


def test_gray_tiling_is_a_choice_of_legal_columns():
    # 000: "choose any empty square in its matching wall row. A color may appear only once in
    # any horizontal row and only once in any vertical column."
    s = position(board(lines={3: "BB"}, wall={1: "..B..", 2: ".W...", 3: "K...."}),
                 board(lines={1: "Y"}, floor="1"),
                 center="B", marker=1, variant="gray")
    p = play(s, "CB3")
    assert p["phase"] == "tiling" and p["to_move"] == 0
    assert legal(s) == ["3@2", "3@4", "3@5"]       # column 1 taken, column 3 has blue
    with pytest.raises(IllegalMoveError):
        s.play("3@3")
    with pytest.raises(IllegalMoveError, match="(?i)not the drafting phase"):
        s.play("CB1")

    p = play(s, "3@2")                      # beside the black, under the white: 2 + 2
    assert p["boards"][0]["wall"][2] == "KB..."
    assert p["boards"][0]["lines"][2] == ""
    assert s.scores[0] == 4
    assert p["phase"] == "tiling" and p["to_move"] == 1
    assert legal(s) == ["1@1", "1@2", "1@3", "1@4", "1@5"]

    p = play(s, "1@3")
    assert p["phase"] == "refill"
    assert p["boards"][1]["wall"][0] == "..Y.."
    assert s.scores == [4, 0]               # 1 for the yellow, 1 for the marker


def test_gray_one_legal_square_is_still_a_move():
    # Row 1's empty squares are columns 3 and 4; column 4 already holds white.
    s = position(board(lines={1: "W"}, wall={1: "BY..K", 2: "...W."}), board(floor="1"),
                 center="K", variant="gray", marker=1)
    p = play(s, "CK2")
    assert p["phase"] == "tiling" and p["to_move"] == 0
    assert legal(s) == ["1@3"]
    p = play(s, "1@3")
    assert p["boards"][0]["wall"][0] == "BYW.K"
    assert p["boards"][0]["lines"][:2] == ["", "K"]
    assert s.scores[0] == 3
    assert p["phase"] == "refill"


def test_gray_a_line_with_no_legal_square_falls_to_the_floor():
    # "If no legal square remains when a line is processed, move all tiles of that pattern
    # line to the floor, using normal overflow handling." Row 2's empty squares are in the
    # columns that already hold red.
    s = position(board(score=5, lines={2: "R"}, wall={1: "...R.", 2: "BYK..", 3: "....R"}),
                 board(floor="1"), center="R", marker=1, variant="gray")
    p = play(s, "CR2")
    assert p["phase"] == "refill"           # no placement move was asked for
    me = p["boards"][0]
    assert me["lines"][1] == "" and me["floor"] == ""
    assert me["wall"][1] == "BYK.."
    assert s.scores[0] == 5 - 2
    assert p["lid"]["R"] == 2


def test_gray_an_upper_placement_blocks_its_column_below():
    # Top to bottom: line 1's blue goes first; line 2's blue may then not use that column.
    s = position(board(lines={1: "B", 2: "B"}), board(floor="1"), center="B", marker=1,
                 variant="gray")
    play(s, "CB2")
    assert legal(s) == ["1@1", "1@2", "1@3", "1@4", "1@5"]
    play(s, "1@1")
    assert legal(s) == ["2@2", "2@3", "2@4", "2@5"]
    with pytest.raises(IllegalMoveError):
        s.play("2@1")
    p = play(s, "2@2")
    assert p["boards"][0]["wall"][:2] == ["B....", ".B..."]
    assert s.scores[0] == 2                 # two isolated tiles (diagonal)


def test_gray_a_fallen_line_overflows_the_floor_into_the_lid():
    s = position(board(score=20, lines={3: "RR"}, wall={1: "...R.", 2: "....R", 3: "BYK.."},
                       floor="KKKKKK"),
                 board(floor="1"), center="R", marker=1, variant="gray")
    p = play(s, "CR3")
    assert p["phase"] == "refill"
    assert s.scores[0] == 20 - 14
    assert p["lid"] == {"B": 0, "Y": 0, "R": 3, "K": 6, "W": 0}
