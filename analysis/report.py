"""The league report: ``report.html`` (self-contained), ``elo.csv`` and ``summary.md``.

``build_report(run_dirs, out_dir)`` reads the small tables (``games``, ``results``) into Polars;
the strategy sections (openings, the first-player marker) query the ``moves`` records through
DuckDB views and only ever bring back aggregates, so a league of a million games fits in memory.
A run without ``moves`` records (a synthetic one) gets those sections replaced by a note.
Each file is written to a hidden temporary name and then renamed over the old one, so a failure
leaves the previous report (or none), never half of one.
"""
from __future__ import annotations

import html
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from . import plots, stats
from .ratings import rate_by_players
from .records import _run_dirs, read_records
from .sprt_run import sprt_html, sprt_result

FILES = ("report.html", "elo.csv", "summary.md")
OPENING_ROWS = 20  # rows of the openings table shown


@dataclass
class Report:
    """Everything the three files show, computed once."""
    run_ids: list[str]
    games: int
    games_by_players: dict[int, int]
    bots: list[str]
    newest: str  # the newest games part file's time, UTC
    ratings: dict[int, object]  # player count -> EloFit
    standings: pl.DataFrame
    crosstable: pl.DataFrame | None
    seats: pl.DataFrame
    faults: pl.DataFrame  # stats.faults: per bot that forfeited, by kind, with its first error
    forfeited: dict[int, float] = field(default_factory=dict)  # player count -> share of games forfeited
    openings: pl.DataFrame | None = None
    marker_summary: pl.DataFrame | None = None
    marker_timing: pl.DataFrame | None = None
    marker_effect: pl.DataFrame | None = None
    study: pl.DataFrame | None = None  # the runs are a strategy study: analysis.studies.study_effects
    notes: list[str] = field(default_factory=list)
    sprt: list = field(default_factory=list)  # analysis.sprt_run.SprtResult of the SPRT runs
    figures: dict[str, str] = field(default_factory=dict)


def build_report(run_dirs: str | Path | Iterable[str | Path], out_dir: str | Path, *,
                 bootstrap: int = 200, seed: int = 0) -> dict[str, Path]:
    """Write ``report.html``, ``elo.csv`` and ``summary.md`` into ``out_dir``; their paths by name."""
    return write_report(collect(run_dirs, bootstrap=bootstrap, seed=seed), out_dir)


def write_report(report: Report, out_dir: str | Path) -> dict[str, Path]:
    """Write the three files of a collected report (each to a temporary name, then renamed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    texts = {"report.html": render_html(report), "elo.csv": elo_csv(report),
             "summary.md": render_summary(report)}
    paths = {}
    for name, text in texts.items():
        tmp = out / f".{name}.tmp"
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out / name)
        finally:
            tmp.unlink(missing_ok=True)
        paths[name] = out / name
    return paths


def collect(run_dirs: str | Path | Iterable[str | Path], *, bootstrap: int = 200,
            seed: int = 0) -> Report:
    """Read the records of ``run_dirs`` and compute every table and figure of the report."""
    dirs = _run_dirs(run_dirs)
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be 0 or more, not {bootstrap}")
    records = read_records(dirs)
    games, results = records["games"], records["results"]
    if games.height == 0 or results.height == 0:
        raise ValueError("no games in the records")
    by_players = games.group_by("num_players").len().sort("num_players")
    report = Report(
        run_ids=sorted(games["run_id"].unique().to_list()), games=games.height,
        games_by_players=dict(zip(by_players["num_players"].to_list(), by_players["len"].to_list())),
        bots=sorted(results["bot"].unique().to_list()), newest=_newest(dirs),
        ratings=rate_by_players(results, games, bootstrap=bootstrap, seed=seed),
        standings=stats.standings(results, games), crosstable=None,
        seats=stats.seat_advantage(results, games), faults=stats.faults(results, games))
    if "fault_seat" in games.columns:
        share = games.group_by("num_players").agg(pl.col("fault_seat").is_not_null().mean())
        report.forfeited = dict(zip(share["num_players"].to_list(), share["fault_seat"].to_list()))
    if 2 in report.games_by_players:
        report.crosstable = stats.crosstable(results, games)
    _strategy(dirs, report)
    _figures(report, results)
    report.sprt = [r for r in map(sprt_result, dirs) if r is not None]
    return report


def _newest(dirs: list[Path]) -> str:
    stamp = max(p.stat().st_mtime for d in dirs for p in (d / "games").glob("*.parquet"))
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _strategy(dirs: list[Path], report: Report) -> None:
    """Openings and the first-player marker, from the moves records when every run has them."""
    missing = [str(d) for d in dirs
               if not any((d / "moves").glob("*.parquet")) or not any((d / "rounds").glob("*.parquet"))]
    if missing:
        report.notes.append(f"no move records in {', '.join(missing)}: the openings and marker "
                            "sections are left out")
        return
    from .marker import marker_effect, marker_summary, marker_timing
    from .openings import opening_table
    from .records import connect

    con = connect(dirs)
    con.execute("SET enable_progress_bar = false")  # no bars in the league's or CLI's output
    try:
        openings = opening_table(con, scope="game")
        report.openings = openings.sort(["n", "win_rate"], descending=True).head(OPENING_ROWS)
        report.marker_summary = marker_summary(con)
        report.marker_timing = marker_timing(con)
        try:
            report.marker_effect = marker_effect(con)
        except ValueError as exc:  # e.g. too few games to fit it
            report.notes.append(f"marker effect: {exc}")
        from .studies import is_study, read_study, study_effects
        if is_study(con):
            report.study = study_effects(con, read_study(dirs[0]) if len(dirs) == 1 else None)
    finally:
        con.close()


def _figures(report: Report, results: pl.DataFrame) -> None:
    f = report.figures
    for n, fit in sorted(report.ratings.items()):
        f[f"ratings_{n}p"] = plots.ratings_plot(fit.table, f"ratings, {n}-player games")
    if report.crosstable is not None and report.crosstable.height:
        bots2 = report.ratings[2].table["bot"].to_list() if 2 in report.ratings else report.bots
        f["heatmap"] = plots.heatmap_plot(report.crosstable, bots2)
    f["seats"] = plots.seat_plot(report.seats)
    if report.marker_timing is not None and report.marker_timing.height:
        f["marker"] = plots.marker_plot(report.marker_timing, report.marker_effect)
    f["scores"] = plots.score_plot(results, report.bots)


# ---------------------------------------------------------------- elo.csv
def elo_frame(report: Report) -> pl.DataFrame:
    """bot, num_players, games, rating, low, high, score_share: every player count, best first."""
    frames = [fit.table.with_columns(pl.lit(n, dtype=pl.Int64).alias("num_players"))
              .select("bot", "num_players", "games", "rating", "low", "high", "score_share")
              for n, fit in sorted(report.ratings.items())]
    return pl.concat(frames) if frames else pl.DataFrame()


def elo_csv(report: Report) -> str:
    return elo_frame(report).write_csv(float_precision=4)


# ---------------------------------------------------------------- formatting
def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.{digits}f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _interval(low: float | None, high: float | None, digits: int = 0) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "-"
    return f"{round(low, digits) + 0.0:.{digits}f} .. {round(high, digits) + 0.0:.{digits}f}"


def withheld(report: Report) -> list[str]:
    """The bots whose ratings are withheld: more than half their games forfeited."""
    return report.faults.filter(pl.col("withheld"))["bot"].to_list()


def _rated(report: Report, players: int) -> pl.DataFrame:
    """A player count's ratings table with the withheld bots' rating, low and high set to null."""
    hide = pl.col("bot").is_in(withheld(report))
    return report.ratings[players].table.with_columns(
        pl.when(hide).then(None).otherwise(pl.col(c)).alias(c) for c in ("rating", "low", "high"))


def _edge_withheld(report: Report, players: int) -> bool:
    """Seat effects mean nothing where most games ended by a forfeit (its timing, not the seat)."""
    return report.forfeited.get(players, 0.0) > stats.WITHHOLD_ABOVE


def headline(report: Report) -> str:
    """One line: the leader of each player count's ratings (among the bots not withheld)."""
    parts = []
    for n in sorted(report.ratings):
        table = _rated(report, n).drop_nulls("rating")
        if table.height == 0:
            parts.append(f"{n} players: no rating (every bot withheld: faults)")
            continue
        top = table.row(0, named=True)
        interval = _interval(top["low"], top["high"])
        within = "" if interval == "-" else f", 95% {interval}"
        parts.append(f"{n} players: {top['bot']} ({top['rating']:+.0f} Elo{within}, "
                     f"{top['games']:,} games)")
    return "leader: " + "; ".join(parts)


def _edge_name(players: int) -> str:
    return "first mover's edge" if players == 2 else "seat 0's edge over the other seats' mean"


def _seat_lines(report: Report) -> list[str]:
    lines = []
    for n in sorted(report.games_by_players):
        if _edge_withheld(report, n):
            lines.append(f"{_edge_name(n)} ({n} players): withheld, {report.forfeited[n]:.0%} of the "
                         "games ended by a forfeit")
        elif n in report.ratings:
            edge, low, high = report.ratings[n].first_move
            if not math.isnan(edge):
                lines.append(f"{_edge_name(n)} ({n} players): {edge:+.0f} Elo (95% "
                             f"{_interval(low, high)})")
        for between, games in (("all", "games"), ("equal", "games between equal bots")):
            row = report.seats.filter(pl.col("bot").is_null() & (pl.col("num_players") == n)
                                      & (pl.col("seat") == 0) & (pl.col("between") == between))
            if row.height:
                r = row.row(0, named=True)
                lines.append(f"seat 0 ({n} players) wins {r['win_rate']:.1%} of {r['games']:,} "
                             f"{games} (95% {r['low']:.1%} .. {r['high']:.1%}; no edge: "
                             f"{r['expected']:.1%})")
    return lines


def _marker_lines(report: Report) -> list[str]:
    if report.marker_effect is None or report.marker_effect.height == 0:
        return []
    lines = []
    for r in report.marker_effect.sort("num_players").iter_rows(named=True):
        lines.append(f"taking the first-player marker ({r['num_players']} players): odds ratio "
                     f"{r['odds_ratio']:.2f}, win probability {r['marginal_effect']:+.1%} "
                     f"(95% {r['me_low']:+.1%} .. {r['me_high']:+.1%}; {r['games']:,} games)")
    return lines


def _faults_lines(report: Report) -> list[str]:
    if report.faults.height == 0:
        return []
    out = ["## Faults", ""]
    for r in report.faults.iter_rows(named=True):
        kinds = ", ".join(f"{r[k]:,} {k}" for k in stats.FORFEIT_KINDS if r[k])
        flag = " (rating withheld)" if r["withheld"] else ""
        out.append(f"- {_md_cell(r['bot'])}: forfeited {r['forfeits']:,} of {r['games']:,} games "
                   f"({kinds}){flag}; first: {_md_cell(r['first_error'])}")
    return out + [""]


# ---------------------------------------------------------------- summary.md
def _md_cell(value) -> str:
    return html.escape(str(value), quote=False).replace("|", "\\|").replace("\n", " ")


def render_summary(report: Report) -> str:
    counts = ", ".join(f"{n} players: {g:,}" for n, g in sorted(report.games_by_players.items()))
    out = ["# League report", "",
           (f"{report.games:,} games ({counts}) from {_md_cell(', '.join(report.run_ids))}; "
            f"newest record {report.newest}."), "", f"**{_md_cell(headline(report))}**", ""]
    for n in sorted(report.ratings):
        out += [f"## Ratings, {n} players", "", "| # | bot | rating | 95% interval | games |",
                "|---:|---|---:|---:|---:|"]
        for i, r in enumerate(_rated(report, n).iter_rows(named=True), 1):
            rating = "withheld" if r["rating"] is None else f"{r['rating']:.0f}"
            out.append(f"| {i} | {_md_cell(r['bot'])} | {rating} | "
                       f"{_interval(r['low'], r['high'])} | {r['games']:,} |")
        out.append("")
    out += _faults_lines(report)
    out += ["## Seats and the marker", ""]
    out += [f"- {line}" for line in _seat_lines(report) + _marker_lines(report)]
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


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _html_table(frame: pl.DataFrame, columns: dict[str, tuple[str | tuple[str, str], int | None]]) -> str:
    """``columns``: header -> (column, digits); text columns get digits None; a (low, high) pair
    of columns is one interval cell."""
    head = "".join(f'<th class="{"text" if d is None else "num"}">{_e(h)}</th>'
                   for h, (_, d) in columns.items())
    rows = []
    for r in frame.iter_rows(named=True):
        cells = []
        for col, digits in columns.values():
            v = None if isinstance(col, tuple) else r[col]
            text = (_interval(r[col[0]], r[col[1]], digits) if isinstance(col, tuple) else
                    "all" if v is None and digits is None else _fmt(v, digits))
            cells.append(f'<td class="{"text" if digits is None else "num"}">{_e(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


MARKER_SUMMARY = {  # the report's marker tables, with readable headers (docs/analysis.md, marker)
    "players": ("num_players", 0), "bot": ("bot", None), "rounds": ("rounds", 0),
    "takes": ("takes", 0), "take rate": ("take_rate", 3), "95%": (("low", "high"), 2),
    "mean ply": ("mean_ply", 1), "floor cost": ("mean_floor_cost", 2),
    "opens next": ("open_rate", 3), "next edge": ("next_edge", 1),
    "edge 95%": (("edge_low", "edge_high"), 1)}
MARKER_EFFECT = {
    "players": ("num_players", 0), "log-odds": ("estimate", 3), "95%": (("low", "high"), 2),
    "odds ratio": ("odds_ratio", 2), "win prob.": ("marginal_effect", 3),
    "win prob. 95%": (("me_low", "me_high"), 3), "raw diff": ("raw_diff", 3), "rows": ("rows", 0),
    "games": ("games", 0), "deals": ("deals", 0)}


def _ratings_html(report: Report) -> list[str]:
    out = []
    for n, fit in sorted(report.ratings.items()):
        t = _rated(report, n).with_columns(pl.int_range(1, fit.table.height + 1).alias("rank"))
        out.append(f"<h3>{n}-player games</h3>")
        out.append(_html_table(t, {"#": ("rank", 0), "bot": ("bot", None), "games": ("games", 0),
                                   "rating": ("rating", 0), "low": ("low", 0), "high": ("high", 0),
                                   "score share": ("score_share", 3)}))
        edge = fit.first_move[0] if fit.first_move else math.nan
        if not math.isnan(edge) and not _edge_withheld(report, n):
            out.append(f"<p>{_edge_name(n)}: {edge:+.0f} Elo (95% "
                       f"{_e(_interval(*fit.first_move[1:]))})</p>")
        if fit.unbounded:
            out.append(f'<p class="note">won every game or none (rating only a bound): '
                       f"{_e(', '.join(fit.unbounded))}</p>")
        out.append(f"<figure>{report.figures[f'ratings_{n}p']}</figure>")
    return out


def _faults_html(report: Report) -> list[str]:
    if report.faults.height == 0:
        return ["<h2>Faults</h2><p>No game was forfeited.</p>"]
    return ["<h2>Faults</h2><p>Games a bot lost by a fault: an exception or garbage (error), an "
            "illegal move, a move past the time limit (timeout); the message of its first.</p>",
            _html_table(report.faults, {
                "bot": ("bot", None), "games": ("games", 0), "forfeits": ("forfeits", 0),
                **{k: (k, 0) for k in stats.FORFEIT_KINDS}, "rate": ("forfeit_rate", 3),
                "rating withheld": ("withheld", None), "first error": ("first_error", None)})]


def render_html(report: Report) -> str:
    fig = report.figures
    counts = ", ".join(f"{n} players: {g:,}" for n, g in sorted(report.games_by_players.items()))
    body = [
        "<header><h1>League report</h1>",
        f"<p>runs: {_e(', '.join(report.run_ids))}</p>",
        f"<p>games: {report.games:,} ({_e(counts)})</p>",
        f"<p>bots: {_e(', '.join(report.bots))}</p>",
        f"<p>newest record: {_e(report.newest)}</p>",
        f"<p><strong>{_e(headline(report))}</strong></p></header>",
    ]
    body += [f'<p class="note">note: {_e(n)}</p>' for n in report.notes]
    body += sprt_html(report.sprt)
    if withheld(report):
        body.append(f'<p class="note">ratings withheld (more than half their games forfeited, see '
                    f'Faults): {_e(", ".join(withheld(report)))}</p>')
    body += ["<h2>Ratings</h2>", ("<p>Elo points, the mean bot at 0; 95% intervals from a "
                                  "bootstrap over deals. A bot that forfeited more than half its "
                                  "games has its rating withheld (-).</p>"), *_ratings_html(report)]
    body += _faults_html(report)
    body += ["<h2>Standings</h2>", _html_table(report.standings, {
        "bot": ("bot", None), "games": ("games", 0), "wins": ("wins", 0), "shared": ("shared", 0),
        "losses": ("losses", 0), "win rate": ("win_rate", 3), "low": ("low", 3),
        "high": ("high", 3), "score share": ("score_share", 3), "mean score": ("mean_score", 1),
        "floor": ("mean_floor_penalty", 1), "bonus": ("mean_bonus", 1)})]
    if report.crosstable is not None:
        body += ["<h2>Head to head (2 players)</h2>", f"<figure>{fig['heatmap']}</figure>",
                 _html_table(report.crosstable, {
                     "bot": ("bot", None), "opponent": ("opponent", None), "games": ("games", 0),
                     "wins": ("wins", 0), "shared": ("shared", 0), "losses": ("losses", 0),
                     "win rate": ("score", 3), "low": ("low", 3), "high": ("high", 3)})]
    body += ["<h2>Seat advantage</h2>", "".join(f"<p>{_e(s)}</p>" for s in _seat_lines(report)),
             f"<figure>{fig['seats']}</figure>",
             _html_table(report.seats, {
                 "players": ("num_players", 0), "between": ("between", None),
                 "bot": ("bot", None), "seat": ("seat", 0),
                 "games": ("games", 0), "win rate": ("win_rate", 3), "low": ("low", 3),
                 "high": ("high", 3), "no edge": ("expected", 3)})]
    if report.openings is not None:
        body += [(f"<h2>Openings</h2><p>Each seat's first move of a game: where from, how many "
                  f"tiles, to which line (0: the floor); the {OPENING_ROWS} most played.</p>"),
                 _html_table(report.openings, {
                     "players": ("num_players", 0), "bot": ("bot", None),
                     "moved first": ("opened", None), "source": ("source", None),
                     "taken": ("taken", 0), "line": ("line", 0), "games": ("n", 0),
                     "win rate": ("win_rate", 3), "low": ("low", 3), "high": ("high", 3),
                     "mean score": ("mean_score", 1)})]
    if report.marker_summary is not None:
        body += ["<h2>The first-player marker</h2>",
                 "".join(f"<p>{_e(s)}</p>" for s in _marker_lines(report)),
                 f"<figure>{fig['marker']}</figure>" if "marker" in fig else "",
                 _html_table(report.marker_summary, MARKER_SUMMARY)]
        if report.marker_effect is not None:
            body.append(_html_table(report.marker_effect, MARKER_EFFECT))
    if report.study is not None:
        body += [("<h2>Intervention study</h2><p>Treatment minus control per studied seat and game, "
                  "on the same deals and bot seeds (95% bootstrap over deals); the unpaired interval "
                  "and the ratio of widths show what pairing saves; observed: the same choice as the "
                  "control games show it, as a league would (docs/studies.md).</p>"),
                 _html_table(report.study, {
                     "intervention": ("intervention", None), "metric": ("metric", None),
                     "effect": ("effect", 3), "low": ("low", 3), "high": ("high", 3),
                     "unpaired low": ("unpaired_low", 3), "unpaired high": ("unpaired_high", 3),
                     "width ratio": ("width_ratio", 1), "observed": ("obs_effect", 3),
                     "deals": ("deals", 0), "games": ("games", 0)})]
    body += ["<h2>Score distributions</h2>", f"<figure>{fig['scores']}</figure>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>League report: {_e(', '.join(report.run_ids))}</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
