"""``azul report`` and ``build_report``: a self-contained HTML report, elo.csv and summary.md, on a
synthetic league (no move records) and on small real leagues; the league's end writes it and
logs it to MLflow."""
from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest
import yaml
from test_league_support import league
from typer.testing import CliRunner

from analysis import report as report_mod
from analysis.ratings import rate_by_players
from analysis.records import read_records
from analysis.report import build_report
from analysis.synthetic import synthetic_league, write_league
from azul_cli.main import app

runner = CliRunner()
EVIL = "b<script>alert(1)</script>"
STRENGTHS = [("a", 400.0), (EVIL, 0.0), ("c", -100.0)]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    run_dir = write_league(synthetic_league(STRENGTHS, 40, seed=3, run_id="syn"),
                           tmp_path_factory.mktemp("syn") / "syn")
    build_report(run_dir, run_dir, bootstrap=40, seed=1)
    return run_dir


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    """A small real league (serial, MLflow on) run through ``azul league run``."""
    tmp = tmp_path_factory.mktemp("real")
    data = league(tmp / "out", ["random", "greedy", {"name": "x<i>", "type": "random", "seed": 7}],
                  name="real", deals=3, mlflow={"enabled": True})
    config = tmp / "real.yaml"
    config.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    run_dir = tmp / "out" / "real"
    assert f"report: {run_dir / 'report.html'}" in result.output
    return run_dir


def html_ratings(text: str) -> dict[str, tuple[str, str]]:
    """Bot -> (games, rating) as the ratings tables of report.html show them."""
    section = text[text.index("<h2>Ratings</h2>"):text.index("<h2>Standings</h2>")]
    rows = re.findall(r'<tr><td class="num">\d+</td><td class="text">(.*?)</td>'
                      r'<td class="num">([\d,]+)</td><td class="num">(-?\d+)</td>', section)
    return {html.unescape(bot): (games, rating) for bot, games, rating in rows}


def assert_self_contained(text: str) -> None:
    for bad in ("http", 'src="//', "<link", "<script", "@import", "<img"):
        assert bad not in text.lower(), bad


def check_report(run_dir: Path) -> pl.DataFrame:
    """The checks every report passes; returns its elo.csv."""
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    assert_self_contained(text)
    assert text.count("<svg") >= 3  # at least ratings, seats, scores
    elo = pl.read_csv(run_dir / "elo.csv")
    assert elo.columns == ["bot", "num_players", "games", "rating", "low", "high", "score_share"]
    shown = html_ratings(text)
    assert set(shown) == set(elo["bot"])
    for row in elo.iter_rows(named=True):
        assert shown[row["bot"]] == (f"{row['games']:,}", f"{row['rating']:.0f}")
        assert row["low"] <= row["rating"] <= row["high"]
    return elo


def test_synthetic_report_is_self_contained_and_matches_the_fit(synthetic):
    elo = check_report(synthetic)
    records = read_records(synthetic)
    fit = rate_by_players(records["results"], records["games"], bootstrap=40, seed=1)[2].table
    assert elo["bot"].to_list() == fit["bot"].to_list()  # best first
    for col in ("rating", "low", "high", "score_share"):
        assert elo[col].to_list() == pytest.approx(fit[col].to_list(), abs=1e-3)
    assert elo["num_players"].to_list() == [2, 2, 2] and elo["games"].to_list() == [160] * 3
    text = (synthetic / "report.html").read_text(encoding="utf-8")
    assert "runs: syn" in text and "games: 240" in text
    assert text.count("<svg") == 4  # ratings, head to head, seats, scores (no moves: no marker)
    assert "no move records in" in text and "<h2>Openings" not in text


def test_bot_names_are_escaped(synthetic):
    text = (synthetic / "report.html").read_text(encoding="utf-8")
    assert EVIL not in text and html.escape(EVIL) in text
    summary = (synthetic / "summary.md").read_text(encoding="utf-8")
    assert EVIL not in summary and "b&lt;script&gt;" in summary


def test_summary_names_the_leader(synthetic):
    summary = (synthetic / "summary.md").read_text(encoding="utf-8")
    leader = pl.read_csv(synthetic / "elo.csv").row(0, named=True)
    assert leader["bot"] == "a"  # 400 Elo above the rest: the fit must find it
    assert f"**leader: 2 players: a ({leader['rating']:+.0f} Elo" in summary
    assert "240 games (2 players: 240)" in summary and "first mover's edge (2 players)" in summary


def test_the_report_is_deterministic(synthetic, tmp_path):
    paths = build_report(synthetic, tmp_path, bootstrap=40, seed=1)
    for name, path in paths.items():
        assert path.read_bytes() == (synthetic / name).read_bytes(), name


def test_a_failure_leaves_the_old_report(synthetic, tmp_path, monkeypatch):
    build_report(synthetic, tmp_path, bootstrap=10, seed=1)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken(report):
        raise RuntimeError("boom")

    monkeypatch.setattr(report_mod, "render_summary", broken)
    with pytest.raises(RuntimeError):
        build_report(synthetic, tmp_path, bootstrap=10, seed=2)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_cli(synthetic, tmp_path):
    result = runner.invoke(app, ["report", str(synthetic), "--out", str(tmp_path / "o"),
                                 "--bootstrap", "40", "--seed", "4"])
    assert result.exit_code == 0, result.output
    for name in ("report.html", "elo.csv", "summary.md"):
        assert f"wrote {tmp_path / 'o' / name}" in result.output
        assert (tmp_path / "o" / name).exists()
    assert re.search(r"leader: 2 players: a \(\+\d+ Elo", result.output)


def test_cli_errors(tmp_path):
    for args, message in (([str(tmp_path / "missing")], "missing: not a folder"),
                          ([str(tmp_path)], "no game records")):
        result = runner.invoke(app, ["report", *args])
        assert result.exit_code == 1, result.output
        assert f"error: {tmp_path}" in result.output and message in result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "report.html").exists()


def test_league_end_writes_the_report_and_logs_it(real):
    from mlflow.tracking import MlflowClient

    elo = check_report(real)
    assert set(elo["bot"]) == {"random", "greedy", "x<i>"}
    text = (real / "report.html").read_text(encoding="utf-8")
    assert "x&lt;i&gt;" in text and "<h2>Openings" in text and "first-player marker" in text
    client = MlflowClient(tracking_uri=f"sqlite:///{real.parent}/mlflow.db")
    run = client.get_run((real / "mlflow_run.txt").read_text().strip())
    assert {a.path for a in client.list_artifacts(run.info.run_id, "report")} == {
        "report/report.html", "report/elo.csv", "report/summary.md"}
    for row in elo.iter_rows(named=True):
        key = re.sub(r"[^A-Za-z0-9_\-. /]", "_", row["bot"])
        assert run.data.metrics[f"{key}.rating_2p"] == pytest.approx(row["rating"], abs=1e-3)
    assert "first_move_2p" in run.data.metrics


def test_resume_rewrites_the_report_and_no_report_skips_it(real):
    config = real / "config.yaml"
    (real / "report.html").unlink()
    result = runner.invoke(app, ["league", "run", str(config), "--resume", "--quiet",
                                 "--no-report"])
    assert result.exit_code == 0 and not (real / "report.html").exists()
    assert "report:" not in result.output
    result = runner.invoke(app, ["league", "run", str(config), "--resume", "--quiet"])
    assert result.exit_code == 0, result.output
    assert (real / "report.html").exists()


def test_a_report_failure_does_not_fail_the_league(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("no way")

    monkeypatch.setattr(report_mod, "collect", broken)
    data = league(tmp_path, ["random", "greedy"], name="broken", deals=1)
    config = tmp_path / "broken.yaml"
    config.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "warning: no report (ValueError: no way)" in result.output
    assert (tmp_path / "broken" / "standings.csv").exists()
    assert not (tmp_path / "broken" / "report.html").exists()


def test_a_four_player_league_is_rated(tmp_path):
    data = league(tmp_path, ["random", "greedy", "random", "greedy"], name="four", players=4,
                  deals=2)  # the balanced seating's block at 4 players
    data["bots"] = [{"name": f"{t}{i}", "type": t, "seed": i}
                    for i, t in enumerate(("random", "greedy", "random", "greedy"))]
    config = tmp_path / "four.yaml"
    config.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    assert result.exit_code == 0, result.output
    elo = check_report(tmp_path / "four")
    assert set(elo["num_players"]) == {4}
    summary = (tmp_path / "four" / "summary.md").read_text(encoding="utf-8")
    assert "leader: 4 players:" in summary and "seat 0 (4 players) wins" in summary
    assert "## Neighbours (3 and 4 players)" in summary and "greedy1 (4 players) wins" in summary
    assert "<h3>4-player games</h3>" in (tmp_path / "four" / "report.html").read_text()


def test_a_league_of_forfeits_shows_its_faults_and_withholds_what_they_decide(tmp_path):
    from test_league_support import bot

    data = league(tmp_path / "out", [bot("bad", "RaisingBot", after=1), "random"], name="faulty", deals=3)
    config = tmp_path / "faulty.yaml"
    config.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet", "--no-report"])
    assert result.exit_code == 1 and "a bot forfeited every game: bad (6 of 6)" in result.output  # records complete
    run_dir = tmp_path / "out" / "faulty"
    build_report(run_dir, tmp_path, bootstrap=0)
    text = (tmp_path / "report.html").read_text()
    faults = text[text.index("<h2>Faults</h2>"):]
    assert "<td>" not in faults and '<td class="text">bad</td><td class="num">6</td><td class="num">6</td>' \
        '<td class="num">6</td><td class="num">0</td><td class="num">0</td><td class="num">1.000</td>' \
        '<td class="text">yes</td><td class="text">seat ' in faults
    assert "RuntimeError: boom" in faults
    assert html_ratings(text)["random"][1] and "bad" not in html_ratings(text)  # bad's rating: "-"
    assert "ratings withheld (more than half their games forfeited, see Faults): bad" in text
    assert "first mover&#x27;s edge (2 players): withheld, 100% of the games ended by a forfeit" in text
    assert "first mover&#x27;s edge: " not in text  # no Elo figure for it
    summary = (tmp_path / "summary.md").read_text()
    assert "| bad | withheld | - | 6 |" in summary and "2 players: random (" in summary
    assert "- bad: forfeited 6 of 6 games (6 error) (rating withheld); first: seat " in summary


def test_marker_and_openings_tables_read_like_the_others(real):
    text = (real / "report.html").read_text()
    marker = text[text.index("<h2>The first-player marker</h2>"):text.index("<h2>Score distributions")]
    headers = re.findall(r"<th[^>]*>(.*?)</th>", marker)
    assert "take rate" in headers and "win prob. 95%" in headers
    assert not [h for h in headers if "_" in h], headers  # no snake_case column names
    openings = text[text.index("<h2>Openings</h2>"):text.index("<h2>The first-player marker")]
    assert ">True<" not in openings and ">False<" not in openings and ">yes<" in openings


class GamesPerBot:
    """A report section as docs/analysis.md's recipe writes one: games per bot, in both files."""
    title = "Games per bot"

    def compute(self, ctx):
        return ctx.results.group_by("bot").len().sort("bot")

    def figures(self, data):
        return {}

    def html(self, data, figures):
        from analysis.sections.format import esc

        rows = "".join(f"<li>{esc(r['bot'])}: {r['len']}</li>" for r in data.iter_rows(named=True))
        return ["<h2>Games per bot</h2>", f"<ul>{rows}</ul>"]

    def markdown(self, data):
        from analysis.sections.format import md_cell

        return ["## Games per bot", "", *(f"- {md_cell(r['bot'])}: {r['len']}" for r in data.iter_rows(named=True)),
                ""]


def test_a_new_section_is_one_object_in_the_list(synthetic, tmp_path, monkeypatch):
    """The recipe of docs/analysis.md: a section appended to the list shows in report.html (after
    the others, its bot names escaped) and in summary.md, and changes nothing else."""
    from analysis import sections

    before = build_report(synthetic, tmp_path / "before", bootstrap=0)
    monkeypatch.setattr(report_mod, "SECTIONS", [*sections.SECTIONS, GamesPerBot()])
    after = build_report(synthetic, tmp_path / "after", bootstrap=0)
    text, summary = (after[name].read_text(encoding="utf-8") for name in ("report.html", "summary.md"))
    shown = f"<h2>Games per bot</h2>\n<ul><li>a: 160</li><li>{html.escape(EVIL)}: 160</li><li>c: 160</li></ul>"
    assert text == before["report.html"].read_text(encoding="utf-8").replace(
        "\n</body>", f"\n{shown}\n</body>")
    assert summary.startswith(before["summary.md"].read_text(encoding="utf-8").split("- note:")[0])
    assert "\n## Games per bot\n\n- a: 160\n- b&lt;script&gt;alert(1)&lt;/script&gt;: 160\n- c: 160\n" in summary
    assert after["elo.csv"].read_bytes() == before["elo.csv"].read_bytes()


def test_each_command_checks_its_folders_once(synthetic, monkeypatch):
    """azul elo, standings, openings and report check each folder once (analysis.records.Runs)."""
    import analysis.records

    checked = []
    real = analysis.records.check_run_dir
    monkeypatch.setattr(analysis.records, "check_run_dir", lambda d: checked.append(d) or real(d))
    for args in (["elo", "-b", "0"], ["standings"], ["report", "--bootstrap", "0", "--out", str(synthetic / "o")]):
        checked.clear()
        result = runner.invoke(app, [*args, str(synthetic)])
        assert result.exit_code == 0, result.output
        assert checked == [synthetic], args
    checked.clear()
    result = runner.invoke(app, ["openings", str(synthetic)])
    assert checked == [synthetic] and "no moves records" in result.output


def test_mlflow_withholds_what_the_report_withholds(tmp_path):
    from mlflow.tracking import MlflowClient
    from test_league_support import bot

    data = league(tmp_path / "out", [bot("bad", "RaisingBot", after=1), "random"], name="faulty",
                  deals=3, mlflow={"enabled": True})
    config = tmp_path / "faulty.yaml"
    config.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet"])
    assert result.exit_code == 1 and "report:" in result.output, result.output
    run_dir = tmp_path / "out" / "faulty"
    elo = pl.read_csv(run_dir / "elo.csv")
    assert elo.filter(pl.col("bot") == "bad")["rating"].is_null().all()
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'out'}/mlflow.db")
    metrics = client.get_run((run_dir / "mlflow_run.txt").read_text().strip()).data.metrics
    assert metrics["random.rating_2p"] == pytest.approx(
        elo.filter(pl.col("bot") == "random")["rating"][0], abs=1e-3)
    assert not [k for k in metrics if k.startswith("bad.rating_")], metrics
    assert "first_move_2p" not in metrics  # every game ended by a forfeit: the edge is withheld
