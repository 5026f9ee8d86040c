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

    from azul_cli.common import json_rows

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
