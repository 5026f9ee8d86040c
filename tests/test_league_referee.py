"""Who plays a league's games: bots declare their compiled form (``Bot.compiled_form``), the
compiled loop reads it, and when a seat forces the Python referee the league says which and why,
before it starts; the progress line, the summary and run.json say which referee played."""
from __future__ import annotations

import json
import re

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from bots import Bot, bot_class
from bots.base import CompiledForm
from test_league_compiled import _rows
from test_league_support import bot, league
from tournament.config import parse_config
from tournament.fastloop import compiled_plan, why_python_referee
from tournament.runner import run_league

runner = CliRunner()


def test_each_built_in_bot_declares_its_compiled_form():
    forms = {name: bot_class(name)(seed=0).compiled_form() for name in ("random", "greedy", "heuristic", "mcts")}
    assert {k: f.kind for k, f in forms.items()} == {"random": "random", "greedy": "greedy",
                                                      "heuristic": "heuristic", "mcts": "callback"}
    assert forms["heuristic"].weights["denial"] == 1.0
    assert bot_class("external").compiled_form is Bot.compiled_form  # none


@pytest.mark.parametrize("change, why", [
    ({"python_referee": True}, "python_referee: true"),
    ({"time_limit": 1.0}, "time_limit: 1 s a move"),
    ({"bots": [{"name": "a", "type": "greedy", "time_limit": 2.0}, "random"]},
     "bot 'a' (bots[0]): time_limit 2 s a move"),
    ({"bots": ["random", {"name": "m", "type": "greedy", "params": {"opening": "floor"}}]},
     "bot 'm' (bots[1]): a wrapper (an intervention) around its greedy bot has no compiled form"),
    ({"bots": ["random", {"name": "e", "type": "external", "params": {"command": ["prog"]}}]},
     "bot 'e' (bots[1]): an external program"),
    ({"bots": ["random", bot("u", "UndeclaredGreedy")]},
     "bot 'u' (bots[1]): its class test_league_support:UndeclaredGreedy declares no compiled form"),
    ({"bots": ["random", bot("n", "UnknownFormBot")]},
     "bot 'n' (bots[1]): its compiled form 'neural' is not one the compiled loop plays"),
])
def test_why_the_python_referee_names_the_seat_and_the_reason(tmp_path, change, why):
    data = league(tmp_path, ["greedy", "random"])
    data.update(change)
    config = parse_config(data)
    assert compiled_plan(config) is None
    reasons = why_python_referee(config)
    assert len(reasons) == 1 and reasons[0].startswith(why), reasons


def test_a_bot_outside_the_registry_that_declares_its_form_plays_compiled(tmp_path):
    bots = [bot("declared", "DeclaredGreedy", seed=3), "random", "heuristic"]
    config = parse_config(league(tmp_path / "c", bots, deals=3))
    assert why_python_referee(config) == [] and compiled_plan(config) is not None
    compiled = run_league(config, progress=False)
    python = run_league(parse_config(league(tmp_path / "p", bots, deals=3, python_referee=True)), progress=False)
    assert (compiled.referee, python.referee) == ("compiled", "python")
    assert python.referee_reasons == ["python_referee: true (--python-referee) sends every game to the referee"]
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(compiled.run_dir, name) == _rows(python.run_dir, name), name


def test_run_json_and_the_progress_say_which_referee_played(tmp_path):
    data = league(tmp_path, ["greedy", "random"], deals=2)
    events = []
    first = run_league(parse_config(data), progress=events.append)
    assert {e.referee for e in events} == {"compiled"}
    run_json = first.run_dir / "run.json"
    assert json.loads(run_json.read_text()) == {"run_id": first.run_id, "referee": "compiled", "kind": "league"}
    more = run_league(parse_config({**data, "deals": 3, "python_referee": True}), resume=True, progress=False)
    assert more.referee == "python" and more.played == 2
    assert json.loads(run_json.read_text())["referee"] == "mixed"  # its games: some of each
    fresh = run_league(parse_config({**data, "python_referee": True}), fresh=True, progress=False)
    assert fresh.referee == "python" and json.loads(run_json.read_text())["referee"] == "python"


def test_the_cli_says_before_it_starts_why_the_referee_plays(tmp_path):
    path = tmp_path / "league.yaml"
    path.write_text(yaml.safe_dump(league(tmp_path / "out", ["random", bot("slow", "UndeclaredGreedy"),
                                                             {"name": "g", "type": "greedy", "time_limit": 5}],
                                          name="ref", deals=1)))
    result = runner.invoke(app, ["league", "run", str(path), "--no-report"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = lines.index("the Python referee plays these games (the compiled loop cannot):")
    assert lines[at + 1:at + 3] == [
        "  bot 'slow' (bots[1]): its class test_league_support:UndeclaredGreedy declares no compiled form",
        "  bot 'g' (bots[2]): time_limit 5 s a move (only the referee times moves)"]
    assert at < min(i for i, line in enumerate(lines) if line.startswith("league ref (python): "))
    assert re.search(r"^6 games played by the Python referee in ", result.output, re.M), result.output
    quiet = runner.invoke(app, ["league", "run", str(path), "--fresh", "--no-report", "-q"])
    assert "league ref (python): " not in quiet.output  # -q hides the progress, not the reasons
    assert "the Python referee plays these games" in quiet.output
    path.write_text(yaml.safe_dump(league(tmp_path / "out", ["random", "greedy"], name="ref2", deals=1)))
    fast = runner.invoke(app, ["league", "run", str(path), "--no-report"])
    assert fast.exit_code == 0 and "Python referee" not in fast.output
    assert "2 games played by the compiled loop in " in fast.output
    # the rate beside the playing time it is taken over, and the whole run's time after it
    assert re.search(r"in \d+\.\d s of play \([\d.,]+ games/(s|min)\), \d+\.\d s in all;", fast.output), fast.output
