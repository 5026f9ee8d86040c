"""A game's review on its replay page (issue 45's web part), in a real headless Chromium against
``azul serve`` on a free port: the evaluation graph (one path per seat), each move's mark, the
selected move's best move and line, each seat's accuracy; a hostile bot name shown as text; a game
without a review shown as before; ``azul replay --html``'s page with the same review; the review
of a person's game at ``/play``, stored with the played run, and its refusals.

The browser set-up is tests/browser_support.py's (a missing browser fails under
AZUL_REQUIRE_BROWSER=1), the server tests/serve_support.py's. The data: one small league of a
random bot (named to inject markup) against greedy, some of its games reviewed by the default
analyser (about a second each), one left without a review.
"""
from __future__ import annotations

import json
import re

import pytest
from browser_support import browser, click, css, open_page  # noqa: F401 (browser: a fixture)
from serve_support import get, play_to_the_end, post, serving
from test_league_support import league
from typer.testing import CliRunner

from analysis.review_marks import game_turning_point
from analysis.review_show import game_accuracy, reviews_of
from azul_cli.main import app
from kinds.review import review_run
from records.store import open_store
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

HOSTILE = '"><img id=injected src=x onerror=window.pwned=1>'  # a bot's name: text, never markup
PERSON = "<img id=pwn src=x onerror=pwned=2>"  # a person's name at /play (at most 40 characters)
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A served runs/ with one league (6 games): games reviewed one by one until one holds a
    blunder (the last game is never reviewed), and the server's base URL."""
    tmp = tmp_path_factory.mktemp("review-web")
    runs = tmp / "runs"
    config = league(runs, [{"name": HOSTILE, "type": "random"}, "greedy"], name="r", deals=3, flush_seconds=0)
    run = run_league(parse_config(config), progress=False).run_dir
    games = sorted(read_table(run, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(games) == 6
    reviewed = []
    for gid in games[:-1]:
        rows = review_run(str(run), [gid]).rows
        reviewed.append(gid)
        if any(r["class"] == "blunder" for r in rows):
            break
    else:
        pytest.fail("no blunder in five reviewed games of a random bot")
    rows = {r["ply"]: r for r in reviews_of(run).filter(game_id=reviewed[-1]).to_dicts()}
    with serving([runs], tmp / "played") as base:
        yield {"base": base, "run": run, "game": reviewed[-1], "rows": rows, "plain": games[-1],
               "reviewed": reviewed, "tmp": tmp}


def no_script_errors(driver) -> None:
    """No error in the page's console but the served page's missing favicon.ico (the replay page
    names no icon: its file is self-contained, tests/test_replay.py)."""
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
              and "/favicon.ico " not in e["message"]]
    assert severe == [], severe


def url(site, gid: str) -> str:
    return f"{site['base']}/run/runs/r/game/{gid}"


def step_of_ply(driver) -> int:
    return int(css(driver, "#step-label")[0].get_attribute("data-ply"))


def follow(driver, element) -> None:
    """Click ``element`` and wait until the page it leads to has replaced this one."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait = WebDriverWait(driver, 60, poll_frequency=0.02, ignored_exceptions=(WebDriverException,))
    wait.until(expected_conditions.staleness_of(old))


def check_reviewed_page(driver, rows: dict[int, dict], players: int = 2) -> None:
    """The open page shows the review ``rows`` (by ply): the graph, the marks, the selected move's
    best move and line."""
    paths = css(driver, "#eval-graph path.seat-line")
    assert sorted(int(p.get_attribute("data-seat")) for p in paths) == list(range(players))
    for p in paths:  # a point before the first move, and one after each reviewed move
        assert len(re.findall(r"[ML][\d.]+,[\d.]+", p.get_attribute("d"))) == len(rows) + 1
    items = {int(li.get_attribute("data-ply")): li for li in css(driver, "#moves li[data-ply]")}
    assert {ply: li.get_attribute("data-class") for ply, li in items.items()} == \
        {ply: r["class"] for ply, r in rows.items()}
    for ply, li in items.items():
        marks = [m.text for m in li.find_elements("css selector", ".mark")]
        assert marks == ([MARKS[rows[ply]["class"]]] if rows[ply]["class"] in MARKS else []), ply
    blunder = min(p for p, r in rows.items() if r["class"] == "blunder")
    items[blunder].click()
    assert step_of_ply(driver) == blunder
    box = css(driver, "#review-move")[0]
    assert box.get_attribute("data-ply") == str(blunder) and box.get_attribute("data-class") == "blunder"
    r = rows[blunder]
    assert css(driver, "#rv-best")[0].text == r["best"] != r["move"]
    assert css(driver, "#rv-pv")[0].text == r["pv"] and r["pv"].split(" ")[0] == r["best"]
    shown = css(driver, "#rv-win-loss")[0].text
    assert shown.endswith("%") and float(shown[:-1]) == pytest.approx(100 * r["win_loss"], abs=0.051)
    assert r["win_loss"] >= 0.2
    assert float(css(driver, "#rv-points-loss")[0].text) == pytest.approx(r["points_loss"], abs=0.0051)
    assert "blunder ??" in css(driver, "#rv-head")[0].text
    # a mark of the graph selects its move; the graph's cursor follows the selected ply
    other = next(m for m in css(driver, "#eval-graph .eval-mark") if int(m.get_attribute("data-ply")) != blunder)
    x = float(css(driver, "#eval-cursor")[0].get_attribute("x1"))
    other.click()
    assert step_of_ply(driver) == int(other.get_attribute("data-ply"))
    assert rows[step_of_ply(driver)]["class"] == other.get_attribute("class").split()[-1]
    assert float(css(driver, "#eval-cursor")[0].get_attribute("x1")) != x
    no_script_errors(driver)


def test_a_reviewed_games_page_shows_the_graph_the_marks_and_the_best_move(browser, site):
    open_page(browser, url(site, site["game"]))
    check_reviewed_page(browser, site["rows"])
    judged = {p for p, r in site["rows"].items() if r["class"] in MARKS}
    assert {int(m.get_attribute("data-ply")) for m in css(browser, "#eval-graph .eval-mark")} == judged
    # each seat's accuracy, as azul review show's reader computes it
    expected = {r["seat"]: r for r in game_accuracy(reviews_of(site["run"]).filter(game_id=site["game"])).to_dicts()}
    shown = {int(tr.get_attribute("data-seat")): tr for tr in css(browser, "#accuracy tbody tr")}
    assert sorted(shown) == [0, 1]
    for seat, tr in shown.items():
        assert float(tr.find_element("css selector", ".value").text) == pytest.approx(expected[seat]["accuracy"],
                                                                                       abs=0.051)
        assert tr.find_element("css selector", ".blunders").text == str(expected[seat]["blunders"])
    assert "mcts-2p:iterations=1000" in css(browser, "#review-by")[0].text


def test_a_hostile_bot_name_in_a_reviewed_game_shows_as_text(browser, site):
    open_page(browser, url(site, site["game"]))
    assert css(browser, "#eval-graph")  # the review is there ...
    assert css(browser, "#injected") == [] and css(browser, "img") == []  # ... and nothing was injected
    assert browser.execute_script("return window.pwned === undefined")
    assert css(browser, '#eval-legend .legend[data-seat="0"] .bot')[0].text == HOSTILE
    assert css(browser, '#accuracy tr[data-seat="0"] .bot')[0].text == HOSTILE
    hostile_move = min(p for p, r in site["rows"].items() if r["seat"] == 0)
    click(browser, f'#moves li[data-ply="{hostile_move}"]')
    assert f"({HOSTILE}) played" in css(browser, "#rv-head")[0].text
    assert css(browser, "#injected") == [] and browser.execute_script("return window.pwned === undefined")
    no_script_errors(browser)


def test_a_game_without_a_review_shows_no_graph_and_the_page_starts_none(browser, site):
    parts = open_store(site["run"]).part_files("reviews")
    open_page(browser, url(site, site["plain"]))
    assert css(browser, "#step-label")[0].get_attribute("data-step") == "1"  # the replay is there
    assert css(browser, "#moves li[data-ply]")
    for selector in ("#eval-graph", "#review", "#review-move", "#accuracy", "#moves li[data-class]", ".mark",
                     "#review-error"):
        assert css(browser, selector) == [], selector
    click(browser, "#last")
    no_script_errors(browser)
    # read-only: a POST is not allowed, and showing the page reviewed nothing
    assert get(url(site, site["plain"]), method="POST")[0] == 405
    assert open_store(site["run"]).part_files("reviews") == parts
    assert set(reviews_of(site["run"])["game_id"].to_list()) == set(site["reviewed"])


def test_the_html_file_of_azul_replay_shows_the_review_too(browser, site):
    target = site["tmp"] / "game.html"
    result = CliRunner().invoke(app, ["replay", str(site["run"]), site["game"], "--html", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="game-data">(.*?)</script>', text, re.DOTALL).group(1))
    assert [m["ply"] for m in data["review"]["moves"]] == sorted(site["rows"])
    ranks = read_table(site["run"], "results", ["game_id", "seat", "rank"]).to_pylist()
    winner = min(r["seat"] for r in ranks if r["game_id"] == site["game"] and r["rank"] == 1)
    rows = [site["rows"][p] for p in sorted(site["rows"])]
    expected = game_turning_point(rows, winner)
    assert re.search(rf'id="turning-point" data-ply="{expected}">the game turned for its winner, seat {winner}, '
                     rf'at ply {expected}<', text)
    open_page(browser, target.as_uri())
    check_reviewed_page(browser, site["rows"])
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    plain = site["tmp"] / "plain.html"
    assert CliRunner().invoke(app, ["replay", str(site["run"]), site["plain"], "--html", str(plain)]).exit_code == 0
    assert 'id="eval-graph"' not in plain.read_text(encoding="utf-8")


def test_a_review_that_cannot_be_read_is_said_and_the_replay_still_shows(site, monkeypatch):
    import analysis.review_read
    from present.replay_page import page
    from tournament.replay import replay_steps

    game = replay_steps(site["run"], site["game"]).to_dict()
    assert 'id="eval-graph"' in page(game) and 'id="eval-graph"' not in page(game, None)

    def damaged(run, game_id):
        raise OSError("part-000001.parquet: not a parquet file")
    monkeypatch.setattr(analysis.review_read, "game_review", damaged)
    html = page(game)
    said = re.search(r'<p id="review-error">(.*?)</p>', html).group(1)
    assert "cannot be read" in said and "not a parquet file" in said
    assert 'id="eval-graph"' not in html and 'id="boards"' in html


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A person's finished game at /play (the first legal move each time, against greedy): the
    server's base URL, the table's URL, the played run's folder and the game's id."""
    tmp = tmp_path_factory.mktemp("review-play")
    (tmp / "runs").mkdir()
    with serving([tmp / "runs"], tmp / "played") as base:
        page, at = play_to_the_end(base, bot1="greedy", name=PERSON)
        gid = re.search(r'class="review-game" data-game="([^"]+)"', page).group(1)
        yield {"base": base, "table": at, "played": tmp / "played", "game": gid}


def test_a_persons_game_is_reviewed_at_play_and_stored_with_the_played_run(browser, table):
    assert not (table["played"] / "reviews").exists()
    open_page(browser, table["table"])
    assert css(browser, ".review-result") == []
    follow(browser, css(browser, f'.review-game[data-game="{table["game"]}"]')[0])
    assert "your accuracy" in css(browser, "#notice")[0].text
    rows = reviews_of(table["played"])
    plies = read_table(table["played"], "games", ["plies"]).column("plies")[0].as_py()
    assert set(rows["game_id"].to_list()) == {table["game"]} and rows.height == plies
    assert set(rows["analyser"].str.split(" ").list.first().to_list()) == {"mcts-2p:iterations=1000"}
    expected = {r["seat"]: r for r in game_accuracy(rows).to_dicts()}
    result = css(browser, f'.review-result[data-game="{table["game"]}"]')[0]
    assert float(result.find_element("css selector", ".accuracy").text) == pytest.approx(expected[0]["accuracy"],
                                                                                          abs=0.051)
    assert result.find_element("css selector", ".blunders").text == str(expected[0]["blunders"])
    result_text = result.find_element("css selector", ".accuracy").text
    assert css(browser, ".review-game") == []  # reviewed: no second offer
    follow(browser, result.find_element("css selector", ".review-link"))
    by_ply = {r["ply"]: r for r in rows.to_dicts()}
    paths = css(browser, "#eval-graph path.seat-line")
    assert len(paths) == 2
    assert {int(li.get_attribute("data-ply")): li.get_attribute("data-class")
            for li in css(browser, "#moves li[data-ply]")} == {p: r["class"] for p, r in by_ply.items()}
    assert css(browser, '#accuracy tr[data-seat="0"] .bot')[0].text == PERSON
    assert css(browser, '#accuracy tr[data-seat="0"] .value')[0].text == \
        result_text  # the same figure on the table's page and on the game's
    assert css(browser, "#pwn") == [] and browser.execute_script("return window.pwned === undefined")
    no_script_errors(browser)


def test_play_refuses_another_budget_or_analyser_and_says_why(table):
    review = table["table"] + "/review"
    before = open_store(table["played"]).part_files("reviews")
    status, page, _ = post(review, game=table["game"], iterations="5000")
    assert status == 400 and "1,000 iterations" in page and "&#39;5000&#39;" in page and "Traceback" not in page
    status, page, _ = post(review, game=table["game"], analyser="mcts-2p:iterations=20000")
    assert status == 400 and "mcts-2p:iterations=1000" in page and "Traceback" not in page
    status, page, _ = post(review, game="web-no-such-game")
    assert status == 404 and "saved no game" in page
    assert get(table["table"] + "/game/web-no-such-game")[0] == 404
    assert get(table["base"] + "/play/t/no-such-table/game/" + table["game"])[0] == 404
    assert open_store(table["played"]).part_files("reviews") == before
    # a table whose game is not over yet has nothing to review
    status, _, fresh = post(table["base"] + "/play/", bot1="greedy", name="someone")
    assert status == 200 and "/play/t/" in fresh
    status, page, _ = post(fresh + "/review")
    assert status == 409 and "no game of this table is saved yet" in page
