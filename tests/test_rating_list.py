"""``azul ratings add`` and ``show``: a rating list kept in a folder, rebuilt from its runs'
records (analysis/rating_list.py), on synthetic runs of known strengths."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from analysis.ratings import rate_by_players
from analysis.records import read_records
from analysis.synthetic import synthetic_league, write_league
from azul_cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    first = [("alpha", 200.0), ("beta", 0.0), ("gamma", -100.0)]
    second = [("alpha", 200.0), ("beta-2", 50.0), ("delta", 100.0)]  # beta renamed beta-2; delta joins
    return {"one": write_league(synthetic_league(first, 60, seed=1, run_id="one"), tmp / "one"),
            "two": write_league(synthetic_league(second, 60, seed=2, run_id="two"), tmp / "two")}


def call(*args):
    return runner.invoke(app, ["ratings", *map(str, args)])


def shown(lst, *args):
    done = call("show", lst, "--format", "json", "--bootstrap", "0", *args)
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    return doc, {b["bot"]: b for b in doc["players"][0]["bots"]}


def test_a_list_grows_by_versions_and_says_what_changed(tmp_path, runs):
    lst = tmp_path / "list"
    assert call("add", lst, runs["one"]).exit_code == 0
    doc, bots = shown(lst)
    assert doc["version"] == 1 and doc["previous"] is None and set(bots) == {"alpha", "beta", "gamma"}
    assert all(b["previous"] is None for b in bots.values())
    done = call("add", lst, runs["two"], "--rename", "beta-2=beta", "--anchor", "gamma", "--anchor-value", "1000")
    assert done.exit_code == 0 and "version 2, 2 runs" in done.output, done.output
    doc, bots = shown(lst)
    assert doc["version"] == 2 and doc["previous"] == 1 and doc["rename"] == {"beta-2": "beta"}
    assert set(bots) == {"alpha", "beta", "gamma", "delta"} and bots["delta"]["previous"] is None
    assert bots["gamma"]["rating"] == 1000 and bots["gamma"]["change"] == 0  # both versions on the anchor
    # rebuilt from the records: the fit of azul elo over both runs, beta-2's games as beta's
    records = read_records([runs["one"], runs["two"]])
    results = records["results"].with_columns(records["results"]["bot"].replace({"beta-2": "beta"}))
    fit = rate_by_players(results, records["games"], anchor="gamma", anchor_value=1000, bootstrap=0)[2]
    for row in fit.table.iter_rows(named=True):
        assert bots[row["bot"]]["rating"] == pytest.approx(row["rating"], abs=1e-3)
    one = rate_by_players(read_records(runs["one"])["results"], read_records(runs["one"])["games"],
                          anchor="gamma", anchor_value=1000, bootstrap=0)[2].table
    alpha_before = one.filter(one["bot"] == "alpha")["rating"][0]
    assert bots["alpha"]["change"] == pytest.approx(bots["alpha"]["rating"] - alpha_before, abs=1e-3)
    first, _ = shown(lst, "--version", "1")
    assert first["version"] == 1


def test_a_run_already_in_the_list_is_refused(tmp_path, runs):
    lst = tmp_path / "list"
    assert call("add", lst, runs["one"]).exit_code == 0
    before = (lst / "list.json").read_text()
    again = call("add", lst, runs["two"], runs["one"])
    assert again.exit_code != 0 and "run one is already in the list" in again.output
    assert (lst / "list.json").read_text() == before  # nothing added, not even the other run


def test_a_moved_run_is_an_error_naming_it(tmp_path, runs):
    import shutil

    moved = shutil.copytree(runs["one"], tmp_path / "copy")
    lst = tmp_path / "list"
    assert call("add", lst, moved).exit_code == 0
    moved.rename(tmp_path / "elsewhere")
    done = call("show", lst)
    assert done.exit_code != 0 and "run one of version 1 is not at" in done.output


def test_excluded_bots_leave_the_list_with_their_games_and_the_html_page(tmp_path, runs):
    lst = tmp_path / "list"
    assert call("add", lst, runs["one"], "--exclude", "gamma").exit_code == 0
    doc, bots = shown(lst, "--html", tmp_path / "list.html")
    assert set(bots) == {"alpha", "beta"} and bots["alpha"]["games"] == 120  # the alpha-beta games only
    page = (tmp_path / "list.html").read_text()
    assert "version 1" in page and "left out: gamma" in page and "alpha" in page
    table = call("show", lst, "--bootstrap", "0")
    assert table.exit_code == 0 and "new" in table.output
    assert call("show", tmp_path / "nothing").exit_code != 0


def test_an_anchor_that_is_no_bot_of_the_list_is_refused_before_anything_is_written(tmp_path, runs):
    lst = tmp_path / "list"
    refused = call("add", lst, runs["one"], "--anchor", "nobody")
    assert refused.exit_code == 1 and not lst.exists()
    assert "--anchor nobody: not a bot of the list's runs (bots: alpha, beta, gamma)" in refused.output
    assert call("add", lst, runs["one"]).exit_code == 0
    before = (lst / "list.json").read_text()
    assert call("add", lst, "--anchor", "delta").exit_code == 1  # delta plays only in run two
    assert (lst / "list.json").read_text() == before
    show = call("show", lst, "--anchor", "nobody")
    assert show.exit_code == 1 and "not a bot of the list's runs" in show.output
    doc, bots = shown(lst, "--anchor", "beta", "--anchor-value", "1500")
    assert bots["beta"]["rating"] == pytest.approx(1500)


@pytest.mark.parametrize("damage, message", [
    (lambda v: v[0]["runs"][0].pop("path"), "version 1: a run without a run_id and a path"),
    (lambda v: v.reverse(), "version 1: numbered 2 in place 1"),
    (lambda v: v[1].update(version="two"), "version 2: numbered 'two' in place 2"),
    (lambda v: v[0].update(runs=5), "not a rating list's file (TypeError"),
])
def test_a_damaged_list_is_one_line_for_show_and_add_which_writes_nothing(tmp_path, runs, damage, message):
    lst = tmp_path / "list"
    assert call("add", lst, runs["one"]).exit_code == 0
    assert call("add", lst, runs["two"]).exit_code == 0
    doc = json.loads((lst / "list.json").read_text())
    damage(doc["versions"])
    (lst / "list.json").write_text(json.dumps(doc))
    before = (lst / "list.json").read_text()
    for args in (("show", lst), ("add", lst, "--exclude", "gamma")):
        result = call(*args)
        assert result.exit_code == 1 and message in result.output, result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert (lst / "list.json").read_text() == before


def test_add_refuses_a_run_given_twice_and_a_damaged_run_before_writing(tmp_path, runs):
    lst = tmp_path / "list"
    twice = call("add", lst, runs["one"], runs["one"])
    assert twice.exit_code == 1 and "run one is given twice" in twice.output and not lst.exists()
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(runs["two"], damaged)
    part = sorted((damaged / "results").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:40])
    refused = call("add", lst, damaged)
    assert refused.exit_code == 1 and str(part.name) in refused.output and not lst.exists()


def test_the_html_page_signs_the_change_and_says_new(tmp_path, runs):
    import re

    lst = tmp_path / "list"
    assert call("add", lst, runs["one"]).exit_code == 0
    assert call("add", lst, runs["two"]).exit_code == 0
    doc, bots = shown(lst, "--html", tmp_path / "list.html")
    page = (tmp_path / "list.html").read_text()
    cells = re.findall(r'<tr><td class="num">\d+</td><td class="text">([^<]+)</td>.*?<td class="text">([^<]+)</td></tr>',
                       page)
    change = dict(cells)
    assert change["delta"] == "new" and "-0" not in change.values()
    for bot, text in change.items():
        if text != "new":
            assert text[0] in "+-" and int(text) == round(bots[bot]["change"]), (bot, text)


def test_a_version_that_show_could_not_read_is_never_written(tmp_path, runs):
    """Excluding the list's anchor, or every bot, or adding onto a list whose run moved away, is
    refused by add with the list unchanged: each would write a version show then refuses."""
    import shutil

    lst = tmp_path / "list"
    assert call("add", lst, runs["one"], "--anchor", "beta").exit_code == 0
    before = (lst / "list.json").read_text()
    anchor_out = call("add", lst, "--exclude", "beta")
    assert anchor_out.exit_code == 1 and "the list's anchor beta would not be a bot of version 2" in anchor_out.output
    assert call("add", lst, "--exclude", "alpha", "--exclude", "gamma", "--anchor", "beta").exit_code == 0
    before = (lst / "list.json").read_text()
    none_left = call("add", lst, "--exclude", "beta", "--anchor", "alpha")
    assert none_left.exit_code == 1 and "version 3 would rate no bot" in none_left.output
    assert (lst / "list.json").read_text() == before
    moved = tmp_path / "moved"
    shutil.copytree(runs["two"], moved / "two")
    copy = tmp_path / "copy"
    shutil.copytree(runs["one"], copy / "one")
    other = tmp_path / "other"
    assert call("add", other, copy / "one").exit_code == 0
    kept = (other / "list.json").read_text()
    shutil.rmtree(copy)
    gone = call("add", other, moved / "two")
    assert gone.exit_code == 1 and "is not at" in gone.output and (other / "list.json").read_text() == kept
