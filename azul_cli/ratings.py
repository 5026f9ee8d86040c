"""``azul elo`` and ``azul standings``: ratings and rates from the records of league runs.

``elo`` calls ``analysis.read_records`` and ``analysis.rate_by_players`` (one fit per player
count); ``standings`` calls ``analysis.stats``; both print a table, CSV or JSON
(docs/analysis.md). The analysis modules (DuckDB, Polars, SciPy) load when a command runs, so
other commands start fast.
"""
from __future__ import annotations

import math
from enum import Enum
from typing import Annotated

import typer

from .common import Format, FormatOpt, RunDirs, fail, finite, json_rows, print_json, print_table, read_runs


def _anchor_value(value: float | None) -> float | None:
    from analysis.elo import check_anchor_value

    if value is not None:
        try:
            check_anchor_value(value)
        except ValueError as exc:
            fail(f"--anchor-value: {exc}")
    return value


AnchorOpt = Annotated[str | None, typer.Option(
    "--anchor", metavar="BOT", help="Put this bot at --anchor-value (default: the mean bot at 0).")]
AnchorValueOpt = Annotated[float | None, typer.Option(
    "--anchor-value", metavar="X", callback=_anchor_value, show_default="0",
    help="The --anchor bot's rating, a finite number from -1e6 to 1e6 (needs --anchor).")]


def _resamples(value: int) -> int:
    from analysis.bootstrap import check_resamples

    try:
        check_resamples(value)
    except ValueError as exc:
        fail(f"--bootstrap: {exc}")
    return value


BootstrapOpt = Annotated[int, typer.Option(
    "--bootstrap", "-b", metavar="N", min=0, callback=_resamples,
    help="Bootstrap resamples of whole deals, 40 to 10000: they give the likelihood of "
         "superiority; 0: no intervals and no superiority (the 95% intervals come from a deal "
         "jackknife).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="The bootstrap's seed.")]


def _num(x: float | None, digits: int = 1) -> float | None:
    value = finite(x, digits)
    return None if value is None else value + 0.0  # never -0.0


OpenSkillOpt = Annotated[bool, typer.Option(
    "--openskill", help="Add OpenSkill's game-by-game view (mu, sigma) next to the ratings.")]


def elo(run_dirs: RunDirs, format: FormatOpt = Format.table, anchor: AnchorOpt = None,
        anchor_value: AnchorValueOpt = None, bootstrap: BootstrapOpt = 200, seed: SeedOpt = 0,
        openskill: OpenSkillOpt = False) -> None:
    """Elo ratings of the bots with 95% intervals, one fit per player count.

    Bradley-Terry for 2 players, Plackett-Luce for 3 and 4; 95% intervals by a jackknife over
    deals, the likelihood of superiority by a bootstrap over deals (--bootstrap 0: neither).
    """
    if anchor_value is not None and anchor is None:
        fail("--anchor-value needs --anchor BOT: without an anchor the mean bot is at 0")
    anchor_value = 0.0 if anchor_value is None else anchor_value
    runs = read_runs(run_dirs)
    from analysis.ratings import forfeited_by_players, rate_by_players, withheld_bots, withhold
    from analysis.records import read_records

    try:
        records = read_records(runs)
        fits = rate_by_players(records["results"], records["games"], anchor=anchor,
                               anchor_value=anchor_value, bootstrap=bootstrap, seed=seed)
        hidden = withheld_bots(records["results"], records["games"])
        forfeited = forfeited_by_players(records["games"])
        tables = {n: withhold(_with_openskill(fit.table, records, n) if openskill else fit.table, hidden)
                  for n, fit in fits.items()}
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if format is Format.csv:
        import polars as pl

        frame = pl.concat([t.select(pl.lit(n, dtype=pl.Int64).alias("num_players"), pl.all())
                           for n, t in tables.items()])
        # no interval (too few deals or games, --bootstrap 0): low and high empty, as a withheld bot's
        frame = frame.with_columns(pl.col("low", "high").fill_nan(None))
        typer.echo(frame.write_csv(), nl=False)
    elif format is Format.json:
        print_json([_json_entry(n, fit, tables[n], anchor, bootstrap, seed, hidden, forfeited)
                    for n, fit in fits.items()])
    else:
        for n, fit in fits.items():
            _print_table(n, fit, tables[n], anchor, anchor_value, hidden, forfeited)


def _with_openskill(table, records, players: int):
    from analysis.skill import openskill_table

    view = openskill_table(records["results"], records["games"], num_players=players)
    return table.join(view.select("bot", "mu", "sigma"), on="bot", how="left")


def _anchored(fit, anchor: str | None) -> str | None:
    return anchor if anchor is not None and anchor in fit.table["bot"].to_list() else None


def _whole(x: float, sign: bool = False) -> str:
    """Elo points as a whole number, never ``-0`` (``sign``: ``+`` before a positive one)."""
    if not math.isfinite(x):
        return "-"
    points = round(x)
    return f"{points:+d}" if sign else f"{points:d}"


def _interval(value: float, low: float, high: float) -> dict:
    return {"rating": _num(value), "low": _num(low), "high": _num(high)}


def _json_entry(players: int, fit, table, anchor: str | None, bootstrap: int, seed: int,
                hidden: list[str], forfeited: dict[int, float]) -> dict:
    from analysis.ratings import edge_withheld

    entry = {"num_players": players,
             "bots": [{k: _num(v, 4 if k == "score_share" else 1) if isinstance(v, float) else v
                       for k, v in row.items()} for row in table.iter_rows(named=True)]}
    if players == 2:
        entry["first_move"] = None if edge_withheld(forfeited, players) else _interval(*fit.first_move)
    else:
        entry["seats"] = None if edge_withheld(forfeited, players) else [
            {"seat": r["seat"], **_interval(r["edge"], r["low"], r["high"])}
            for r in fit.seats.iter_rows(named=True)]
    superiority: dict[str, dict] = {}
    for row in fit.superiority.iter_rows(named=True):
        superiority.setdefault(row["bot"], {})[row["other"]] = finite(row["los"])
    entry.update({"superiority": superiority, "deals": fit.deals,
                  "unbounded": [b for b in fit.unbounded if b not in hidden],
                  "withheld": [b for b in table["bot"].to_list() if b in hidden],
                  "bootstrap": bootstrap, "seed": seed,
                  "anchor": _anchored(fit, anchor)})
    return entry


def _print_table(players: int, fit, frame, anchor: str | None, anchor_value: float,
                 hidden: list[str], forfeited: dict[int, float]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from analysis.ratings import edge_withheld, intervals_text, no_interval, unbounded_reason

    here = _anchored(fit, anchor)
    where = f"{here} at {anchor_value:g}" if here else "mean bot at 0"
    if anchor and not here:
        where += f" ({anchor} played no {players}-player game)"
    model = "Bradley-Terry" if players == 2 else "Plackett-Luce"
    console = Console(highlight=False, markup=False)
    console.print(f"\n{players} players ({model})", style="bold", soft_wrap=True)
    table = Table(box=box.SIMPLE_HEAD, title=f"elo: {where}; {intervals_text(fit)}")
    skill = "mu" in frame.columns
    columns = [("#", "right"), ("bot", "left"), ("games", "right"), ("elo", "right"),
               ("95% interval", "right"), ("score share", "right")]
    for name, justify in columns + ([("mu", "right"), ("sigma", "right")] if skill else []):
        table.add_column(name, justify=justify)
    for i, row in enumerate(frame.iter_rows(named=True), 1):
        interval = ("-" if row["rating"] is None else no_interval(fit, short=True)
                    if row["low"] is None or math.isnan(row["low"])
                    else f"{_whole(row['low'])} .. {_whole(row['high'])}")
        rating = "withheld" if row["rating"] is None else _whole(row["rating"])
        cells = [str(i), row["bot"], f"{row['games']:,}", rating, interval,
                 f"{row['score_share']:.1%}"]
        if skill:
            cells += [f"{row['mu']:.2f}", f"{row['sigma']:.2f}"]
        table.add_row(*cells)
    print_table(table, console)

    def span(low: float, high: float) -> str:  # in words where there is no interval
        if not math.isnan(low):
            return f" (95%: {_whole(low)} .. {_whole(high)})"
        return "" if fit.bootstrap == 0 else f" ({no_interval(fit)})"

    if edge_withheld(forfeited, players):
        what = "first mover's edge" if players == 2 else "seat edges"
        console.print(f"{what}: withheld, "
                      f"{forfeited[players]:.0%} of the games ended by a forfeit", soft_wrap=True)
    elif players == 2:
        edge, low, high = fit.first_move
        console.print(f"first mover's edge: {_whole(edge, sign=True)}{span(low, high)}", soft_wrap=True)
    else:
        rows = list(fit.seats.iter_rows(named=True))
        none = all(math.isnan(r["low"]) for r in rows)  # no interval at all: why, said once
        edges = ", ".join(f"seat {r['seat']} {_whole(r['edge'], sign=True)}"
                          f"{'' if none else span(r['low'], r['high'])}" for r in rows)
        console.print(f"seat edges over the mean seat: {edges}{span(math.nan, math.nan) if none else ''}",
                      soft_wrap=True)
    for bot in (b for b in frame["bot"].to_list() if b in hidden):
        console.print(f"note: {bot}: rating withheld, it forfeited more than half its games "
                      "(azul league status, the report's Faults)", soft_wrap=True)
    spans = dict(zip(frame["bot"].to_list(), frame["low"].to_list()))
    for bot in (b for b in fit.unbounded if b not in hidden):
        what = "rating is" if spans.get(bot) is None or math.isnan(spans[bot]) else "rating and interval are"
        console.print(f"note: {bot} {unbounded_reason(players)}: its {what} only a "
                      "bound (set by the fit's ridge)", soft_wrap=True)


class What(str, Enum):
    standings = "standings"
    crosstable = "crosstable"
    seats = "seats"
    neighbours = "neighbours"
    event = "event"


WhatOpt = Annotated[What, typer.Option(
    "--what", "-w", help="standings (per bot), crosstable (2-player head to head), seats "
                         "(win rate by seat: in all games, and between equal bots), neighbours (3 and 4 "
                         "players: each bot's win rate and score share by the bot that plays just before "
                         "it) or event (an event's own table: Swiss points and tie-breaks, the knockout "
                         "bracket, the gauntlet's).")]


def standings(run_dirs: RunDirs, format: FormatOpt = Format.table,
                      what: WhatOpt = What.standings) -> None:
    """Standings, head-to-head crosstable or seat advantage, each rate with a Wilson 95% interval."""
    runs = read_runs(run_dirs)
    from analysis import stats
    from analysis.records import read_records

    from analysis.events import event_standings

    if what is What.event:
        return _event_standings(runs, format)
    fn = {What.standings: stats.standings, What.crosstable: stats.crosstable,
          What.seats: stats.seat_advantage, What.neighbours: stats.neighbours}[what]
    try:
        records = read_records(runs)
        frame = fn(records["results"], records["games"])
        events = [event_standings(d, records["results"], records["games"]) for d in runs.dirs]
        luck = []
        if what is What.standings and format is not Format.csv:  # luck and skill after the standings
            from analysis.luck import luck_tables

            luck = luck_tables(records["results"], records["games"])
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if format is Format.csv:
        typer.echo(frame.write_csv(), nl=False)
    elif format is Format.json:
        doc = {"what": what.value, "rows": json_rows(frame)}
        if what is What.standings:
            doc["luck"] = [_luck_json(t) for t in luck]
        print_json(doc)
    else:
        _print_stats(frame, what)
        if what is What.standings:  # an event's own table after the standings
            from rich.console import Console

            from .event_table import print_event

            for ev in events:
                print_event(Console(highlight=False, markup=False), ev)
            _print_luck(luck)


def _event_standings(runs, format: Format) -> None:
    """``--what event``: each event's table (a run that is not an event is an error)."""
    from analysis.events import event_standings
    from analysis.records import read_records

    try:
        records = read_records(runs)
        events = [event_standings(d, records["results"], records["games"]) for d in runs.dirs]
    except (ValueError, OSError) as exc:
        fail(str(exc))
    missing = [str(d) for d, ev in zip(runs.dirs, events) if ev is None]
    if missing:
        fail(f"{missing[0]}: not an event (its config.yaml has no format: gauntlet, swiss or knockout)")
    if format is Format.json:
        print_json({"what": "event", "events": [ev.as_dict() for ev in events]})
    elif format is Format.csv:
        import polars as pl

        frames = [pl.DataFrame([{k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in r.items()}
                                for r in ev.rows()]) for ev in events]
        typer.echo(pl.concat(frames, how="diagonal").write_csv(), nl=False)
    else:
        from rich.console import Console

        from .event_table import print_event

        for ev in events:
            print_event(Console(highlight=False, markup=False), ev)


def _print_stats(frame, what: What) -> None:
    from rich import box
    from rich.table import Table

    def interval(lo: str, hi: str, fmt: str):  # "-" where it cannot be measured (one deal)
        return lambda r: "-" if r[lo] is None else f"{r[lo]:{fmt}}..{r[hi]:{fmt}}"

    def col(name: str, fmt: str = ""):
        return lambda r: "all" if r[name] is None else f"{r[name]:{fmt}}"

    columns = {  # header -> cell of a row
        What.standings: {"bot": col("bot"), "games": col("games"), "W": col("wins"),
                         "S": col("shared"), "L": col("losses"), "win rate": col("win_rate", ".3f"),
                         "95%": interval("low", "high", ".2f"), "score share": col("score_share", ".1%"),
                         "score": lambda r: f"{r['mean_score']:.1f}"
                                            f"±{(r['score_high'] - r['score_low']) / 2:.1f}",
                         "floor": col("mean_floor_penalty", ".1f"), "bonus": col("mean_bonus", ".1f")},
        What.crosstable: {"bot": col("bot"), "opponent": col("opponent"), "games": col("games"),
                          "W": col("wins"), "S": col("shared"), "L": col("losses"),
                          "win rate": col("score", ".3f"), "95%": interval("low", "high", ".3f")},
        What.seats: {"players": col("num_players"), "between": col("between"), "bot": col("bot"),
                     "seat": col("seat"),
                     "games": col("games"), "win rate": col("win_rate", ".3f"),
                     "95%": interval("low", "high", ".3f"), "no edge": col("expected", ".3f")},
        What.neighbours: {"players": col("num_players"), "bot": col("bot"), "after": col("before"),
                          "games": col("games"), "win rate": col("win_rate", ".3f"),
                          "95%": interval("low", "high", ".3f"), "score share": col("score_share", ".1%"),
                          "95% ": interval("share_low", "share_high", ".1%")},
    }[what]
    share = "; score share with a normal 95% interval" if what is What.neighbours else ""
    table = Table(box=box.SIMPLE_HEAD, title=f"{what.value}: points per game (win 1, shared "
                  f"first 1/2), 95% Wilson intervals{share}")
    for name in columns:
        table.add_column(name.strip(), justify="left" if name in ("bot", "opponent") else "right",
                         no_wrap=True)
    for row in frame.iter_rows(named=True):
        table.add_row(*(cell(row) for cell in columns.values()))
    print_table(table)


def _luck_json(t) -> dict:
    """A player count's luck-and-skill numbers as JSON: 4 digits, null for no number."""
    doc = t.as_dict()
    for key in ("shares", "upsets"):
        frame = getattr(t, key)
        doc[key] = None if frame is None else json_rows(frame)
    if doc["first_mover"]:
        doc["first_mover"] = {k: finite(v, 4) if isinstance(v, float) else v
                              for k, v in doc["first_mover"].items()}
    return doc


def _print_luck(tables) -> None:
    """The luck-and-skill block of ``azul standings``: per player count the shares of the
    variance, the upset rates and the first mover's edge, then what each number means."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from analysis.luck import MEANING, first_mover_line, headline, wide_shares

    console = Console(highlight=False, markup=False)

    def share(value: float, low: float, high: float) -> str:
        span = "" if math.isnan(low) else f" ({low:.1%} .. {high:.1%})"
        return f"{value:.1%}{span}"

    for t in tables:
        console.print(f"\n{headline(t)}", style="bold", soft_wrap=True)
        if t.shares is not None:
            table = Table(box=box.SIMPLE_HEAD)
            for name in ("share of", "points (95%)", "wins (95%)"):
                table.add_column(name, justify="left" if name == "share of" else "right", no_wrap=True)
            for r in wide_shares(t).iter_rows(named=True):
                table.add_row(r["component"], share(r["points"], r["points_low"], r["points_high"]),
                              share(r["wins"], r["wins_low"], r["wins_high"]))
            print_table(table, console)
            ups = Table(box=box.SIMPLE_HEAD, title="upsets: the weaker ahead in every game of a deal")
            for name in ("weaker", "stronger", "deals", "upsets", "upset rate", "95%", "stronger swept"):
                ups.add_column(name, justify="left" if name in ("weaker", "stronger") else "right",
                               no_wrap=True)
            for r in t.upsets.iter_rows(named=True):
                ups.add_row(r["weaker"], r["stronger"], f"{r['deals']:,}", f"{r['upsets']:,}",
                            f"{r['upset_rate']:.1%}", f"{r['low']:.1%} .. {r['high']:.1%}",
                            f"{r['sweep_rate']:.1%}")
            print_table(ups, console)
        line = first_mover_line(t)
        if line:
            console.print(line, soft_wrap=True)
    if tables:
        for sentence in MEANING.values():
            console.print(sentence, soft_wrap=True)
