"""``azul serve`` over real HTTP (uvicorn on a free port, tests/serve_support.py): the index and the
run pages say what the kinds' status and the analysis functions say, names from records are
escaped, no URL reaches outside the served folder, nothing but GET is answered, a damaged part is
an error field (never a 500), and the command's own checks and lines (s3:// RUNS: tests/test_serve_s3.py)."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from serve_support import get, raw_get, serving, until
from test_league_support import ROOT, league, subprocess_env
from typer.testing import CliRunner

from azul_cli.main import app
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

runner = CliRunner()
HOSTILE = "<img src=x onerror=alert(1)>&\"x'"  # a bot's name is any text without '/'
SECRET = "SECRET-OUTSIDE"  # a bot name only the run outside the served folder holds


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """runs/: a finished league with a hostile bot name, an SPRT in tests/sprt, a rating list of the
    league, and ``link``: a symlink to a run outside runs/."""
    tmp = tmp_path_factory.mktemp("serve")
    runs = tmp / "runs"
    run_league(parse_config(league(runs, [{"name": HOSTILE, "type": "random"}, "random", "greedy"], name="lg", deals=2,
                                   batch_games=2, flush_seconds=0)), progress=False)
    run_league(parse_config(league(tmp / "outside", [{"name": SECRET, "type": "random"}, "greedy"], name="secret",
                                   deals=1)), progress=False)
    (runs / "link").symlink_to(tmp / "outside" / "secret")
    copies = runs / "mlartifacts" / "0123" / "artifacts"  # MLflow's copy of a run's small files: no run
    copies.mkdir(parents=True)
    for name in ("config.yaml", "standings.csv", "standings.json"):
        (copies / name).write_bytes((runs / "lg" / name).read_bytes())
    invoke("sprt", "--bot", "greedy", "--bot", "random", "--workers", "0", "--no-mlflow", "--elo1", "20",
           "--max-pairs", "6", "--seed", "4", "--out", runs / "tests")
    invoke("ratings", "add", runs / "list", runs / "lg")
    tune = tmp / "tune.yaml"
    tune.write_text(f"name: tn\nbot: heuristic\nparams: {{line: {{}}, marker: {{c_end: 0.5}}}}\nplayers: 2\n"
                    f"pairs: 16\nbatch: 4\nseed: 0\nout: {runs}\n", encoding="utf-8")
    invoke("tune", tune, "--workers", "0", "--no-mlflow")
    with serving([runs], tmp / "played") as base:
        yield tmp, base


def api(base: str, path: str) -> dict:
    status, body = get(f"{base}/api/{path}")
    assert status == 200, body
    return json.loads(body)


def test_the_index_lists_each_run_with_its_kinds_status(tree):
    tmp, base = tree
    from kinds import kind_of

    rows = {r["url"]: r for r in api(base, "index")["runs"]}
    # the link leads out, MLflow's copies are no run: neither listed
    assert set(rows) == {"runs/lg", "runs/tests/sprt", "runs/list", "runs/tn"}
    for url in ("runs/lg", "runs/tests/sprt", "runs/tn"):
        st = kind_of(tmp / url).status(tmp / url)
        assert (rows[url]["kind"], rows[url]["state"], rows[url]["recorded"], rows[url]["planned"]) == \
               (st.kind, st.state, st.recorded, st.planned)
    assert rows["runs/lg"]["ahead"].startswith("greedy ")
    assert rows["runs/tests/sprt"]["ahead"].startswith("LLR ")
    assert rows["runs/list"]["kind"] == "rating list"
    final = json.loads((tmp / "runs" / "tn" / "tune.json").read_text())["params"]
    assert rows["runs/tn"]["ahead"] == "final " + ", ".join(f"{k}={v:.4g}" for k, v in final.items())
    status, page = get(base + "/")
    assert status == 200
    for url in rows:  # each name a link to its run page
        assert f"<a href='/run/{url}'>{url}</a>" in page


def test_names_from_records_are_escaped(tree):
    _, base = tree
    status, page = get(f"{base}/run/runs/lg")
    assert status == 200
    assert HOSTILE not in page and "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;x&#x27;" in page
    standings = api(base, "run/runs/lg")["detail"]["standings"]
    assert HOSTILE in [s["bot"] for s in standings]  # the data keeps the name as it is


def test_the_ratings_are_azul_elos(tree):
    tmp, base = tree
    shown = {b["bot"]: b for fit in api(base, "run/runs/lg")["ratings"] for b in fit["bots"]}
    elo = json.loads(invoke("elo", tmp / "runs" / "lg", "-f", "json").stdout)
    for fit in elo:
        for row in fit["bots"]:
            for key in ("games", "rating", "low", "high"):
                assert shown[row["bot"]][key] == pytest.approx(row[key], abs=0.1), (row["bot"], key)
    assert len(shown) == 3 and any(b["high"] > b["low"] for b in shown.values())


def test_the_sprt_path_ends_at_its_decision(tree):
    tmp, base = tree
    from analysis.sprt_run import sprt_result

    data = api(base, "run/runs/tests/sprt")
    result = sprt_result(tmp / "runs" / "tests" / "sprt")
    path = data["sprt_path"]
    assert len(path["points"]) == result.decision.pairs == path["pairs"]
    assert path["points"][-1][1] == pytest.approx(result.decision.llr, abs=1e-3)
    assert (path["lower"], path["upper"]) == pytest.approx((result.lower, result.upper))
    status, page = get(f"{base}/run/runs/tests/sprt")
    assert f'id="llr" class="chart" data-points="{result.decision.pairs}"' in page


def test_the_tune_page_draws_each_parameters_path(tree):
    tmp, base = tree
    from analysis.records import connect
    from analysis.tune import side_names, tune_steps

    run = tmp / "runs" / "tn"
    with connect(run) as con:
        steps = tune_steps(con, side_names(run))
    data = api(base, "run/runs/tn")["tune"]
    assert data["steps"] == len(steps) > 1
    assert data["path"][0] == {"pairs": 0, "theta": steps[0]["theta"]}
    assert [p["theta"] for p in data["path"]] == [s["theta"] for s in steps]
    assert data["final"] == json.loads((run / "tune.json").read_text())["params"]
    status, page = get(f"{base}/run/runs/tn")
    for i, name in enumerate(steps[0]["theta"]):
        assert f'id="tune-{i}" class="chart" data-points="{len(steps)}"' in page and f"<title>{name}</title>" in page


def test_the_rating_list_page_is_azul_ratings_show(tree):
    tmp, base = tree
    shown = json.loads(invoke("ratings", "show", tmp / "runs" / "list", "-f", "json").stdout)
    data = api(base, "run/runs/list")["rating_list"]
    assert data["version"] == shown["version"]
    assert [[b["bot"] for b in g["bots"]] for g in data["players"]] == \
           [[b["bot"] for b in g["bots"]] for g in shown["players"]]


def test_replay_and_analysis_of_a_recorded_game(tree):
    tmp, base = tree
    from present.analyze import run_analysis
    from present.replay_page import page
    from engine import GameState
    from tournament.replay import replay_steps

    run = tmp / "runs" / "lg"
    gid = api(base, "run/runs/lg")["games"][-1]["game_id"]
    status, body = get(f"{base}/run/runs/lg/game/{gid}")
    game = replay_steps(run, gid)
    assert (status, body) == (200, page(game.to_dict()))
    status, body = get(f"{base}/run/runs/lg/game/{gid}/analyze?step=4&iterations=300")
    assert status == 200
    rows = run_analysis(GameState.from_json(game.steps[3].position), "mcts", 300, 1)[:10]
    shown = re.findall(r"<tr><td class='num'>\d+</td><td class=''>([^<]+)</td><td class='num'>([\d,]+)</td>", body)
    assert shown == [(r["move"], f"{r['visits']:,}") for r in rows]
    assert f"<code id='played'>{game.steps[4].move}</code>" in body
    assert get(f"{base}/run/runs/lg/game/no-such-game")[0] == 404
    assert get(f"{base}/run/runs/lg/game/{gid}/analyze?iterations=999999")[0] == 400


def test_the_analysis_share_is_of_all_the_roots_visits(tree):
    tmp, base = tree
    from present.analyze import run_analysis
    from engine import GameState
    from tournament.replay import replay_steps

    gid = api(base, "run/runs/lg")["games"][-1]["game_id"]
    game = replay_steps(tmp / "runs" / "lg", gid)
    status, body = get(f"{base}/run/runs/lg/game/{gid}/analyze?step=4&iterations=300")
    assert status == 200
    rows = run_analysis(GameState.from_json(game.steps[3].position), "mcts", 300, 1)
    total = sum(r["visits"] for r in rows)  # azul analyze's denominator: every move's visits
    assert len(rows) > 10 and sum(r["visits"] for r in rows[:10]) < total  # the ten shown are not all
    shown = re.findall(r"<td class='num'>([\d,]+)</td><td class='num'>([\d.]+%)</td>", body)
    assert shown == [(f"{r['visits']:,}", f"{100 * r['visits'] / total:.1f}%") for r in rows[:10]]
    assert f"<span id='root-visits'>{total:,}</span> visits at the root" in body


@pytest.mark.parametrize("path", [
    "/run/runs/..", "/run/runs/../outside/secret", "/run/runs/%2e%2e/outside/secret", "/run/runs/%2E%2E%2Foutside%2Fsecret",
    "/api/run/runs/..%2f..%2foutside%2fsecret", "/run/runs/lg/..%2F..%2Foutside/secret", "/run//etc/passwd",
    "/run/%2Fetc%2Fpasswd", "/run/runs/link", "/api/run/runs/link", "/run/runs/lg/%2e%2e/..%2f..%2foutside/secret",
    "/run/runs/link/game/t000-d00000-a00", "/run/runs/lg/game/..%2f..%2f..%2foutside", "/run/outside/secret",
    "/run/runs/./lg", "/run/runs/lg%5c..%5c..%5coutside",
])
def test_no_url_reads_outside_the_served_folder(tree, path):
    _, base = tree
    status, body = raw_get(base, path)
    assert status in (403, 404)
    assert SECRET not in body


def test_only_get_is_answered(tree):
    _, base = tree
    for path in ("/", "/api/index", "/run/runs/lg", "/api/run/runs/lg"):
        for method in ("POST", "PUT", "DELETE"):
            assert get(base + path, method)[0] == 405, (method, path)


def test_a_damaged_part_is_an_error_field_not_a_500(tree, tmp_path):
    tmp, _ = tree
    runs = tmp_path / "runs"
    shutil.copytree(tmp / "runs" / "lg", runs / "lg")
    part = sorted((runs / "lg" / "results").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    with serving([runs], tmp_path / "played") as base:
        status, body = get(f"{base}/api/run/runs/lg")
        assert status == 200
        data = json.loads(body)
        assert "results" in (data.get("error") or "") or any("results" in e for e in data["errors"].values())
        status, page = get(f"{base}/run/runs/lg")
        assert status == 200 and "cannot be read now" in page
        status, index = get(f"{base}/api/index")
        assert status == 200 and json.loads(index)["runs"][0]["url"] == "runs/lg"


def test_a_missing_runs_folder_is_one_line(tmp_path):
    result = runner.invoke(app, ["serve", str(tmp_path / "nowhere")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [f"error: {tmp_path / 'nowhere'}: no such folder (RUNS are folders "
                                                  "of runs, or run folders)"]


def test_a_port_in_use_is_one_line(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", str(tmp_path), "--port", str(port)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [f"error: --host 127.0.0.1 --port {port}: cannot listen there "
                                                  "(Address already in use)"]


@pytest.mark.parametrize("host,warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_the_command_serves_on_the_url_it_prints(tree, host, warned):
    tmp, _ = tree
    proc = subprocess.Popen([sys.executable, "-m", "azul_cli", "serve", str(tmp / "runs"), "--port", "0", "--host", host],
                            cwd=ROOT, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"on (http://[^ ]+/) ", line).group(1)
        assert url.startswith("http://127.0.0.1:" if host == "127.0.0.1" else "http://0.0.0.0:")
        base = url.replace("0.0.0.0", "127.0.0.1").rstrip("/")
        status, body = until(lambda: _answer(base), 30, "the command's server answered")
        assert status == 200 and "runs/lg" in body
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert ("warning: --host 0.0.0.0: the view is reachable from the network" in err) == warned


def _answer(base: str):
    try:
        return get(base + "/")
    except OSError:
        return None


def _tiny_training_run(records: Path, tmp_path: Path) -> Path:
    """A finished one-generation training run ``tiny`` in ``tmp_path/runs``, started from ``records``."""
    from kinds.train import load_train_config, run_train

    config = tmp_path / "train.yaml"
    config.write_text(f"""
name: tiny
seed: 3
generations: 1
start: {{records: ["{records}"]}}
selfplay: {{deals: 2, iterations: 8}}
train: {{value: mlp, hidden: [8], epochs: 2, batch: 64}}
gate: {{elo0: 0, elo1: 40, max_pairs: 3}}
out: {tmp_path / 'runs'}
workers: 0
mlflow: false
""", encoding="utf-8")
    run_train(load_train_config(config), log=lambda line: None)
    return tmp_path / "runs" / "tiny"


def test_a_training_runs_runs_are_listed_under_it(tree, tmp_path):
    tmp, _ = tree
    from kinds import kind_of

    root = _tiny_training_run(tmp / "runs" / "lg", tmp_path)
    inner = [f"runs/tiny/{rel}" for rel in kind_of(root).nested_runs(root)]
    assert len(inner) == 2  # generation 1's self-play and gate
    with serving([tmp_path / "runs"], tmp_path / "played") as base:
        rows = api(base, "index")["runs"]
        assert [(r["url"], r["nested"]) for r in rows] == [("runs/tiny", False)] + [(u, True) for u in sorted(inner)]
        assert {r["url"]: r["kind"] for r in rows[1:]} == {u: kind_of(tmp_path / u).name for u in inner}
        data = api(base, "run/runs/tiny")
        assert [n["url"] for n in data["nested"]] == sorted(inner)
        assert data["detail"]["lineage"] == json.loads((root / "lineage.json").read_text())
        status, page = get(f"{base}/run/runs/tiny")
        lineage = re.search(r"<table id='lineage'>.*?<tbody>(.*?)</tbody>", page).group(1)
        assert lineage.count("<tr>") == len(data["detail"]["lineage"]) == 2
        for url in inner:
            assert f"<a href='/run/{url}'>" in page


def test_a_self_play_leagues_bot_shows_its_self_play_games(tree, tmp_path):
    """A training run's self-play is a league of one bot against copies of itself, whose games the
    standings and ratings leave out: its page counts them as the bot's self-play games, shows no
    win rate, score or Elo made of none, and its index row names no bot as ahead at 0.0%."""
    tmp, _ = tree
    root = _tiny_training_run(tmp / "runs" / "lg", tmp_path)
    played = len(read_table(root / "gen-001" / "selfplay", "games", ["game_id"]))
    assert played == 2
    with serving([tmp_path / "runs"], tmp_path / "played") as base:
        row = {r["url"]: r for r in api(base, "index")["runs"]}["runs/tiny/gen-001/selfplay"]
        assert row["recorded"] == played and row["ahead"] is None
        data = api(base, "run/runs/tiny/gen-001/selfplay")
        assert [(s["bot"], s["games"]) for s in data["detail"]["standings"]] == [("gen1", 0)]
        assert data["self_play"] == {"gen1": played} and data["errors"] == {}
        status, page = get(f"{base}/run/runs/tiny/gen-001/selfplay")
        assert status == 200 and "self-play-note" in page
        head, body = re.search(r"<table id='standings'><thead>(.*?)</thead><tbody>(.*?)</tbody>", page).groups()
        cells = dict(zip(re.findall(r"<th[^>]*>(.*?)</th>", head), re.findall(r"<td[^>]*>(.*?)</td>", body)))
        assert cells == {"#": "1", "bot": "gen1", "games": "0", "win rate": "-", "score": "-", "score share": "-",
                         "faults": "0", "elo": "-", "self-play games": str(played)}
        assert data["ratings"] == [] and "<table id='ratings-2'>" not in page  # nothing to rate
        gate = api(base, "run/runs/tiny/gen-001/gate")  # bots against each other: no self-play column
        assert gate["self_play"] == {} and "self-play-note" not in get(f"{base}/run/runs/tiny/gen-001/gate")[1]


def test_an_atlas_is_listed_with_its_verdicts_and_its_own_page(tmp_path):
    """An atlas run beside the others: its claims' runs under it, its verdicts on its page, a link
    to its atlas.html, which /atlas/<path> serves; a run with no atlas page there is a 404."""
    claims = tmp_path / "claims.yaml"
    claims.write_text("name: at\nclaims:\n  - {id: first-mover, claim: 'Going first <b>wins</b>', source: a forum, "
                      "players: [2], metric: win, expect: '> 0', statistic: {name: first-mover, bot: greedy, "
                      "deals: 10}}\n", encoding="utf-8")
    invoke("atlas", claims, "--out", tmp_path / "runs", "--quiet")
    run_league(parse_config(league(tmp_path / "runs", ["random", "greedy"], name="lg", deals=1)), progress=False)
    written = (tmp_path / "runs" / "at" / "atlas.html").read_text()
    with serving([tmp_path / "runs"], tmp_path / "played") as base:
        rows = {r["url"]: r for r in api(base, "index")["runs"]}
        assert rows["runs/at"]["kind"] == "atlas" and rows["runs/at/claim-runs/first-mover-2p"]["nested"]
        data = api(base, "run/runs/at")
        (verdict,) = data["detail"]["verdicts"]
        assert verdict["id"] == "first-mover" and verdict["verdict"] in ("supported", "refuted", "undecided")
        status, page = get(f"{base}/run/runs/at")
        table = re.search(r"<table id='verdicts'>.*?<tbody>(.*?)</tbody>", page).group(1)
        assert "first-mover" in table and f"verdict-{verdict['verdict']}" in table
        assert "<a id='atlas-page' href='/atlas/runs/at'>" in page
        status, served = get(f"{base}/atlas/runs/at")
        assert status == 200 and served == written and "Going first &lt;b&gt;wins&lt;/b&gt;" in served
        assert get(f"{base}/atlas/runs/lg")[0] == 404 and get(f"{base}/atlas/runs/nothing")[0] == 404
