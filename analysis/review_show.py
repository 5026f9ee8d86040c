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
    """The run's ``reviews`` rows by one analyser (``analysis.review_read.read_reviews``):
    ``analyser``, a spec (the rows whose stored label is it or starts with it) or a whole stored
    label, else the only one there. A ValueError names the analysers when the run holds several
    (two spellings of one spec with different models are two) and none is chosen, or none."""
    from .review_read import read_reviews

    rows = read_reviews([run])
    if rows is None:
        raise ValueError(f"{run}: no reviews there (make them with: azul review run {run})")
    labels = sorted(rows["analyser"].unique().to_list())
    chosen = labels if analyser is None else [
        label for label in labels if label == analyser or label.startswith(analyser + " ")]
    if not chosen:
        raise ValueError(f"{run}: no reviews by {analyser!r} (reviews there by: {'; '.join(labels)})")
    if len(chosen) > 1:
        raise ValueError(f"{run}: reviews by several analysers ({'; '.join(chosen)}): choose one with --analyser "
                         "(a spec, or a whole label in quotes)")
    return rows.filter(pl.col("analyser") == chosen[0]).drop("players").sort("game_id", "ply")


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
