"""Openings: each seat's first draft move of a game (or of every round), and how it did.

An opening is described by its source kind (``factory`` or ``centre``), the number of tiles
taken and the line they went to (1-5, 0 for the floor). The aggregation runs in DuckDB over the
Parquet files (see ``analysis.records.connect``), one pass over the moves; only the small table
comes back. See docs/analysis.md, "Openings".
"""
from __future__ import annotations

import duckdb
import polars as pl

from .records import OUTCOMES_SQL, require
from .stats import Z95, wilson_exprs

SCOPES = ("game", "round")

# A draft move's (source, taken, line) as one integer, cheap to carry through an aggregate:
# centre + 2 * line + 20 * taken (line 0 for the floor; at most 5, so 2 * line + 1 < 20).
MOVE_CODE_SQL = "(CASE WHEN source = 'center' THEN 1 ELSE 0 END + 2 * coalesce(line, 0) + 20 * taken)"
MAX_SEATS = 4


def first_moves_sql(scope: str) -> str:
    """Rows (g, round, seat, source, taken, line, opened) of every seat's first
    draft move of the game (``scope="game"``) or of every round (``"round"``).

    One pass over the moves, grouped by round, keeps per seat its first draft ply and move; the
    seat whose first ply is the round's first opened the round. Games are keyed by
    ``g`` = hash(run_id, game_id), cheaper to group and join than the two strings (as in
    ``analysis.records.OUTCOMES_SQL``); rows of unrecorded games are dropped by that join.
    """
    where = "source IS NOT NULL" + (" AND round = 1" if scope == "game" else "")
    per_seat = ", ".join(
        f"min(ply) FILTER (WHERE seat = {s}) AS ply{s}, "
        f"arg_min({MOVE_CODE_SQL}, ply) FILTER (WHERE seat = {s}) AS move{s}"
        for s in range(MAX_SEATS))

    def pick(col: str) -> str:  # the column of the row's seat
        return "CASE s.seat " + " ".join(f"WHEN {i} THEN r.{col}{i}" for i in range(MAX_SEATS)) + " END"

    return f"""
        SELECT g, round, seat,
               CASE WHEN code % 2 = 1 THEN 'centre' ELSE 'factory' END AS source,
               code // 20 AS taken, (code % 20) // 2 AS line, ply = first_ply AS opened
        FROM (SELECT r.g, r.round, s.seat, r.first_ply,
                     {pick('ply')} AS ply, {pick('move')} AS code
              FROM (SELECT hash(run_id, game_id) AS g, round, min(ply) AS first_ply, {per_seat}
                    FROM moves_unchecked WHERE {where} GROUP BY g, round) r
              CROSS JOIN (SELECT range AS seat FROM range({MAX_SEATS})) s)
        WHERE ply IS NOT NULL"""


def opening_table(con: duckdb.DuckDBPyConnection, *, scope: str = "game",
                  min_games: int = 1) -> pl.DataFrame:
    """Openings per ``num_players``, ``bot``, ``opened`` (the seat moved first), ``source``,
    ``taken`` and ``line``: ``n`` (openings behind the row: one per seat and game, or per seat
    and round with ``scope="round"``), ``wins``, ``shared``, ``win_rate`` (points per opening:
    win 1, shared first 1/2) with its Wilson 95% ``low``/``high``, and ``mean_score`` (the final
    score) with a normal 95% interval ``score_low``/``score_high``. Rows with fewer than
    ``min_games`` openings are left out. Sorted by player count, bot, then most played first."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r} (known: {', '.join(SCOPES)})")
    if min_games < 1:
        raise ValueError(f"min_games must be at least 1, not {min_games}")
    require(con, "games", "results", "moves")
    query = f"""
        WITH o AS ({OUTCOMES_SQL}), f AS ({first_moves_sql(scope)})
        SELECT o.num_players::BIGINT AS num_players, o.bot, f.opened, f.source,
               f.taken::BIGINT AS taken, f.line::BIGINT AS line,
               count(*) AS n, count(*) FILTER (WHERE o.points = 1.0) AS wins,
               count(*) FILTER (WHERE o.points = 0.5) AS shared, sum(o.points) AS points,
               avg(o.score) AS mean_score, coalesce(stddev_samp(o.score), 0.0) AS score_sd
        FROM f JOIN o USING (g, seat)
        GROUP BY ALL HAVING count(*) >= {int(min_games)}
    """
    table = pl.from_arrow(con.sql(query).to_arrow_table())
    half = Z95 * pl.col("score_sd") / pl.col("n").cast(pl.Float64).sqrt()
    table = table.with_columns((pl.col("points") / pl.col("n")).alias("win_rate"),
                               *wilson_exprs("points", "n"),
                               (pl.col("mean_score") - half).alias("score_low"),
                               (pl.col("mean_score") + half).alias("score_high"))
    return (table.sort(["num_players", "bot", "n", "opened", "source", "taken", "line"],
                       descending=[False, False, True, True, False, False, False])
            .select("num_players", "bot", "opened", "source", "taken", "line", "n", "wins",
                    "shared", "win_rate", "low", "high", "mean_score", "score_low", "score_high"))
