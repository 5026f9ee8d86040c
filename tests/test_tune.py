"""``azul tune`` on the league driver (kinds/tune.py): a real smoke tune through the command,
its records and outputs, resume after an interruption, the 3-player design, and config errors."""
import json

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from analysis.records import connect
from analysis.tune import side_names, tune_steps
from azul_cli.main import app
from bots.spec import bot_from_spec
from records.folder import run_kind
from records.read import read_table
from kinds import finish_command
from tournament.stages import Stage
from kinds.tune import run_tune
from kinds.tune_config import parse_tune
from tournament.config import BotEntry, LeagueConfig

runner = CliRunner()


def tune_file(tmp_path, **fields):
    data = {"name": "t", "bot": "heuristic", "params": {"line": {}, "marker": {"c_end": 0.5}}, "pairs": 12,
            "batch": 4, "seed": 2, "out": str(tmp_path), "workers": 0, **fields}
    path = tmp_path / "tune.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_smoke_tune_through_the_command(tmp_path):
    result = runner.invoke(app, ["tune", str(tune_file(tmp_path)), "--workers", "0", "--no-mlflow", "-f", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out["params"]) == {"line", "marker"} and out["pairs"] == 12 and out["steps"] == 3
    bot = bot_from_spec(out["spec"], seed=1)
    assert bot.weights["line"] == out["params"]["line"] and bot.weights["marker"] == out["params"]["marker"]
    assert yaml.safe_load(out["yaml"])[0]["params"] == out["params"]
    run = tmp_path / "t"
    assert run_kind(run) == "tune" and (run / "tune.svg").read_text().startswith("<svg")
    games = pq.read_table(run / "games").to_pylist()
    assert len(games) == 24 and sorted({g["tune_step"] for g in games}) == [0, 1, 2]
    assert set(read_table(run, "results").column("bot").to_pylist()) == {"heuristic+", "heuristic-"}
    # the records say theta+ and theta- of each step: as the outcome's trajectory goes
    with connect(run) as con:
        steps = tune_steps(con, side_names(run))
        assert steps == tune_steps(con)
    assert [s["result"] for s in steps] == [s["result"] for s in json.loads((run / "tune.json").read_text())[
        "trajectory"]]
    assert all(s["plus"] != s["minus"] for s in steps) and steps[1]["pairs"] == 8
    assert finish_command(run).startswith(f"azul tune {run / 'tune.yaml'} --out {tmp_path} --name {run.name} --resume")


def test_progress_off_a_terminal_is_plain_lines(tmp_path):
    """Not a terminal (CliRunner): the first step's line and the last are printed, as sprt's are."""
    result = runner.invoke(app, ["tune", str(tune_file(tmp_path)), "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 0, result.output
    steps = [line for line in result.stdout.splitlines() if line.startswith("step ")]
    assert steps and steps[-1].startswith("step 3/3  12 pairs") and "line=" in steps[-1]
    (tmp_path / "q").mkdir()
    quiet = runner.invoke(app, ["tune", str(tune_file(tmp_path / "q")), "--workers", "0", "--no-mlflow", "-q"])
    assert quiet.exit_code == 0 and not any(line.startswith("step ") for line in quiet.stdout.splitlines())


def test_a_pair_is_one_deal_with_theta_plus_and_minus_swapped(tmp_path):
    """3 players: theta+ and theta- trade seats within a pair, the field keeps its seat."""
    config = parse_tune(yaml.safe_load(tune_file(tmp_path, players=3, pairs=6, batch=3).read_text()))
    outcome = run_tune(config, mlflow=False)
    assert outcome.pairs == 6 and len(outcome.steps) == 2
    results = read_table(outcome.run_dir, "results").to_pylist()
    seats = {}
    for r in results:
        seats.setdefault(r["game_id"], {})[r["bot"]] = r["seat"]
    for d in range(6):
        a, b = seats[f"t000-d{d:05d}-a00"], seats[f"t000-d{d:05d}-a01"]
        assert (a["heuristic+"], a["heuristic-"]) == (b["heuristic-"], b["heuristic+"])
        assert a["heuristic"] == b["heuristic"]  # the field: the untuned heuristic
    assert len({seats[f"t000-d{d:05d}-a00"]["heuristic"] for d in range(6)}) == 3  # rotated over pairs


def test_resume_after_an_interruption_gives_the_same_trajectory(tmp_path):
    config = parse_tune(yaml.safe_load(tune_file(tmp_path, pairs=20, batch=4, name="whole").read_text()))
    whole = run_tune(config, mlflow=False)

    def stop(progress):
        if progress.steps == 2:
            raise KeyboardInterrupt
    part = parse_tune({**config.saved(), "name": "part", "workers": 0})
    first = run_tune(part, mlflow=False, progress=stop)
    assert first.interrupted and len(first.steps) == 2
    rest = run_tune(part, mlflow=False, resume=True)
    assert not rest.interrupted and rest.played == 40 - first.played
    assert [(s.theta, s.plus, s.result, s.after) for s in rest.steps] == \
           [(s.theta, s.plus, s.result, s.after) for s in whole.steps]
    assert rest.params() == whole.params()


@pytest.mark.parametrize("fields, message", [
    ({"params": ["nope"]}, "params.nope: heuristic has no such parameter"),
    ({"params": {"line": {"min": 3, "max": 2}}}, "params.line.max: must be above min (3), not 2"),
    ({"players": 5}, "players: must be from 2 to 4, not 5"),  # the league's check (config.check_int)
    ({"bot": "heuristic:denial=9"}, "fixed: heuristic: parameter denial must be a number from 0 to 2"),
    ({"speed": 1}, "speed: unknown field"),
    ({"players": 3, "field": ["greedy", "greedy"]}, "field: 1 bot spec(s) for the other seats"),
    ({"bot": "mcts:iterations=20,evaluator=value", "params": ["value_scale"]},  # a parameter it leaves unread
     "params.value_scale: tunes nothing with these settings (mcts: value_scale="),
])
def test_config_errors_are_one_line(tmp_path, fields, message):
    path = tune_file(tmp_path, **fields)
    result = runner.invoke(app, ["tune", str(path), "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith(f"error: {path}: {message}")


def test_a_stage_s_bots_stand_for_the_config_s():
    config = LeagueConfig("t", (BotEntry("a", "heuristic", {}, 1),))
    assert Stage([], [{"name": "a", "params": {"line": 2.0}}]).config(config).bots[0].params == {"line": 2.0}
    with pytest.raises(ValueError, match="named as the config's"):
        Stage([], [{"name": "b", "params": {}}]).config(config)
    with pytest.raises(ValueError, match="line must be"):
        Stage([], [{"name": "a", "params": {"line": 99}}]).config(config)


def test_damaged_yaml_is_a_one_line_error_naming_line_and_column(tmp_path):
    from test_league_support import league
    from tournament.config import parse_config
    from tournament.runner import run_league

    path = tmp_path / "tune.yaml"
    path.write_text("name: t\nparams: [line\n", encoding="utf-8")
    result = runner.invoke(app, ["tune", str(path), "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 1 and result.stderr.strip().count("\n") == 0, result.output
    assert result.stderr.startswith(f"error: {path}: line 3, column 1: not valid YAML"), result.stderr
    (tmp_path / "a").mkdir()
    path = tune_file(tmp_path / "a")  # a run folder with records and a damaged tune.yaml
    run_league(parse_config(league(tmp_path, ["random", "greedy"], name="t", deals=1)), progress=False)
    saved = tmp_path / "t" / "tune.yaml"
    saved.write_text("bot: [heuristic\n", encoding="utf-8")
    result = runner.invoke(app, ["tune", str(path), "--out", str(tmp_path), "--workers", "0", "--no-mlflow",
                                 "--resume"])
    assert result.exit_code == 1 and result.stderr.strip().count("\n") == 0, result.output
    assert result.stderr.startswith(f"error: cannot resume: {saved}: line 2, column 1"), result.stderr


def test_league_status_counts_a_tunes_games_against_its_pairs(tmp_path):
    path = tune_file(tmp_path, players=3, field=["greedy"], pairs=2, batch=2)
    result = runner.invoke(app, ["tune", str(path), "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 0, result.output
    status = runner.invoke(app, ["league", "status", str(tmp_path / "t")])
    assert status.exit_code == 0, status.output
    assert "tune t: 4 of 4 games recorded, complete" in status.output, status.output  # not 3 x 2 of a round-robin


def test_a_tune_stopped_by_sigterm_says_where_it_stands_and_no_final_values(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from test_league_support import ROOT, subprocess_env

    file = tmp_path / "long.yaml"  # long enough to be stopped in the middle
    file.write_text("name: tune-heuristic\nbot: heuristic\nparams: {line: {}}\npairs: 1000000\nbatch: 8\n")
    proc = subprocess.Popen([sys.executable, "-m", "azul_cli", "tune", str(file), "--workers", "0",
                             "--out", str(tmp_path), "--no-mlflow"], cwd=ROOT, env=subprocess_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "tune-heuristic").glob("games/*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.2)  # until its first step is recorded
    proc.send_signal(signal.SIGTERM)
    output = proc.communicate(timeout=60)[0]
    assert proc.returncode == 130, output
    assert "stopped after" in output and "--resume goes on" in output
    assert "final values" not in output and "as a league bot" not in output
