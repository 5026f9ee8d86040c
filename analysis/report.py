"""The league report: ``report.html`` (self-contained), ``elo.csv`` and ``summary.md``.

``build_report(run_dirs, out_dir)`` checks the run folders once (``records.check_runs``) and reads
the small tables (``games``, ``results``) into Polars; the ratings and faults are fitted once
(``Context``), then every section of ``analysis.sections.SECTIONS`` computes its data and figures
in turn. The strategy sections (openings, the first-player marker) query the ``moves`` records
through DuckDB views and only ever bring back aggregates, so a league of a million games fits in
memory; a run without ``moves`` records (a synthetic one) gets them replaced by a note. This module
assembles the files: the header, the notes and each section's HTML or markdown. Each file is
written to a hidden temporary name and then renamed over the old one, so a failure leaves the
previous report (or none), never half of one.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from records.names import ELO_CSV, REPORT_FILES, REPORT_HTML, SUMMARY_MD
from records.store import RunStore

from . import stats
from .bootstrap import check_count
from .ratings import forfeited_by_players, rate_by_players, unbounded_reason
from .records import Runs, check_runs, read_records, reading
from .sections import SECTIONS, Context, Section
from .sections.format import esc, interval, md_cell, signed
from .sections.ratings import rated

FILES = REPORT_FILES


@dataclass
class Report:
    """Everything the three files show, computed once: the header's facts, the ratings (also
    elo.csv's and MLflow's), and each section with its data."""
    run_ids: list[str]
    games: int
    games_by_players: dict[int, int]
    bots: list[str]
    newest: str  # the newest games part file's time, UTC
    ratings: dict[int, object]  # player count -> EloFit
    faults: pl.DataFrame  # stats.faults: per bot that forfeited, by kind, with its first error
    forfeited: dict[int, float] = field(default_factory=dict)  # player count -> share of games forfeited
    notes: list[str] = field(default_factory=list)
    sections: list[tuple[Section, Any]] = field(default_factory=list)  # the sections shown, with their data
    figures: dict[str, str] = field(default_factory=dict)


def build_report(run_dirs: str | Path | Iterable[str | Path] | Runs, out_dir: str | Path, *,
                 bootstrap: int = 200, seed: int = 0) -> dict[str, Path]:
    """Write ``report.html``, ``elo.csv`` and ``summary.md`` into ``out_dir``; their paths by name."""
    return write_report(collect(run_dirs, bootstrap=bootstrap, seed=seed), out_dir)


def write_report(report: Report, out_dir: str | Path) -> dict[str, Path]:
    """Write the three files of a collected report (each to a temporary name, then renamed)."""
    out = RunStore(out_dir)  # a folder, or a run on object storage (uploaded there)
    texts = {REPORT_HTML: render_html(report), ELO_CSV: elo_csv(report), SUMMARY_MD: render_summary(report)}
    for name, text in texts.items():
        out.write_text(name, text)
    return {name: out.local(name) for name in texts}


def context(runs: Runs, bootstrap: int, seed: int) -> Context:
    """What every section reads: the games and results, the ratings of each player count (with
    ``bootstrap`` resamples) and the faults."""
    records = read_records(runs)
    games, results = records["games"], records["results"]
    if games.height == 0 or results.height == 0:
        raise ValueError("no games in the records")
    by_players = games.group_by("num_players").len().sort("num_players")
    return Context(
        runs=runs, games=games, results=results,
        games_by_players=dict(zip(by_players["num_players"].to_list(), by_players["len"].to_list())),
        bots=sorted(results["bot"].unique().to_list()),
        ratings=rate_by_players(results, games, bootstrap=bootstrap, seed=seed),
        faults=stats.faults(results, games), forfeited=forfeited_by_players(games))


def collect(run_dirs: str | Path | Iterable[str | Path] | Runs, *, bootstrap: int = 200,
            seed: int = 0) -> Report:
    """Read the records of ``run_dirs`` (a ``Runs``, or folders to check) and compute every
    section and figure of the report."""
    runs = check_runs(run_dirs)
    check_count(bootstrap)
    ctx = context(runs, bootstrap, seed)
    report = Report(
        run_ids=sorted(ctx.games["run_id"].unique().to_list()), games=ctx.games.height,
        games_by_players=ctx.games_by_players, bots=ctx.bots, newest=_newest(runs),
        ratings=ctx.ratings, faults=ctx.faults, forfeited=ctx.forfeited, notes=ctx.notes)
    try:
        with reading(runs):  # damage inside a part a section reads: DamagedRecords naming it
            for section in SECTIONS:
                data = section.compute(ctx)
                if data is not None:
                    report.sections.append((section, data))
    finally:
        ctx.close()
    for section, data in report.sections:
        report.figures.update(section.figures(data))
    return report


def _newest(runs: Runs) -> str:
    stamp = max(p.stat().st_mtime for parts in runs.files["games"] for p in parts)
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


# ---------------------------------------------------------------- elo.csv
def elo_frame(report: Report) -> pl.DataFrame:
    """bot, num_players, games, rating, low, high, score_share: every player count, best first
    (a withheld bot's rating, low and high empty, as in the report; low and high empty where
    there is no interval: ``--bootstrap 0``, too few deals or games)."""
    frames = [rated(report, n).with_columns(pl.lit(n, dtype=pl.Int64).alias("num_players"),
                                            pl.col("low", "high").fill_nan(None))  # no interval: empty
              .select("bot", "num_players", "games", "rating", "low", "high", "score_share")
              for n in sorted(report.ratings)]
    return pl.concat(frames) if frames else pl.DataFrame()


def elo_csv(report: Report) -> str:
    return elo_frame(report).write_csv(float_precision=4)


def headline(report: Report) -> str:
    """One line: the leader of each player count's ratings (among the bots not withheld)."""
    parts = []
    for n in sorted(report.ratings):
        table = rated(report, n).drop_nulls("rating")
        if table.height == 0:
            parts.append(f"{n} players: no rating (every bot withheld: faults)")
            continue
        top = table.row(0, named=True)
        span = interval(top["low"], top["high"])
        within = "" if span == "-" else f", 95% {span}"
        if top["bot"] in report.ratings[n].unbounded:  # the ridge sets its rating and interval
            within += f"; a bound only: it {unbounded_reason(n)}"
        parts.append(f"{n} players: {top['bot']} ({signed(top['rating'])} Elo{within}, "
                     f"{top['games']:,} games)")
    return "leader: " + "; ".join(parts)


# ---------------------------------------------------------------- summary.md
def render_summary(report: Report) -> str:
    counts = ", ".join(f"{n} players: {g:,}" for n, g in sorted(report.games_by_players.items()))
    out = ["# League report", "",
           (f"{report.games:,} games ({counts}) from {md_cell(', '.join(report.run_ids))}; "
            f"newest record {report.newest}."), "", f"**{md_cell(headline(report))}**", ""]
    for section, data in report.sections:
        out += section.markdown(data)
    out += [f"- note: {n}" for n in report.notes]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- report.html
CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f2f2f2; } td.text, th.text { text-align: left; }
.scroll { overflow-x: auto; } .note { color: #885500; } figure { margin: 0.5em 0 1.5em; } header p { margin: 0.2em 0; }
"""


def render_html(report: Report) -> str:
    counts = ", ".join(f"{n} players: {g:,}" for n, g in sorted(report.games_by_players.items()))
    body = [
        "<header><h1>League report</h1>",
        f"<p>runs: {esc(', '.join(report.run_ids))}</p>",
        f"<p>games: {report.games:,} ({esc(counts)})</p>",
        f"<p>bots: {esc(', '.join(report.bots))}</p>",
        f"<p>newest record: {esc(report.newest)}</p>",
        f"<p><strong>{esc(headline(report))}</strong></p></header>",
    ]
    body += [f'<p class="note">note: {esc(n)}</p>' for n in report.notes]
    for section, data in report.sections:
        body += section.html(data, report.figures)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>League report: {esc(', '.join(report.run_ids))}</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
