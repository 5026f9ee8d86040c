"""``azul serve``'s pages in headless Chromium (tests/browser_support.py), watched while runs play
under them: the index lists a league a subprocess is playing and its count grows without a
reload; an SPRT's LLR path gains points when the test is resumed; a run page survives a damaged
part, ``azul league repair`` and ``--resume`` under it; a hostile bot name shows as text.

Without Chromium the tests skip, unless ``AZUL_REQUIRE_BROWSER=1`` (CI), where they fail.
"""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import yaml
from browser_support import browser, css, no_script_errors, open_page  # noqa: F401 (browser: a fixture)
from serve_support import serving, until
from test_league_support import ROOT, bot, league, subprocess_env
from typer.testing import CliRunner

from azul_cli.main import app

runner = CliRunner()
HOSTILE = "<img src=x onerror=\"document.title='owned'\">&\"x"
SPRT = ["sprt", "--bot", "greedy", "--bot", "random", "--workers", "0", "--no-mlflow", "--elo1", "20", "--seed", "4"]


@pytest.fixture
def site(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    with serving([runs], tmp_path / "played") as base:
        yield runs, base


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def mark(driver):
    """Mark the open page: ``unreloaded`` is true while the browser has not loaded it again."""
    driver.execute_script("window.azulMark = 1")


def unreloaded(driver) -> bool:
    return driver.execute_script("return window.azulMark === 1")


def row(driver, url: str) -> dict | None:
    """The index's row of run ``url`` as the page shows it now (read in one script: the page may
    redraw between two reads)."""
    return driver.execute_script("""
        var r = document.querySelector("#runs tr[data-run='" + arguments[0] + "']");
        return r && {state: r.dataset.state, recorded: parseInt(r.dataset.recorded) || null};""", url)


def summary(driver) -> dict:
    """A run page's state, games recorded and the parts it cannot read, as shown now."""
    return driver.execute_script("""
        var s = document.getElementById('summary');
        return {state: s.dataset.state, recorded: parseInt(s.dataset.recorded) || null,
                errors: Array.from(document.querySelectorAll('#errors li')).map(e => e.textContent)};""")


def llr_points(driver) -> int:
    return driver.execute_script("return parseInt(document.getElementById('llr').dataset.points)")


def test_the_index_shows_a_league_playing_and_its_count_growing(browser, site, tmp_path):
    runs, base = site
    slow = bot("slow", "SlowBot", seed=1, seconds=0.02)  # about 10 s of play: a page sees it grow
    config = tmp_path / "live.yaml"
    config.write_text(yaml.safe_dump(league(runs, [slow, "greedy"], name="live", deals=8, batch_games=2,
                                            flush_seconds=0)))
    open_page(browser, base + "/")
    mark(browser)
    assert css(browser, "#runs") == []  # nothing under runs/ yet
    proc = subprocess.Popen([sys.executable, "-m", "azul_cli", "league", "run", str(config)], cwd=ROOT,
                            env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def live_row():
        if proc.poll() not in (None, 0):
            pytest.fail(f"the league failed: {proc.stdout.read()}")
        return row(browser, "runs/live")

    try:
        first = until(lambda: (r := live_row()) and r["state"] == "running" and r["recorded"] and r,
                      90, "the index showed the league running with games recorded")
        grown = until(lambda: (r := live_row()) and (r["recorded"] or 0) > first["recorded"] and r,
                      90, "the count grew")
        assert grown["recorded"] > first["recorded"]
        done = until(lambda: (r := row(browser, "runs/live")) and r["state"] == "finished" and r, 120,
                     "the index showed the league finished")
        assert done["recorded"] == 16
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out  # the page's reads never made the driver fail
    finally:
        if proc.poll() is None:
            proc.kill()
    assert unreloaded(browser)
    no_script_errors(browser)


def test_an_sprt_pages_llr_path_gains_points_when_resumed(browser, site):
    runs, base = site
    invoke(*SPRT, "--max-pairs", "6", "--out", runs)
    open_page(browser, base + "/run/runs/sprt")
    mark(browser)
    before = llr_points(browser)
    assert before == 6
    invoke(*SPRT, "--max-pairs", "40", "--out", runs, "--resume")
    after = until(lambda: (n := llr_points(browser)) > before and n, 30, "the LLR path gained points")
    from analysis.sprt_run import sprt_result
    assert after == sprt_result(runs / "sprt").decision.pairs
    assert unreloaded(browser)
    no_script_errors(browser)


def test_a_run_page_survives_a_repair_and_a_resume_under_it(browser, site, tmp_path):
    runs, base = site
    config = tmp_path / "mend.yaml"
    config.write_text(yaml.safe_dump(league(runs, ["random", "greedy"], name="mend", deals=4, batch_games=2,
                                            flush_seconds=0)))
    invoke("league", "run", config)
    open_page(browser, base + "/run/runs/mend")
    mark(browser)
    assert summary(browser) == {"state": "finished", "recorded": 8, "errors": []}
    part = sorted((runs / "mend" / "games").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])  # damaged under the open page
    until(lambda: summary(browser)["errors"], 30, "the page said what it cannot read")
    invoke("league", "repair", runs / "mend")
    mended = until(lambda: (s := summary(browser)) and not s["errors"] and s["recorded"] is not None
                   and s["recorded"] < 8 and s, 30, "the page showed the repaired run")
    assert mended["state"] == "stopped"
    invoke("league", "run", config, "--resume")
    until(lambda: summary(browser) == {"state": "finished", "recorded": 8, "errors": []}, 30,
          "the page showed the resumed run finished")
    assert unreloaded(browser)
    no_script_errors(browser)


def test_a_hostile_bot_name_shows_as_text(browser, site):
    from tournament.config import parse_config
    from tournament.runner import run_league

    runs, base = site
    run_league(parse_config(league(runs, [{"name": HOSTILE, "type": "random"}, "greedy"], name="odd", deals=1)),
               progress=False)
    for page in ("/", "/run/runs/odd"):
        open_page(browser, base + page)
        mark(browser)
        until(lambda: int(css(browser, "#live")[0].get_attribute("data-polls") or 0) >= 1, 10,
              "the page redrew itself once")
        assert browser.title != "owned"
        assert css(browser, "#view img") == []
        if page != "/":
            assert HOSTILE in [td.text for td in css(browser, "#standings td")]
            assert HOSTILE in [td.text for td in css(browser, "#ratings-2 td")]
    no_script_errors(browser)
    shutil.rmtree(runs / "odd")
