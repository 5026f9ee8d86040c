"""The report's game review section (analysis/sections/review.py): per bot the numbers of
``azul review show``, where each bot loses most, in report.html and summary.md; left out without
reviews; the analyser with the most reviewed moves when a run holds several."""
from __future__ import annotations

import shutil
from types import SimpleNamespace

import polars as pl
import pytest
from test_league_support import league

from analysis.report import build_report
from analysis.review_read import by_analyser, read_reviews
from analysis.review_show import per_bot, reviews_of, where_lost
from analysis.sections import SECTIONS
from analysis.sections import review as section
from analysis.sections.format import esc, md_cell
from kinds.review import review_run
from records.folder import save_run_id
from records.store import RunStore
from tournament.config import parse_config
from tournament.runner import run_league

ODD = "<b>&\"x'"  # a bot name that HTML must escape


def small_run(tmp, name: str, deals: int = 1):
    """A 2-player league, random (named ODD) against greedy, with a pinned run id (so its review,
    seeded from the run, is the same every time)."""
    (tmp / name).mkdir()
    save_run_id(tmp / name, f"{name}-pinned")
    data = league(tmp, [{"name": ODD, "type": "random"}, "greedy"], name=name, deals=deals, flush_seconds=0)
    return run_league(parse_config(data), progress=False).run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A reviewed run and its report; an unreviewed run and its report."""
    tmp = tmp_path_factory.mktemp("review-report")
    reviewed = small_run(tmp, "rev")
    review_run(str(reviewed), None, workers=0)
    plain = small_run(tmp, "plain")
    return {"reviewed": reviewed, "plain": plain,
            "reviewed_report": build_report(reviewed, tmp / "rev-report", bootstrap=0),
            "plain_report": build_report(plain, tmp / "plain-report", bootstrap=0)}


def html_cell(text: str, num: bool = True) -> str:
    return f'<td class="{"num" if num else "text"}">{esc(text)}</td>'


def test_the_section_shows_each_bots_numbers(runs):
    assert section.SECTION in SECTIONS
    rows = reviews_of(runs["reviewed"])
    bots = per_bot(rows)
    assert sorted(bots["bot"].to_list()) == sorted([ODD, "greedy"])
    html = runs["reviewed_report"]["report.html"].read_text(encoding="utf-8")
    md = runs["reviewed_report"]["summary.md"].read_text(encoding="utf-8")
    assert html.count("<h2>Game review</h2>") == 1 and "\n## Game review\n" in md
    label = rows["analyser"][0]
    assert label.startswith("mcts-2p:iterations=") and esc(label) in html and md_cell(label) in md
    kind, rnd = where_lost(rows, "kind"), where_lost(rows, "round")
    for b in bots.iter_rows(named=True):
        row = "<tr>" + "".join([html_cell(b["bot"], num=False), html_cell(f"{b['moves']:,}"),
                                html_cell(f"{b['games']:,}"), html_cell(f"{b['accuracy']:.1f}"),
                                html_cell(f"{b['mean_win_loss']:.4f}"), html_cell(f"{b['mean_points_loss']:.2f}"),
                                html_cell(f"{b['blunders_per_game']:.2f}")]) + "</tr>"
        assert row in html, row
        top_kind = kind.filter(pl.col("bot") == b["bot"]).sort("share", descending=True).row(0, named=True)
        top_round = rnd.filter(pl.col("bot") == b["bot"]).sort("share", descending=True).row(0, named=True)
        line = (f"  - {md_cell(b['bot'])}: accuracy {b['accuracy']:.1f}, mean win lost {b['mean_win_loss']:.4f}, "
                f"mean points lost {b['mean_points_loss']:.2f}, blunders per game {b['blunders_per_game']:.2f} "
                f"({b['moves']:,} moves, {b['games']:,} games); loses most: {top_kind['kind']} "
                f"({top_kind['share']:.0%}), round {top_round['round']} ({top_round['share']:.0%})")
        assert line + "\n" in md, (line, md)
    # the per-bot table in the order of azul review show: the best accuracy first
    assert html.index(html_cell(bots["bot"][0], num=False)) < html.index(html_cell(bots["bot"][1], num=False))


def test_a_hostile_bot_name_is_escaped(runs):
    html = runs["reviewed_report"]["report.html"].read_text(encoding="utf-8")
    section_html = html[html.index("<h2>Game review</h2>"):]
    section_html = section_html[:section_html.index("</ul>")]
    assert ODD not in section_html and esc(ODD) in section_html
    assert "&lt;b&gt;&amp;&quot;x&#x27;" in section_html


def test_left_out_without_reviews(runs):
    html = runs["plain_report"]["report.html"].read_text(encoding="utf-8")
    md = runs["plain_report"]["summary.md"].read_text(encoding="utf-8")
    assert "Game review" not in html and "Game review" not in md
    assert read_reviews([runs["plain"]]) is None


def test_several_analysers_show_the_one_with_most_moves(runs, tmp_path):
    run = tmp_path / "two"
    shutil.copytree(runs["reviewed"], run)
    game = reviews_of(run)["game_id"][0]
    review_run(str(run), [game], "mcts-2p:iterations=40", workers=0)  # one game: fewer moves
    rows = read_reviews([run])
    (spec, most), (other, fewer) = by_analyser(rows)
    assert most.height > fewer.height and other == "mcts-2p:iterations=40" and spec != other
    data = section.reviewed(rows)
    assert len(data) == 1 and data[0].analyser == most["analyser"][0]
    assert data[0].others == [f"mcts-2p:iterations=40 ({fewer.height:,} moves)"]
    assert per_bot(most).equals(data[0].bots)
    paths = build_report(run, tmp_path / "report", bootstrap=0)
    for name in ("report.html", "summary.md"):
        text = paths[name].read_text(encoding="utf-8")
        assert "also reviewed by mcts-2p:iterations=40" in text and "the most reviewed moves" in text


def test_a_damaged_review_part_leaves_the_section_out_with_a_note(runs, tmp_path):
    """The section's own reading; the whole report (analysis.records.connect's reviews view) is not
    tested here."""
    run = tmp_path / "damaged"
    shutil.copytree(runs["reviewed"], run)
    part = RunStore(run).part_files("reviews")[0]
    part.write_bytes(b"PAR1 not a parquet file")
    with pytest.raises(ValueError, match="a damaged part of reviews/") as exc:
        read_reviews([run])
    assert str(part) in str(exc.value)
    ctx = SimpleNamespace(runs=SimpleNamespace(dirs=(run,)), notes=[])
    assert section.SECTION.compute(ctx) is None
    assert len(ctx.notes) == 1 and ctx.notes[0].startswith("the game review is left out: ") and str(part) in ctx.notes[0]
