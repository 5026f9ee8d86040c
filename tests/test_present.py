"""present/: strict JSON written once, and a game's lines as plain text that the terminal colours."""
from __future__ import annotations

import json
import math

import pytest

from engine import new_game
from present.lines import round_header, scores_line, verdict
from present.strict_json import dumps, strict


def test_strict_json_writes_null_for_every_number_that_is_not_one():
    doc = {"a": math.nan, 2: [1.5, math.inf, (-math.inf, "x")], "b": {"c": None, "d": 0.25}}
    assert strict(doc) == {"a": None, "2": [1.5, None, [None, "x"]], "b": {"c": None, "d": 0.25}}
    text = dumps(doc, indent=None)
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == strict(doc)


def test_a_rounds_lines_read_the_same_in_the_terminal_and_on_the_web():
    from azul_cli import render

    pos = new_game(3, seed=7).to_json()
    pos["factories"][2] = ""
    assert render.round_header(pos).plain == round_header(pos)
    assert round_header(pos).startswith(f"round {pos['round']} (seat {pos['to_move']} opens)  1:")
    assert " 3:- " in round_header(pos)
    assert render.scores_line("final", pos).plain == scores_line("final", pos) == "final: seat 0 0, seat 1 0, seat 2 0"


@pytest.mark.parametrize(("ranks", "seat", "said"), [([1, 2], 0, "You win!"), ([1, 1], 1, "You share the win."),
                                                      ([1, 3, 2], 2, "You finish rank 2.")])
def test_the_verdict(ranks, seat, said):
    assert verdict(ranks, seat) == said
