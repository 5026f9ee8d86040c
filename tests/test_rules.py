"""engine/rules.py is the one table of rules constants: the compiled core agrees with it, and the
facts the engine reports per move and per round (``GameState.step``, ``round_scoring``, the game
loop's events) agree with the positions before and after."""
from __future__ import annotations

import random

import pytest

from engine import new_game, rules
from engine._core import rules_tables
from engine.loop import Dealt, Moved, RoundEnded, play, step


def test_the_core_floor_table_is_the_rules_table():
    assert tuple(rules_tables()["floor_totals"]) == rules.FLOOR_TOTALS == (0, 1, 2, 4, 6, 8, 11, 14)
    assert [rules.floor_penalty(k) for k in (0, 1, 7, 8, 12)] == [0, 1, 14, 14, 14]


def test_the_core_placement_points_are_the_rules_placement_points():
    table = rules_tables()["placement"]
    assert len(table) == 25 * 16 * 16
    for (row, col, row_mask, col_mask), points in table.items():
        filled = [False] * 25
        for c in range(5):
            filled[row * 5 + c] = bool(row_mask >> c & 1)
        for r in range(5):
            filled[r * 5 + col] = bool(col_mask >> r & 1)
        assert rules.placement_points(filled, row, col) == points, (row, col, row_mask, col_mask)


def test_the_printed_wall_reads_as_the_spec_says():
    rows = ["".join(rules.COLOURS[rules.wall_colour(r, c)] for c in range(5)) for r in range(5)]
    assert rows == ["BYRKW", "WBYRK", "KWBYR", "RKWBY", "YRKWB"]
    for r in range(5):
        for c in range(5):
            assert rules.wall_column(rules.wall_colour(r, c), r) == c


def test_end_bonus_and_ranks():
    full = ["BYRKW", "WBYRK", "KWBYR", "RKWBY", "YRKWB"]
    assert rules.end_bonus(full) == 5 * 2 + 5 * 7 + 5 * 10 == 95
    partial = ["BYRKW", "W....", "K....", "R....", "Y...."]  # one row, one column, no colour
    assert (rules.complete_rows(partial), rules.complete_columns(partial), rules.complete_colours(partial)) == (1, 1, 0)
    assert rules.end_bonus(partial) == 9
    assert rules.ranks([30, 30, 30, 12], [1, 1, 0, 3]) == [1, 1, 3, 4]
    with pytest.raises(ValueError, match="differ in length"):
        rules.ranks([1, 2], [0])


@pytest.mark.parametrize("players,variant", [(2, "colored"), (3, "gray"), (4, "colored"), (4, "gray")])
def test_step_reports_what_each_move_did(players, variant):
    rng = random.Random(players)
    for game in range(6):
        state = new_game(players=players, variant=variant, seed=game)
        while not state.is_over:
            if state.phase == "refill":
                state.deal(seed=rng.randrange(2**32))
                continue
            before = state.to_json()
            move = rng.choice(state.legal_moves())
            played = state.step(move)
            seat = before["to_move"]
            assert played.seat == seat and played.move == move
            assert played.round_over == (state.phase in ("refill", "over"))
            if move.is_tiling:
                assert played.taken is None and played.to_floor == 0 and not played.took_marker
                assert played.colour == before["boards"][seat]["lines"][move.line - 1][0]
                continue
            source = before["center"] if move.from_center else before["factories"][move.factory - 1]
            assert played.colour == move.colour and played.taken == source.count(move.colour)
            assert played.took_marker == (move.from_center and before["marker"] == "center")
            room = 0 if move.line is None else move.line - len(before["boards"][seat]["lines"][move.line - 1])
            assert played.to_floor == played.taken - min(room, played.taken)


@pytest.mark.parametrize("players,variant", [(2, "gray"), (3, "colored"), (4, "gray")])
def test_the_loop_reports_every_deal_move_and_round(players, variant):
    rng = random.Random(7)
    for game in range(5):
        state = new_game(players=players, variant=variant)
        events = list(play(state, lambda seat, view: rng.choice(view.legal_moves()), lambda r: game * 100 + r))
        deals = [e for e in events if type(e) is Dealt]
        ends = [e for e in events if type(e) is RoundEnded]
        moves = [e for e in events if type(e) is Moved]
        assert state.is_over and [d.round for d in deals] == [e.round for e in ends] == list(range(1, len(deals) + 1))
        assert [m.ply for m in moves] == list(range(1, len(moves) + 1))
        assert all(m.legal >= 1 for m in moves)
        for s in range(players):  # every point is a round's wall points, floor penalty or end bonus
            total = sum(e.scoring[s].wall_points - e.scoring[s].floor_penalty + e.scoring[s].end_bonus for e in ends)
            assert total == state.scores[s]
        walls = [b["wall"] for b in state.to_json()["boards"]]
        assert [e.end_bonus for e in ends[-1].scoring] == [rules.end_bonus(w) for w in walls]


def test_a_deal_is_the_same_through_the_loop_and_by_hand():
    state = new_game(players=2)
    event = step(state, act=None, deal_seed=lambda r: 99)
    by_hand = new_game(players=2, seed=99)
    assert event == Dealt(1, 0, tuple(by_hand.to_json()["factories"])) and state == by_hand
    seen = []
    event = step(state, lambda seat, view: seen.append((seat, view)) or view.legal_moves()[0], None)
    assert type(event) is Moved and event.ply == 1 and seen[0][0] == 0
    assert seen[0][1] is not state  # the bot is shown a copy


def test_a_move_the_rules_forbid_leaves_the_state_as_it_was():
    state = new_game(players=2, seed=3)
    before = state.clone()
    illegal = next(m for m in ("1B1", "1Y1", "1R1", "1K1", "1W1") if m not in map(str, state.legal_moves()))
    with pytest.raises(ValueError, match="illegal move"):
        step(state, lambda seat, view: illegal, None)
    assert state == before


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_the_core_phase_numbers_are_the_rules_phase_numbers(variant):
    """rules.PHASES and DRAFT..OVER are the core's numbers (state.py, the position reader and
    engine.rl read them there): a game passes through each, each where the rules say."""
    rng = random.Random(4)
    state = new_game(seed=4, variant=variant)
    seen = []
    while True:
        number, name = state._core.phase, state.to_json()["phase"]
        assert rules.PHASES[number] == name and state.phase == name
        seen.append(number)
        if number == rules.OVER:
            break
        if number == rules.REFILL:
            state.deal(seed=rng.randrange(2**32))
        else:
            state.play(rng.choice(state.legal_moves()))
    assert seen[0] == rules.DRAFT and rules.REFILL in seen and seen[-1] == rules.OVER
    assert (rules.TILING in seen) == (variant == "gray")
