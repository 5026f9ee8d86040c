"""``azul serve`` over runs on object storage, against a real S3 server (SeaweedFS, tests/s3_server.py)
and a real uvicorn (tests/serve_support.py): a league played to ``s3://`` is listed and its page
shows ``azul elo``'s ratings of it; a run whose lock is held shows as running and its count grows as
parts commit; what is not a run is a 404, a bucket that cannot be read an error line on the index and
a store that cannot be listed (no bucket, the server down) a 503 naming its URL, never a 500 or "no
such run"; no endpoint or credential in any page. A person's game played over HTTP is recorded into an
``s3://`` ``--play-out`` through the run's store and read back by ``azul elo``."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from serve_support import get, play_to_the_end, post, raw_get, serving, until
from test_league_support import ROOT, subprocess_env
from test_s3_league import azul, config
from test_serve import _answer
from test_serve_play import elo_names
from typer.testing import CliRunner

from azul_cli.main import app
from records.columns import TABLES
from records.folder import run_kind
from records.names import CONFIG_FILE, LOCK_FILE, RUN_FILE
from records.parts import PartWriter
from records.store import open_store

runner = CliRunner()


@pytest.fixture
def prefix(s3_env, tmp_path, monkeypatch):  # noqa: F811
    """An ``s3://`` prefix of the test's own; the view cache and the working folder in tmp_path."""
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return f"s3://{s3_env.bucket}/serve-{uuid.uuid4().hex[:12]}"


def api(base: str, path: str) -> dict:
    status, body = get(f"{base}/api/{path}")
    assert status == 200, body
    return json.loads(body)


def secret_free(page: str, s3) -> None:
    """No endpoint, key id or secret key of the server in ``page``."""
    for value in (s3.endpoint, s3.endpoint.split("//")[1], s3.access_key, s3.secret_key):
        assert value not in page


def test_a_league_on_s3_is_listed_and_its_page_shows_azul_elos_ratings(prefix, tmp_path, s3_env):  # noqa: F811
    out = f"{prefix}/runs"
    played = azul("league", "run", config(tmp_path), "--out", out, "--quiet")
    assert played.exit_code == 0, played.output
    label = prefix.rsplit("/", 1)[1]
    with serving([prefix], tmp_path / "played") as base:
        rows = {r["url"]: r for r in api(base, "index")["runs"]}
        run = f"{label}/runs/s3l"
        assert list(rows) == [run] and rows[run]["kind"] == "league", rows
        assert rows[run]["state"] == "finished" and rows[run]["recorded"] == rows[run]["planned"] == 18
        shown = {b["bot"]: b for fit in api(base, f"run/{run}")["ratings"] for b in fit["bots"]}
        elo = azul("elo", f"{out}/s3l", "-f", "json")
        assert elo.exit_code == 0, elo.output
        for fit in json.loads(elo.output):
            for row in fit["bots"]:
                for key in ("games", "rating", "low", "high"):
                    assert shown[row["bot"]][key] == pytest.approx(row[key], abs=0.1), (row["bot"], key)
        assert len(shown) == 3
        standings = api(base, f"run/{run}")["detail"]["standings"]
        local = json.loads(open_store(f"{out}/s3l").read_text("standings.json"))
        assert [r["bot"] for r in standings] == [r["bot"] for r in (local["standings"] if isinstance(local, dict)
                                                                    else local)]
        pages = [get(base + "/")[1], get(f"{base}/run/{run}")[1]]
        assert "greedy2" in pages[1] and 'id="errors"' not in pages[1]
        game = api(base, f"run/{run}")["games"][0]["game_id"]
        status, replay = get(f"{base}/run/{run}/game/{game}")
        assert status == 200 and game in replay
        pages.append(replay)
        # what is not a run: a 404 (a page, or the API's error field), never a 500
        for path in (f"{label}/runs", f"{label}/nothing", f"{label}/runs/s3l/games", f"{label}/runs/s3l/_commits",
                     f"{label}/runs/../runs/s3l", f"{label}/runs/%2e%2e/runs/s3l", "nolabel/runs/s3l"):
            assert raw_get(base, f"/run/{path}")[0] == 404, path
            status, body = get(f"{base}/api/run/{path}")
            assert status == 404 and json.loads(body)["error"], path
        assert get(f"{base}/run/{run}/game/no-such-game")[0] == 404
    # the command itself, as a person runs it (the AWS environment of the server, typer's s3:/ of the URL)
    proc = subprocess.Popen([sys.executable, "-m", "azul_cli", "serve", prefix, "--port", "0"], cwd=ROOT,
                            env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert f"serving {prefix} on http://127.0.0.1:" in line, line
        base = re.search(r"on (http://[^ ]+)/ ", line).group(1)
        status, body = until(lambda: _answer(base), 30, "the command's server answered")
        assert status == 200 and f"{label}/runs/s3l" in body
        pages.append(body)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    for page in [*pages, err]:
        secret_free(page, s3_env)
    assert not Path("s3:").exists()


def test_a_training_run_on_s3_is_listed_with_its_runs_under_it(prefix, tmp_path, s3_env):  # noqa: F811
    """As tests/test_serve.py's training run in a folder: its generation's self-play and gate (the
    kind's nested_runs of its URL) listed under it, its page the lineage."""
    from kinds import kind_of
    from kinds.train import load_train_config, run_train
    from test_league_support import league
    from tournament.config import parse_config
    from tournament.runner import run_league

    run_league(parse_config(league(tmp_path / "local", ["greedy", "random"], name="lg", deals=2)), progress=False)
    config = tmp_path / "train.yaml"
    config.write_text(f"""
name: tiny
seed: 3
generations: 1
start: {{records: ["{tmp_path / 'local' / 'lg'}"]}}
selfplay: {{deals: 2, iterations: 8}}
train: {{value: mlp, hidden: [8], epochs: 2, batch: 64}}
gate: {{elo0: 0, elo1: 40, max_pairs: 3}}
out: {prefix}/runs
workers: 0
mlflow: false
""", encoding="utf-8")
    run_train(load_train_config(config), log=lambda line: None)
    root, label = open_store(f"{prefix}/runs/tiny"), prefix.rsplit("/", 1)[1]
    inner = [f"{label}/runs/tiny/{rel}" for rel in kind_of(root.view(parts=False)).nested_runs(str(root))]
    assert len(inner) == 2  # generation 1's self-play and gate
    with serving([prefix], tmp_path / "played") as base:
        rows = api(base, "index")["runs"]
        listed = [(r["url"], r["nested"]) for r in rows]
        assert listed == [(f"{label}/runs/tiny", False)] + [(u, True) for u in sorted(inner)]
        assert all(r["kind"] and not r["error"] for r in rows), rows
        data = api(base, f"run/{label}/runs/tiny")
        assert [n["url"] for n in data["nested"]] == sorted(inner) and data["kind"] == "train"
        assert data["detail"]["lineage"] == json.loads(root.read_text("lineage.json"))
        for url in inner:
            assert api(base, f"run/{url}")["recorded"] > 0
        secret_free(get(f"{base}/run/{label}/runs/tiny")[1], s3_env)


def grown(base: str, url: str, before: int) -> int | None:
    """The run's games recorded when it is running with more than ``before``, else None."""
    data = api(base, f"run/{url}")
    return data["recorded"] if data["state"] == "running" and data["recorded"] > before else None


def test_a_run_whose_s3_lock_is_held_shows_running_and_its_count_grows(prefix, tmp_path, s3_env):  # noqa: F811
    """The parts of a league played to s3 committed again, one at a time, into a run whose lock
    this process holds (``store.lock()``, the S3 lock object a driver takes)."""
    played = azul("league", "run", config(tmp_path), "--out", f"{prefix}/done", "--quiet")
    assert played.exit_code == 0, played.output
    done = open_store(f"{prefix}/done/s3l")
    view = done.view()
    live = open_store(f"{prefix}/live/s3l")
    for name in (RUN_FILE, CONFIG_FILE):
        live.write_text(name, done.read_text(name))
    parts = sorted(p.name for p in (view / "games").iterdir())
    label, run = prefix.rsplit("/", 1)[1], "live/s3l"
    with serving([prefix], tmp_path / "played") as base, live.lock():
        url = f"{label}/{run}"
        writer = PartWriter(live)
        counts = []
        for part in parts[:3]:
            writer.write({name: [pq.read_table(view / name / part)] for name in TABLES})
            before = counts[-1] if counts else 0
            counts.append(until(lambda: grown(base, url, before), 30, f"{url} running with more than {before} games"))
        row = {r["url"]: r for r in api(base, "index")["runs"]}[url]
        assert row["state"] == "running" and row["driver"] and row["recorded"] == counts[-1]
        assert counts == sorted(counts) and len(set(counts)) == 3
        page = get(f"{base}/run/{url}")[1]
        assert "state-running" in page
        secret_free(page, s3_env)
    with serving([prefix], tmp_path / "played") as base:  # the lock given back: stopped (6 of 18 games)
        data = api(base, f"run/{label}/{run}")
        assert data["state"] == "stopped" and data["recorded"] == counts[-1] < data["planned"] == 18
        assert f"--out {prefix}/live" in data["finish"]


def test_a_bucket_that_cannot_be_read_is_an_error_line_never_a_500(prefix, tmp_path, s3_env):  # noqa: F811
    nobucket = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/runs"
    with serving([nobucket, tmp_path], tmp_path / "played") as base:
        doc = api(base, "index")
        assert doc["runs"] == [] and "no bucket 'no-such-bucket-" in doc["errors"]["runs"]
        status, page = get(base + "/")
        assert status == 200 and "no bucket" in page and "class='errors'" in page
        status, page = get(f"{base}/run/runs/x")  # not known to be there or not: unavailable, naming it
        assert status == 503 and "no bucket" in page and f"<code id='store'>{nobucket}</code>" in page
        secret_free(page, s3_env)
    # the command: one error line before anything starts
    for url, said in ((nobucket, f"error: {nobucket}: list: no bucket"),
                      (f"{prefix}/nothing", f"error: {prefix}/nothing: nothing there"),
                      ("s3://Bad_Bucket/runs", "error: bad S3 URL s3://Bad_Bucket/runs:")):
        result = runner.invoke(app, ["serve", url, "--port", "0"])
        lines = result.output.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith(said), result.output
        secret_free(result.output, s3_env)
    result = runner.invoke(app, ["serve", str(tmp_path), "--play-out", "s3://Bad_Bucket/p"])
    assert result.exit_code == 1 and result.output.startswith("error: --play-out bad S3 URL"), result.output


def test_a_store_that_is_down_is_a_503_naming_its_url_not_a_404(tmp_path, monkeypatch):
    """No S3 server at the endpoint (a port of 127.0.0.1 nothing listens on): every page of a run
    under the prefix says the store is unavailable, naming the URL as typed, never "no such run"."""
    from s3_server import AWS_VARIABLES

    from azul_cli.serve import free_port

    for name in AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port('127.0.0.1')}", "AWS_ACCESS_KEY_ID": "k",
                        "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("web.runs.WALK_AGE", 60.0)  # one walk (its 5 tries, seconds) for the whole test
    url = "s3://azul-down/team/runs"
    with serving([url], tmp_path / "played") as base:
        for path in ("/run/runs/lg", "/run/runs/lg/game/g1", "/run/runs/lg/game/g1/analyze?step=1"):
            status, page = get(base + path)
            assert status == 503 and "no such run" not in page, (path, status, page)
            assert f"<code id='store'>{url}</code>" in page and "could not reach the S3 endpoint" in page
        status, body = get(base + "/api/run/runs/lg")
        assert status == 503 and json.loads(body)["store"] == url
        assert "could not reach the S3 endpoint" in api(base, "index")["errors"]["runs"]  # the index: a line
        assert get(base + "/run/elsewhere/lg")[0] == 404  # a label that serves nothing is still no run


def test_a_persons_game_goes_into_an_s3_play_out_through_the_store(prefix, tmp_path, s3_env):  # noqa: F811
    play_out = f"{prefix}/played"
    (tmp_path / "runs").mkdir()
    with serving([tmp_path / "runs"], play_out) as base:
        status, page = get(base + "/play/")
        assert status == 200 and play_out in page and 'id="error"' not in page
        page, _ = play_to_the_end(base, bot1="random", seed="3", name="person")
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
