"""Hostile names: every command that reads records takes a run folder whose path holds glob
characters, quotes and spaces and reads that folder only (issue 25, item 2): elo, standings,
openings, marker, report, replay (and its --html file), league status, repair and run --resume,
sprt --resume, study show and --resume, and analyze's position file; and bots named like record
columns (``bot``, ``game_id``, ``seat``, ``score``, ``run_id``) break no reader (item 5)."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from test_league_support import league

runner = CliRunner()

HOSTILE = "r[12] *?'x"  # as a glob, [12] matches 1, * and ? match anything
NEIGHBOUR = "r1 zz'x"  # matches HOSTILE as a glob: a reader that globs counts its games too
COLUMN_NAMES = ["bot", "game_id", "seat", "score", "run_id"]


def _run(tmp_path: Path, out: Path, bots: list, name: str, **fields) -> Path:
    config = tmp_path / f"{name}-{out.name.replace(' ', '_')}.yaml"
    config.write_text(yaml.safe_dump(league(out, bots, name=name, **fields)))
    result = runner.invoke(app, ["league", "run", str(config), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out / name


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.stdout  # progress lines go to stderr off a terminal


BOTS = [{"type": "random", "seed": 1}, {"type": "greedy", "seed": 2}, {"type": "heuristic", "seed": 3}]
READERS = [["standings", "-f", "json"], ["standings", "-w", "crosstable", "-f", "csv"],
           ["standings", "-w", "seats", "-f", "csv"], ["elo", "-f", "json"], ["openings", "-f", "json"],
           ["marker", "-f", "json"], ["league", "status"]]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """(hostile run folder, a plain-named copy of it): 18 games beside a neighbour of 12."""
    tmp = tmp_path_factory.mktemp("hostile")
    _run(tmp, tmp / NEIGHBOUR, BOTS, "small", deals=2, seed=5)
    hostile = _run(tmp, tmp / HOSTILE, BOTS, "small", deals=3, seed=6)
    plain = tmp / "plain" / "small"
    shutil.copytree(hostile, plain)
    return hostile, plain


def test_the_leagues_own_standings_count_its_games_only(folders):
    hostile, plain = folders
    with open(hostile / "standings.csv") as f:
        rows = {r["bot"]: r for r in csv.DictReader(f)}
    assert {b: int(r["games"]) for b, r in rows.items()} == {"random": 12, "greedy": 12, "heuristic": 12}
    fit = json.loads(_invoke("elo", "-f", "json", str(plain)))[0]
    ratings = {b["bot"]: b["rating"] for b in fit["bots"]}
    assert all(abs(float(rows[b]["elo"]) - ratings[b]) < 0.1 for b in ratings), (rows, ratings)


@pytest.mark.parametrize("args", READERS, ids=lambda a: " ".join(a))
def test_every_reader_reads_the_hostile_folder_only(folders, args):
    hostile, plain = folders
    # the same output as on a plain-named copy of the folder (only the folder's name differs)
    assert _invoke(*args, str(hostile)).replace(str(hostile), "X") == \
        _invoke(*args, str(plain)).replace(str(plain), "X")
    if args[0] == "standings" and len(args) == 3:
        assert {b["bot"]: b["games"] for b in json.loads(_invoke(*args, str(hostile)))["rows"]} == \
            {"random": 12, "greedy": 12, "heuristic": 12}


def test_report_and_replay_read_the_hostile_folder_only(folders):
    hostile, plain = folders
    for run_dir in folders:
        _invoke("report", str(run_dir))
    assert (hostile / "summary.md").read_text().replace(str(hostile), "X") == \
        (plain / "summary.md").read_text().replace(str(plain), "X")
    step = ["--step", "5", "--plain"]
    assert _invoke("replay", str(hostile), "t000-d00002-a00", *step) == \
        _invoke("replay", str(plain), "t000-d00002-a00", *step)  # deal 2: the neighbour has none


@pytest.mark.parametrize("players", [2, 3])
def test_bots_named_like_columns_break_no_reader(tmp_path, players):
    bots = [{"name": n, "type": t, "seed": i}
            for i, (n, t) in enumerate(zip(COLUMN_NAMES, ["random", "greedy", "heuristic", "random", "greedy"]))]
    run_dir = _run(tmp_path, tmp_path / "out", bots, "cols", players=players, deals=1)
    with open(run_dir / "standings.csv") as f:
        assert sorted(r["bot"] for r in csv.DictReader(f)) == sorted(COLUMN_NAMES)
    assert sorted(b["bot"] for b in json.loads(_invoke("standings", "-f", "json", str(run_dir)))["rows"]) == \
        sorted(COLUMN_NAMES)
    fit = json.loads(_invoke("elo", "-f", "json", "--bootstrap", "40", str(run_dir)))[0]
    assert sorted(b["bot"] for b in fit["bots"]) == sorted(COLUMN_NAMES)
    assert set(fit["superiority"]) == set(COLUMN_NAMES)
    assert all(set(row) == set(COLUMN_NAMES) for row in fit["superiority"].values())
    assert all(row[b] is None for b, row in fit["superiority"].items())
    assert all(0 <= v <= 1 for row in fit["superiority"].values() for v in row.values() if v is not None)
    if players == 2:  # the head-to-head crosstable is of 2-player games
        cross = list(csv.DictReader(_invoke("standings", "-w", "crosstable", "-f", "csv",
                                            str(run_dir)).splitlines()))
        assert {r["bot"] for r in cross} == set(COLUMN_NAMES), cross
    _invoke("standings", "-w", "seats", str(run_dir))
    _invoke("report", str(run_dir))
    summary = (run_dir / "summary.md").read_text()
    assert all(n in summary for n in COLUMN_NAMES)


def test_study_show_reads_the_hostile_folder_only(tmp_path):
    study = ["study", "marker", "--bot", "greedy", "--name", "st", "--workers", "0", "-f", "json", "--no-mlflow", "--quiet"]
    _invoke(*study, "--deals", "3", "--seed", "1", "--out", str(tmp_path / NEIGHBOUR))
    played = json.loads(_invoke(*study, "--deals", "4", "--seed", "2", "--out", str(tmp_path / HOSTILE)))
    plain = tmp_path / "plain" / "st"
    shutil.copytree(tmp_path / HOSTILE / "st", plain)
    shown = _invoke("study", "show", "-f", "json", str(tmp_path / HOSTILE / "st"))
    assert json.loads(shown) == played == json.loads(_invoke("study", "show", "-f", "json", str(plain)))


def test_repair_and_resume_mend_the_hostile_folder_only(folders, tmp_path):
    """league repair and league run --resume on a copy of the hostile folder, its neighbour beside
    it: the damaged part is quarantined and its games played again, the neighbour untouched."""
    hostile, plain = folders
    neighbour = hostile.parent.parent / NEIGHBOUR / "small"
    copy = tmp_path / HOSTILE / "small"
    shutil.copytree(hostile, copy)
    shutil.copytree(neighbour, tmp_path / NEIGHBOUR / "small")
    before = _invoke("standings", "-f", "json", str(tmp_path / NEIGHBOUR / "small"))
    (part,) = (copy / "games").glob("*.parquet")
    part.write_bytes(b"not parquet at all" * 50)
    repaired = _invoke("league", "repair", str(copy))
    assert "quarantined" in repaired and "azul league run" in repaired, repaired
    config = tmp_path / "resume.yaml"
    config.write_text((copy / "config.yaml").read_text())
    played = _invoke("league", "run", str(config), "--out", str(tmp_path / HOSTILE), "--resume", "--quiet",
                     "--no-report")
    assert "18 of 18 recorded" in played, played
    assert _invoke("standings", "-f", "json", str(copy)) == _invoke("standings", "-f", "json", str(plain))
    assert _invoke("standings", "-f", "json", str(tmp_path / NEIGHBOUR / "small")) == before


def test_sprt_resume_reads_the_hostile_folder_only(tmp_path):
    sprt = ["sprt", "--bot", "greedy", "--bot", "random", "--name", "sp", "--workers", "0", "--no-mlflow",
            "-f", "json"]
    _invoke(*sprt, "--max-pairs", "4", "--seed", "1", "--out", str(tmp_path / NEIGHBOUR))
    first = json.loads(_invoke(*sprt, "--max-pairs", "6", "--seed", "3", "--out", str(tmp_path / HOSTILE)))
    again = json.loads(_invoke(*sprt, "--max-pairs", "6", "--seed", "3", "--out", str(tmp_path / HOSTILE),
                               "--resume"))
    assert first["pairs"] == again["pairs"] == 6 and first["games"] == again["games"] == 12
    assert again["pentanomial"] == first["pentanomial"] and again["run_dir"] == str(tmp_path / HOSTILE / "sp")


def test_study_resume_reads_the_hostile_folder_only(tmp_path):
    study = ["study", "marker", "--bot", "greedy", "--name", "st", "--workers", "0", "-f", "json"]
    _invoke(*study, "--deals", "3", "--seed", "1", "--out", str(tmp_path / NEIGHBOUR))
    played = json.loads(_invoke(*study, "--deals", "4", "--seed", "2", "--out", str(tmp_path / HOSTILE)))
    resumed = json.loads(_invoke(*study, "--deals", "4", "--seed", "2", "--out", str(tmp_path / HOSTILE),
                                 "--resume"))
    assert resumed == played and all(r["deals"] == 4 for r in played)


def test_analyze_and_the_html_replay_take_hostile_file_names(folders, tmp_path):
    hostile, _ = folders
    position = tmp_path / HOSTILE / "position.json"
    position.parent.mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "data" / "spec_example.json", position)
    args = ["--iterations", "200", "--top", "2", "--json"]
    assert _invoke("analyze", str(position), *args) == \
        _invoke("analyze", str(Path(__file__).parent / "data" / "spec_example.json"), *args)
    page = tmp_path / HOSTILE / "game [1] *.html"
    _invoke("replay", str(hostile), "t000-d00002-a00", "--html", str(page))
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_brackets_in_paths_and_names_are_printed_as_text(tmp_path):
    """rich markup once ate '[x]' from a printed path or command and '[bold red]' from a bot's name:
    paths, commands and names are printed as they are."""
    out = tmp_path / "dir [x]"
    data = league(out, [{"name": "[bold red]boss", "type": "greedy", "seed": 1}, "random"], name="m [y]",
                  deals=2)
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'm [y]' / 'report.html'}" in result.output
    assert "[bold red]boss" in result.output  # the standings table's bot
    status = runner.invoke(app, ["league", "status", str(out / "m [y]")])
    assert status.exit_code == 0 and "[bold red]boss" in status.output
    repair = runner.invoke(app, ["league", "repair", str(out / "m [y]")])
    assert repair.exit_code == 0 and "'" + str(out / "m [y]" / "config.yaml") + "'" in repair.output
    elo = runner.invoke(app, ["elo", str(out / "m [y]")])
    assert elo.exit_code == 0 and "[bold red]boss" in elo.output


@pytest.mark.parametrize("args", [
    ["sprt", "--bot", "greedy", "--bot", "random", "--out", "s3://bucket/runs", "--workers", "0"],
    ["tune", "TUNE", "--out", "s3://bucket/runs", "--workers", "0"],
    ["study", "marker", "--bot", "greedy", "--deals", "2", "--out", "s3://bucket/runs"],
    ["train", "TRAIN", "--out", "s3://bucket/runs", "--workers", "0"],
])
def test_an_unreachable_object_store_is_one_line_and_no_folder_named_s3_is_made(tmp_path, monkeypatch, args):
    """sprt, tune, study and train take ``--out s3://...`` (tests/test_s3_sprt_tune.py, test_s3_train.py):
    an endpoint that does not answer is one error line naming the object, not the endpoint; nothing
    local is made."""
    from s3_server import AWS_VARIABLES
    from typer.testing import CliRunner

    from azul_cli.main import app
    from records.objects import Objects

    for name in AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in {"AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID": "k",
                        "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(Objects.__init__, "__defaults__", (None, 1))  # one try, not five with their waits
    tune = tmp_path / "tune.yaml"
    tune.write_text(Path("examples/tune.yaml").read_text())
    train = tmp_path / "train.yaml"
    train.write_text("name: t\ngenerations: 0\n")
    monkeypatch.chdir(tmp_path)
    files = {"TUNE": str(tune), "TRAIN": str(train)}
    result = CliRunner().invoke(app, [files.get(a, a) for a in args + ["--no-mlflow"]])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    error = result.output.strip().splitlines()[-1]
    assert error.startswith("error: s3://bucket/runs/") and "could not reach the S3 endpoint" in error, error
    assert "127.0.0.1:9" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.yaml", "tune.yaml"]
