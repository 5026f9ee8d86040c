"""The strategy atlas's page (present/atlas_page.py, atlas_html): what it shows of each claim, its
rows and their forest plot; hostile text escaped; a claim that could not be measured; and the page
in headless Chromium (one session), where the verdicts and plots show and nothing runs.

The browser test needs Debian's ``chromium`` and ``chromedriver``; without them it skips, unless
``AZUL_REQUIRE_BROWSER=1`` (set by .ci/run), where it fails and says what is missing.
"""
from __future__ import annotations

import math
from html.parser import HTMLParser

import pytest
from browser_support import browser, css, no_script_errors, open_page  # noqa: F401 (browser: a fixture)

from present.atlas_page import atlas_html, forest, ticks

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
DIGEST = "ab12cd34ef56" + "0" * 52


def atlas(**changes) -> dict:
    """An atlas of three claims: one refuted by a statistic (with a model), one with hostile text
    (a study, within a region, a compared pair), one that could not be measured (NaN and None)."""
    claims = [
        {"id": "second-mover", "claim": "At 2 players the second mover wins 69% of games",
         "test": "the first mover's win rate less 1/2 between copies of mcts-2p",
         "source": "Trace Studio, Azul by the Numbers", "metric": "win", "expect": "< -0.19", "players": [2],
         "compare": None,
         "tested_by": {"statistic": {"name": "first-mover", "bot": "mcts-{players}p:iterations=200", "bots": [],
                                     "deals": 200}},
         "models": {"mcts-2p-a": [{"model": "value-2p", "sha256": DIGEST}]},
         "rows": [{"id": "second-mover", "players": "2", "metric": "win", "effect": 0.021, "low": -0.001,
                   "high": 0.043, "games": 2000, "verdict": "refuted", "run": "claims/second-mover-2p"}]},
        {"id": "hostile", "claim": SCRIPT, "test": None, "source": IMG, "metric": "points", "expect": "within 1.5",
         "players": [2, 4], "compare": [2, 4],
         "tested_by": {"study": {"bot": "mcts-{players}p:iterations=100", "intervention": "marker=take",
                                 "field": [], "max_deals": 400, "stages": 5}},
         "models": {},
         "rows": [{"id": "hostile", "players": "2", "metric": "points", "effect": 0.25, "low": -0.5, "high": 1.0,
                   "games": 800, "verdict": "supported", "run": "claims/hostile-2p"},
                  {"id": "hostile", "players": "4", "metric": "points", "effect": 1.75, "low": 0.75, "high": 2.75,
                   "games": 400, "verdict": "undecided", "run": "claims/hostile-4p"},
                  {"id": "hostile", "players": "2-4", "metric": "points", "effect": -1.5, "low": -2.75,
                   "high": -0.25, "games": 1200, "verdict": "undecided", "run": None}]},
        {"id": "unmeasured", "claim": "Four players never tie", "test": "ties per game at 4 players",
         "source": "a forum", "metric": "win", "expect": "> 0", "players": [4], "compare": None,
         "tested_by": {"statistic": {"name": "upset-rate", "bot": "mcts-4p", "bots": ["greedy"], "deals": 50}},
         "models": {},
         "rows": [{"id": "unmeasured", "players": "4", "metric": "win", "effect": math.nan, "low": None,
                   "high": math.nan, "games": 0, "verdict": "undecided", "run": "claims/unmeasured-4p"}]},
    ]
    data = {"format": "azul-atlas/1", "name": "claims", "complete": True, "engine": "0.1.0", "seed": 7,
            "command": "azul atlas claims.yaml --out runs --name claims --resume", "changed": None,
            "compared_with": None, "claims": claims, "rows": [r for c in claims for r in c["rows"]]}
    return {**data, **changes}


class Page(HTMLParser):
    """What a test reads of the page: the text of each element with an id, and per claim's
    section its text, its svgs, its interval lines and its verdict cells (class, text)."""

    def __init__(self, text: str):
        super().__init__()
        self.by_id, self.sections, self.tags = {}, {}, []
        self.open: list[tuple[str, str | None]] = []  # (tag, the id it records text under)
        self.section = None
        self.verdict = None
        self.feed(text)

    def handle_startendtag(self, tag, attrs):  # <line .../>: opens nothing
        self.handle_starttag(tag, attrs, opens=False)

    def handle_starttag(self, tag, attrs, opens=True):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "section":
            self.section = self.sections.setdefault(a["data-claim"], {"text": "", "svg": 0, "intervals": 0,
                                                                       "verdicts": [], "sentence": ""})
        cls = (a.get("class") or "").split()
        if self.section is not None:
            self.section["svg"] += tag == "svg"
            self.section["intervals"] += tag == "line" and "interval" in cls
            if tag == "td" and "verdict" in cls:
                self.verdict = [cls, ""]
                self.section["verdicts"].append(self.verdict)
            if tag == "q":
                self.open.append(("q", "sentence"))
                return
        if opens and tag not in ("meta", "br", "link"):
            self.open.append((tag, a.get("id")))

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        if tag == "td":
            self.verdict = None
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self.section is not None:
            self.section["text"] += data
            if self.verdict is not None:
                self.verdict[1] += data
        for tag, key in self.open:
            if key == "sentence" and self.section is not None:
                self.section["sentence"] += data
            elif key:
                self.by_id[key] = self.by_id.get(key, "") + data


def test_the_page_shows_each_claim_its_rows_and_the_run():
    text = atlas_html(atlas())
    page = Page(text)
    assert text.startswith("<!doctype html>") and "<title>Strategy atlas: claims</title>" in text
    assert page.by_id["atlas-state"] == "complete"
    assert page.by_id["engine"] == "0.1.0" and page.by_id["seed"] == "7"
    assert page.by_id["rerun"] == "azul atlas claims.yaml --out runs --name claims --resume"
    assert ("code", {"id": "rerun"}) in page.tags
    assert list(page.sections) == ["second-mover", "hostile", "unmeasured"]

    first = page.sections["second-mover"]
    assert first["sentence"] == "At 2 players the second mover wins 69% of games"
    for shown in ("Trace Studio, Azul by the Numbers", "the first mover's win rate less 1/2 between copies",
                  "holds where the effect is < -0.19 win", "first-mover", "mcts-{players}p:iterations=200",
                  "value-2p", "sha256 ab12cd34ef56)", "+0.021", "[-0.001, +0.043]", "2,000",
                  "claims/second-mover-2p"):
        assert shown in first["text"], shown
    assert DIGEST not in text  # the digest short
    assert first["verdicts"] == [[["verdict", "refuted"], "refuted"]]

    hostile = page.sections["hostile"]
    assert "within 1.5 points of 0 (between -1.5 and 1.5)" in hostile["text"]
    assert "the effect at 2 players less the effect at 4" in hostile["text"]
    assert "marker=take" in hostile["text"] and "As measured here" not in hostile["text"]  # its test is None
    for shown in ("+0.25", "[-0.50, +1.00]", "800", "+1.75", "[+0.75, +2.75]", "2 less 4", "-1.50",
                  "[-2.75, -0.25]", "1,200"):
        assert shown in hostile["text"], shown
    assert [v for _, v in hostile["verdicts"]] == ["supported", "undecided", "undecided"]
    assert [c for c, _ in hostile["verdicts"]] == [["verdict", v] for v in ("supported", "undecided", "undecided")]


def test_hostile_text_is_shown_as_text():
    text = atlas_html(atlas())
    page = Page(text)
    assert "<script" not in text and "<img" not in text  # the page holds no script, and no tag of the atlas's
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in text
    hostile = page.sections["hostile"]
    assert hostile["sentence"] == SCRIPT and IMG in hostile["text"]  # read back as the text it was
    assert not any(tag in ("script", "img") for tag, _ in page.tags)
    assert not any(name.startswith("on") for _, attrs in page.tags for name in attrs)
    # a hostile id, name and verdict stay inside their attributes and text
    odd = atlas(name=IMG, command=SCRIPT)
    odd["claims"][0] = {**odd["claims"][0], "id": IMG, "rows": [{**odd["claims"][0]["rows"][0], "verdict": IMG}]}
    text = atlas_html(odd)
    page = Page(text)
    assert "<img" not in text and "<script" not in text and IMG in page.sections
    assert page.by_id["rerun"] == SCRIPT and page.sections[IMG]["verdicts"][0][1] == IMG


def test_each_claim_has_one_forest_plot_with_an_interval_a_measured_row():
    page = Page(atlas_html(atlas()))
    assert {k: (s["svg"], s["intervals"]) for k, s in page.sections.items()} == \
        {"second-mover": (1, 1), "hostile": (1, 3), "unmeasured": (1, 0)}
    text = atlas_html(atlas())
    assert text.count("<svg") == 3 and text.count("data-intervals='3'") == 1


def test_a_claim_that_could_not_be_measured_shows_its_verdict():
    page = Page(atlas_html(atlas()))
    unmeasured = page.sections["unmeasured"]
    assert unmeasured["verdicts"] == [[["verdict", "undecided"], "undecided"]]
    assert "not measured (undecided)" in unmeasured["text"]  # its label in the plot, no line
    assert "nan" not in unmeasured["text"].lower()
    # a claim whose every value is missing, or that has no rows, or an expect that cannot be read
    bare = {"id": "bare", "claim": "x", "source": "y", "metric": "points", "expect": "bigger", "rows": [
        {"players": "3", "effect": None, "low": None, "high": None, "games": None, "verdict": "undecided"}]}
    text = atlas_html(atlas(claims=[bare, {**bare, "id": "empty", "rows": []}], complete=False))
    page = Page(text)
    assert page.by_id["atlas-state"].startswith("in progress")
    assert page.sections["bare"]["verdicts"] == [[["verdict", "undecided"], "undecided"]]
    assert page.sections["empty"]["svg"] == 1 and "holds where the effect is bigger points" in text


def test_the_verdicts_changed_since_an_earlier_atlas():
    assert "Verdicts changed" not in atlas_html(atlas())
    assert "Verdicts changed" not in atlas_html(atlas(changed=[], compared_with="old/atlas.json"))
    changed = [{"id": "second-mover", "players": "2", "before": "undecided", "now": "refuted",
                "effect_before": 0.01, "effect_now": 0.021}]
    text = atlas_html(atlas(changed=changed, compared_with="runs/old/atlas.json"))
    page = Page(text)
    assert "Verdicts changed since runs/old/atlas.json" in text
    assert page.by_id["changed"] == "claimplayersbeforenoweffect beforeeffect nowsecond-mover2undecidedrefuted" \
                                    "+0.010+0.021"


def test_the_plot_places_every_interval_and_the_region():
    rows = [{"players": "2", "effect": 0.021, "low": -0.001, "high": 0.043, "verdict": "refuted"},
            {"players": "3", "effect": 0.3, "low": None, "high": None, "verdict": "undecided"}]
    f = forest(rows, "< -0.19", "win")
    drawn, missing = f["rows"]
    assert f["intervals"] == 1 and not missing["measured"] and "x1" not in missing
    assert f["labels"] <= drawn["x1"] < drawn["cx"] < drawn["x2"] <= f["right"]
    (boundary,) = f["boundaries"]
    assert boundary["label"] == "-0.19" and f["labels"] < boundary["x"] < drawn["x1"]
    assert f["shade"]["x"] == f["labels"] and f["shade"]["x"] + f["shade"]["width"] == pytest.approx(boundary["x"])
    assert all(f["labels"] <= t["x"] <= f["right"] for t in f["ticks"]) and len(f["ticks"]) >= 3
    assert f["height"] > f["axis"] > drawn["y"] and missing["y"] > drawn["y"]
    # > X shades to the right edge; within X between its two boundaries, which both show
    right = forest(rows, "> 0.5", "win")
    assert right["shade"]["x"] + right["shade"]["width"] == pytest.approx(right["right"])
    assert right["rows"][0]["x2"] < right["boundaries"][0]["x"] < right["right"]  # 0.5 beyond the interval
    within = forest(rows, "within 0.1", "win")
    low, high = within["boundaries"]
    assert (low["label"], high["label"]) == ("-0.1", "0.1")
    assert within["shade"] == {"x": low["x"], "width": pytest.approx(high["x"] - low["x"])}
    # one value only, or none: a range all the same
    assert forest([rows[1]], "bigger", "win")["ticks"] and forest([], "> 0", "points")["boundaries"]


def test_ticks_are_round_and_labelled_plainly():
    assert [label for _, label in ticks(-0.23, 0.06)] == ["-0.20", "-0.15", "-0.10", "-0.05", "0.00", "0.05"]
    assert [label for _, label in ticks(-3.1, 3.1)] == ["-3", "-2", "-1", "0", "1", "2", "3"]


# ------------------------------------------------------------------ in a browser

@pytest.fixture(scope="module")
def shown(browser, tmp_path_factory):  # noqa: F811 (browser: the fixture)
    """The atlas's page opened from a file in the one browser session."""
    target = tmp_path_factory.mktemp("atlas-page") / "atlas.html"
    target.write_text(atlas_html(atlas()), encoding="utf-8")
    open_page(browser, target.as_uri())
    return browser


def test_the_page_in_a_browser_shows_verdicts_plots_and_hostile_text_as_text(shown):
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        shown.switch_to.alert  # noqa: B018 (asking raises when no alert is open)
    sections = css(shown, "section.claim")
    assert [s.get_attribute("data-claim") for s in sections] == ["second-mover", "hostile", "unmeasured"]
    first = sections[0]
    verdict = first.find_elements("css selector", "td.verdict")[0]
    assert verdict.is_displayed() and verdict.text == "refuted"
    plot = first.find_elements("css selector", "svg.forest")
    assert len(plot) == 1 and plot[0].is_displayed()
    assert plot[0].size["width"] > 0 and plot[0].size["height"] > 0
    line = first.find_elements("css selector", "svg.forest line.interval")[0]
    assert line.size["width"] > 0  # drawn from low to high
    hostile = sections[1]
    assert SCRIPT in hostile.find_elements("css selector", "q.sentence")[0].text
    assert IMG in hostile.find_elements("css selector", "cite")[0].text
    assert css(shown, "img[onerror]") == [] and css(shown, "img") == [] and css(shown, "script") == []
    assert [c.text for c in sections[2].find_elements("css selector", "td.verdict")] == ["undecided"]
    assert css(shown, "#rerun")[0].is_displayed()
    no_script_errors(shown)
    # nothing was fetched: the page is all there is
    assert shown.execute_script("return performance.getEntriesByType('resource').length") == 0
