"""The ``azul`` command (azul_cli), driven through typer's CliRunner."""
import json
import random
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from azul_cli.main import app
from engine import GameState, new_game

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"

SPEC_EXAMPLE = (Path(__file__).parent / "data" / "spec_example.json").read_text()  # SPEC section 3


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(SPEC_EXAMPLE)
    return path


def invoke(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


# ---------------------------------------------------------------- show
def test_show_draws_the_spec_example(spec_file):
    result = invoke("show", spec_file)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "seat 1 to move" in out
    assert "round 1" in out and "draft" in out
    for n, letters in enumerate(GameState.from_json(SPEC_EXAMPLE).to_json()["factories"], 1):
        assert f"{n}:{letters or '-'}" in out
    assert out.count("score 0") == 2
    assert "B B |" in out  # seat 0's line 2, right-aligned against the wall
    assert "b y r k w" in out  # the printed wall's first row, empty
    assert "1 Y R" in out  # the centre with the marker
    assert "-1 -1 -2 -2 -2 -3 -3" in out
    assert "\x1b" not in out  # not a terminal: no escape codes


def test_show_colours_only_without_plain(spec_file):
    coloured = invoke("show", spec_file, env={"FORCE_COLOR": "1"})
    plain = invoke("show", spec_file, "--plain", env={"FORCE_COLOR": "1"})
    assert coloured.exit_code == plain.exit_code == 0
    assert "\x1b[" in coloured.stdout
    assert "\x1b" not in plain.stdout
    assert "seat 1 to move" in plain.stdout


def test_show_reads_standard_input():
    result = invoke("show", "-", input=SPEC_EXAMPLE)
    assert result.exit_code == 0, result.output
    assert "seat 1 to move" in result.stdout


def test_show_finished_game_gives_ranks(tmp_path):
    state, _ = replay(3, "colored", 11)
    path = tmp_path / "over.json"
    path.write_text(json.dumps(state.to_json()))
    out = invoke("show", path).stdout
    assert "game over" in out
    for seat, rank in enumerate(state.to_json()["ranks"]):
        assert f"seat {seat}  score {state.scores[seat]}  rank {rank}" in out


# ---------------------------------------------------------------- moves
def test_moves_lists_the_legal_moves(spec_file):
    expected = [str(m) for m in GameState.from_json(SPEC_EXAMPLE).legal_moves()]
    assert expected
    result = invoke("moves", spec_file)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == expected
    assert invoke("moves", spec_file, "--line").stdout == " ".join(expected) + "\n"
    assert json.loads(invoke("moves", spec_file, "--json").stdout) == expected


def test_moves_when_a_deal_is_due(tmp_path):
    path = tmp_path / "new.json"
    path.write_text(json.dumps(new_game(players=2).to_json()))
    result = invoke("moves", path)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no legal moves" in result.stderr
    assert json.loads(invoke("moves", path, "--json").stdout) == []


def test_moves_line_and_json_together_fail(spec_file):
    result = invoke("moves", spec_file, "--line", "--json")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")


# ---------------------------------------------------------------- selfplay
def replay(players, variant, seed):
    """The game selfplay documents: one Random(seed) draws each deal's seed and each move."""
    rng = random.Random(seed)
    state = new_game(players=players, variant=variant)
    played = []
    while state.phase != "over":
        if state.phase == "refill":
            state.deal(seed=rng.randrange(2**63))
            continue
        seat, move = state.to_move, rng.choice(state.legal_moves())
        state.play(move)
        played.append((seat, str(move)))
    return state, played


def final_scores(output):
    line = next(x for x in output.splitlines() if x.startswith("final"))
    scores = [int(s) for s in re.findall(r"seat \d+ (-?\d+)", line)]
    return scores, [int(r) for r in re.findall(r"rank (\d+)", line)]


@pytest.mark.parametrize("players,variant", [(2, "colored"), (3, "gray"), (4, "colored")])
def test_selfplay_plays_the_documented_game(tmp_path, players, variant):
    out_file = tmp_path / "final.json"
    result = invoke("selfplay", "--players", players, "--seed", 7, "--variant", variant,
                    "--json-out", out_file)
    assert result.exit_code == 0, result.output
    state, played = replay(players, variant, 7)
    scores, ranks = final_scores(result.stdout)
    assert scores == state.scores
    assert ranks == state.to_json()["ranks"]
    logged = re.findall(r"^  seat (\d) +(\S+)$", result.stdout, re.M)
    assert [(int(s), m) for s, m in logged] == played
    rounds = len(re.findall(r"^round \d+", result.stdout, re.M))
    assert result.stdout.count("scores after round") == rounds - 1  # the last one is the final line
    assert f"final after {rounds} rounds" in result.stdout
    assert json.loads(out_file.read_text()) == state.to_json()


def test_selfplay_is_deterministic_and_seeded():
    first = invoke("selfplay", "--seed", 7)
    again = invoke("selfplay", "--seed", 7)
    other = invoke("selfplay", "--seed", 8)
    assert first.exit_code == again.exit_code == other.exit_code == 0
    assert first.stdout == again.stdout
    assert first.stdout.split("\n", 1)[1] != other.stdout.split("\n", 1)[1]


def test_selfplay_quiet_prints_only_the_result():
    result = invoke("selfplay", "--seed", 7, "--quiet")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("final")
    assert final_scores(result.stdout)[0] == replay(2, "colored", 7)[0].scores


def test_selfplay_without_seed_prints_the_seed_it_drew():
    result = invoke("selfplay", "--quiet")
    seed = int(re.search(r"seed (\d+)", result.stdout).group(1))
    assert final_scores(result.stdout)[0] == replay(2, "colored", seed)[0].scores


# ---------------------------------------------------------------- errors and version
def test_error_cases_print_one_line_and_exit_1(tmp_path, spec_file):
    not_json = tmp_path / "bad.json"
    not_json.write_text('{"format": ')
    invalid = tmp_path / "invalid.json"
    invalid.write_text(SPEC_EXAMPLE.replace('"BB"', '"BBB"'))
    cases = [
        (["show", tmp_path / "missing.json"], "missing.json: no such file"),
        (["moves", not_json], "not JSON"),
        (["show", invalid], "boards[0].lines[1]"),
        (["moves", tmp_path], "cannot read"),
        (["selfplay", "--seed", 1, "--json-out", tmp_path / "no" / "dir.json"], "cannot write"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 1, args
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.output
        assert isinstance(result.exception, SystemExit)  # a clean exit, not an escaped error


@pytest.mark.parametrize("args", [["selfplay", "--players", "5"], ["selfplay", "--variant", "round"],
                                  ["selfplay", "--seed", "x"]])
def test_bad_option_values_are_rejected_clearly(args):
    result = invoke(*args)
    assert result.exit_code != 0
    assert "Invalid value" in result.output and "Traceback" not in result.output


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert re.fullmatch(r"azul \d+\.\d+\.\d+\S*\n", result.stdout)


# ---------------------------------------------------------------- help and docs
def walk(command, path=()):
    yield path, command
    if hasattr(command, "commands"):  # a group (typer may vendor its own click)
        for name, sub in command.commands.items():
            yield from walk(sub, path + (name,))


def test_every_command_and_option_has_help():
    for path, command in walk(typer.main.get_command(app)):
        assert command.help or command.short_help, f"azul {' '.join(path)}: no help"
        for param in command.params:
            assert getattr(param, "help", None), f"azul {' '.join(path)} {param.name}: no help"
        assert invoke(*path, "--help").exit_code == 0


def test_every_command_is_in_the_docs():
    text = DOCS.read_text()
    for path, _ in walk(typer.main.get_command(app)):
        if path:
            assert f"azul {' '.join(path)}" in text, path
