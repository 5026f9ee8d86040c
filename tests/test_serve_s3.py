"""``azul serve`` over runs on object storage, against a real S3 server (SeaweedFS, tests/s3_server.py)
and a real uvicorn (tests/serve_support.py): a person's game played over HTTP is recorded into an
``s3://`` ``--play-out`` through the run's store and read back by ``azul elo``."""
from __future__ import annotations

import html
import json
import re
import uuid
from pathlib import Path

import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from serve_support import get, serving
from test_serve_play import elo_names, post
from typer.testing import CliRunner

from azul_cli.main import app
from engine import GameState
from records.folder import run_kind
from records.names import LOCK_FILE
from records.store import open_store

runner = CliRunner()


@pytest.fixture
def prefix(s3_env, tmp_path, monkeypatch):  # noqa: F811
    """An ``s3://`` prefix of the test's own; the view cache and the working folder in tmp_path."""
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return f"s3://{s3_env.bucket}/serve-{uuid.uuid4().hex[:12]}"


def position(page: str) -> GameState:
    """The position a table's page shows (its ``data-position``)."""
    return GameState.from_json(json.loads(html.unescape(re.search(r'data-position="([^"]*)"', page).group(1))))


def play_to_the_end(base: str, **form) -> str:
    """A new table (the form's fields) played to its end over HTTP, the person always making the first
    legal move; the last page."""
    status, page, table = post(base + "/play/", **form)
    assert status == 200 and table.startswith(base + "/play/t/"), page
    for _ in range(400):
        state = position(page)
        if state.is_over:
            return page
        status, page, _ = post(table + "/move", move=str(state.legal_moves()[0]))
        assert status == 200 and "not played" not in page
    raise AssertionError("the game did not end")


def test_a_persons_game_goes_into_an_s3_play_out_through_the_store(prefix, tmp_path, s3_env):  # noqa: F811
    play_out = f"{prefix}/played"
    (tmp_path / "runs").mkdir()
    with serving([tmp_path / "runs"], play_out) as base:
        status, page = get(base + "/play/")
        assert status == 200 and play_out in page and 'id="error"' not in page
        page = play_to_the_end(base, bot1="random", seed="3", name="person")
        assert "was not saved" not in page and "game-over" in page
        assert s3_env.endpoint not in page and s3_env.secret_key not in page and s3_env.access_key not in page
    store = open_store(play_out)
    assert len(store.committed()) == 1 and not store.exists(LOCK_FILE)  # one part, the lock given back
    assert run_kind(store.view(parts=False)) == "played"
    assert elo_names(play_out) == {"person", "random"}  # azul elo over the URL
    assert not Path("s3:").exists() and not (tmp_path / "runs" / "s3:").exists()


def test_an_s3_play_out_of_another_kind_is_refused_and_nothing_is_written(prefix, tmp_path):
    league = f"{prefix}/league"
    open_store(league).write_text("run.json", json.dumps({"run_id": "lg-1", "kind": "league"}) + "\n")
    (tmp_path / "runs").mkdir()
    with serving([tmp_path / "runs"], league) as base:
        status, page = get(base + "/play/")
        assert status == 500 and "it holds a league run" in page and league in page
        status, page, _ = post(base + "/play/", bot1="greedy")
        assert status == 400 and "it holds a league run" in page
    assert sorted(open_store(league).objects.entries("")) == ["run.json"]
