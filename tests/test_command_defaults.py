"""Every ``azul`` command runs once in the suite with its defaults, MLflow on (issue 30): the ones
no other test runs so are run here, each small (the size options and the out folder given, every
other option left at its default: MLflow on, its ``sqlite:///<out>/mlflow.db``, and for the
commands that play on Ray by default, Ray: the session's local Ray of tests/test_league_support.py,
which the command joins as it joins any Ray already started), each asserting a fact of its
output or records besides its exit status.

Command            Run with its defaults (MLflow on where the command logs to it) by
-----------------  -------------------------------------------------------------------------------
show               test_cli.py::test_show_draws_the_spec_example
moves              test_cli.py::test_moves_lists_the_legal_moves
selfplay           this file::test_selfplay_with_its_defaults
                   (test_cli.py::test_selfplay_without_seed_prints_the_seed_it_drew: with --quiet)
analyze            test_analyze.py::test_complete_now_or_avoid_overflow_prefers_line_two
                   (--iterations 50000: the default, written out)
play               this file::test_play_with_its_defaults (test_play.py: --load, --vs or --seed)
series             test_series.py::test_cli_prints_each_game_and_game_one_before_game_two
                   (the two --bot it needs, --seed to know the games, --plain as off a terminal)
replay             test_replay.py::test_terminal_prints_the_final_step_and_the_moves (--plain)
elo                test_analysis_output.py::test_tables_print_whole_off_a_terminal[elo]
report             test_hostile_paths.py::test_report_and_replay_read_the_hostile_folder_only
openings           test_analysis_output.py::test_tables_print_whole_off_a_terminal[openings]
marker             test_analysis_output.py::test_tables_print_whole_off_a_terminal[marker]
standings          test_analysis_output.py::test_tables_print_whole_off_a_terminal[standings]
sprt               this file::test_sprt_with_its_defaults (on Ray);
                   test_sprt_league.py::test_azul_sprt_with_its_defaults_logs_to_mlflow (--workers 0)
train              this file::test_train_with_its_defaults (on Ray, a fresh run);
                   test_train.py::test_a_tiny_train_runs_resumes_and_logs (workers: 0, its --resume)
tune               this file::test_tune_with_its_defaults (on Ray; test_tune.py: all --no-mlflow)
league run         this file::test_league_run_with_its_defaults (on Ray, with its report);
                   test_analysis_report.py::test_league_end_writes_the_report_and_logs_it (workers: 0)
league status      test_league_cli.py::test_run_and_status
league repair      test_league_damage.py::test_repair_command_and_readers_on_a_run_missing_a_part
study marker       this file::test_a_study_with_its_defaults[marker] (MLflow's run checked);
                   test_run_kinds.py::test_league_status_counts_a_study_and_an_sprt_by_their_own_totals
study openings     this file::test_a_study_with_its_defaults[openings] (test_studies.py: refused only)
study run          test_study_sprt_config.py::test_a_study_logs_to_mlflow_unless_told_not_to (mlflow: true)
study show         this file::test_a_study_with_its_defaults (test_run_kinds.py: its exit status only;
                   test_hostile_paths.py::test_study_show_reads_the_hostile_folder_only: -f json)
ratings add        test_rating_list.py::test_a_list_grows_by_versions_and_says_what_changed
ratings show       this file::test_ratings_show_with_its_defaults (test_rating_list.py: --bootstrap 0)
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from records.read import read_table
from test_league_support import league, ray_address  # noqa: F401  (a session fixture)

runner = CliRunner()


def azul(*args, **kwargs):
    result = runner.invoke(app, [str(a) for a in args], **kwargs)
    assert result.exit_code == 0, (args, result.output)
    assert "Traceback" not in result.output and "not in MLflow" not in result.output, result.output
    return result


def mlflow_runs(out: Path) -> list:
    """Every MLflow run in ``out``'s default store (``sqlite:///<out>/mlflow.db``)."""
    from mlflow.tracking import MlflowClient

    assert (out / "mlflow.db").is_file(), sorted(p.name for p in out.iterdir())
    client = MlflowClient(tracking_uri=f"sqlite:///{out / 'mlflow.db'}")
    return [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])]


def write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- commands without MLflow
def test_selfplay_with_its_defaults():
    result = azul("selfplay")
    seed = int(re.search(r"seed (\d+)", result.stdout).group(1))  # drawn, and printed to play it again
    final = re.search(r"^final after (\d+) rounds: seat 0 (\d+) \(rank [12]\), seat 1 (\d+)", result.stdout, re.M)
    assert final and 5 <= int(final.group(1)) <= 40, result.stdout
    assert azul("selfplay", "--seed", seed).stdout.splitlines()[-1] == result.stdout.splitlines()[-1]


def test_play_with_its_defaults():
    result = azul("play", input="quit\n")
    assert "you are seat 0; seat 1 greedy" in result.stdout  # one greedy bot, the default
    assert "You left the game in round 1" in result.stdout


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A finished 2-player league of 4 games (serial, MLflow off: its own defaults are tested below)."""
    tmp = tmp_path_factory.mktemp("tiny")
    config = write(tmp / "tiny.yaml", league(tmp, ["random", {"type": "random", "name": "other", "seed": 9}],
                                             name="tiny", deals=2))
    azul("league", "run", config, "-q", "--no-report")
    return tmp / "tiny"


def test_ratings_show_with_its_defaults(tiny_run, tmp_path):
    assert "version 1, 1 runs" in azul("ratings", "add", tmp_path / "list", tiny_run).stdout
    shown = azul("ratings", "show", tmp_path / "list").stdout  # 200 bootstrap resamples
    assert "version 1: 1 runs; elo: mean bot at 0; change since nothing" in shown
    rows = {m.group(1): m for m in re.finditer(r"^\s+\d\s+(random|other)\s+(-?\d+)\s+(-?\d+) \.\. (-?\d+)\s+(\d+)\s+new\s*$",
                                                  shown, re.M)}
    assert set(rows) == {"random", "other"}, shown
    for m in rows.values():  # the interval holds the rating; each bot played the 4 games
        assert int(m.group(3)) <= int(m.group(2)) <= int(m.group(4)) and m.group(5) == "4"


# ---------------------------------------------------------------- commands that log to MLflow
def test_league_run_with_its_defaults(tmp_path, ray_address):
    out = tmp_path / "out"
    config = write(tmp_path / "d.yaml", {"name": "d", "deals": 1, "out": str(out), "bots": ["random", "greedy"]})
    result = azul("league", "run", config)
    assert "2 of 2 recorded; failures: none" in result.stdout and "report: " in result.stdout
    assert len(read_table(out / "d", "games")) == 2
    (run,) = mlflow_runs(out)
    assert run.info.run_id in result.stdout and run.data.params["deals"] == "1"
    assert run.data.metrics["games"] == 2 and "greedy.rating_2p" in run.data.metrics  # the report's too


def test_sprt_with_its_defaults(tmp_path, ray_address):
    result = azul("sprt", "--bot", "greedy", "--bot", "random", "--max-pairs", "2", "--out", tmp_path)
    assert "at most 2 pairs" in result.stdout
    assert len(read_table(tmp_path / "sprt", "games")) == 4  # 2 pairs, seats swapped
    (run,) = mlflow_runs(tmp_path)
    assert run.data.params["sprt.new"] == "greedy" and run.data.metrics["sprt.pairs"] == 2
    assert run.data.tags["sprt.verdict"] in ("H0", "H1", "undecided")


def test_tune_with_its_defaults(tmp_path, ray_address):
    path = write(tmp_path / "tune.yaml", {"bot": "heuristic", "params": {"marker": {}}, "pairs": 2,
                                          "out": str(tmp_path)})
    azul("tune", path)
    assert len(read_table(tmp_path / "tune", "games")) == 4  # 2 pairs, each the +/- sides
    (run,) = mlflow_runs(tmp_path)
    assert run.data.params["tune.spec"].startswith("heuristic:marker=")
    assert "tuned.marker" in run.data.metrics and run.data.metrics["games"] == 4


def test_train_with_its_defaults(tmp_path, ray_address):
    path = write(tmp_path / "train.yaml", {"generations": 1, "selfplay": {"deals": 1, "iterations": 1},
                                           "train": {"epochs": 1}, "gate": {"max_pairs": 1},
                                           "out": str(tmp_path)})
    result = azul("train", path)
    assert '"generations": 1' in result.stdout
    root = tmp_path / "train"
    assert len(read_table(root / "gen-001" / "selfplay", "games")) == 1  # one deal, the bot against itself
    (run,) = mlflow_runs(tmp_path)
    assert run.info.run_id == (root / "mlflow_run_id").read_text().strip()
    assert run.data.params["start_model"] == "value-2p" and run.data.params["iterations"] == "1"
    metrics = run.data.metrics  # generation 1's (one game: no positions held out, no held-out loss)
    assert metrics["positions"] > 0 and metrics["train_loss"] > 0 and metrics["gate_pairs"] == 1
    assert {"gate_llr", "accepted"} <= set(metrics)


@pytest.mark.parametrize("study, games", [("marker", 5), ("openings", 7)])
def test_a_study_with_its_defaults(tmp_path, study, games):
    """1 deal: the control game, and each intervention (2 marker ones, 3 opening classes) in each
    of the 2 seats; then ``study show`` of it."""
    result = azul("study", study, "--bot", "greedy", "--deals", "1", "--out", tmp_path)
    name = f"{study}-greedy-2p"
    assert len(read_table(tmp_path / name, "games")) == games
    (run,) = mlflow_runs(tmp_path)
    assert run.data.params["name"] == name and run.data.metrics["games"] == games
    shown = azul("study", "show", tmp_path / name).stdout
    wanted = ["marker=take", "marker=avoid"] if study == "marker" else ["opening=line:1", "opening=floor"]
    assert all(w in shown for w in wanted) and all(w in result.stdout for w in wanted), shown
