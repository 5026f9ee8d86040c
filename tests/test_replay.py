"""Replays step by step (tournament.replay.replay_steps) and ``azul replay`` in the terminal and as HTML."""
from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console
from test_league_support import bot, league
from typer.testing import CliRunner

from azul_cli.main import app
from azul_cli.replay import browse
from present.replay_page import page
from tournament import read_table, replay
from tournament.config import parse_config
from tournament.replay import replay_steps
from tournament.runner import run_league

runner = CliRunner()
ODD_NAME = "<b>&\"x'"  # a bot name that HTML must escape


def _run(tmp, name, bots, **fields):
    data = league(tmp, bots, name=name, deals=1, flush_seconds=0, **fields)
    return run_league(parse_config(data), progress=False).run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small real leagues, played in this process: 2-player coloured, 3-player gray, forfeits, series."""
    tmp = tmp_path_factory.mktemp("replay")
    return {
        "colored": _run(tmp, "c", [{"name": ODD_NAME, "type": "random"}, "greedy"]),
        "gray": _run(tmp, "g", ["random", "greedy", "heuristic"], players=3, variant="gray"),
        "forfeit": _run(tmp, "f", [bot("bad", "RaisingBot", after=15), "greedy"]),
        "series": _run(tmp, "s", ["random", "greedy"], match="series"),  # game two: seat 1 opens
    }


def records(run_dir, game_id):
    """The four tables' rows of one game."""
    return {name: [r for r in read_table(run_dir, name).to_pylist() if r["game_id"] == game_id]
            for name in ("games", "results", "moves", "rounds")}


def game_ids(run_dir):
    return sorted(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())


@pytest.mark.parametrize("kind", ["colored", "gray", "forfeit", "series"])
def test_steps_follow_the_record(runs, kind):
    run_dir = runs[kind]
    for gid in game_ids(run_dir):
        rec = records(run_dir, gid)
        game = replay_steps(run_dir, gid)
        g = rec["games"][0]
        assert len(game.steps) == g["rounds"] + g["plies"] and game.plies == g["plies"]
        assert [s.index for s in game.steps] == list(range(len(game.steps)))
        final = game.steps[-1].position
        assert final == replay(run_dir, gid).to_json()
        results = sorted(rec["results"], key=lambda r: r["seat"])
        assert [b["score"] for b in final["boards"]] == [r["score"] for r in results] == game.scores
        assert game.bots == [r["bot"] for r in results]
        assert game.termination == g["termination"]
        moves = sorted(rec["moves"], key=lambda m: m["ply"])
        played = [s for s in game.steps if s.move is not None]
        assert [(s.ply, s.round, s.seat, s.move) for s in played] == \
               [(m["ply"], m["round"], m["seat"], m["move"]) for m in moves]
        deals = {r["round"]: r["factories"] for r in rec["rounds"]}
        dealt = [s for s in game.steps if s.move is None]
        assert [s.round for s in dealt] == sorted(deals)
        openers = {r["round"]: r["opener"] for r in rec["rounds"]}
        assert [s.position["to_move"] for s in dealt] == [openers[r] for r in sorted(openers)]
        for s in dealt:
            assert s.position["factories"] == deals[s.round].split(" ")
            assert s.ply == (game.steps[s.index - 1].ply if s.index else 0)
        after = {}
        for r in rec["rounds"]:
            after.setdefault(r["round"], {})[r["seat"]] = r["score_after"]
        assert game.round_scores == [[after[r][s] for s in range(game.players)] for r in sorted(after)]


def test_rounds_are_scored_when_the_round_ends(runs):
    game = replay_steps(runs["colored"], game_ids(runs["colored"])[0])
    for prev, step in zip(game.steps, game.steps[1:]):
        if step.position["phase"] in ("refill", "over"):
            assert step.rounds_done == step.round
            assert [b["score"] for b in step.position["boards"]] == game.round_scores[step.round - 1]
        else:
            assert step.rounds_done == step.round - 1
    assert game.steps[0].rounds_done == 0 and game.steps[-1].rounds_done == len(game.round_scores)


def test_forfeited_game_stops_where_the_record_stops(runs):
    gid = game_ids(runs["forfeit"])[0]
    game = replay_steps(runs["forfeit"], gid)
    assert game.termination == "error" and "boom" in game.error
    assert game.steps[-1].position["phase"] == "draft"
    out = runner.invoke(app, ["replay", str(runs["forfeit"]), gid, "--plain"])
    assert out.exit_code == 0 and "the game stopped (error)" in out.stdout


def test_bad_game_id_and_bad_folder(runs, tmp_path):
    ids = game_ids(runs["colored"])
    with pytest.raises(KeyError) as exc:
        replay_steps(runs["colored"], "t999-d00000-a00")
    assert "'t999-d00000-a00'" in exc.value.args[0] and ids[0] in exc.value.args[0]
    with pytest.raises(ValueError, match="no such run folder"):
        replay_steps(tmp_path / "nowhere", ids[0])
    with pytest.raises(ValueError, match="no recorded games"):
        replay_steps(tmp_path, ids[0])
    for args, message in (([str(runs["colored"]), "t999-d00000-a00"], "no recorded game 't999-d00000-a00'"),
                          ([str(tmp_path / "nowhere"), ids[0]], "no such run folder"),
                          ([str(runs["colored"]), ids[0], "--step", "0"], "--step 0: the game has steps 1 to"),
                          ([str(runs["colored"]), ids[0], "--html", str(tmp_path / "no" / "x.html")],
                           "cannot write it")):
        result = runner.invoke(app, ["replay", *args])
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_terminal_prints_the_final_step_and_the_moves(runs):
    gid = game_ids(runs["colored"])[1]
    rec = records(runs["colored"], gid)
    result = runner.invoke(app, ["replay", str(runs["colored"]), gid, "--plain"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    n = rec["games"][0]["rounds"] + rec["games"][0]["plies"]
    assert f"step {n} of {n}" in text and "game over" in text
    for r in rec["results"]:
        assert f"seat {r['seat']}  score {r['score']}  rank {r['rank']}" in text
        assert f"seat {r['seat']} {r['bot']} {r['score']} (rank {r['rank']})" in text
    moves = sorted(rec["moves"], key=lambda m: m["ply"])
    listed = re.findall(r"(\d+)\.(\S+)", text.split(f"step {n} of {n}")[1])
    assert [(int(p), m) for p, m in listed] == [(m["ply"], m["move"]) for m in moves]


def test_terminal_step_option_shows_that_step(runs):
    gid = game_ids(runs["colored"])[0]
    game = replay_steps(runs["colored"], gid)
    result = runner.invoke(app, ["replay", str(runs["colored"]), gid, "--step", "1", "--plain"])
    assert result.exit_code == 0
    assert "step 1 of" in result.stdout and "round 1: the deal" in result.stdout
    factories = "  ".join(f"{k}:{f or '-'}" for k, f in enumerate(game.steps[0].position["factories"], 1))
    assert re.sub(r" +", " ", factories) in re.sub(r" +", " ", result.stdout)
    step = game.steps[3]
    result = runner.invoke(app, ["replay", str(runs["colored"]), gid, "--step", "4", "--plain"])
    assert f"ply {step.ply}: seat {step.seat} ({game.bots[step.seat]}) played {step.move}" in result.stdout


def test_driven_stepping_goes_forwards_and_back(runs):
    game = replay_steps(runs["colored"], game_ids(runs["colored"])[0])
    last = len(game.steps)
    commands = iter(["n", "", "p", "l", "n", "p", "f", "p", "5", str(last + 1), "x", "q", "n"])
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        return next(commands)

    out = Console(file=io.StringIO(), color_system=None, width=140)
    assert browse(game, out, read) == 4
    shown = re.findall(r"step (\d+) of \d+ \|", out.file.getvalue())
    assert shown == ["1", "2", "3", "2", str(last), str(last - 1), "1", "5"]
    text = out.file.getvalue()
    assert "already at the last step" in text and "already at the first step" in text
    assert f"no step {last + 1}: steps are 1 to {last}" in text and "unknown command 'x'" in text
    assert len(prompts) == 12 and prompts[-1].startswith(f"step 5/{last} ")
    s = game.steps[4]
    assert f"step 5 of {last} | ply {s.ply}: seat {s.seat}" in text
    # the end of input ends it too
    assert browse(game, Console(file=io.StringIO()), lambda p: (_ for _ in ()).throw(EOFError), start=2) == 2


def test_html_is_self_contained(runs, tmp_path):
    gid = game_ids(runs["colored"])[0]
    target = tmp_path / "game.html"
    result = runner.invoke(app, ["replay", str(runs["colored"]), gid, "--html", str(target)])
    assert result.exit_code == 0, result.output
    game = replay_steps(runs["colored"], gid)
    assert f"wrote {target} ({len(game.steps)} steps, {game.plies} moves)" in result.stdout
    html = target.read_text(encoding="utf-8")
    assert html == page(game.to_dict())
    lowered = html.lower()
    for ref in ("<link", "src=", "href=", "url(", "@import", "<img", "<iframe"):
        assert ref not in lowered, ref
    assert set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'`)]*", html)) == {"http://www.w3.org/2000/svg"}
    assert lowered.count("<script") == 2  # the data and the inline script, neither with src
    data = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.DOTALL).group(1)
    embedded = json.loads(data)
    assert embedded.pop("rules") == {"colours": "BYRKW", "floor_costs": [1, 1, 2, 2, 2, 3, 3],
                                     "printed_wall": ["BYRKW", "WBYRK", "KWBYR", "RKWBY", "YRKWB"]}
    assert embedded == json.loads(json.dumps(game.to_dict()))
    # the odd bot name appears escaped in the markup and never raw
    assert ODD_NAME in game.bots and ODD_NAME not in html
    assert "&lt;b&gt;&amp;&quot;x&#x27;" in html
