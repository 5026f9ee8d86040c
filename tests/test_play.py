"""``azul play``: the session, the person's prompt and the teaching preview, driven through their
input lines and a recording rich Console; the command itself through typer's CliRunner."""
import io
import json
import random
import re
import sys

import pytest
from rich.console import Console
from typer.testing import CliRunner

from azul_cli.main import app
from azul_cli.play import HumanPlayer, LeaveGame, PlaySession
from bots.spec import parse_bot_spec
from present.teach import floor_penalty, placement_points, preview, preview_text
from bots import make_bot
from engine import GameState, IllegalMoveError, Move, new_game

runner = CliRunner()
EMPTY = "....."


def board(score=0, lines=("",) * 5, wall=(EMPTY,) * 5, floor=""):
    return {"score": score, "lines": list(lines), "wall": list(wall), "floor": floor}


def position(boards, factories=("",) * 5, center="", marker="center", round=2, to_move=0,
             opener=0, variant="colored", phase="draft"):
    """A 2-player position; the bag holds every tile not placed elsewhere, the lid none."""
    placed = dict.fromkeys("BYRKW", 0)
    for text in [*factories, center] + [b["floor"] for b in boards] + \
            [row for b in boards for row in b["lines"] + b["wall"]]:
        for letter in text:
            if letter in placed:
                placed[letter] += 1
    return GameState.from_json({
        "format": "azul-position/1", "variant": variant, "players": 2, "round": round,
        "phase": phase, "to_move": to_move, "opener": opener, "factories": list(factories),
        "center": center, "marker": marker, "bag": {c: 20 - placed[c] for c in "BYRKW"},
        "lid": dict.fromkeys("BYRKW", 0), "boards": boards})


def recorder():
    buf = io.StringIO()
    return buf, Console(file=buf, color_system=None, width=120, highlight=False)


def lines_reader(lines):
    """A read_line that answers the given lines, then None (the end of input)."""
    it = iter(lines)
    return lambda: next(it, None)


def session(lines=(), bots=None, state=None, teach=False, players=2, variant="colored", seed=1,
            human=(0,)):
    buf, console = recorder()
    if bots is None:
        bots = [(s, make_bot("greedy", seed=s)) for s in range(players) if s not in human]
    reader = lines if callable(lines) else lines_reader(lines)
    s = PlaySession(bots, human, players=players, variant=variant, seed=seed, teach=teach,
                    read_line=reader, console=console, state=state, hint_iterations=2000)
    return s, buf


def final_scores_shown(out):
    match = re.search(r"final scores: (.*)", out)
    assert match, out[-2000:]
    return [int(n) for n in re.findall(r"seat \d+ (\d+)", match.group(1))]


# ---------------------------------------------------------------- whole games
def test_a_whole_game_against_greedy_with_moves_read_from_the_printed_list():
    """The 'person' only reads the output: asks for `moves`, then plays a printed legal move."""
    rng = random.Random(4)
    buf, console = recorder()
    asked = [False]

    def read_line():
        asked[0] = not asked[0]
        if asked[0]:
            return "moves"
        listed = re.findall(r"\d+ legal moves: (.*)", buf.getvalue())[-1].split()
        return rng.choice(listed)

    s = PlaySession([(1, make_bot("greedy", seed=9))], (0,), players=2, seed=11,
                    read_line=read_line, console=console)
    assert s.run() == "over"
    out = buf.getvalue()
    assert s.state.is_over
    assert final_scores_shown(out) == s.state.scores
    assert "error" not in out
    # every round was dealt and announced, and each announced move is notation
    assert len(re.findall(r"^round \d+ \(seat \d opens\)", out, re.MULTILINE)) == s.state.round
    played = re.findall(r"seat (\d) \((you|greedy)\) plays (\S+)$", out, re.MULTILINE)
    assert {who for _, who, _ in played} == {"you", "greedy"}
    assert all(str(Move.parse(m)) == m for _, _, m in played)


def test_a_three_player_gray_game_with_teaching_reaches_the_end():
    """Teaching mode asks to confirm each move; gray tiling asks for columns (answered by number)."""
    rng = random.Random(2)
    s = None

    def read_line():
        if buf.getvalue().rstrip().endswith("[y/n] >"):
            return "y"
        legal = s.state.legal_moves()
        if s.state.phase == "tiling":
            return str(rng.choice(legal).column)
        drafts = [m for m in legal if m.line is not None] or legal
        return str(rng.choice(drafts))

    s, buf = session(read_line, players=3, variant="gray", teach=True, seed=5)
    assert s.run() == "over"
    out = buf.getvalue()
    assert final_scores_shown(out) == s.state.scores
    assert "make this move? [y/n] >" in out and "Legal columns:" in out
    assert re.search(r"seat 0 \(you\) plays \d@\d$", out, re.MULTILINE)


# ---------------------------------------------------------------- teaching preview
def test_preview_overflow_floor_cost_and_tiling_score_match_the_engine():
    # Seat 0 takes the round's last four reds from the centre (and the marker) into line 2, which
    # holds one red: one fits and completes the line, three overflow. The floor holds two tiles.
    # Wall row 2 has B Y beside red's square, row 1 a black above it: 3 across + 2 down = 5.
    state = position([board(10, lines=["", "R", "", "", ""], wall=["...K.", ".BY..", EMPTY, EMPTY, EMPTY],
                            floor="KK"),
                      board(3)], center="RRRR")
    p = preview(state, "CR2")
    assert (p.source, p.colour, p.taken, p.line) == ("the centre", "red", 4, 2)
    assert (p.placed, p.overflow, p.to_lid) == (1, 3, 0)
    assert p.takes_marker and p.marker_on_floor
    assert p.floor_cost == floor_penalty(6) - floor_penalty(2) == 9
    assert p.completes and p.tiling_points == 5
    text = preview_text(p)
    assert "take 4 red tiles from the centre into pattern line 2" in text
    assert "3 overflow to the floor" in text and "Floor cost: -9" in text and "scores 5" in text
    after = state.clone()
    after.play("CR2")  # the last draft: tiling and floor penalties follow at once
    board0 = after.to_json()["boards"][0]
    assert board0["wall"][1] == ".BYR."
    assert after.scores[0] == 10 + p.tiling_points - floor_penalty(2) - p.floor_cost


def test_preview_counts_lines_above_tiled_first_and_tiles_beyond_the_floor():
    # Line 1 (blue) is complete and tiles first; the white completing line 2 lands below it.
    # The floor holds five: the marker takes the sixth slot, one red the seventh, two go to the lid.
    boards = [board(20, lines=["B", "W", "", "", ""], floor="KKKKK"), board(0)]
    with pytest.raises(IllegalMoveError, match="illegal move CR1: line 1 is full"):
        preview(position(boards, center="WRRR"), "CR1")
    state = position(boards, center="W")
    p = preview(state, "CW2")
    assert p.completes and p.tiling_points == 2  # below line 1's blue, in column 1
    state.play("CW2")  # the round's last tiles
    assert state.scores[0] == 20 + 1 + p.tiling_points - floor_penalty(5) - p.floor_cost
    state = position(boards, center="RRR")
    p = preview(state, "CRF")
    assert p.takes_marker and p.marker_on_floor and (p.overflow, p.to_lid) == (3, 2)
    assert p.floor_cost == floor_penalty(7) - floor_penalty(5) == 6
    assert "2 of them find no floor slot and go to the lid" in preview_text(p)
    state.play("CRF")
    assert state.scores[0] == 20 + 1 - floor_penalty(5) - p.floor_cost


@pytest.mark.parametrize("marker", ["center", 1])
def test_preview_agrees_with_the_engine_for_every_move_that_ends_the_round(marker):
    # Only three yellows are left; whichever line they go to, the round ends and is scored.
    # Line 2 holds one yellow; no other line is complete, so the score change is the preview's.
    wall = ["B....", ".B...", "..B..", "...B.", EMPTY]
    state = position([board(12, lines=["", "Y", "", "RR", ""], wall=wall, floor="K"),
                      board(4, floor="" if marker == "center" else "1")],
                     center="YYY", marker=marker, opener=0 if marker == "center" else 1)
    legal = state.legal_moves()
    assert [str(m) for m in legal] == ["CY1", "CY2", "CY3", "CY5", "CYF"]
    seen = set()
    for move in legal:
        p = preview(state, move)
        assert p.takes_marker == (marker == "center")
        after = state.clone()
        after.play(move)
        assert after.phase == "refill"
        expected = 12 + (p.tiling_points or 0) - floor_penalty(1) - p.floor_cost
        assert after.scores[0] == max(0, expected), (str(move), preview_text(p))
        if move.line is not None:
            left = after.to_json()["boards"][0]["lines"][move.line - 1]
            assert len(left) == (0 if p.completes else p.held + p.placed)
        seen.add((str(move), p.completes, p.tiling_points))
    assert ("CY2", True, 4) in seen  # B beside it in row 2, B below it in column 3


def test_preview_when_the_floor_is_full_keeps_the_marker_beside_the_board():
    state = position([board(30, floor="KKKKKKK"), board(0)], center="YY")
    p = preview(state, "CY1")
    assert p.takes_marker and not p.marker_on_floor
    assert (p.placed, p.overflow, p.to_lid, p.floor_cost) == (1, 1, 1, 0)
    assert "beside your board" in preview_text(p)


def test_gray_preview_gives_each_legal_column_its_score():
    # Seat 0 completes line 2 (red) with the last tile; wall row 2 is B...W, column 3 holds red.
    state = position([board(3, lines=["", "R", "", "", ""], wall=[".Y.W.", "B...W", "..R..", EMPTY, EMPTY]),
                      board(5, floor="1")], factories=["R", "", "", "", ""], marker=1, opener=1,
                     variant="gray")
    p = preview(state, "1R2")
    assert p.completes and p.tiling_points is None
    assert set(p.column_points) == {2, 4}  # 1 and 5 are filled, 3 already has red
    state.play("1R2")
    assert state.phase == "tiling"
    assert sorted(m.column for m in state.legal_moves()) == [2, 4]
    for column, points in p.column_points.items():
        tiled = state.clone()
        tp = preview(tiled, f"2@{column}")
        assert tp.points == points
        tiled.play(f"2@{column}")
        assert tiled.scores[0] == 3 + points  # nothing on seat 0's floor


def test_placement_points_follow_the_lessons():
    wall = ["BYR..", "...R.", "...B.", EMPTY, EMPTY]
    assert placement_points(wall, 0, 3) == 4 + 3  # a run of four across, three down
    assert placement_points([EMPTY] * 5, 2, 2) == 1
    assert floor_penalty(3) == 4 and floor_penalty(7) == 14 and floor_penalty(9) == 14


# ---------------------------------------------------------------- the prompt
def test_an_illegal_move_is_explained_and_changes_nothing():
    state = new_game(players=2)
    state.deal(factories=["BBRY", "KWWY", "RRRR", "BYKW", "YYKK"])
    state.play("1R2")
    state.play("5KF")  # seat 0 to move again, line 2 holds red
    before = state.to_json()
    s, buf = session(["4B2", "1K1", "zz", "quit"], state=state)
    assert s.run() == "quit"
    out = buf.getvalue()
    assert "error: illegal move 4B2: line 2 holds red" in out
    assert "error: illegal move 1K1: factory 1 has no black" in out
    assert "'zz' is neither a move nor a command" in out
    assert s.state.to_json() == before
    assert "You left the game in round 1" in out


def test_teaching_preview_can_be_refused_and_changes_nothing():
    state = new_game(players=2, seed=7)
    before = state.to_json()
    s, buf = session(["1B2", "n", "1B2", "maybe", "quit"], state=state, teach=True)
    assert s.run() == "quit"
    out = buf.getvalue()
    assert out.count("1B2: take") == 2 and "Then choose again." in out
    assert "answer y (make the move), n (choose another) or quit" in out
    assert s.state.to_json() == before


def test_end_of_input_leaves_cleanly():
    s, buf = session([])
    assert s.run() == "eof"
    assert "End of input: the game stops in round 1." in buf.getvalue()


def test_hint_lists_legal_moves_only():
    state = new_game(players=2, seed=3)
    s, buf = session(["hint 4", "hint x", "quit"], state=state)
    s.run()
    out = buf.getvalue()
    hinted = re.findall(r"^  \d\. (\S+) +visits +(\d+)", out, re.MULTILINE)
    assert len(hinted) == 4
    legal = {str(m) for m in state.legal_moves()}
    assert all(m in legal for m, _ in hinted)
    visits = [int(v) for _, v in hinted]
    assert visits == sorted(visits, reverse=True)
    assert "error: hint N: N is how many moves to show" in out


def test_human_player_acts_like_a_bot_and_refuses_session_commands():
    buf, console = recorder()
    player = HumanPlayer(lines_reader(["undo", "save x.json", "help", "2YF"]), console,
                         show_position=False)
    state = new_game(players=3, seed=2)
    legal = state.legal_moves()
    move = player.act(state)
    assert move == Move.parse("2YF") and move in legal
    out = buf.getvalue()
    assert "'undo' is not available here" in out and "'save' is not available here" in out
    assert "hint [N]" in out  # the help text, printed as written
    with pytest.raises(LeaveGame) as left:
        HumanPlayer(lines_reader(["quit"]), console).act(state)
    assert left.value.reason == "quit"


# ---------------------------------------------------------------- undo
def test_undo_restores_the_exact_earlier_position_including_the_bots_replies():
    state = new_game(players=3, seed=8)
    start = state.to_json()
    first = str(state.legal_moves()[0])
    s, buf = session([first], players=3, state=state)
    s.step()  # seat 0 (the person) moves
    s.step()
    s.step()  # both bots reply
    after_replies = s.state.to_json()
    assert after_replies != start and s.state.to_move == 0
    s.human.read_line = lines_reader([str(s.state.legal_moves()[-1]), "undo", "undo", "undo"])
    for _ in range(3):
        s.step()  # a second move and both replies
    s.step()  # undo: back to before the second move
    assert s.state.to_json() == after_replies
    s.step()  # undo again: back to the start
    assert s.state.to_json() == start
    s.step()  # nothing left: the deal of round 1 is as far back as undo goes
    assert s.state.to_json() == start
    out = buf.getvalue()
    assert out.count("undone: your move") == 2
    assert "nothing to undo" in out and "does not go back past a deal" in out


def test_undo_does_not_go_back_past_a_deal():
    s = None

    def read_line():
        return "undo" if s.state.round == 2 else str(s.state.legal_moves()[0])

    s, buf = session(read_line, seed=4)
    while s.state.round == 1 or s.state.phase == "refill":
        s.step()
    assert s.state.round == 2
    if s.state.to_move != 0:
        s.step()
    dealt = s.state.to_json()
    s.step()
    assert s.state.to_json() == dealt
    assert "nothing to undo: you have not moved since the deal of round 2" in buf.getvalue()


# ---------------------------------------------------------------- save and load
def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "game.json"
    state = new_game(players=2, seed=6)
    s, buf = session([f"save {path}", str(state.legal_moves()[0]), f"load {path}", "quit"], state=state)
    assert s.run() == "quit"
    assert GameState.from_json(path.read_text()) == state
    assert s.state == state  # the move and the bot's reply were replaced by the loaded position
    out = buf.getvalue()
    assert f"saved the position to {path}" in out
    assert f"loaded {path}: colored wall, round 1, phase draft" in out


def test_bad_load_files_are_refused_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": ')
    three = tmp_path / "three.json"
    three.write_text(json.dumps(new_game(players=3, seed=1).to_json()))
    invalid = new_game(players=2, seed=1).to_json()
    invalid["boards"][0]["lines"][1] = "BBB"
    inv = tmp_path / "invalid.json"
    inv.write_text(json.dumps(invalid))
    state = new_game(players=2, seed=6)
    cmds = [f"load {tmp_path / 'none.json'}", f"load {bad}", f"load {three}", f"load {inv}", "load",
            f"save {tmp_path / 'no' / 'dir.json'}", "quit"]
    s, buf = session(cmds, state=state)
    s.run()
    out = buf.getvalue()
    assert "none.json: no such file" in out
    assert "bad.json: position: not JSON" in out
    assert "three.json: a 3-player position, this game has 2 players" in out
    assert "boards[0].lines[1]: holds 3 tiles, line 2 holds at most 2" in out
    assert "error: load needs a file name: load FILE" in out
    assert "dir.json: cannot write it" in out
    assert s.state == state


# ---------------------------------------------------------------- gray tiling
def test_gray_tiling_prompt_shows_the_legal_columns_and_accepts_one():
    gray = position([board(3, lines=["", "RR", "WWW", "", ""], wall=[".Y.W.", "B...W", "RKY..", EMPTY, EMPTY]),
                     board(5, floor="1")], factories=["B", "", "", "", ""], marker=1, opener=1,
                    variant="gray")
    s, buf = session(["1B1", "1", "9", "3", "2@2"], state=gray, variant="gray")
    assert s.run() == "eof"
    out = buf.getvalue()
    assert "the blue tile of pattern line 1 goes to wall row 1. Legal columns: 3, 5." in out
    assert "error: illegal move 1@1: wall column 1 already has blue" in out
    assert "error: column 9: the legal columns are 3, 5" in out
    assert "the red tile of pattern line 2 goes to wall row 2. Legal columns: 2, 3, 4." in out
    assert "seat 0 (you) plays 1@3" in out and "seat 0 (you) plays 2@2" in out
    assert "scores after round 2: seat 0 7, seat 1 4" in out
    assert s.state.round == 3
    wall = s.state.to_json()["boards"][0]["wall"]
    assert wall[:2] == [".YBW.", "BR..W"]


# ---------------------------------------------------------------- sessions refuse bad seats
def test_a_session_needs_every_seat_once():
    with pytest.raises(ValueError, match="seats: 3 players need seats 0 to 2"):
        PlaySession([(1, make_bot("greedy"))], (0,), players=3)


def test_bot_specs_parse_keys_and_values():
    assert parse_bot_spec("mcts") == ("mcts", {})
    assert parse_bot_spec("mcts:iterations=200,exploration=1.5,rollout=game") == \
        ("mcts", {"iterations": 200, "exploration": 1.5, "rollout": "game"})
    with pytest.raises(ValueError, match="'iterations' is not key=value"):
        parse_bot_spec("mcts:iterations")


# ---------------------------------------------------------------- the command
def invoke(*args, **kwargs):
    return runner.invoke(app, ["play", *[str(a) for a in args]], **kwargs)


def test_the_command_plays_a_whole_last_round_from_piped_input(tmp_path):
    # The last round: seat 0 completes wall row 1 with the last blue; seat 1 has nothing to do.
    near_end = position([board(20, lines=["", "", "", "", ""], wall=[".YRKW", EMPTY, EMPTY, EMPTY, EMPTY]),
                         board(14, floor="1")], factories=["BB", "", "", "", ""], marker=1,
                        round=5, opener=1)
    path = tmp_path / "end.json"
    path.write_text(json.dumps(near_end.to_json()))
    result = invoke("--load", path, "--plain", "--seed", 3, input="moves\n1B9\n1B1\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "you are seat 0; seat 1 greedy" in out
    assert "6 legal moves: 1B1 1B2 1B3 1B4 1B5 1BF" in out
    assert "not a move" not in out and "'1B9' is neither a move nor a command" in out
    expected = near_end.clone()
    expected.play("1B1")
    assert expected.is_over
    assert final_scores_shown(out) == expected.scores
    assert "You win!" in out if expected.to_json()["ranks"][0] == 1 else "You finish rank 2." in out


def test_the_command_takes_back_a_move_and_quits_with_status_0(tmp_path):
    path = tmp_path / "start.json"
    path.write_text(json.dumps(new_game(players=2, seed=7).to_json()))
    result = invoke("--load", path, "--vs", "random", "--seed", 1, input="1B2\nundo\nquit\n")
    assert result.exit_code == 0, result.output
    assert "seat 0 (you) plays 1B2" in result.stdout and "seat 1 (random) plays" in result.stdout
    assert "undone: your move 1B2" in result.stdout and "You left the game in round 1" in result.stdout
    result = invoke("--seed", 1, "--vs", "greedy", "--vs", "random", "--seat", 2, input="")
    assert result.exit_code == 0, result.output
    assert "3 players" in result.stdout and "you are seat 2" in result.stdout
    assert "End of input" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--vs", "nope"], "--vs: bot spec 'nope': unknown bot type 'nope'"),
    (["--vs", "mcts:iterations"], "'iterations' is not key=value"),
    (["--vs", "mcts:iterations=many"], "parameter iterations must be an integer"),
    (["--vs", "greedy:depth=2"], "greedy: unknown parameter 'depth'"),
    (["--vs", "greedy"] * 4, "--vs given 4 times: at most 3 bots"),
    (["--seat", "2"], "--seat 2: a 2-player game has seats 0 to 1"),
    (["--load", "missing.json"], "missing.json: no such file"),
])
def test_bad_options_and_files_give_one_error_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args, input="quit\n")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output


def test_bad_position_files_give_one_error_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    three = tmp_path / "three.json"
    three.write_text(json.dumps(new_game(players=3, seed=1).to_json()))
    gray = tmp_path / "gray.json"
    gray.write_text(json.dumps(new_game(players=2, variant="gray", seed=1).to_json()))
    cases = [
        (["--load", bad], "bad.json: position: not JSON"),
        (["--load", three, "--vs", "greedy"], "--vs given 1 times: the loaded position has 3 players"),
        (["--load", gray, "--variant", "colored"], "the loaded position is on the gray wall"),
    ]
    for args, message in cases:
        result = invoke(*args, input="quit\n")
        assert result.exit_code == 1, (args, result.output)
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1


# ---------------------------------------------------------------- a bot that fails
@pytest.mark.parametrize("spec, words", [
    pytest.param("bots.base:Bot", "error: seat 0 (bot) forfeits in round 1: NotImplementedError; the game stops",
                 id="raises"),
    pytest.param(f"external:command={sys.executable} -c pass",
                 "error: seat 0 (external(pass)) forfeits in round 1: exited with code 0; the game stops",
                 id="program-quits"),
])
def test_the_command_stops_with_one_error_line_when_a_bot_forfeits(spec, words):
    result = invoke("--vs", spec, "--seat", 1, "--seed", 1, "--plain", input="")
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert errors == [words], result.output
    assert "Traceback" not in result.output


def test_a_bot_move_the_rules_refuse_stops_the_session():
    from azul_cli.play import BotFailed
    from bots import Bot

    class Wrong(Bot):
        def act(self, state):
            return "1B9"

    s, _ = session(bots=[(0, Wrong())], human=(1,))
    with pytest.raises(BotFailed, match=r"^seat 0 \(bot\) forfeits in round 1: IllegalMoveError: not a move: '1B9'"):
        s.run()
