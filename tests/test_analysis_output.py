"""The output a user reads from the analysis commands (issue 25, items 11, 18 and 19): bounded
options with a clear refusal, strict JSON, and tables printed whole off a terminal."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from test_league_support import league

runner = CliRunner()

STRENGTHS = [("a", 0.0), ("b", 100.0), ("c", -50.0)]
LONG = "a-very-long-bot-name-that-goes-on-and-on-and-on-for-ever-" + "x" * 12  # 70 characters


def _invoke(*args, code: int = 0, **kwargs):
    result = runner.invoke(app, [str(a) for a in args], **kwargs)
    assert result.exit_code == code, (args, result.output)
    return result


def _strict(text: str):
    """JSON as RFC 8259 has it: NaN and Infinity are not numbers there."""
    def refuse(name):
        raise AssertionError(f"{name} in JSON output")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A finished 2-player league of three bots, one of them with a 70-character name."""
    tmp = tmp_path_factory.mktemp("output")
    bots = [{"name": LONG, "type": "greedy", "seed": 1}, {"type": "random", "seed": 2},
            {"type": "heuristic", "seed": 3}]
    config = tmp / "long.yaml"
    config.write_text(yaml.safe_dump(league(tmp / "runs", bots, name="long", deals=3)))
    _invoke("league", "run", config, "--quiet", "--no-report")
    return tmp / "runs" / "long"


# ---------------------------------------------------------------- item 11: bounds, strict JSON
@pytest.mark.parametrize("value", ["10001", "1000000000"])
def test_a_bootstrap_beyond_the_documented_most_is_refused(run_dir, value):
    for command in ("elo", "report"):
        out = _invoke(command, run_dir, "--bootstrap", value, code=1).output
        assert out.count("\n") == 1 and "--bootstrap" in out and "10,000" in out, out


def test_the_fits_refuse_too_many_resamples_and_hold_one_batch_at_a_time(monkeypatch):
    from analysis import bootstrap
    from analysis.bootstrap import MAX_RESAMPLES, check_count, resample_batches, resample_counts

    with pytest.raises(ValueError, match="10,000"):
        check_count(MAX_RESAMPLES + 1)
    check_count(MAX_RESAMPLES)
    whole = resample_counts(50, 30, seed=4)
    monkeypatch.setattr(bootstrap, "BATCH_CELLS", 7 * 50)
    batches = list(resample_batches(50, 30, seed=4))
    assert [len(b) for b in batches] == [7, 7, 7, 7, 2]
    assert (np.concatenate(batches) == whole).all()


def test_fits_in_batches_match_the_fit_at_once(monkeypatch):
    from analysis import bootstrap
    from analysis.ratings import rate_by_players
    from analysis.synthetic import synthetic_league

    from analysis.synthetic import synthetic_multi_league

    for data, players in ((synthetic_league(STRENGTHS, 30, seed=3), 2),
                          (synthetic_multi_league(STRENGTHS, 20, 3, seed=3), 3)):
        at_once = rate_by_players(data["results"], data["games"], bootstrap=60, seed=1)[players]
        monkeypatch.setattr(bootstrap, "BATCH_CELLS", 5)
        batched = rate_by_players(data["results"], data["games"], bootstrap=60, seed=1)[players]
        monkeypatch.undo()
        assert batched.superiority.equals(at_once.superiority)
        assert batched.table.equals(at_once.table)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "-1000001"])
def test_an_anchor_value_that_is_no_finite_rating_is_refused(run_dir, value):
    out = _invoke("elo", run_dir, "--anchor", "random", f"--anchor-value={value}", code=1).output
    assert out.startswith("error: --anchor-value:") and out.count("\n") == 1, out


def test_an_anchor_value_without_an_anchor_is_refused(run_dir):
    out = _invoke("elo", run_dir, "--anchor-value", "1500", code=1).output
    assert out == "error: --anchor-value needs --anchor BOT: without an anchor the mean bot is at 0\n"
    fit = _strict(_invoke("elo", run_dir, "--anchor", "random", "--anchor-value", "1e6", "-f", "json",
                          "-b", "0").output)[0]
    assert {b["bot"]: b["rating"] for b in fit["bots"]}["random"] == 1e6


def test_the_library_refuses_an_anchor_value_that_is_no_finite_rating():
    from analysis.ratings import rate_by_players
    from analysis.synthetic import synthetic_league

    data = synthetic_league(STRENGTHS, 10, seed=1)
    for value in (float("nan"), float("inf"), 1e308):
        with pytest.raises(ValueError, match="anchor_value must be a finite number"):
            rate_by_players(data["results"], data["games"], anchor="a", anchor_value=value,
                            bootstrap=0)


JSON_COMMANDS = [["elo", "-f", "json"], ["elo", "-f", "json", "-b", "0"], ["standings", "-f", "json"],
                 ["standings", "-w", "crosstable", "-f", "json"], ["standings", "-w", "seats", "-f", "json"],
                 ["openings", "-f", "json"], ["marker", "-f", "json"]]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=" ".join)
def test_every_json_output_is_strict_json(run_dir, args):
    _strict(_invoke(*args, run_dir).output)


def test_json_rows_write_no_number_for_nan_or_infinity():
    import polars as pl

    from present.strict_json import json_rows

    frame = pl.DataFrame({"x": [1.23456, float("nan"), float("inf"), float("-inf")]})
    assert json_rows(frame) == [{"x": 1.2346}, {"x": None}, {"x": None}, {"x": None}]


# ---------------------------------------------------------------- item 18: whole tables
TABLES = [["elo"], ["elo", "--openskill"], ["standings"], ["standings", "-w", "crosstable"],
          ["standings", "-w", "seats"], ["openings"], ["marker"], ["league", "status"]]


@pytest.mark.parametrize("args", TABLES, ids=" ".join)
def test_tables_print_whole_off_a_terminal(run_dir, args):
    # CliRunner's output is not a terminal; COLUMNS asks for a narrow one and is overruled
    out = _invoke(*args, run_dir, env={"COLUMNS": "60"}).output
    assert "…" not in out, out
    if args[-1] not in ("seats",):
        assert LONG in out, out
    if args == ["standings"]:  # the widest columns, in full
        assert "score share" in out and "bonus" in out and "±" in out


# ---------------------------------------------------------------- item 19: what the output says
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> Path:
    """A finished league in which ``bad`` forfeits every game at its first move (12 games)."""
    from test_league_support import bot

    tmp = tmp_path_factory.mktemp("faulty")
    config = tmp / "faulty.yaml"
    config.write_text(yaml.safe_dump(league(tmp / "runs", [bot("bad", "RaisingBot", after=1), "random",
                                                          "greedy"], name="faulty", deals=2)))
    out = _invoke("league", "run", config, "--quiet", "--no-report", code=1).output
    assert "a bot forfeited every game: bad (8 of 8)" in out
    return tmp / "runs" / "faulty"


def test_help_docs_and_header_say_how_the_intervals_are_made(run_dir):
    help_text = " ".join(_invoke("elo", "--help", env={"COLUMNS": "200"}).output.split())
    assert "jackknife" in help_text and "0: no intervals" in help_text
    assert "95% intervals by a jackknife over deals" in _invoke("elo", run_dir).output
    bare = _invoke("elo", run_dir, "--bootstrap", "0").output
    assert "no intervals (--bootstrap 0)" in bare and "jackknife" not in bare
    cli = (ROOT / "docs" / "cli.md").read_text()
    assert "bootstrap intervals" not in cli and "(a bootstrap over whole deals)" not in cli
    readme = (ROOT / "README.md").read_text()
    assert "interval from a\nbootstrap" not in readme and "deal-bootstrap intervals" not in readme


def test_readme_and_cli_docs_name_the_sprt_and_study_modules():
    readme = (ROOT / "README.md").read_text()
    here = readme[readme.index("## What is here"):readme.index("## Speed")]
    for name in ("`sprt.py`", "`study.py`", "`studies.py`", "`sprt_run.py`", "docs/sprt.md", "docs/studies.md"):
        assert name in here, name
    cli = (ROOT / "docs" / "cli.md").read_text()
    developers = cli[cli.index("## For developers"):cli.index("## `azul play`")]
    assert "`sprt.py`" in developers and "`study.py`" in developers
    assert "| `azul sprt" in cli


def test_the_docs_analyze_json_example_reproduces():
    cli = (ROOT / "docs" / "cli.md").read_text().splitlines()
    at = next(i for i, line in enumerate(cli) if line.startswith("$ azul analyze position.json") and "--json" in line)
    args = cli[at].split("#")[0].split()[3:]  # after "$ azul analyze"
    assert args[0] == "position.json"
    out = _invoke("analyze", ROOT / "tests" / "data" / "spec_example.json", *args[1:]).output
    assert out.strip() == cli[at + 1]


def test_a_forfeit_at_the_first_move_is_no_share_of_the_score(faulty):
    from analysis.totals import seat_outcomes

    rows = {r["bot"]: r for r in _strict(_invoke("standings", "-f", "json", faulty).output)["rows"]}
    assert rows["bad"]["score_share"] == 0.0 and rows["bad"]["games"] == 8
    elo = {b["bot"]: b for b in _strict(_invoke("elo", "-f", "json", "-b", "0", faulty).output)[0]["bots"]}
    assert elo["bad"]["score_share"] == 0.0
    assert elo["random"]["score_share"] == rows["random"]["score_share"]
    import csv
    with open(faulty / "standings.csv") as f:
        table = {r["bot"]: r for r in csv.DictReader(f)}
    assert float(table["bad"]["score_share"]) == 0.0
    assert float(table["greedy"]["score_share"]) == pytest.approx(rows["greedy"]["score_share"], abs=1e-4)
    # a game of 0 to 0 that seat 1 forfeited: seat 0 takes the whole table; without the fault, halves
    game, bot, score, rank = (np.array(v) for v in ([0, 0], [0, 1], [0.0, 0.0], [1, 2]))
    assert seat_outcomes(game, bot, score, rank, np.array([False, True]))["share"].tolist() == [1.0, 0.0]
    assert seat_outcomes(game, bot, score, rank)["share"].tolist() == [0.5, 0.5]
    score = np.array([10.0, 30.0])  # a late forfeit: its 30 points count for nothing
    assert seat_outcomes(game, bot, score, rank, np.array([False, True]))["share"].tolist() == [1.0, 0.0]


def test_elo_and_the_standings_withhold_what_the_report_withholds(faulty, tmp_path):
    import csv

    fit = _strict(_invoke("elo", "-f", "json", faulty).output)[0]
    bots = {b["bot"]: b for b in fit["bots"]}
    assert bots["bad"]["rating"] is None and bots["bad"]["low"] is None and fit["withheld"] == ["bad"]
    assert bots["greedy"]["rating"] is not None and fit["first_move"] is None  # 8 of 12 games forfeited
    table = _invoke("elo", faulty).output
    assert "withheld" in table and "note: bad: rating withheld" in table
    assert "first mover's edge: withheld, 67% of the games ended by a forfeit" in table
    with open(faulty / "standings.csv") as f:
        assert {r["bot"]: r["elo"] for r in csv.DictReader(f)}["bad"] == ""
    status = _invoke("league", "status", faulty).output
    assert [line.split()[-1] for line in status.splitlines() if " bad " in line] == ["-"]
    _invoke("report", faulty, "--out", tmp_path)
    with open(tmp_path / "elo.csv") as f:
        assert {r["bot"]: r["rating"] for r in csv.DictReader(f)}["bad"] == ""
    assert "| bad | withheld | - | 8 |" in (tmp_path / "summary.md").read_text()


def test_the_leader_line_marks_an_interval_that_is_only_a_bound(faulty, tmp_path):
    out = _invoke("report", faulty, "--out", tmp_path, "--bootstrap", "40").output
    leader = out.splitlines()[-1]
    assert leader.startswith("leader: 2 players: greedy (") and \
        "a bound only: it won every game or none" in leader, leader
    summary = (tmp_path / "summary.md").read_text()
    assert "(a bound only) | 8 |" in summary and "A bound only: greedy won every game or none." in summary


def test_cjk_names_draw_without_a_warning_a_character():
    import warnings

    import polars as pl

    from analysis.sections.ratings import ratings_plot

    table = pl.DataFrame({"bot": ["囲碁ボット", "greedy"], "rating": [1.0, 2.0], "low": [0.0, 1.0],
                          "high": [2.0, 3.0]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = ratings_plot(table, "ratings")
    assert "囲碁ボット" in svg and not [w for w in caught if "Glyph" in str(w.message)]


@pytest.mark.parametrize("command", [["league", "run"], ["study", "run"], ["sprt", "--config"]],
                         ids=" ".join)
def test_a_yaml_error_is_one_line_naming_the_file_line_and_column(tmp_path, command):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nbots: [a, b\nplayers: 2\n")
    out = _invoke(*command, bad, code=1).output
    assert out == (f"error: {bad}: line 3, column 8: not valid YAML (expected ',' or ']', but got ':', "
                   "while parsing a flow sequence from line 2, column 7)\n")
