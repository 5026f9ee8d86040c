"""A run folder says what it holds (run.json's kind: league, study, sprt): repair and ``league run
--resume`` send a study's or an SPRT's folder to its own command instead of playing it as a
round-robin; a study's readers refuse games outside its design; a study's name stays inside --out."""
from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from analysis.records import connect
from analysis.studies import study_pairs
from azul_cli.main import app
from kinds import LEAGUE, STUDY
from kinds.sprt import SprtSettings, run_sprt
from kinds.study import StudyConfig, league_config, run_study
from records.folder import run_kind
from records.read import done_game_ids
from tournament.errors import LeagueError
from tournament.runner import run_league

runner = CliRunner()


def _kind(run_dir) -> str:
    return json.loads((run_dir / "run.json").read_text())["kind"]


def _finish_line(run_dir) -> list[str]:
    """The command ``azul league repair`` says finishes the run, as arguments of ``azul``."""
    result = runner.invoke(app, ["league", "repair", str(run_dir)])
    assert result.exit_code == 0, result.output
    line = [x for x in result.output.splitlines() if x.startswith("finish the ")]
    assert len(line) == 1, result.output
    args = shlex.split(line[0].split(" with: ", 1)[1])
    assert args[0] == "azul" and args[-1] == "--resume"
    return args[1:]


def test_a_study_folder_sends_repair_and_league_resume_to_azul_study(tmp_path):
    result = runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "2", "--out", str(tmp_path),
                                 "--name", "m", "--no-mlflow"])
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "m"
    assert _kind(run_dir) == "study" and run_kind(run_dir) == "study"
    games = done_game_ids(run_dir)
    part = next((run_dir / "games").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:100])  # damaged: repair quarantines it, its games go
    args = _finish_line(run_dir)
    assert args[:3] == ["study", "marker", "--bot"] and "--name" in args and "m" in args
    assert len(done_game_ids(run_dir)) < len(games)
    again = runner.invoke(app, args + ["--no-mlflow"])  # the printed command finishes the study, to the same games
    assert again.exit_code == 0, again.output
    assert done_game_ids(run_dir) == games
    assert runner.invoke(app, ["study", "show", str(run_dir)]).exit_code == 0
    refused = runner.invoke(app, ["league", "run", str(run_dir / "config.yaml"), "--out", str(tmp_path),
                                  "--resume", "--quiet", "--no-mlflow", "--no-report"])
    assert refused.exit_code == 1 and refused.output.splitlines()[-1].startswith("error: ")
    assert "holds a study, not a league" in refused.output and "azul study marker" in refused.output
    assert done_game_ids(run_dir) == games  # not one round-robin game added
    # a folder from before run.json kept a kind: its study.json says
    (run_dir / "run.json").write_text(json.dumps({"run_id": "old"}))
    assert run_kind(run_dir) == "study"
    (run_dir / "study.json").unlink()  # ... or, stopped before it wrote one, its games' interventions
    assert run_kind(run_dir) == "study"


def test_a_stopped_study_says_what_it_studied(tmp_path, monkeypatch):
    """study.json is written before the first game: a study stopped halfway still names its command."""
    import kinds.study as study_module

    def stopped(config, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(study_module, "run_league", stopped)
    with pytest.raises(KeyboardInterrupt):
        run_study(StudyConfig(name="s", bot="greedy", deals=3, out=str(tmp_path),
                              interventions=("marker=take", "marker=avoid")))
    assert json.loads((tmp_path / "s" / "study.json").read_text())["deals"] == 3


def test_a_study_whose_command_cannot_be_rebuilt_gets_a_sentence(tmp_path):
    study = StudyConfig(name="s", bot="greedy", deals=1, out=str(tmp_path), interventions=("opening=floor",))
    run_study(study)
    result = runner.invoke(app, ["league", "repair", str(tmp_path / "s")])
    assert result.exit_code == 0 and "finish the study with: the azul study command" in result.output
    with pytest.raises(LeagueError, match="holds a study, not a league"):
        run_league(league_config(study), resume=True, kind=LEAGUE)  # as azul league run does
    with pytest.raises(LeagueError, match="holds a run of kind study, not a league"):
        run_league(league_config(study), resume=True)  # the driver alone knows no kind's command


def test_an_sprt_folder_sends_repair_and_league_resume_to_azul_sprt(tmp_path):
    settings = SprtSettings("greedy", "greedy", elo0=0, elo1=200, max_pairs=3, workers=0, seed=7,
                            out=str(tmp_path), mlflow=False, name="aa")
    first = run_sprt(settings)
    assert first.result.decision.verdict == "undecided" and _kind(first.run_dir) == "sprt"
    args = _finish_line(first.run_dir)
    assert args[:5] == ["sprt", "--bot", "greedy", "--bot", "greedy"] and "--seed" in args
    again = runner.invoke(app, args + ["--no-mlflow", "-f", "json"])  # the same test: nothing more to play
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout.strip().splitlines()[-1])["pairs"] == 3
    assert len(done_game_ids(first.run_dir)) == 6
    refused = runner.invoke(app, ["league", "run", str(first.run_dir / "config.yaml"), "--out", str(tmp_path),
                                  "--resume", "--quiet", "--no-mlflow", "--no-report"])
    assert refused.exit_code == 1 and "holds an SPRT, not a league" in refused.output
    assert "azul sprt --bot greedy" in refused.output and len(done_game_ids(first.run_dir)) == 6


def test_a_league_folder_still_resumes_as_a_league(tmp_path):
    from tournament.config import parse_config

    config = parse_config({"name": "l", "deals": 1, "out": str(tmp_path), "bots": [
        {"type": "greedy"}, {"type": "random"}], "ray": {"workers": 0}, "mlflow": {"enabled": False}})
    run_league(config)
    assert _kind(tmp_path / "l") == "league"
    (tmp_path / "l" / "run.json").unlink()  # a folder from before run.json: a league still
    assert run_kind(tmp_path / "l") == "league"
    args = _finish_line(tmp_path / "l")
    assert args[:3] == ["league", "run", str(tmp_path / "l" / "config.yaml")]


def test_study_readers_refuse_games_outside_the_design(tmp_path):
    """What repair's old advice did (the study's config played as a round-robin into its folder):
    the study's readers refuse the mixture instead of counting it."""
    study = StudyConfig(name="s", bot="greedy", deals=2, out=str(tmp_path), interventions=("marker=take",))
    run_study(study)
    run_league(league_config(study), resume=True, kind=STUDY)  # forced past the kind check
    with connect(tmp_path / "s") as con, pytest.raises(ValueError, match="not part of a study's design"):
        study_pairs(con)
    shown = runner.invoke(app, ["study", "show", str(tmp_path / "s")])
    assert shown.exit_code == 1 and shown.output.startswith("error: ") and shown.output.count("\n") == 1


@pytest.mark.parametrize("name", ["..", ".", "../escape", "a/b", ""])
def test_a_study_name_cannot_leave_out(tmp_path, name):
    out = tmp_path / "runs" / "inner"
    out.mkdir(parents=True)
    result = runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "1", "--out", str(out),
                                 "--name", name])
    assert result.exit_code == 1 and "name: must be a non-empty name without '/'" in result.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["inner", "runs"]  # nothing written anywhere
    path = tmp_path / "study.yaml"
    path.write_text(json.dumps({"name": name, "bot": "greedy", "interventions": ["marker=take"], "deals": 1,
                                "out": str(out)}))
    result = runner.invoke(app, ["study", "run", str(path)])
    assert result.exit_code == 1 and f"{path}: name: must be a non-empty name" in result.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["inner", "runs", "study.yaml"]


def test_league_status_counts_a_study_and_an_sprt_by_their_own_totals(tmp_path):
    result = runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "1", "--out", str(tmp_path),
                                 "--name", "m"])
    assert result.exit_code == 0, result.output
    status = runner.invoke(app, ["league", "status", str(tmp_path / "m")])
    # a deal: the control game, and each of the 2 interventions in each of the 2 seats
    assert status.exit_code == 0 and "study m: 5 of 5 games recorded, complete" in status.output, status.output
    result = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--elo1", "20", "--max-pairs", "2",
                                 "--workers", "0", "--out", str(tmp_path), "--name", "s", "--no-mlflow"])
    assert result.exit_code == 0, result.output
    status = runner.invoke(app, ["league", "status", str(tmp_path / "s")])
    assert status.exit_code == 0, status.output
    assert ("SPRT s: 4 games recorded: an SPRT plays until it decides, at most 2 pairs (4 games), complete ("
            in status.output), status.output
    (tmp_path / "s" / "sprt.yaml").write_text("max_pairs: [2\n")  # damaged: the count, and the command
    status = runner.invoke(app, ["league", "status", str(tmp_path / "s")])
    assert status.exit_code == 0 and "SPRT s: 4 games recorded: an SPRT plays until it decides (its sprt.yaml is " \
        "unreadable), incomplete (finish it with: azul sprt" in status.output, status.output
