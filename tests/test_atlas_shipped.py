"""The shipped atlas (docs/atlas/atlas.json, its atlas.html, docs/atlas.md) is what its JSON makes,
of today's claims file, read by today's shipped models; and the command that publishes it works.

When the bots' models change, or a preset reads another model, the pin tests fail: run the
command at the head of docs/atlas.md again and commit what it writes.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from bots.value_file import model_bytes
from present.atlas_markdown import FOLDER, PAGE, markdown, publish
from present.atlas_page import atlas_html
from records.names import ATLAS_HTML, ATLAS_JSON
from records.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SHIPPED = DOCS / FOLDER / ATLAS_JSON


@pytest.fixture(scope="module")
def shipped() -> dict:
    return json.loads(SHIPPED.read_text())


def test_the_shipped_atlas_is_complete_and_tests_todays_claims_file(shipped):
    assert shipped["format"] == "azul-atlas/1" and shipped["complete"]
    claims = yaml.safe_load((ROOT / "atlas" / "claims.yaml").read_text())["claims"]
    assert [(c["id"], c["claim"], c["expect"], c["players"]) for c in claims] == [
        (c["id"], c["claim"], c["expect"], c["players"]) for c in shipped["claims"]]
    measured = {(r["id"], str(r["players"])) for r in shipped["rows"]}
    for claim in claims:  # every player count, and the compared pair, has its verdict
        want = {(claim["id"], str(p)) for p in claim["players"]}
        if claim.get("compare"):
            want.add((claim["id"], "-".join(str(p) for p in claim["compare"])))
        assert want <= measured, claim["id"]
    assert {r["verdict"] for r in shipped["rows"]} <= {"supported", "refuted", "undecided"}


def test_the_committed_pages_are_what_the_json_makes(shipped):
    assert (DOCS / PAGE).read_text() == markdown(shipped)
    assert (DOCS / FOLDER / ATLAS_HTML).read_text() == atlas_html(shipped)


def test_the_atlas_was_played_by_todays_shipped_models(shipped):
    pinned = {(pin["model"], pin["sha256"]) for claim in shipped["claims"]
              for pins in claim["models"].values() for pin in pins}
    assert {model for model, _ in pinned} >= {"value-2p-prior", "value-3p-prior", "value-4p-prior"}
    for model, digest in pinned:
        assert hashlib.sha256(model_bytes(model)).hexdigest() == digest, (
            f"{model}: the shipped atlas was played with another {model}; rerun the command at the head of "
            f"docs/{PAGE}")


def test_the_atlas_was_played_by_the_models_todays_presets_read(shipped):
    """A preset that changes its model (mcts-2p took value-2p-prior) changes what the atlas rests
    on even when every model it pinned is as it was."""
    import re

    from bots import make_bot

    for claim in shipped["claims"]:
        for bot, pins in claim["models"].items():
            preset = re.match(r"mcts-([234])p", bot)
            if preset:
                players = int(preset.group(1))
                assert tuple(pin["model"] for pin in pins) == make_bot(f"mcts-{players}p").models(players), (
                    f"{claim['id']}, {bot}: the shipped atlas was played with other models than mcts-{players}p "
                    f"reads today; rerun the command at the head of docs/{PAGE}")


def test_azul_atlas_publish_writes_the_pages_of_a_finished_atlas_and_checks_its_folder_first(tmp_path):
    claims = {"name": "pub", "claims": [
        {"id": "first-mover", "claim": "Going first | is an advantage", "source": "a forum", "players": [2],
         "metric": "win", "expect": "> 0", "statistic": {"name": "first-mover", "bot": "greedy", "deals": 20}}]}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(claims, sort_keys=False))
    runs, docs = tmp_path / "runs", tmp_path / "docs"
    missing = CliRunner().invoke(app, ["atlas", str(path), "--out", str(runs), "--publish", str(docs)])
    assert missing.exit_code == 1 and f"--publish {docs}: no such folder" in missing.output
    assert not runs.exists()  # checked before anything is written
    docs.mkdir()
    result = CliRunner().invoke(app, ["atlas", str(path), "--out", str(runs), "--publish", str(docs), "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads((runs / "pub" / ATLAS_JSON).read_text())
    assert (docs / FOLDER / ATLAS_JSON).read_text() == (runs / "pub" / ATLAS_JSON).read_text()
    assert (docs / FOLDER / ATLAS_HTML).read_text() == atlas_html(doc)
    page = (docs / PAGE).read_text()
    assert page == markdown(doc) and "Going first \\| is an advantage" in page
    row = doc["rows"][0]
    assert f"| 2 | **{row['verdict']}** | {row['effect']:+.3f} |" in page


def test_publish_refuses_a_run_that_is_not_a_finished_atlas(tmp_path, shipped):
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ValueError, match=f"{ATLAS_JSON}: not there"):
        publish(RunStore(run), tmp_path / "docs")
    (run / ATLAS_JSON).write_text(json.dumps({**shipped, "complete": False}))
    (run / ATLAS_HTML).write_text("<html></html>")
    with pytest.raises(ValueError, match="not complete: finish it with"):
        publish(RunStore(run), tmp_path / "docs")
    assert not (tmp_path / "docs").exists()
