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
from .stats import Z95, design_expr, wilson_exprs

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
    score) with a normal 95% interval ``score_low``/``score_high``. The Wilson interval is taken
    at the effective number of openings (``analysis.stats.design_expr``: the openings of one
    deal, in its seat arrangements and rounds, share its luck). Rows with fewer than
    ``min_games`` openings are left out. Sorted by player count, bot, then most played first."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r} (known: {', '.join(SCOPES)})")
    if min_games < 1:
        raise ValueError(f"min_games must be at least 1, not {min_games}")
    require(con, "games", "results", "moves")
    columns = {row[0] for row in con.sql("DESCRIBE games").fetchall()}
    deal = "concat_ws('/', run_id, \"table\", deal)" if {"table", "deal"} <= columns else "NULL"
    keys = "num_players, bot, opened, source, taken, line"
    # x: a row per opening, its small numbers as TINYINT (2,000,000 rows at a million games) and
    # its deal as the hash of the deal's key (64 bits, as marker._takes' g), looked up per game by g
    query = f"""
        WITH o AS ({OUTCOMES_SQL}), f AS ({first_moves_sql(scope)}),
        deals AS (SELECT hash(run_id, game_id) AS g,
                         hash(coalesce({deal}, concat_ws('/', run_id, game_id))) AS deal_key
                  FROM games),
        x AS (SELECT o.num_players::TINYINT AS num_players, o.bot, f.opened, f.source,
                     f.taken::TINYINT AS taken, f.line::TINYINT AS line, o.points, o.score,
                     deals.deal_key
              FROM f JOIN o USING (g, seat) JOIN deals USING (g)),
        d AS (SELECT {keys}, deal_key, count(*)::DOUBLE AS n_d, sum(points) AS y_d
              FROM x GROUP BY ALL),
        s AS (SELECT {keys}, sum(n_d) AS dn, sum(y_d) AS dy, count(*)::DOUBLE AS dk,
                     max(n_d) AS dm, sum(y_d * y_d) AS dyy, sum(y_d * n_d) AS dyn,
                     sum(n_d * n_d) AS dnn
              FROM d GROUP BY ALL)
        SELECT num_players::BIGINT AS num_players, bot, opened, source, taken::BIGINT AS taken,
               line::BIGINT AS line, count(*) AS n, count(*) FILTER (WHERE points = 1.0) AS wins,
               count(*) FILTER (WHERE points = 0.5) AS shared, sum(points) AS points,
               avg(score) AS mean_score, coalesce(stddev_samp(score), 0.0) AS score_sd,
               any_value(s.dn) AS dn, any_value(s.dy) AS dy, any_value(s.dk) AS dk,
               any_value(s.dm) AS dm, any_value(s.dyy) AS dyy, any_value(s.dyn) AS dyn,
               any_value(s.dnn) AS dnn
        FROM x JOIN s USING ({keys})
        GROUP BY {keys} HAVING count(*) >= {int(min_games)}
    """
    table = pl.from_arrow(con.sql(query).to_arrow_table())
    half = Z95 * pl.col("score_sd") / pl.col("n").cast(pl.Float64).sqrt()
    table = table.with_columns(design_expr()).with_columns(
        (pl.col("points") / pl.col("n")).alias("win_rate"),
        *wilson_exprs("points", "n", design="design"),
        (pl.col("mean_score") - half).alias("score_low"),
        (pl.col("mean_score") + half).alias("score_high"))
    return (table.sort(["num_players", "bot", "n", "opened", "source", "taken", "line"],
                       descending=[False, False, True, True, False, False, False])
            .select("num_players", "bot", "opened", "source", "taken", "line", "n", "wins",
                    "shared", "win_rate", "low", "high", "mean_score", "score_low", "score_high"))
