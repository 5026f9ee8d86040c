"""``azul review run RUN`` and ``azul review show RUN``: the review of a run's recorded games,
move by move, stored with the run (SPEC 11; docs/review.md). ``kinds.review.review_run`` reviews;
this module draws the progress line and the tables.
"""
from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer
from rich.console import Console

from .common import AddressOpt, QuietOpt, fail, os_error_message, print_json, print_table
from .progress import StatusLine

app = typer.Typer(help="Review recorded games move by move: where each was won and lost (docs/review.md).",
                  no_args_is_help=True)

RunArg = Annotated[str, typer.Argument(help="The run: a folder or s3://BUCKET/PREFIX URL with recorded games.",
                                       metavar="RUN", show_default=False)]
AnalyserOpt = Annotated[Optional[str], typer.Option(
    "--analyser", metavar="SPEC", help="The analyser, an MCTS spec with its budget in iterations (default: "
    "mcts-Np:iterations=1000 for N-player games).")]


class RunFormat(str, Enum):
    table = "table"
    json = "json"


class ShowFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


@app.command("run")
def run(run: RunArg,
        game: Annotated[Optional[list[str]], typer.Option(
            "--game", metavar="GAME_ID", help="Review this game (repeat for more); default: every recorded game.")]
        = None,
        analyser: AnalyserOpt = None,
        sample: Annotated[Optional[int], typer.Option(
            "--sample", metavar="N", min=1, help="Review N games drawn from the run (the same N for the same run).")]
        = None,
        workers: Annotated[int, typer.Option(
            "--workers", metavar="N", min=0, help="Games reviewed at once on Ray; 0 reviews in this process.")] = 0,
        address: AddressOpt = None, quiet: QuietOpt = False,
        format: Annotated[RunFormat, typer.Option("--format", "-f", help="table (for people) or json.")]
        = RunFormat.table) -> None:
    """Review a run's games: each move's best move, win probability lost and class, stored as reviews/."""
    from kinds.review import review_run
    from tournament.errors import AzulError

    if game and sample is not None:
        fail("--game and --sample: choose one")
    console = Console(highlight=False, markup=False, stderr=format is RunFormat.json)
    line = StatusLine(console, _progress_text, enabled=not quiet)
    try:
        with line:
            outcome = review_run(run, game, analyser, workers, sample, address, progress=line.update)
    except (AzulError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{os_error_message(exc)}; the games reviewed so far are stored: run the same command again to go on")
    if format is RunFormat.json:
        print_json([{k: r[k] for k in JSON_KEYS} for r in outcome.rows])
        return
    _games_table(console, run, outcome.rows)
    done = f"{outcome.reviewed} game(s) reviewed"
    if outcome.skipped:
        done += f", {outcome.skipped} reviewed before"
    console.print(f"{done}; by {', '.join(outcome.analysers.values())}; stored in {run} as reviews/", soft_wrap=True)
    console.print(f"per bot: azul review show {_quoted(run)}", soft_wrap=True)


JSON_KEYS = ("run_id", "game_id", "ply", "seat", "bot", "move", "best", "win_before", "win_loss", "points_loss",
             "class", "analyser", "round", "wins", "wins_played", "points_best", "points_played", "pv")


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _progress_text(p) -> str:
    rate = f", {p.moves / p.seconds:,.1f} moves/s" if p.seconds > 0 else ""
    return f"reviewed {p.games:,} of {p.total:,} games ({p.moves:,} moves{rate})"


def _games_table(console: Console, run: str, rows: list[dict]) -> None:
    import polars as pl
    from rich import box
    from rich.table import Table

    from analysis.review_show import game_accuracy

    if not rows:
        console.print("no moves reviewed")
        return
    frame = pl.DataFrame(rows)
    table = Table(box=box.SIMPLE_HEAD, title="accuracy per game and seat (0 to 100), and the ply where each game "
                  "turned for its winner")
    for column in ("game", "seat", "bot", "moves", "accuracy", "blunders", "turned at"):
        table.add_column(column, justify="left" if column in ("game", "bot") else "right", overflow="fold")
    turned = turning_points(run, rows)
    for r in game_accuracy(frame).iter_rows(named=True):
        table.add_row(r["game_id"], str(r["seat"]), r["bot"], str(r["moves"]), f"{r['accuracy']:.1f}",
                      str(r["blunders"]), turned.get((r["game_id"], r["seat"]), ""))
    print_table(table, console)


def turning_points(run: str, rows: list[dict]) -> dict[tuple[str, int], str]:
    """``{(game, winning seat): "ply N"}`` for the reviewed games (the results' first place)."""
    from analysis.review_marks import game_turning_point
    from records.read import read_table

    results = read_table(run, "results", ["game_id", "seat", "rank"]).to_pydict()
    winners = {}
    for gid, seat, rank in zip(results["game_id"], results["seat"], results["rank"]):
        if rank == 1:
            winners.setdefault(gid, seat)
    by_game: dict[str, list[dict]] = {}
    for r in rows:
        by_game.setdefault(r["game_id"], []).append(r)
    return {(gid, winners[gid]): f"ply {game_turning_point(sorted(some, key=lambda r: r['ply']), winners[gid])}"
            for gid, some in by_game.items() if gid in winners}


@app.command("show")
def show(run: RunArg, analyser: AnalyserOpt = None,
         format: Annotated[ShowFormat, typer.Option("--format", "-f", help="table, json or csv.")]
         = ShowFormat.table) -> None:
    """Per bot: accuracy, mean losses, blunders per game, and where it loses most (by round, by kind of move)."""
    from analysis.review_show import PER_BOT, per_bot, reviews_of, where_lost

    try:
        rows = reviews_of(run, analyser)
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(os_error_message(exc))
    bots = per_bot(rows)
    if format is ShowFormat.json:
        print_json(bots.to_dicts())
        return
    if format is ShowFormat.csv:
        typer.echo(bots.select(PER_BOT).write_csv(), nl=False)
        return
    from rich import box
    from rich.table import Table

    console = Console(highlight=False, markup=False)
    label = rows["analyser"][0]
    table = Table(box=box.SIMPLE_HEAD, title=f"reviews of {run} by {label}")
    for column in ("bot", "moves", "games", "accuracy", "mean win lost", "mean points lost", "blunders/game"):
        table.add_column(column, justify="left" if column == "bot" else "right", overflow="fold")
    for r in bots.iter_rows(named=True):
        table.add_row(r["bot"], f"{r['moves']:,}", f"{r['games']:,}", f"{r['accuracy']:.1f}",
                      f"{r['mean_win_loss']:.4f}", f"{r['mean_points_loss']:+.2f}", f"{r['blunders_per_game']:.2f}")
    print_table(table, console)
    for by, title in (("kind", "kind of move"), ("round", "round")):
        table = Table(box=box.SIMPLE_HEAD, title=f"where each bot loses, by {title}")
        for column in ("bot", title, "moves", "mean win lost", "mean points lost", "blunders", "share of loss"):
            table.add_column(column, justify="left" if column in ("bot", title) else "right", overflow="fold")
        for r in where_lost(rows, by).iter_rows(named=True):
            table.add_row(r["bot"], str(r[by]), f"{r['moves']:,}", f"{r['mean_win_loss']:.4f}",
                          f"{r['mean_points_loss']:+.2f}", str(r["blunders"]), f"{r['share']:.0%}")
        print_table(table, console)
