"""``azul openings`` and ``azul marker``: strategy statistics of one or more league runs.

Only parses the options, calls ``analysis.openings`` / ``analysis.marker`` on
``analysis.records.connect``, and prints (docs/analysis.md). The analysis modules load when a
command runs, so other commands start fast.
"""
from __future__ import annotations

import math
from enum import Enum
from typing import Annotated

import typer

from .common import Format, FormatOpt, RunDirs, fail, json_rows, print_json, print_table, read_runs


class Scope(str, Enum):
    game = "game"
    round = "round"


class Part(str, Enum):
    all = "all"
    summary = "summary"
    timing = "timing"
    effect = "effect"


ScopeOpt = Annotated[Scope, typer.Option(
    "--scope", help="game: each seat's first move of the game; round: of every round.")]
MinGamesOpt = Annotated[int, typer.Option(
    "--min-games", "-m", metavar="N", help="Leave out openings seen fewer than N times.")]
PartOpt = Annotated[Part, typer.Option(
    "--what", "-w", help="summary (per bot), timing (ply of the take), effect (the model) or all.")]


def openings(run_dirs: RunDirs, format: FormatOpt = Format.table, scope: ScopeOpt = Scope.game,
             min_games: MinGamesOpt = 1) -> None:
    """Openings (first draft move of the game or of each round): win rate and final score."""
    runs = read_runs(run_dirs)
    from analysis.openings import opening_table
    from analysis.records import connect, reading

    if min_games < 1:
        fail(f"--min-games must be at least 1, not {min_games}")
    try:
        with connect(runs) as con, reading(runs):
            frame = opening_table(con, scope=scope.value, min_games=min_games)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if format is Format.csv:
        typer.echo(frame.write_csv(), nl=False)
    elif format is Format.json:
        print_json({"scope": scope.value, "min_games": min_games, "rows": json_rows(frame)})
    else:
        _print(f"openings (first move of each {scope.value}): points per opening, 95% Wilson "
               "intervals; score with a 95% interval", frame, {
                   "players": "num_players", "bot": "bot", "opened": "opened",
                   "source": "source", "taken": "taken", "line": "line", "n": "n",
                   "win": ("win_rate", ".3f"), "95%": ("low", "high", ".2f"),
                   "score": ("mean_score", "score_low", "score_high", ".1f")})


def marker(run_dirs: RunDirs, format: FormatOpt = Format.table, what: PartOpt = Part.all) -> None:
    """The starting-player marker: who takes it, when, its floor cost and its effect on winning."""
    runs = read_runs(run_dirs)
    from analysis import marker as lib
    from analysis.records import connect, reading

    parts = [p for p in (Part.summary, Part.timing, Part.effect) if what in (p, Part.all)]
    fns = {Part.summary: lib.marker_summary, Part.timing: lib.marker_timing,
           Part.effect: lib.marker_effect}
    try:
        with connect(runs) as con, reading(runs):
            frames = {p: fns[p](con) for p in parts}
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if format is Format.csv:
        for i, (part, frame) in enumerate(frames.items()):
            if len(frames) > 1:
                typer.echo(("\n" if i else "") + f"# {part.value}")
            typer.echo(frame.write_csv(), nl=False)
    elif format is Format.json:
        print_json({p.value: json_rows(f) for p, f in frames.items()})
    else:
        layouts = {
            Part.summary: (("marker per bot: take rate (Wilson 95%), ply of the take, floor cost, "
                            "opening the next round and its wall-point edge (95%)"), {
                               "players": "num_players", "bot": "bot", "rounds": "rounds",
                               "takes": "takes", "rate": ("take_rate", ".3f"),
                               "95%": ("low", "high", ".2f"), "ply": ("mean_ply", ".1f"),
                               "floor": ("mean_floor_cost", ".2f"),
                               "opens next": ("open_rate", ".3f"),
                               "next edge": ("next_edge", "edge_low", "edge_high", ".1f")}),
            Part.timing: ("marker timing: draft ply of the round at which it is taken", {
                "players": "num_players", "ply": "ply_in_round", "takes": "takes",
                "share": ("share", ".3f")}),
            Part.effect: (("effect of taking the marker on winning: logistic model with bot, seat "
                           "and round fixed effects; 95% intervals, cluster-robust by deal"), {
                              "players": "num_players", "log-odds": ("estimate", ".3f"),
                              "95%": ("low", "high", ".2f"), "odds ratio": ("odds_ratio", ".2f"),
                              "win prob.": ("marginal_effect", "me_low", "me_high", ".3f"),
                              "raw diff": ("raw_diff", ".3f"), "rows": "rows", "games": "games",
                              "deals": "deals"}),
        }
        for part, frame in frames.items():
            title, columns = layouts[part]
            _print(title, frame, columns)


def _cell(row: dict, spec) -> str:
    """A cell: a column name, (name, fmt), (low, high, fmt) or (mean, low, high, fmt)."""
    if isinstance(spec, str):
        value = row[spec]
        if isinstance(value, bool):
            return "yes" if value else "no"
        return "-" if value is None else f"{value:,}" if isinstance(value, int) else str(value)
    *names, fmt = spec
    values = [row[n] for n in names]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return "-"
    if len(values) == 1:
        return f"{values[0]:{fmt}}"
    if len(values) == 2:
        return f"{values[0]:{fmt}}..{values[1]:{fmt}}"
    return f"{values[0]:{fmt}} ({values[1]:{fmt}}..{values[2]:{fmt}})"


def _print(title: str, frame, columns: dict) -> None:
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, title=title)
    for name in columns:
        table.add_column(name, justify="left" if name in ("bot", "source", "intervention", "metric") else "right",
                         no_wrap=True)
    for row in frame.iter_rows(named=True):
        table.add_row(*(_cell(row, spec) for spec in columns.values()))
    print_table(table)
