"""The stored reviews of runs, for the readers that show them beside something else (the report's
review section, ``azul replay``'s marks): every analyser's rows, and the analyser to show when a
run holds several (docs/review.md).

    rows = read_reviews(["runs/a", "runs/b"])       # None when no run holds a review
    for spec, some in by_analyser(rows): ...       # the analyser with the most rows first
    game = game_review("runs/a", "t000-d00000-a00")  # one game's review (GameReview), or None

``analysis.review_show.reviews_of`` is the strict reader of ``azul review show``, which refuses to
choose between analysers; here the one with the most reviewed moves is chosen, and the others are
named, so a page that only shows reviews beside its own content never fails for want of a choice.
An analyser is its spec (the stored label's first word), as ``reviews_of`` counts them.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl
import pyarrow.parquet as pq

from records.checks import READ_ERRORS
from records.columns import SIDE_SCHEMAS
from records.store import open_store

from .review_marks import CLASSES, seat_accuracy

TABLE = "reviews"
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}  # a move's class as chess annotators mark it


def read_reviews(runs: Iterable) -> pl.DataFrame | None:
    """Every ``reviews`` row of ``runs`` (folders or URLs), with ``players`` (the seats of the
    game, from ``wins``); None when none of them holds a review. A part that cannot be read
    raises a ValueError naming it."""
    frames = []
    for run in runs:
        for part in open_store(run).part_files(TABLE):
            try:
                frames.append(pl.from_arrow(pq.read_table(part)))
            except READ_ERRORS as exc:
                raise ValueError(f"{part}: a damaged part of {TABLE}/ ({' '.join(str(exc).split())})") from None
    if not frames:
        return None
    rows = pl.concat(frames, how="diagonal_relaxed")
    rows = rows.select([name for name in SIDE_SCHEMAS[TABLE].names if name in rows.columns])
    return rows.with_columns(pl.col("wins").list.len().alias("players"))


def analyser_spec(label: str) -> str:
    """The analyser's spec of a stored label (``mcts-2p:iterations=1000 value-2p@sha256:...``)."""
    return label.split(" ")[0]


def by_analyser(rows: pl.DataFrame) -> list[tuple[str, pl.DataFrame]]:
    """``rows`` split by analyser spec, the one with the most rows first (ties: by spec)."""
    keyed = rows.with_columns(pl.col("analyser").map_elements(analyser_spec, return_dtype=pl.String).alias("_spec"))
    groups = [(spec, part.drop("_spec")) for (spec,), part in keyed.group_by("_spec")]
    return sorted(groups, key=lambda g: (-g[1].height, g[0]))


@dataclass
class GameReview:
    """One game's review by one analyser: its rows by ply, each seat's accuracy and blunders."""
    analyser: str  # the stored label(s), joined by ", "
    moves: dict[int, dict]  # ply -> the review row
    accuracy: dict[int, float]  # seat -> accuracy over the game (0 to 100)
    blunders: dict[int, int]  # seat -> blunders in the game
    others: list[str] = field(default_factory=list)  # other analysers that reviewed the game (specs)


def game_review(run, game_id: str) -> GameReview | None:
    """The review of game ``game_id`` of ``run``, by the analyser that reviewed most of its moves;
    None when the run holds no review of it."""
    rows = read_reviews([run])
    if rows is None:
        return None
    rows = rows.filter(pl.col("game_id") == game_id)
    if rows.height == 0:
        return None
    (_, chosen), *rest = by_analyser(rows)
    chosen = chosen.sort("ply").unique("ply", keep="first", maintain_order=True)
    moves = {r["ply"]: r for r in chosen.iter_rows(named=True)}
    seats = {seat: m for seat, m in seat_marks(list(moves.values()), int(chosen["players"][0])).items() if m["moves"]}
    return GameReview(analyser=", ".join(sorted(chosen["analyser"].unique().to_list())), moves=moves,
                      accuracy={seat: m["accuracy"] for seat, m in seats.items()},
                      blunders={seat: m["blunder"] for seat, m in seats.items()}, others=[spec for spec, _ in rest])


def seat_marks(rows: Sequence[dict], players: int) -> dict[int, dict]:
    """Per seat of one game's review rows: its ``moves``, its ``accuracy`` over the game
    (``review_marks.seat_accuracy``: NaN without a move) and the count of each class (``CLASSES``)."""
    marks = {}
    for seat in range(players):
        mine = [r for r in rows if r["seat"] == seat]
        marks[seat] = {"moves": len(mine), "accuracy": seat_accuracy([r["win_loss"] for r in mine]),
                       **{c: sum(1 for r in mine if r["class"] == c) for c in CLASSES}}
    return marks
