"""``azul atlas``: a small atlas of claims tested by a study and by a statistic (greedy bots, a few
dozen deals), its JSON and page, its status, kill and resume, its refusals, --compare-with."""
from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from kinds import kind_of
from kinds.atlas import run_atlas
from kinds.atlas_config import load_atlas
from tournament.errors import LeagueError

HOSTILE = "the second mover wins 69% <script>alert(1)</script>"
CLAIMS = {
    "name": "tiny",
    "claims": [
        {"id": "marker-avoid", "claim": "Never take the starting marker", "source": "a forum thread",
         "players": [2, 3], "metric": "points", "expect": "> 0", "compare": [2, 3],
         "study": {"bot": "greedy", "intervention": "marker=avoid", "max_deals": 40, "stages": 2}},
        {"id": "first-mover", "claim": HOSTILE, "test": "the first mover's win rate less 1/2 between greedy copies",
         "source": "Trace Studio", "players": [2], "metric": "win", "expect": "< -0.19",
         "statistic": {"name": "first-mover", "bot": "greedy", "deals": 40}},
    ],
}
SPEC11 = {"id", "players", "verdict", "effect", "low", "high", "metric", "games"}


def claims_file(folder, data=CLAIMS, name="claims.yaml"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The atlas played through the command with its defaults (and --format json)."""
    tmp = tmp_path_factory.mktemp("atlas")
    result = CliRunner().invoke(app, ["atlas", str(claims_file(tmp)), "--out", str(tmp / "runs"),
                                      "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    return tmp, json.loads(result.stdout)


def test_the_atlas_prints_spec11_rows_and_writes_its_json_and_page(whole):
    tmp, rows = whole
    assert [(r["id"], r["players"]) for r in rows] == [("marker-avoid", "2"), ("marker-avoid", "3"),
                                                       ("marker-avoid", "2-3"), ("first-mover", "2")]
    assert all(SPEC11 <= set(r) for r in rows) and {r["verdict"] for r in rows} <= {"supported", "refuted",
                                                                                      "undecided"}
    assert all(r["low"] <= r["effect"] <= r["high"] and r["games"] > 0 for r in rows)
    run = tmp / "runs" / "tiny"
    atlas = json.loads((run / "atlas.json").read_text())
    assert atlas["complete"] and atlas["rows"] == rows and atlas["format"] == "azul-atlas/1"
    assert atlas["command"] == f"azul atlas {run / 'atlas.yaml'} --out {tmp / 'runs'} --name tiny --fresh"
    assert sorted(p.name for p in (run / "claim-runs").iterdir()) == ["first-mover-2p", "marker-avoid-2p",
                                                                  "marker-avoid-3p"]
    page = (run / "atlas.html").read_text()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert all(r["verdict"] in page for r in rows)
    compared = rows[2]
    assert compared["effect"] == pytest.approx(rows[0]["effect"] - rows[1]["effect"])


def test_an_atlas_describes_itself_to_status_and_its_claims_runs_name_it(whole):
    tmp, rows = whole
    run = tmp / "runs" / "tiny"
    st = kind_of(run).status(run)
    assert st.kind == "atlas" and st.state == "finished" and st.finish is None
    assert [line.split(":")[0] for line in st.lines()] == [f"{r['id']} at {r['players']} players" for r in rows]
    inner = run / "claim-runs" / "marker-avoid-2p"
    assert kind_of(inner).status(inner).finish is None  # finished; a stopped one names the atlas's command
    shown = CliRunner().invoke(app, ["league", "status", str(run)])
    assert shown.exit_code == 0 and "complete (4 verdicts)" in shown.output


def test_an_atlas_killed_and_resumed_equals_an_unbroken_one(whole, tmp_path):
    _, rows = whole
    config = load_atlas(claims_file(tmp_path), out=str(tmp_path / "runs"))

    def stop(run, progress):  # in the second claim's run (after the first claim's two)
        if run == "marker-avoid-3p" and progress.recorded >= 10:
            raise KeyboardInterrupt

    first = run_atlas(config, progress=stop)
    assert first.interrupted and not first.atlas["complete"] and first.atlas["rows"] == []
    assert kind_of(tmp_path / "runs" / "tiny").status(tmp_path / "runs" / "tiny").state == "stopped"
    with pytest.raises(LeagueError, match="already holds an atlas: add --resume"):
        run_atlas(config)
    rest = run_atlas(config, resume=True)
    assert rest.atlas["complete"] and rest.atlas["rows"] == rows


def test_a_bad_claims_file_is_one_line_and_nothing_is_written(tmp_path):
    bad = {**CLAIMS, "claims": [CLAIMS["claims"][0], {**CLAIMS["claims"][1], "expect": "about 0"}]}
    result = CliRunner().invoke(app, ["atlas", str(claims_file(tmp_path, bad)), "--out", str(tmp_path / "runs")])
    assert result.exit_code != 0 and not (tmp_path / "runs").exists()
    line = result.output.strip()
    assert line.startswith("error: ") and "\n" not in line and "claims[1] (first-mover): expect: must be" in line


def test_a_resume_with_other_claims_is_refused_and_compare_with_names_what_changed(whole, tmp_path):
    tmp, rows = whole
    changed = {**CLAIMS, "claims": [CLAIMS["claims"][0], {**CLAIMS["claims"][1], "expect": "< 0"}]}
    result = CliRunner().invoke(app, ["atlas", str(claims_file(tmp_path, changed)), "--out", str(tmp / "runs"),
                                      "--resume"])
    assert result.exit_code != 0 and "claim first-mover differs since it started" in result.output
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    other = "undecided" if rows[1]["verdict"] != "undecided" else "supported"
    (earlier / "atlas.json").write_text(json.dumps({"rows": [{**r, "verdict": other} if r["players"] == "3"
                                                             else r for r in rows]}))
    result = CliRunner().invoke(app, ["atlas", str(claims_file(tmp_path, CLAIMS, "again.yaml")), "--out",
                                      str(tmp / "runs"), "--name", "tiny", "--resume", "--compare-with",
                                      str(earlier)])
    assert result.exit_code == 0, result.output
    atlas = json.loads((tmp / "runs" / "tiny" / "atlas.json").read_text())
    assert atlas["changed"] == [{"id": "marker-avoid", "players": "3", "before": other, "now": rows[1]["verdict"],
                                 "effect_before": rows[1]["effect"], "effect_now": rows[1]["effect"]}]
    assert f"changed since {earlier}: marker-avoid at 3 players: {other} -> {rows[1]['verdict']}" in " ".join(
        result.output.split())
    missing = CliRunner().invoke(app, ["atlas", str(claims_file(tmp_path)), "--out", str(tmp_path / "other"),
                                       "--compare-with", str(tmp_path / "nowhere")])
    assert missing.exit_code != 0 and "no atlas.json there" in missing.output and not (tmp_path / "other").exists()
