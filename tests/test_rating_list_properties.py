"""The property tests of league configs (tests/test_properties.py) extended to rating lists
(issue 30): a list's file (``LIST/list.json``), however damaged (its fields replaced, deleted,
nested, huge, extra ones, cut short, or no list at all), is read by ``azul ratings show LIST`` or
refused in one line naming the problem, and ``azul ratings add LIST RUN`` on it either adds the
run or refuses in one line; a damaged file (one ``RatingList.open`` refuses) is always refused,
and a refusal leaves the file byte-for-byte as it was, with nothing else written."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_league_support import league
from test_properties import mutated, values
from typer.testing import CliRunner

from analysis.rating_list import RatingList, RatingListError
from azul_cli.main import app

runner = CliRunner()
PROPERTY = settings(max_examples=int(os.environ.get("AZUL_PROPERTY_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict:
    """Three tiny finished leagues (random against greedy, MLflow off), and a list of two versions
    of the first two (the second anchored, renaming and excluding): the list's file as JSON, and
    the third run, to add."""
    tmp = tmp_path_factory.mktemp("rating-list")
    for name, seed in (("a", 1), ("b", 2), ("c", 3)):
        config = tmp / f"{name}.yaml"
        config.write_text(yaml.safe_dump(league(tmp / "runs", ["random", "greedy"], name=name, deals=2, seed=seed)))
        done = runner.invoke(app, ["league", "run", str(config), "--no-mlflow", "--no-report", "-q"])
        assert done.exit_code == 0, done.output
    lst = tmp / "list"
    for args in (["add", lst, tmp / "runs" / "a"],
                 ["add", lst, tmp / "runs" / "b", "--anchor", "greedy", "--anchor-value", "1000",
                  "--rename", "random=rnd", "--exclude", "nobody"]):
        done = runner.invoke(app, ["ratings", *map(str, args)])
        assert done.exit_code == 0, done.output
    return {"doc": json.loads((lst / "list.json").read_text()), "run": str(tmp / "runs" / "c")}


def _one_line(result) -> None:
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.output
    assert "Traceback" not in result.output


@st.composite
def list_texts(draw, doc: dict) -> str | None:
    """The text of a damaged list file: a mutation of ``doc`` (or any value) as JSON, whole or cut
    short; None where the value has no JSON text (an integer too long, nesting too deep)."""
    value = draw(st.one_of(mutated(doc), mutated(doc), mutated(doc), values))  # mostly a list's file
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):
        return None
    return text if draw(st.integers(0, 3)) else text[:draw(st.integers(0, len(text)))]


def _in_a_list(text: str, args, run: str | None = None):
    """Run ``azul ratings ARGS LIST [RUN]`` on a list whose file is ``text``: (the result, whether
    RatingList.open refuses the file), after checking a refusal left the file as it was."""
    with tempfile.TemporaryDirectory() as tmp:
        lst = Path(tmp) / "list"
        lst.mkdir()
        (lst / "list.json").write_text(text, encoding="utf-8")
        before = (lst / "list.json").read_bytes()
        try:
            RatingList.open(lst)
            damaged = False
        except RatingListError as exc:
            assert "\n" not in str(exc)
            damaged = True
        result = runner.invoke(app, ["ratings", *args, str(lst), *([run] if run else [])])
        if result.exit_code != 0:
            _one_line(result)
            if damaged:  # the file named
                assert str(lst) in result.stderr, result.stderr
        if result.exit_code != 0 or args[0] == "show":
            assert (lst / "list.json").read_bytes() == before  # refused, or only read
            assert sorted(p.name for p in Path(tmp).rglob("*")) == ["list", "list.json"]
        else:  # added: a list again, its last version holding the run
            added = RatingList.open(lst)
            assert added.last.runs[-1]["path"] == run
        return result, damaged


@PROPERTY
@given(data=st.data())
def test_a_mutated_list_is_shown_or_refused_in_one_line(made, data):
    text = data.draw(list_texts(made["doc"]))
    if text is None:
        return
    result, damaged = _in_a_list(text, ["show"])
    assert not (damaged and result.exit_code == 0), result.output  # a damaged file is never shown
    event("shown" if result.exit_code == 0 else "refused: damaged" if damaged else "refused")


@PROPERTY
@given(data=st.data())
def test_add_to_a_mutated_list_adds_or_refuses_in_one_line_writing_nothing(made, data):
    text = data.draw(list_texts(made["doc"]))
    if text is None:
        return
    result, damaged = _in_a_list(text, ["add"], made["run"])
    assert not (damaged and result.exit_code == 0), result.output  # nothing added to a damaged file
    event("added" if result.exit_code == 0 else "refused: damaged" if damaged else "refused")


def test_the_list_made_is_shown_and_takes_the_run(made):
    """The property's starting point: a list show reads and add grows (else every example would
    only test a refusal)."""
    text = json.dumps(made["doc"])
    shown, _ = _in_a_list(text, ["show"])
    assert shown.exit_code == 0 and "version 2: 2 runs; elo: greedy at 1000" in shown.stdout, shown.output
    added, _ = _in_a_list(text, ["add"], made["run"])
    assert added.exit_code == 0 and "version 3, 3 runs (1 added)" in added.stdout, added.output


# ---------------------------------------------------------------- what the property found
def _version(doc: dict, i: int, **fields) -> str:
    doc = json.loads(json.dumps(doc))
    doc["versions"][i].update(fields)
    return json.dumps(doc)


@pytest.mark.parametrize("damage, words", [
    (lambda doc: json.dumps(doc).replace('"anchor_value": 1000.0', '"anchor_value": 1' + "0" * 400),
     "not a rating list's file (OverflowError"),                                  # a traceback before
    (lambda doc: "[" * 100000 + "]" * 100000, "not a rating list's file (RecursionError"),  # idem
    (lambda doc: '{"versions": ' + "[" * 100000 + "]" * 100000 + "}", "RecursionError"),
    (lambda doc: _version(doc, 1, version=2.0), "version 2: numbered 2.0 in place 2"),  # show: TypeError
    (lambda doc: _version(doc, 0, version=True), "version 1: numbered True in place 1"),  # shown as 'version True'
])
def test_what_crashed_is_refused_in_one_line_for_show_and_add(made, damage, words):
    text = damage(made["doc"])
    for args, run in ((["show"], None), (["show", "-f", "json"], None), (["add"], made["run"])):
        result, damaged = _in_a_list(text, args, run)
        assert damaged and result.exit_code == 1 and words in result.stderr, result.output
