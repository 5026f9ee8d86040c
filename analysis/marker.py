"""The starting-player marker: who takes it, when, what it costs on the floor, what it is worth.

The first take from the centre in a round takes the marker (``moves.took_marker``); it goes on
the taker's leftmost free floor slot and its holder opens the next round (docs/rules.md). All
the work runs in DuckDB over the Parquet files (``analysis.records.connect``); the model is fitted
with NumPy on per-cell counts, so a league of a million games costs a few scans. Definitions and
the model: docs/analysis.md, "The centre marker".
"""
from __future__ import annotations

import math

import duckdb
import numpy as np
import polars as pl

from engine.rules import FLOOR_SLOTS, FLOOR_TOTALS

from .openings import MAX_SEATS
from .records import OUTCOMES_SQL, columns, require
from .stats import Z95, wilson_exprs

ROUND_CAP = 8  # rounds from this one on share one fixed effect in marker_effect
RIDGE = 1e-4  # on the log-odds scale: keeps the fit finite when a bot always wins or never does


def _takes(con: duckdb.DuckDBPyConnection) -> str:
    """A temporary table of every take of the marker, made once per connection from one pass
    over the moves grouped by round: the game, round, taker ``seat``, ``ply_in_round`` (its
    draft ply within the round, 1-based) and ``floor_tiles``: the tiles the taker sent to the
    floor in that round's draft (all of them, before and after the take; the marker not
    counted). Games are keyed by ``g`` = hash(run_id, game_id) (64 bits: a collision among a
    million games has odds of about 1 in 30 million), far cheaper to group and join than the two
    strings. Rows of unrecorded games are dropped by the joins that use it. Its numbers are
    kept as small integers: one row per round of every game (5,000,000 at a million games).

    Every seat's floor tiles of the round are summed at once, seat s's in bits 16s to 16s + 15
    (a round deals at most 36 tiles, far below 2**16), and the taker's are read back from that
    sum: one sum per group instead of one per seat, whose states took 400 MB of the pass at a
    million games."""
    con.execute("""
        CREATE TEMP TABLE IF NOT EXISTS _azul_takes AS
        SELECT g, round::SMALLINT AS round, taker::TINYINT AS seat,
               (take_ply - first_ply + 1)::SMALLINT AS ply_in_round,
               ((floors >> (16 * taker)) & 65535)::SMALLINT AS floor_tiles
        FROM (SELECT hash(run_id, game_id) AS g, round, min(ply) AS first_ply,
                     max(ply) FILTER (WHERE took_marker) AS take_ply,
                     max(seat) FILTER (WHERE took_marker) AS taker,
                     sum(to_floor::BIGINT << (16 * seat)) AS floors
              FROM moves_unchecked WHERE source IS NOT NULL GROUP BY g, round)
        WHERE taker IS NOT NULL""")
    return "_azul_takes"


# What the marker added to its taker's floor penalty that round: the penalty of a floor of T + 1
# pieces minus that of T (T the tiles sent there; at most $slots pieces count). The rules' values
# come as query parameters: $totals, the penalty of 0..7 occupied slots, and $slots.
FLOOR_COST_SQL = """($totals[least(least(t.floor_tiles, $slots)::BIGINT + 1, $slots) + 1]
                     - $totals[least(t.floor_tiles, $slots)::BIGINT + 1])"""
FLOOR_PARAMS = {"totals": list(FLOOR_TOTALS), "slots": FLOOR_SLOTS}


NEXT_ROUND_SQL = '''
        nr AS (  -- each round as seen from the round before: opener and wall points by seat
            SELECT hash(run_id, game_id) AS g, round - 1 AS round, any_value(opener) AS opener,
                   sum(wall_points) AS total, count(*) AS seats, {per_seat}
            FROM rounds GROUP BY g, round),
        nxt AS (  -- per take, the next round if there is one
            SELECT t.g, t.seat, t.ply_in_round, {floor_cost} AS floor_cost,
                   nr.seats IS NOT NULL AS has_next, nr.opener = t.seat AS opens,
                   {own} - (nr.total - {own}) / (nr.seats - 1) AS edge
            FROM t LEFT JOIN nr USING (g, round)),
'''


def marker_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per ``num_players`` and ``bot``: ``rounds`` played, ``takes`` of the marker, ``take_rate``
    (takes per round) with Wilson ``low``/``high``, ``mean_ply`` (draft ply within the round of
    a take, 1 = the round's first move), ``mean_floor_cost`` (what the marker added to the
    taker's floor penalty that round: with T tiles sent to the floor in the round, the penalty
    of T + 1 pieces minus that of T, at most seven counting; 0 when the floor was full anyway),
    ``next_rounds`` (takes followed by another round), ``opened_next`` (the holder
    opened it) and ``open_rate`` = opened_next / takes with Wilson ``open_low``/``open_high``,
    and ``next_edge``: the holder's wall points in the next round minus the other seats' mean
    there, with a normal 95% interval ``edge_low``/``edge_high``."""
    require(con, "games", "results", "moves", "rounds")
    per_seat = ", ".join(f"max(wall_points) FILTER (WHERE seat = {s}) AS wall{s}"
                         for s in range(MAX_SEATS))
    own = "(CASE t.seat " + " ".join(f"WHEN {s} THEN nr.wall{s}" for s in range(MAX_SEATS)) + " END)"
    nxt = NEXT_ROUND_SQL.format(per_seat=per_seat, floor_cost=FLOOR_COST_SQL, own=own)
    query = f"""
        WITH o AS ({OUTCOMES_SQL}),
        t AS (SELECT * FROM {_takes(con)}),
{nxt}        took AS (
            SELECT o.num_players, o.bot, count(*) AS takes, avg(nxt.ply_in_round) AS mean_ply,
                   avg(nxt.floor_cost) AS mean_floor_cost,
                   count(*) FILTER (WHERE nxt.has_next) AS next_rounds,
                   count(*) FILTER (WHERE nxt.opens) AS opened_next,
                   avg(nxt.edge) AS next_edge, stddev_samp(nxt.edge) AS edge_sd,
                   count(nxt.edge) AS edges
            FROM nxt JOIN o USING (g, seat)
            GROUP BY ALL),
        played AS (SELECT o.num_players, o.bot, count(*) AS rounds
                   FROM (SELECT hash(run_id, game_id) AS g, seat FROM rounds) rd
                   JOIN o USING (g, seat) GROUP BY ALL)
        SELECT p.num_players::BIGINT AS num_players, p.bot, p.rounds,
               coalesce(took.takes, 0) AS takes, took.mean_ply, took.mean_floor_cost,
               coalesce(took.next_rounds, 0) AS next_rounds,
               coalesce(took.opened_next, 0) AS opened_next,
               took.next_edge, took.edge_sd, coalesce(took.edges, 0) AS edges
        FROM played p LEFT JOIN took USING (num_players, bot)
    """
    table = pl.from_arrow(con.sql(query, params=FLOOR_PARAMS).to_arrow_table())
    half = Z95 * pl.col("edge_sd") / pl.col("edges").cast(pl.Float64).sqrt()
    table = table.with_columns(
        (pl.col("takes") / pl.col("rounds")).alias("take_rate"), *wilson_exprs("takes", "rounds"),
        (pl.col("opened_next") / pl.col("takes")).alias("open_rate"),
        *wilson_exprs("opened_next", "takes", prefix="open_"),
        (pl.col("next_edge") - half).alias("edge_low"), (pl.col("next_edge") + half).alias("edge_high"))
    return table.sort("num_players", "bot").select(
        "num_players", "bot", "rounds", "takes", "take_rate", "low", "high", "mean_ply",
        "mean_floor_cost", "next_rounds", "opened_next", "open_rate", "open_low", "open_high",
        "next_edge", "edge_low", "edge_high")


def marker_timing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """When the marker is taken: per ``num_players`` and ``ply_in_round`` (the draft ply within
    the round, 1-based), ``takes`` and ``share`` (of that player count's takes)."""
    require(con, "games", "moves")
    query = f"""
        WITH t AS (SELECT * FROM {_takes(con)})
        SELECT g.num_players::BIGINT AS num_players, t.ply_in_round::BIGINT AS ply_in_round,
               count(*) AS takes
        FROM t JOIN (SELECT hash(run_id, game_id) AS g, num_players FROM games) g USING (g)
        GROUP BY ALL
    """
    table = pl.from_arrow(con.sql(query).to_arrow_table())
    return (table.with_columns((pl.col("takes") / pl.col("takes").sum().over("num_players"))
                               .alias("share"))
            .sort("num_players", "ply_in_round"))


def _deal_sql(con: duckdb.DuckDBPyConnection) -> str:
    """A key per deal (``table`` and ``deal`` of a run), or per game where they are missing."""
    if {"table", "deal"} <= set(columns(con, "games")):
        return ('hash(g.run_id, coalesce(g."table"::VARCHAR || \'/\' || g.deal::VARCHAR, '
                'g.game_id))')
    return "hash(g.run_id, g.game_id)"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def marker_effect(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The effect of taking the marker on winning, per ``num_players``: a logistic regression
    over (game, round, seat) rows of ``win ~ took_marker + bot + seat + round`` (fixed effects;
    rounds from ``ROUND_CAP`` on pooled; win = the seat's points in the game, 1, 1/2 or 0).
    Columns: ``estimate`` (log-odds of taking it) with its 95% ``low``/``high`` from
    cluster-robust standard errors by deal, ``odds_ratio``, ``marginal_effect`` (the average
    change in win probability over all rows, taken vs not) with ``me_low``/``me_high`` (delta
    method), ``raw_diff`` (win rate of rows that took it minus of rows that did not: the naive,
    confounded contrast), ``rows``, ``games`` and ``deals``."""
    require(con, "games", "results", "moves", "rounds")
    # The (game, round, seat) rows, kept compact in a temporary table for the two passes (small
    # integers: 10,000,000 rows at a million games; widened again where they leave DuckDB).
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _azul_design AS
        WITH o AS ({OUTCOMES_SQL}),
        t AS (SELECT g, round, seat FROM {_takes(con)}),
        dl AS (SELECT hash(g.run_id, g.game_id) AS g, {_deal_sql(con)} AS deal FROM games g)
        SELECT o.num_players::TINYINT AS num_players, o.bot, rd.seat::TINYINT AS seat,
               least(rd.round, {ROUND_CAP})::TINYINT AS round, t.seat IS NOT NULL AS took,
               o.points AS y, dl.deal
        FROM (SELECT hash(run_id, game_id) AS g, round, seat FROM rounds) rd
        JOIN o USING (g, seat) JOIN dl USING (g) LEFT JOIN t USING (g, round, seat)""")
    try:
        cells = pl.from_arrow(con.sql("""
            SELECT num_players::BIGINT AS num_players, bot, seat::BIGINT AS seat,
                   round::BIGINT AS round, took, count(*) AS n, sum(y) AS y
            FROM _azul_design GROUP BY ALL""").to_arrow_table())
        if cells.height == 0:
            raise ValueError("no rounds in the records")
        counts = pl.from_arrow(con.sql(f"""
            SELECT g.num_players::BIGINT AS num_players, count(*) AS games,
                   count(DISTINCT {_deal_sql(con)}) AS deals
            FROM games g GROUP BY ALL""").to_arrow_table())
        fits = {players: _Fit(part) for (players,), part
                in cells.group_by(["num_players"], maintain_order=True)}
        scores = _deal_scores(con, cells, fits)
    finally:
        con.execute("DROP TABLE IF EXISTS _azul_design")
    rows = []
    for players, fit in sorted(fits.items()):
        part = scores.filter(pl.col("num_players") == players)
        s = part.select(fit.names).fill_null(0.0).to_numpy().astype(float)
        n = counts.filter(pl.col("num_players") == players)
        rows.append({"num_players": players, **fit.report(s),
                     "rows": int(fit.cells["n"].sum()), "games": int(n["games"].item()),
                     "deals": int(n["deals"].item())})
    return pl.DataFrame(rows, schema={
        "num_players": pl.Int64, "estimate": pl.Float64, "low": pl.Float64, "high": pl.Float64,
        "odds_ratio": pl.Float64, "marginal_effect": pl.Float64, "me_low": pl.Float64,
        "me_high": pl.Float64, "raw_diff": pl.Float64, "rows": pl.Int64, "games": pl.Int64,
        "deals": pl.Int64})


def _deal_scores(con, cells: pl.DataFrame, fits: dict) -> pl.DataFrame:
    """Per player count and deal, the sums of the residuals y - p per feature of the model (the
    deal's score vector, for the cluster-robust variance)."""
    probs = pl.concat([f.cells.select("num_players", "bot", "seat", "round", "took", "p")
                       for f in fits.values()])
    sums = ["sum(d.y - p.p) AS f_0", "sum(d.y - p.p) FILTER (WHERE d.took) AS f_1"]
    names = ["1", "took"]
    for kind in ("bot", "seat", "round"):
        for level in cells[kind].unique().sort().to_list():
            value = _quote(level) if kind == "bot" else str(int(level))
            sums.append(f"sum(d.y - p.p) FILTER (WHERE d.{kind} = {value}) AS f_{len(names)}")
            names.append(f"{kind}={level}")
    con.register("_azul_marker_p", probs.to_arrow())
    try:
        scores = pl.from_arrow(con.sql(f"""
            SELECT d.num_players::BIGINT AS num_players, {', '.join(sums)}
            FROM _azul_design d JOIN _azul_marker_p p USING (num_players, bot, seat, round, took)
            GROUP BY d.num_players, d.deal""").to_arrow_table())
    finally:
        con.unregister("_azul_marker_p")
    scores.columns = ["num_players"] + names
    return scores


def _expit(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class _Fit:
    """A weighted logistic regression on the cells of one player count."""

    def __init__(self, cells: pl.DataFrame):
        self.cells = cells
        levels = {kind: cells[kind].unique().sort().to_list() for kind in ("bot", "seat", "round")}
        # Dummies for every level but the first of each factor, after an intercept and ``took``.
        self.names = ["1", "took"] + [f"{kind}={level}" for kind, values in levels.items()
                                      for level in values[1:]]
        self.x = self._design(cells, levels, cells["took"].to_numpy())
        self.x1 = self._design(cells, levels, np.ones(cells.height, dtype=bool))
        self.x0 = self._design(cells, levels, np.zeros(cells.height, dtype=bool))
        self.n = cells["n"].to_numpy().astype(float)
        self.y = cells["y"].to_numpy().astype(float)
        self.beta, self.hessian = self._newton()
        self.cells = cells.with_columns(pl.Series("p", _expit(self.x @ self.beta)))

    @staticmethod
    def _design(cells, levels, took) -> np.ndarray:
        cols = [np.ones(cells.height), took.astype(float)]
        for kind, values in levels.items():
            column = cells[kind].to_numpy()
            cols += [(column == level).astype(float) for level in values[1:]]
        return np.column_stack(cols)

    def _newton(self) -> tuple[np.ndarray, np.ndarray]:
        x, n, y = self.x, self.n, self.y
        beta = np.zeros(x.shape[1])
        ridge = RIDGE * np.eye(x.shape[1])
        for _ in range(100):
            p = _expit(x @ beta)
            grad = x.T @ (y - n * p) - RIDGE * beta
            hessian = (x.T * (n * p * (1 - p))) @ x + ridge
            step = np.linalg.solve(hessian, grad)
            beta = beta + step
            if np.max(np.abs(step)) < 1e-10:
                break
        p = _expit(x @ beta)
        return beta, (x.T * (n * p * (1 - p))) @ x + ridge

    def report(self, scores: np.ndarray) -> dict:
        """Estimates and intervals, given the per-deal score sums (deals x features)."""
        took = self.cells["took"].to_numpy()
        n_took, n_not = self.n[took].sum(), self.n[~took].sum()
        raw = (self.y[took].sum() / n_took - self.y[~took].sum() / n_not
               if n_took and n_not else math.nan)
        beta = self.beta[1]
        p1, p0 = _expit(self.x1 @ self.beta), _expit(self.x0 @ self.beta)
        total = self.n.sum()
        me = float(self.n @ (p1 - p0) / total)
        grad_me = ((self.n * p1 * (1 - p1)) @ self.x1 - (self.n * p0 * (1 - p0)) @ self.x0) / total
        deals = scores.shape[0]
        if not (n_took and n_not) or deals < 2:
            se = se_me = math.nan
            beta = me = math.nan if not (n_took and n_not) else beta
        else:
            bread = np.linalg.inv(self.hessian)
            meat = scores.T @ scores * deals / (deals - 1)
            cov = bread @ meat @ bread
            se = math.sqrt(max(cov[1, 1], 0.0))
            se_me = math.sqrt(max(float(grad_me @ cov @ grad_me), 0.0))
        return {"estimate": beta, "low": beta - Z95 * se, "high": beta + Z95 * se,
                "odds_ratio": math.exp(beta) if not math.isnan(beta) else math.nan,
                "marginal_effect": me, "me_low": me - Z95 * se_me, "me_high": me + Z95 * se_me,
                "raw_diff": raw}
