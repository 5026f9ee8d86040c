"""What a run's reviews say about each bot (``azul review show``, the report's review section;
docs/review.md, "What a review says about a bot").

    rows = reviews_of("runs/quick")                  # the reviews table, one analyser's rows
    per_bot(rows)      # bot, moves, games, accuracy, mean_win_loss, mean_points_loss, blunders_per_game
    where_lost(rows, "round")   # per bot and round; "kind": factory or center, to the floor, the marker

A bot's ``accuracy`` is the mean over its games of its seat's accuracy in the game (the mean of
its moves' ``analysis.review_marks.move_accuracy``), so each game counts once, as lichess shows a
player's accuracy game by game.
"""
from __future__ import annotations

import polars as pl

from .review_marks import move_accuracy

PER_BOT = ("bot", "moves", "games", "accuracy", "mean_win_loss", "mean_points_loss", "blunders_per_game")


def reviews_of(run, analyser: str | None = None) -> pl.DataFrame:
    """The run's ``reviews`` rows by one analyser: ``analyser`` (a spec; the rows whose stored
    label starts with it), else the only one there; a ValueError names the analysers when the run
    holds several and none is chosen, or none."""
    from records.columns import SIDE_SCHEMAS
    from records.store import open_store

    store = open_store(run)
    files = store.part_files("reviews")
    if not files:
        raise ValueError(f"{run}: no reviews there (make them with: azul review run {run})")
    rows = pl.concat([pl.read_parquet(f) for f in files], how="vertical_relaxed")
    rows = rows.select([name for name in SIDE_SCHEMAS["reviews"].names if name in rows.columns])
    labels = sorted(rows["analyser"].unique().to_list())
    if analyser is not None:
        chosen = [label for label in labels if label == analyser or label.startswith(analyser + " ")]
        if not chosen:
            raise ValueError(f"{run}: no reviews by {analyser!r} (reviews there by: {', '.join(labels)})")
    else:
        chosen = labels
        if len({label.split(" ")[0] for label in labels}) > 1:
            raise ValueError(f"{run}: reviews by several analysers ({', '.join(labels)}): choose one with --analyser")
    return rows.filter(pl.col("analyser").is_in(chosen)).sort("game_id", "ply")


def with_accuracy(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with each move's ``accuracy`` (0 to 100) and ``blunder`` (1 or 0)."""
    return rows.with_columns(
        pl.col("win_loss").map_elements(move_accuracy, return_dtype=pl.Float64).alias("accuracy"),
        (pl.col("class") == "blunder").cast(pl.Int64).alias("blunder"))


def per_bot(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per bot (``PER_BOT``), the best accuracy first."""
    moves = with_accuracy(rows)
    games = (moves.group_by("bot", "game_id", "seat")
             .agg(pl.col("accuracy").mean(), pl.col("blunder").sum())
             .group_by("bot").agg(pl.len().alias("games"), pl.col("accuracy").mean(),
                                  pl.col("blunder").mean().alias("blunders_per_game")))
    means = moves.group_by("bot").agg(pl.len().alias("moves"), pl.col("win_loss").mean().alias("mean_win_loss"),
                                      pl.col("points_loss").mean().alias("mean_points_loss"))
    return means.join(games, on="bot").select(PER_BOT).sort(["accuracy", "bot"], descending=[True, False])


KIND = (pl.when(pl.col("source") == "tiling").then(pl.lit("tiling"))
        .when(pl.col("took_marker")).then(pl.lit("center, taking the marker"))
        .otherwise(pl.col("source")) + pl.when(pl.col("to_floor")).then(pl.lit(", to the floor")).otherwise(pl.lit("")))


def where_lost(rows: pl.DataFrame, by: str) -> pl.DataFrame:
    """Per bot and ``round`` (``by="round"``) or kind of move (``by="kind"``: factory or center,
    taking the marker, to the floor): moves, their mean win and points lost, their blunders, and
    the share of the bot's whole win probability lost that falls there (``share``)."""
    if by not in ("round", "kind"):
        raise ValueError(f"by: round or kind, not {by!r}")
    keyed = rows.with_columns(KIND.alias("kind")) if by == "kind" else rows
    totals = keyed.group_by("bot").agg(pl.col("win_loss").sum().alias("_total"))
    return (keyed.group_by("bot", by)
            .agg(pl.len().alias("moves"), pl.col("win_loss").mean().alias("mean_win_loss"),
                 pl.col("points_loss").mean().alias("mean_points_loss"),
                 (pl.col("class") == "blunder").sum().alias("blunders"), pl.col("win_loss").sum().alias("_lost"))
            .join(totals, on="bot")
            .with_columns(pl.when(pl.col("_total") > 0).then(pl.col("_lost") / pl.col("_total"))
                          .otherwise(0.0).alias("share"))
            .drop("_lost", "_total").sort("bot", by))


def game_accuracy(rows: pl.DataFrame) -> pl.DataFrame:
    """Per game and seat: bot, moves, accuracy, blunders (one game's review, or many)."""
    return (with_accuracy(rows).group_by("game_id", "seat", "bot")
            .agg(pl.len().alias("moves"), pl.col("accuracy").mean(), pl.col("blunder").sum().alias("blunders"))
            .sort("game_id", "seat"))
