"""Play in the browser (``azul serve``'s ``/play``), in a real headless Chromium against uvicorn on a
free port: a person's games played to the end by clicks and then read from ``--play-out`` by
``azul elo`` and the replay; the gray wall's columns, the two-game series, the teaching mode
(preview, confirm, hint, undo); the bots the page refuses, each with its message; a hostile name
shown as text. The browser set-up is tests/browser_support.py's (a missing browser fails under
AZUL_REQUIRE_BROWSER=1), the server tests/serve_support.py's.
"""
from __future__ import annotations

import json

import pytest
from browser_support import browser, css, no_script_errors, open_page  # noqa: F401 (browser: a fixture)
from serve_support import get, play_site, post, serving
from typer.testing import CliRunner

from azul_cli.main import app
from engine import GameState
from tournament.replay import replay
from tournament.series import recorded_series

HOSTILE = "<img src=x onerror=alert(1)> & \"you'"  # a name to show as itself, never as markup


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with play_site(tmp_path_factory.mktemp("play")) as served:
        yield served


def follow(driver, element) -> None:
    """Click ``element`` and wait until the page it leads to has replaced this one."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    # (asked while the page changes, Chromium may answer that the node left the document)
    wait = WebDriverWait(driver, 30, poll_frequency=0.01, ignored_exceptions=(WebDriverException,))
    wait.until(expected_conditions.staleness_of(old))


def start(driver, base: str, **form) -> None:
    """Fill the new-table form (text boxes, selects, checkboxes by id) and submit it."""
    from selenium.webdriver.support.ui import Select

    open_page(driver, base + "/play/")
    for key, value in form.items():
        node = css(driver, f"#{key}")[0]
        if node.tag_name == "select":
            Select(node).select_by_value(str(value))
        elif node.get_attribute("type") == "checkbox":
            if node.is_selected() != bool(value):
                node.click()
        else:
            node.clear()
            node.send_keys(str(value))
    follow(driver, css(driver, "#start")[0])


def position(driver) -> dict:
    return json.loads(css(driver, "#table")[0].get_attribute("data-position"))


def play_first_choices(driver) -> int:
    """Play the game on the page to its end, each time the first legal choice; the clicks made."""
    clicks = 0
    while not css(driver, "#game-over"):
        assert css(driver, "#table")[0].get_attribute("data-your-turn") == "yes", css(driver, "#status")[0].text
        steps = ["button.column-choice"] if css(driver, "button.column-choice") else \
            ["a.pick", "button.dest"]
        for selector in steps:
            follow(driver, css(driver, selector)[0])
            clicks += 1
    return clicks


def elo_names(play_out) -> set[str]:
    result = CliRunner().invoke(app, ["elo", str(play_out), "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    return {row["bot"] for fit in json.loads(result.output) for row in fit["bots"]}


def test_a_game_played_by_clicks_is_saved_and_found_by_azul_elo(browser, site):
    base, play_out = site
    start(browser, base, name=HOSTILE, bot1="random", seat=1, variant="gray", seed=11)
    table_url = browser.current_url
    browser.refresh()  # a reload continues the same table
    assert browser.current_url == table_url and css(browser, "#table")
    assert play_first_choices(browser) > 20
    final = position(browser)
    assert any(m.text.startswith("seat 1 ") and "@" in m.text for m in css(browser, "#log li"))  # columns chosen
    assert final["phase"] == "over"
    names = [n.text for n in css(browser, ".board .name")]
    assert names == ["random", HOSTILE]  # the name as text: no element was made of it
    assert not css(browser, "img")
    assert HOSTILE in css(browser, "#final-scores")[0].text
    saved = css(browser, "#saved")[0].text
    game_id = saved.split(" as game ")[1].split(":")[0].strip()
    no_script_errors(browser)
    assert HOSTILE in elo_names(play_out) and "random" in elo_names(play_out)
    assert replay(play_out, game_id).to_json() == final  # the records replay to the page's last position
    status, body, _ = post(table_url + "/undo")  # a saved game is never taken back
    assert "nothing to undo: the game is over" in body
    browser.refresh()
    assert position(browser) == final
    from kinds import kind_of
    assert kind_of(play_out).name == "played"
    assert kind_of(play_out).status(play_out).state == "finished"


def test_a_series_played_by_clicks_to_its_result(browser, site):
    base, play_out = site
    start(browser, base, name="player two", bot1="random", series=True, seed=5)
    assert css(browser, "h1")[0].text.startswith("Game 1 of 2")
    play_first_choices(browser)
    first = position(browser)
    follow(browser, css(browser, "#next-game")[0])
    assert css(browser, "h1")[0].text.startswith("Game 2 of 2")
    assert position(browser)["opener"] == 1  # game two opened by the next seat
    play_first_choices(browser)
    second = position(browser)
    text = css(browser, "#series-result")[0].text
    series = list(recorded_series(play_out).values())
    assert len(series) == 1
    result = series[0]
    assert [g.scores for g in result.games] == [[b["score"] for b in p["boards"]] for p in (first, second)]
    assert f"= {result.totals[0]:>3} points" in text and f"= {result.totals[1]:>3} points" in text
    assert ("winner:" in text) == (result.decided_by != "shared")


def test_teaching_mode_previews_hints_and_undoes(browser, site):
    base, _ = site
    start(browser, base, bot1="greedy", teach=True, seed=3)
    before = position(browser)
    follow(browser, css(browser, "#hint")[0])
    hinted = [a.text for a in css(browser, "#hints a.hint-move")]
    legal = {str(m) for m in GameState.from_json(before).legal_moves()}
    assert hinted and set(hinted) <= legal
    follow(browser, css(browser, "a.pick")[0])
    follow(browser, css(browser, ".dest")[0])
    preview = css(browser, "#preview")[0].text
    assert "Floor cost" in preview and position(browser) == before  # a preview changes nothing
    follow(browser, css(browser, "#confirm")[0])
    assert position(browser) != before
    follow(browser, css(browser, "#undo")[0])
    assert css(browser, "#notice")[0].text.startswith("undone: your move")
    assert position(browser) == before
    follow(browser, css(browser, "#undo")[0])
    assert css(browser, "#notice")[0].text.startswith("nothing to undo")
    no_script_errors(browser)


@pytest.mark.parametrize(("spec", "message"), [
    ("external:command=python3 bot.py", "external programs are not played from the page"),
    ("os.path:Thing", "module:Class bots are not played from the page"),
    ("mcts:iterations=100000", "at most 2000 iterations a move"),
    ("mcts:seconds=30", "at most 1 s a move"),
    ("mcts:evaluator=value,model=/etc/passwd", "only the shipped models"),
    ("nosuchbot", "the table offers"),
])
def test_a_refused_bot_gives_its_message(browser, site, spec, message):
    base, play_out = site
    before = sorted(p.name for p in play_out.rglob("*")) if play_out.exists() else []
    start(browser, base, bot1=spec)
    assert browser.current_url == base + "/play/"  # no table was made
    error = css(browser, "#error")[0].text
    assert message in error and "Traceback" not in browser.page_source
    assert css(browser, "#bot1")[0].get_attribute("value") == spec  # the form kept what was typed
    assert (sorted(p.name for p in play_out.rglob("*")) if play_out.exists() else []) == before


def test_over_http_a_bad_move_is_refused_and_an_unknown_table_is_a_page_saying_so(site):
    base, _ = site
    status, body = get(base + "/play/t/no-such-token")
    assert status == 404 and "No such table" in body
    status, body, table = post(base + "/play/", bot1="greedy", seed="2")
    assert status == 200 and table.startswith(base + "/play/t/")
    status, body, _ = post(table + "/move", move="9Z9")
    assert status == 200 and "not played: " in body
    assert post(table + "/move", move="")[1].count("not played: ") == 1
    assert post(base + "/play/", bot1="greedy", seat="x")[0] == 400
    status, body, _ = post(base + "/play/", bot1="greedy", name="greedy")
    assert status == 400 and "is a bot&#39;s name" in body
    assert post(base + "/play/", bot1="greedy", name="a/b")[0] == 400  # as a league's bot names


def test_a_play_out_folder_of_another_kind_is_refused_before_anything_is_written(tmp_path):
    from records.folder import save_run_id

    (tmp_path / "league").mkdir()
    save_run_id(tmp_path / "league", "lg-1", kind="league")
    (tmp_path / "runs").mkdir()
    with serving([tmp_path / "runs"], tmp_path / "league") as base:
        status, body = get(base + "/play/")
        assert status == 500 and "it holds a league run" in body
        status, body, url = post(base + "/play/", bot1="greedy")
        assert status == 400 and "it holds a league run" in body
    assert sorted(p.name for p in (tmp_path / "league").iterdir()) == ["run.json"]
