"""``azul analyze`` on the three decision studies of the rules text 004, its JSON, and its errors."""
import json

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots import BOTS, make_bot
from bots.base import Bot
from engine import GameState, Move, new_game

runner = CliRunner()
EMPTY = "....."


def invoke(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def board(score=0, lines=("",) * 5, wall=(EMPTY,) * 5, floor=""):
    return {"score": score, "lines": list(lines), "wall": list(wall), "floor": floor}


def position(round, to_move, opener, factories, center, marker, boards, lid=None):
    """A 2-player coloured-wall draft position; the bag holds every tile not placed elsewhere."""
    lid = lid or dict.fromkeys("BYRKW", 0)
    placed = dict(lid)
    for text in [*factories, center] + [b["floor"] for b in boards] + \
            [row for b in boards for row in b["lines"] + b["wall"]]:
        for letter in text:
            if letter in placed:
                placed[letter] += 1
    return {"format": "azul-position/1", "variant": "colored", "players": 2, "round": round,
            "phase": "draft", "to_move": to_move, "opener": opener, "factories": list(factories),
            "center": center, "marker": marker, "bag": {c: 20 - placed[c] for c in "BYRKW"},
            "lid": lid, "boards": boards}


# "Complete now or avoid overflow?" The last two tiles of the last round are two blues in the
# centre (seat 1 completes wall row 1 this round). Line one completes with one fallen tile (20 : 20,
# seat 1 wins on complete rows); line two completes without overflow (21 : 20).
OVERFLOW = position(5, 0, 1, [""] * 5, "BB", 1, [
    board(20, wall=[EMPTY, EMPTY, "..B..", "...B.", "....B"]),
    board(14, lines=["B", "", "", "", ""], wall=[".YRKW", EMPTY, EMPTY, EMPTY, EMPTY], floor="1")])

# "Claim initiative or avoid the floor?" Two reds into line two, from the centre (the marker and a
# floor slot) or from factory 1 (B and Y go to the centre for the opponent).
INITIATIVE = position(2, 0, 1, ["BYRR", "", "KKWW", "", "BYKW"], "RRK", "center", [
    board(4, lines=["", "", "YY", "", ""], wall=["B....", EMPTY, EMPTY, "...B.", EMPTY]),
    board(6, lines=["", "", "", "KK", ""], wall=["..R..", "W....", EMPTY, EMPTY, EMPTY])],
    lid={"B": 2, "Y": 3, "R": 1, "K": 2, "W": 2})

# "End now or keep building?" The final two yellows: line one completes wall row 1 (five points,
# one floor cost, two end-bonus points) and ends the game 36 : 32; line three completes that line,
# tiles elsewhere and play goes on.
ENDING = position(4, 0, 0, [""] * 5, "YY", 1, [
    board(30, lines=["", "", "Y", "", ""], wall=["B.RKW", "W....", "..B..", "R..B.", "....B"]),
    board(33, wall=["BY...", ".BY..", "K.B..", "...B.", EMPTY], floor="1")],
    lid={"B": 0, "Y": 4, "R": 5, "K": 3, "W": 4})


@pytest.fixture
def write(tmp_path):
    def write(obj, name="position.json"):
        path = tmp_path / name
        path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
        return path
    return write


def analysis(path, *args):
    result = invoke("analyze", path, "--bot", "mcts", "--iterations", 50000, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_studies_are_what_they_say():
    for study in (OVERFLOW, INITIATIVE, ENDING):
        GameState.from_json(study)  # valid positions
    finals = {}
    for move in ("CB1", "CB2", "CY1", "CY3"):
        state = GameState.from_json(OVERFLOW if move.startswith("CB") else ENDING)
        state.play(move)
        finals[move] = (state.phase, state.scores)
    assert finals == {"CB1": ("over", [20, 20]), "CB2": ("over", [21, 20]),
                      "CY1": ("over", [36, 32]), "CY3": ("refill", [34, 32])}
    legal = GameState.from_json(INITIATIVE).legal_moves()
    assert "CR2" in legal and "1R2" in legal


# ---------------------------------------------------------------- the three decision studies
def test_complete_now_or_avoid_overflow_prefers_line_two(write):
    rows = analysis(write(OVERFLOW))
    assert [r["move"] for r in rows][0] == "CB2"
    by_move = {r["move"]: r for r in rows}
    assert set(by_move) == {"CB1", "CB2", "CBF"}
    assert by_move["CB2"]["value"] > by_move["CB1"]["value"]
    table = invoke("analyze", write(OVERFLOW), "--iterations", 50000).stdout
    first_row = next(line for line in table.splitlines() if line.split()[:1] == ["1"])
    assert first_row.split()[1] == "CB2"


def test_claim_initiative_or_avoid_the_floor_lists_both(write):
    path = write(INITIATIVE)
    rows = analysis(path, "--top", 0)
    assert len(rows) == len(GameState.from_json(INITIATIVE).legal_moves())
    by_move = {r["move"]: r for r in rows}
    for move in ("CR2", "1R2"):
        assert by_move[move]["visits"] > 0
        assert 0.0 <= by_move[move]["value"] <= 1.0
        assert by_move[move]["pv"][0] == move
    table = invoke("analyze", path, "--iterations", 50000, "--top", 0).stdout
    shown = {line.split()[1]: line.split() for line in table.splitlines()
             if line.split()[:1] and line.split()[0].isdigit()}
    assert int(shown["CR2"][2]) == by_move["CR2"]["visits"]
    assert int(shown["1R2"][2]) == by_move["1R2"]["visits"]


def test_end_now_or_keep_building_when_ending_wins(write):
    rows = analysis(write(ENDING))
    by_move = {r["move"]: r for r in rows}
    assert {"CY1", "CY3"} <= set(by_move)
    assert all(by_move[m]["visits"] > 0 for m in ("CY1", "CY3"))
    # ending now wins 36 : 32 for certain; going on is a gamble on the next rounds
    assert rows[0]["move"] == "CY1" and by_move["CY1"]["value"] > by_move["CY3"]["value"]


# ---------------------------------------------------------------- output
def test_json_is_sorted_by_visits_and_reproducible(write):
    path = write(new_game(players=2, seed=3).to_json())
    rows = analysis(path, "--top", 5)
    assert len(rows) == 5
    assert all(set(r) == {"move", "visits", "value", "pv"} for r in rows)
    visits = [r["visits"] for r in rows]
    assert visits == sorted(visits, reverse=True)
    legal = GameState.from_json(json.loads(path.read_text())).legal_moves()
    assert all(r["move"] in legal and r["pv"][0] == r["move"] for r in rows)
    assert analysis(path, "--top", 5) == rows  # the same seed, the same analysis
    everything = analysis(path, "--top", 0, "--iterations", 2000)
    assert sorted(r["move"] for r in everything) == sorted(str(m) for m in legal)
    assert sum(r["visits"] for r in everything) <= 2000


def test_a_gray_tiling_decision_reads_from_standard_input():
    gray = json.loads(json.dumps(OVERFLOW))
    gray["variant"] = "gray"
    state = GameState.from_json(gray)
    state.play("CB2")  # drafting ends; seat 0 places its line-two blue, then seat 1 its line one
    assert state.phase == "tiling"
    result = invoke("analyze", "-", "--iterations", 500, "--json",
                    input=json.dumps(state.to_json()))
    assert result.exit_code == 0, result.output
    assert {r["move"] for r in json.loads(result.stdout)} == {str(m) for m in state.legal_moves()}


class _StubAnalyst(Bot):
    """An analyzing bot with a fixed answer, out of visit order, with Move objects in it."""

    def analyze(self, state, iterations=None):
        return [{"move": Move.parse("1b1"), "visits": 3, "value": 0.25, "pv": [Move.parse("1B1")]},
                {"move": "1B2", "visits": 9, "value": 0.75, "pv": ["1B2", "CR1"]},
                {"move": "1B3", "visits": 3, "value": 0.5, "pv": []}]


def test_rows_are_normalized_and_sorted_whatever_the_bot(write, monkeypatch):
    monkeypatch.setitem(BOTS, "stub-analyst", _StubAnalyst)
    path = write(new_game(players=2, seed=3).to_json())
    result = invoke("analyze", path, "--bot", "stub-analyst", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {"move": "1B2", "visits": 9, "value": 0.75, "pv": ["1B2", "CR1"]},
        {"move": "1B1", "visits": 3, "value": 0.25, "pv": ["1B1"]},
        {"move": "1B3", "visits": 3, "value": 0.5, "pv": []}]
    table = invoke("analyze", path, "--bot", "stub-analyst", "--top", 2).stdout
    assert "1B2" in table and "1B2 CR1" in table and "60.0%" in table and "0.750" in table
    assert "1B3" not in table.split("more moves")[0].split("analysis:")[1] and "(1 more move;" in table


# ---------------------------------------------------------------- errors
def test_error_cases_print_one_line_and_exit_1(write, tmp_path):
    game = new_game(players=2, seed=3)
    over = GameState.from_json(OVERFLOW)
    over.play("CB2")
    cases = [
        ([tmp_path / "missing.json"], "missing.json: no such file"),
        ([write('{"format": ', "bad.json")], "not JSON"),
        ([write({**OVERFLOW, "round": 0}, "invalid.json")], "round: 0, rounds count from 1"),
        ([write(new_game(players=2).to_json(), "refill.json")], "nothing to analyze in phase refill"),
        ([write(over.to_json(), "over.json")], "nothing to analyze in phase over (the game is over)"),
        ([write(game.to_json()), "--bot", "nope"], "unknown bot type 'nope'"),
        ([write(game.to_json()), "--bot", "random"], "bot 'random' cannot analyze a position"),
    ]
    for args, message in cases:
        result = invoke("analyze", *args)
        assert result.exit_code == 1, (args, result.output)
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.output
        assert isinstance(result.exception, SystemExit)


def test_a_bot_without_analyze_names_the_bots_that_have_it(write):
    result = invoke("analyze", write(new_game(players=2, seed=3).to_json()), "--bot", "random")
    assert "bots that can: " in result.stderr and "mcts" in result.stderr.split("bots that can: ")[1]


@pytest.mark.parametrize("args", [["--iterations", "0"], ["--top", "-1"], ["--iterations", "x"]])
def test_bad_option_values_are_rejected_clearly(write, args):
    result = invoke("analyze", write(new_game(players=2, seed=3).to_json()), *args)
    assert result.exit_code != 0
    assert "Invalid value" in result.output and "Traceback" not in result.output
