"""The replay page (``azul replay ... --html``) in headless Chromium: what it shows against the record.

Needs Debian's ``chromium`` and ``chromedriver``; without them the tests skip, unless
``AZUL_REQUIRE_BROWSER=1`` (set by .ci/run), where they fail and say what is missing.
"""
from __future__ import annotations

import pytest
from browser_support import browser, click, css, no_script_errors, open_page  # noqa: F401 (browser: a fixture)
from test_league_support import league

from present.replay_page import page

from tournament import read_table
from tournament.config import parse_config
from tournament.replay import replay_steps
from tournament.runner import run_league

ODD_NAME = "<b>&\"x'"  # a bot name that must show as itself, not as markup


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Pages of two small real leagues' games: 2-player coloured (an odd bot name), 3-player gray."""
    tmp = tmp_path_factory.mktemp("replay-browser")
    out = {}
    for kind, bots, fields in (("colored", [{"name": ODD_NAME, "type": "random"}, "greedy"], {}),
                               ("gray", ["random", "greedy", "heuristic"], {"players": 3, "variant": "gray"})):
        data = league(tmp, bots, name=kind, deals=1, flush_seconds=0, **fields)
        run_dir = run_league(parse_config(data), progress=False).run_dir
        gid = read_table(run_dir, "games", ["game_id"]).column("game_id")[0].as_py()
        game = replay_steps(run_dir, gid)
        target = tmp / f"{kind}.html"
        target.write_text(page(game.to_dict()), encoding="utf-8")
        rec = {name: [r for r in read_table(run_dir, name).to_pylist() if r["game_id"] == gid]
               for name in ("games", "results", "moves", "rounds")}
        out[kind] = (target.as_uri(), game, rec)
    return out


def label(driver) -> tuple[str, int, int]:
    node = css(driver, "#step-label")[0]
    return node.text, int(node.get_attribute("data-step")), int(node.get_attribute("data-ply"))


def tiles(driver, selector) -> str:
    return "".join(t.get_attribute("data-color") for t in css(driver, f"{selector} .tile"))


@pytest.mark.parametrize("kind", ["colored", "gray"])
def test_stepping_shows_the_recorded_game(browser, games, kind):
    url, game, _ = games[kind]
    n = len(game.steps)
    open_page(browser, url)
    assert label(browser) == (f"step 1 / {n}", 1, 0)
    click(browser, "#next")
    assert label(browser) == (f"step 2 / {n}", 2, 1)
    assert [li.text for li in css(browser, "#moves li.current")] == [game.steps[1].move]
    click(browser, "#next")
    click(browser, "#prev")
    assert label(browser)[1:] == (2, 1)
    click(browser, "#last")
    assert label(browser) == (f"step {n} / {n}", n, game.plies)
    click(browser, "#first")
    assert label(browser)[1] == 1
    from selenium.webdriver.common.keys import Keys
    css(browser, "body")[0].send_keys(Keys.ARROW_RIGHT)
    assert label(browser)[1] == 2
    css(browser, "body")[0].send_keys(Keys.END)
    assert label(browser)[1] == n
    css(browser, "body")[0].send_keys(Keys.ARROW_LEFT)
    assert label(browser)[1] == n - 1
    no_script_errors(browser)
    # nothing was fetched: the page is all there is
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


@pytest.mark.parametrize("kind", ["colored", "gray"])
def test_final_step_matches_the_results(browser, games, kind):
    url, game, rec = games[kind]
    open_page(browser, url)
    click(browser, "#last")
    final = game.steps[-1].position
    for r in rec["results"]:
        board = f'.board[data-seat="{r["seat"]}"]'
        assert css(browser, f"{board} .score")[0].text == str(r["score"])
        assert css(browser, f"{board} .name")[0].text == r["bot"]
        shown = {(int(t.get_attribute("data-row")), int(t.get_attribute("data-col")), t.get_attribute("data-color"))
                 for t in css(browser, f"{board} .wall .tile")}
        wall = final["boards"][r["seat"]]["wall"]
        assert shown == {(i + 1, j + 1, c) for i, row in enumerate(wall) for j, c in enumerate(row) if c != "."}
        assert len(css(browser, f"{board} .wall .empty")) == 25 - len(shown)
    assert [li.text for li in css(browser, "#moves li[data-ply]")] == \
           [m["move"] for m in sorted(rec["moves"], key=lambda m: m["ply"])]
    assert len(css(browser, "#moves li[data-ply]")) == rec["games"][0]["plies"]
    after = {}
    for r in rec["rounds"]:
        after.setdefault(r["round"], {})[r["seat"]] = str(r["score_after"])
    rows = [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in css(browser, "#round-scores tbody tr")]
    assert rows == [[after[k][s] for s in range(game.players)] for k in sorted(after)]
    no_script_errors(browser)


@pytest.mark.parametrize("kind", ["colored", "gray"])
def test_each_deal_shows_the_recorded_factories(browser, games, kind):
    url, game, rec = games[kind]
    open_page(browser, url)
    deals = {r["round"]: r["factories"].split(" ") for r in rec["rounds"]}
    after = {(r["round"], r["seat"]): r["score_after"] for r in rec["rounds"]}
    first_ply = {}
    for m in rec["moves"]:
        first_ply[m["round"]] = min(first_ply.get(m["round"], m["ply"]), m["ply"])
    for rnd in sorted(deals):
        if rnd > 1:  # the deal is the step after the previous round's last move: click it, then next
            click(browser, f'#moves li[data-ply="{first_ply[rnd] - 1}"]')
            assert label(browser)[2] == first_ply[rnd] - 1
            click(browser, "#next")
        assert css(browser, "#step-move")[0].text == f"round {rnd}: the deal"
        shown = [tiles(browser, f'#factories [data-factory="{k}"]') for k in range(1, len(deals[rnd]) + 1)]
        assert [sorted(s) for s in shown] == [sorted(f) for f in deals[rnd]]
        assert len(css(browser, "#factories [data-factory]")) == len(deals[rnd])
        assert tiles(browser, "#center") == "1"  # a fresh deal: only the marker in the centre
        # the rounds scored so far show score_after, the rest are blank
        rows = [[td.text for td in tr.find_elements("css selector", "td")]
                for tr in css(browser, "#round-scores tbody tr")]
        assert rows == [[str(after[k, s]) if k < rnd else "" for s in range(game.players)]
                        for k in sorted({k for k, _ in after})]
    no_script_errors(browser)


def test_clicking_a_move_shows_the_position_after_it(browser, games):
    url, game, _ = games["colored"]
    open_page(browser, url)
    for step in (game.steps[5], game.steps[len(game.steps) // 2]):
        li = css(browser, f'#moves li[data-ply="{step.ply}"]')[0]
        li.click()
        assert label(browser)[1:] == (step.index + 1, step.ply)
        assert "current" in li.get_attribute("class").split()
        assert css(browser, "#step-move")[0].text == \
            f"ply {step.ply}: seat {step.seat} ({game.bots[step.seat]}) played {step.move}"
        pos = step.position
        for s, board in enumerate(pos["boards"]):
            sel = f'.board[data-seat="{s}"]'
            assert [tiles(browser, f'{sel} [data-line="{k}"]') for k in range(1, 6)] == board["lines"]
            assert tiles(browser, f"{sel} .floor") == board["floor"]
            assert css(browser, f"{sel} .score")[0].text == str(board["score"])
        centre = ("1" if pos["marker"] == "center" else "") + "".join(sorted(pos["center"], key="BYRKW".index))
        assert tiles(browser, "#center") == centre
        assert [tiles(browser, f'#factories [data-factory="{k}"]') for k in range(1, len(pos["factories"]) + 1)] \
            == ["".join(f) for f in pos["factories"]]
    no_script_errors(browser)


def contrast(one: str, two: str) -> float:
    """The WCAG contrast ratio of two CSS colours "rgb(r, g, b)" / "rgba(...)" (1: invisible, 21)."""
    def luminance(css_colour):
        values = [float(v) / 255 for v in css_colour[css_colour.index("(") + 1:-1].split(",")[:3]]
        linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


MOVE_LIST_GEOMETRY = """
const items = [...document.querySelectorAll('#moves li')];
const list = document.getElementById('moves').getBoundingClientRect();
const box = li => { const r = li.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const background = el => {  // the colour painted behind an element: its own, else its ancestors'
  for (; el; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
};
const current = document.querySelector('#moves li.current');
const marker = getComputedStyle(current, '::marker');
const inside = getComputedStyle(current).listStylePosition === 'inside';
return {
  numberColour: marker.color, textColour: getComputedStyle(current).color,
  behindNumber: background(inside ? current : current.parentElement), inside: inside,
  list: [list.left, list.top, list.right, list.bottom], current: box(current),
  others: items.filter(li => li !== current).map(box),
  lefts: [...new Set(items.map(li => Math.round(li.getBoundingClientRect().left)))],
  roundStarts: [...document.querySelectorAll('#moves li.round-start')].map(li => Math.round(li.getBoundingClientRect().left)),
};
"""


@pytest.mark.parametrize("kind", ["colored", "gray"])
def test_the_current_move_is_readable_and_stays_in_its_column(browser, games, kind):
    url, game, _ = games[kind]
    open_page(browser, url)
    for step in (game.steps[3], game.steps[len(game.steps) // 2], game.steps[-1]):
        if step.move is None:
            continue
        css(browser, f'#moves li[data-ply="{step.ply}"]')[0].click()
        g = browser.execute_script(MOVE_LIST_GEOMETRY)
        # its number is drawn inside the highlighted item, in a colour that shows on the highlight
        assert g["inside"]  # a number outside its item's box sits in the gap, under the next column
        assert contrast(g["numberColour"], g["behindNumber"]) >= 4.5, g
        assert contrast(g["textColour"], g["behindNumber"]) >= 4.5, g
        # the highlight stays in its column: inside the list, overlapping no other item
        left, top, right, bottom = g["current"]
        assert g["list"][0] - 0.5 <= left and right <= g["list"][2] + 0.5
        for o in g["others"]:
            overlap = min(right, o[2]) - max(left, o[0]) > 0.5 and min(bottom, o[3]) - max(top, o[1]) > 0.5
            assert not overlap, (g["current"], o)
        # three columns, and a round's separator starts at its column's left edge
        assert len(g["lefts"]) == 3 and set(g["roundStarts"]) <= set(g["lefts"])
    no_script_errors(browser)
