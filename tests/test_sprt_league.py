"""``azul sprt`` on the league machinery: records any league command reads, a decision on pairs in
deal order, --resume to the same decision, the report's section, one-line errors."""
from __future__ import annotations

import json

import polars as pl
import pytest
import yaml
from typer.testing import CliRunner

from analysis.sprt import decide
from analysis.sprt_run import in_order, pair_cells, sprt_result
from analysis.synthetic import synthetic_league
from azul_cli.main import app
from bots.spec import spec_name
from tournament.errors import LeagueError
from kinds.sprt import SprtSettings, run_sprt

runner = CliRunner()


def test_greedy_beats_random_and_the_run_is_a_league(tmp_path):
    result = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "20",
                                 "--workers", "0", "--out", str(tmp_path), "--no-mlflow", "-f", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["verdict"] == "H1" and out["llr"] >= out["upper"]
    assert out["referee"] == "compiled"  # greedy and random: played by the compiled loop
    assert sum(out["pentanomial"]) == out["pairs"]
    if out["elo_unbounded"]:  # greedy swept every pair: no finite Elo, said so
        assert out["pentanomial"][:4] == [0, 0, 0, 0] and out["elo"] is None
    else:
        assert out["elo_low"] < out["elo"] < out["elo_high"]
    run_dir = tmp_path / "sprt"
    assert out["run_dir"] == str(run_dir)
    saved = yaml.safe_load((run_dir / "sprt.yaml").read_text())
    assert saved["new"] == "greedy" and saved["elo1"] == 20 and saved["model"] == "normalized"
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert config["players"] == 2 and config["seats"] == "balanced" and len(config["bots"]) == 2
    # what the records say is what was printed: the decision on the pairs in deal order
    r = sprt_result(run_dir)
    assert r.decision.verdict == "H1" and r.decision.pairs == out["pairs"]
    elo = runner.invoke(app, ["elo", str(run_dir), "--bootstrap", "40", "-f", "json"])
    assert elo.exit_code == 0 and "greedy" in elo.output
    report = runner.invoke(app, ["report", str(run_dir), "--bootstrap", "0"])
    assert report.exit_code == 0, report.output
    page = (run_dir / "report.html").read_text()
    assert "SPRT: greedy against random" in page and "<strong>H1</strong>" in page
    # again without --resume: refused; with it: nothing left to play, the same answer
    again = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "20",
                                "--workers", "0", "--out", str(tmp_path), "--no-mlflow"])
    assert again.exit_code == 1 and "--resume" in again.output
    outcome = run_sprt(SprtSettings("greedy", "random", elo1=20, workers=0, out=str(tmp_path),
                                    mlflow=False), resume=True)
    assert outcome.played == 0 and outcome.result.decision == r.decision


def test_resume_goes_on_to_the_decision_of_the_records(tmp_path):
    """An A/A test stopped at 4 pairs, resumed to 12: the verdict is the one the records' pairs
    give in deal order, and a changed test is refused."""
    settings = SprtSettings("greedy", "greedy", elo0=0, elo1=200, max_pairs=4, workers=0,
                            out=str(tmp_path), mlflow=False)
    first = run_sprt(settings)
    assert first.result.decision.verdict == "undecided" and first.result.decision.pairs == 4
    more = SprtSettings("greedy", "greedy", elo0=0, elo1=200, max_pairs=12, workers=0,
                        out=str(tmp_path), mlflow=False)
    second = run_sprt(more, resume=True)
    from analysis.records import read_records
    records = read_records(second.run_dir)
    cells = in_order(pair_cells(records["results"], records["games"], more.bot_names()[0]))
    assert second.result.decision == decide(cells, 0, 200, max_pairs=12)
    assert second.played <= 16
    with pytest.raises(LeagueError, match="elo1"):
        run_sprt(SprtSettings("greedy", "greedy", elo0=0, elo1=100, max_pairs=12, workers=0,
                              out=str(tmp_path), mlflow=False), resume=True)


def test_pairs_count_in_deal_order_only():
    tables = synthetic_league([("a", 100.0), ("b", 0.0)], deals=30, seed=3)
    results, games = tables["results"], tables["games"]
    cells = pair_cells(results, games, "a")
    assert cells.height == 30 and cells["cell"].is_between(0, 4).all()
    shuffled = pair_cells(results.sample(fraction=1.0, shuffle=True, seed=1), games, "a")
    assert in_order(shuffled) == in_order(cells)
    # a deal with one game only: the pairs after it wait
    gap = games.filter(~((pl.col("deal") == 10) & (pl.col("arrangement") == 1)))
    assert in_order(pair_cells(results, gap, "a")) == in_order(cells)[:10]


@pytest.mark.parametrize("args,message", [
    (["--bot", "greedy", "--bot", "greedy", "--bot-seed", "3", "--bot-seed", "3"], "same bot twice"),
    (["--bot", "greedy", "--bot", "random", "--elo0", "5", "--elo1", "2"], "elo0 must be below elo1"),
    (["--bot", "greedy", "--bot", "random", "--beta", "0"], "beta must be between 0 and 1"),
    (["--bot", "greedy", "--bot", "mcts:speed=3"], "bots[1].params"),
    (["--bot", "greedy"], "give two bots"),
    (["--bot", "heuristic", "--bot", "greedy", "--elo1", "250"], "elo1 250 is beyond"),
    (["--bot", "heuristic", "--bot", "greedy", "--elo1", "5000"], "must be below 231.6"),
    (["--bot", "heuristic", "--bot", "greedy", "--elo0", "-7000", "--model", "logistic"], "elo0 -7000 is beyond"),
])
def test_bad_input_is_one_line(args, message, tmp_path):
    result = runner.invoke(app, ["sprt", *args, "--out", str(tmp_path), "--workers", "0"])
    assert result.exit_code == 1
    assert message in result.output and result.output.count("\n") == 1


def test_config_file_gives_the_fields(tmp_path):
    path = tmp_path / "ab.yaml"
    path.write_text(yaml.safe_dump({"bots": ["greedy", "random"], "elo1": 20, "name": "ab",
                                    "workers": 0, "out": str(tmp_path), "mlflow": False}))
    result = runner.invoke(app, ["sprt", "--config", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["run_dir"] == str(tmp_path / "ab")
    path.write_text(yaml.safe_dump({"bots": ["greedy", "random"], "elo2": 20}))
    bad = runner.invoke(app, ["sprt", "--config", str(path)])
    assert bad.exit_code == 1 and "elo2: unknown field" in bad.output


def test_a_bot_that_forfeits_every_game_is_reported(tmp_path):
    """A bot that raises at its first move: the pairs are [n, 0, 0, 0, 0]; the text and the JSON
    say which bot forfeited how many games of which kind, the verdict is flagged as one reached
    on forfeits, and the exit status is the league's for a bot that forfeited every game."""
    args = ["sprt", "--bot", "test_league_support:RaisingBot:after=1", "--bot", "greedy", "--max-pairs", "20",
            "--elo1", "20", "--workers", "0", "--out", str(tmp_path), "--no-mlflow"]
    result = runner.invoke(app, args + ["-f", "json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    bad = spec_name("test_league_support:RaisingBot:after=1")  # its name in a league too (a Bot's own: "bot")
    assert out["faults"] == {bad: {"error": 2 * out["pairs"] + 2 * out["pairs_after"]}}
    assert out["faulted_pairs"] == out["pairs"] and out["pentanomial"][1:] == [0, 0, 0, 0]
    assert "on forfeits: every one of the" in result.stderr and "warning: the test was" in result.stderr
    assert "error: a bot forfeited every game" in result.stderr
    text = runner.invoke(app, args + ["--name", "text"])
    assert text.exit_code == 1
    assert f"faults: {bad}: " in text.stdout and "error" in text.stdout
    assert "decided on forfeits" in text.stdout  # decided, or left undecided
    from analysis.sprt_run import sprt_html
    assert "on forfeits" in "".join(sprt_html([sprt_result(tmp_path / "text")]))


def test_a_clean_test_says_no_faults(tmp_path):
    result = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "20", "--max-pairs", "16",
                                 "--workers", "0", "--out", str(tmp_path), "--no-mlflow"])
    assert result.exit_code == 0, result.output
    assert "faults: none" in result.output and "forfeits" not in result.output


def test_azul_sprt_with_its_defaults_logs_to_mlflow(tmp_path):
    """MLflow on, as a user runs it: the test ends with its verdict and one MLflow run, no traceback
    (run_sprt's local flag once hid tracking.logged)."""
    from mlflow.tracking import MlflowClient

    result = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "200", "--max-pairs", "4",
                                 "--workers", "0", "--out", str(tmp_path), "--name", "m"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "not in MLflow" not in result.output
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])]
    assert len(runs) == 1 and runs[0].data.params  # the test's settings went with it
    again = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "200", "--max-pairs", "4",
                                "--workers", "0", "--out", str(tmp_path), "--name", "m", "--resume"])
    assert again.exit_code == 0, again.output


def test_sprt_fresh_with_a_bot_that_raises_records_its_forfeits_instead_of_crashing(tmp_path):
    """azul sprt --fresh with a bot that fails at some moves: the earlier test is replaced by one whose
    failed games are that bot's forfeits (its faults are shown), not a traceback half-way."""
    args = ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "200", "--max-pairs", "3", "--workers", "0",
            "--out", str(tmp_path), "--name", "f", "--no-mlflow"]
    assert runner.invoke(app, args).exit_code == 0
    flaky = runner.invoke(app, [*args[:1], "--bot", "test_league_support:FlakyMcts:iterations=5", *args[3:], "--fresh"])
    assert flaky.exit_code in (0, 1) and "Traceback" not in flaky.output, flaky.output
    assert "faults" in flaky.output and "error" in flaky.output
