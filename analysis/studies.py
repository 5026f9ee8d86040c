"""Strategy studies: the paired effect of an intervention, with what pairing saves and what a league
would have shown (docs/studies.md).

A study run (kinds/study.py) holds, per deal, control games (``games.intervention`` =
``control``) and treatment games (the intervention's label, ``games.study_seat`` its seat),
played on the same deals with the same bot seeds. ``study_pairs`` pairs each treatment game's
studied seat with the same seat of its control game; ``paired_effects`` gives the mean paired
difference in final points and in wins (a shared first counts 1/2), with a 95% bootstrap interval
over deals (analysis/bootstrap.py), the unpaired interval beside it (treatment and control
outcomes resampled independently, as if each game had been played on a deal of its own with
bots of their own seeds) and the ratio of their widths. ``observational`` is the contrast a league shows in the control games: seats whose
base bot happened to make the intervention's choice against the others.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from records.names import STUDY_FILE
from records.store import RunStore

from .bootstrap import percentile_interval, resample_counts
from .marker import _takes
from .openings import first_moves_sql
from .records import OUTCOMES_SQL, columns, require
from .stats import Z95

CONTROL = "control"  # as kinds.study.CONTROL
METRICS = {"points": ("t_score", "c_score"), "win": ("t_win", "c_win")}


def is_study(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the records hold study games (a ``games.intervention`` with a control game)."""
    require(con, "games")
    if "intervention" not in columns(con, "games"):
        return False
    return con.execute(f"SELECT count(*) FROM games WHERE intervention = '{CONTROL}'").fetchall()[0][0] > 0


DESIGN_ID = r"^d[0-9]+-(control|s[0-9]+-(control|i[0-9]+))$"  # kinds.study.study_games's ids


def outside_design(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The ids of the games no study makes: no ``intervention``, a treatment without its
    ``study_seat``, or an id unlike ``study_games``'s (``d<deal>-control``, ``d<deal>-s<seat>-...``)."""
    return [row[0] for row in con.execute(f"""
        SELECT game_id FROM games
        WHERE intervention IS NULL OR (intervention <> '{CONTROL}' AND study_seat IS NULL)
              OR NOT regexp_full_match(game_id, '{DESIGN_ID}')
        ORDER BY game_id""").fetchall()]


def study_pairs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per treatment game: ``run_id``, ``intervention``, ``deal``, ``seat`` (studied),
    the studied seat's final score and points (win 1, shared first 1/2) in the treatment game
    (``t_score``, ``t_win``) and in its control game (``c_score``, ``c_win``), and the control
    game's id ``c_game``. A ValueError when the records hold no study, or games outside its
    design (``outside_design``)."""
    require(con, "games", "results")
    if not is_study(con):
        raise ValueError("not a study run: no control games (games.intervention); run `azul study`")
    stray = outside_design(con)
    if stray:
        raise ValueError(f"the records hold {len(stray):,} games that are not part of a study's design "
                         f"(e.g. {', '.join(stray[:3])}: no intervention, no studied seat, or an id a study "
                         "does not make), added by something other than azul study (such as azul league run "
                         "--resume on a study's folder); the effects would count them, so they are not "
                         "read: play the study again with --fresh, or in another --out")
    query = f"""
        WITH o AS ({OUTCOMES_SQL}),
        s AS (SELECT o.*, g.deal, g.intervention, g.study_seat
              FROM o JOIN games g USING (run_id, game_id)
              WHERE g.intervention IS NOT NULL AND (g.study_seat IS NULL OR o.seat = g.study_seat))
        SELECT t.run_id, t.intervention, t.deal::BIGINT AS deal, t.seat::BIGINT AS seat,
               t.score AS t_score, c.score AS c_score, t.points AS t_win, c.points AS c_win,
               c.game_id AS c_game
        FROM s t JOIN s c ON c.run_id = t.run_id AND c.deal = t.deal AND c.seat = t.seat
                         AND c.intervention = '{CONTROL}'
        WHERE t.intervention <> '{CONTROL}'
        ORDER BY t.intervention, t.run_id, t.deal, t.seat"""
    return pl.from_arrow(con.sql(query).to_arrow_table())


def paired_effects(pairs: pl.DataFrame, times: int = 2000, seed: int = 0,
                   level: float = 0.95) -> pl.DataFrame:
    """Per ``intervention`` and ``metric`` (``points``, ``win``): ``effect`` (mean of treatment
    minus control, per studied seat and game) with its bootstrap ``low``/``high`` over deals,
    ``unpaired_low``/``unpaired_high`` and ``width_ratio`` (unpaired width / paired width),
    ``treatment`` and ``control`` means, ``deals``, ``pairs`` and ``games`` (treatment games
    plus the control games they are paired with)."""
    rows = []
    for (label,), part in pairs.group_by(["intervention"], maintain_order=True):
        deal = part.select(pl.concat_str(["run_id", pl.col("deal").cast(pl.String)], separator="/"))
        _, codes = np.unique(deal.to_series().to_numpy(), return_inverse=True)
        codes = codes.ravel()
        deals = int(codes.max()) + 1
        per_deal = np.bincount(codes, minlength=deals).astype(float)
        draws = resample_counts(deals, times, seed)
        t_rows = resample_counts(part.height, times, seed + 1)
        c_rows = resample_counts(part.height, times, seed + 2)
        games = part.height + part["c_game"].n_unique()
        for metric, (t_col, c_col) in METRICS.items():
            t_values, c_values = part[t_col].to_numpy().astype(float), part[c_col].to_numpy().astype(float)
            t = np.bincount(codes, t_values, deals)
            c = np.bincount(codes, c_values, deals)
            paired = (draws @ (t - c)) / (draws @ per_deal)
            unpaired = (t_rows @ t_values - c_rows @ c_values) / part.height
            low, high = percentile_interval(np.column_stack([paired, unpaired]), level)
            width = high[0] - low[0]
            rows.append({"intervention": label, "metric": metric,
                         "effect": float((t - c).sum() / part.height),
                         "low": float(low[0]), "high": float(high[0]),
                         "unpaired_low": float(low[1]), "unpaired_high": float(high[1]),
                         "width_ratio": float((high[1] - low[1]) / width) if width > 0 else math.nan,
                         "treatment": float(t.sum() / part.height), "control": float(c.sum() / part.height),
                         "deals": deals, "pairs": part.height, "games": games})
    return pl.DataFrame(rows, schema=_SCHEMA)


_SCHEMA = {"intervention": pl.String, "metric": pl.String, "effect": pl.Float64, "low": pl.Float64,
           "high": pl.Float64, "unpaired_low": pl.Float64, "unpaired_high": pl.Float64,
           "width_ratio": pl.Float64, "treatment": pl.Float64, "control": pl.Float64,
           "deals": pl.Int64, "pairs": pl.Int64, "games": pl.Int64}


def deal_differences(pairs: pl.DataFrame, metric: str) -> dict[str, np.ndarray]:
    """Per intervention: each deal's paired difference in ``metric`` (``points`` or ``win``: the
    mean over the deal's studied seats of treatment minus control), in deal order: what a
    sequential study's stopping rule reads (analysis/sequential.py)."""
    t_col, c_col = METRICS[metric]
    out = {}
    for (label,), part in pairs.group_by(["intervention"], maintain_order=True):
        per = part.group_by("run_id", "deal").agg((pl.col(t_col) - pl.col(c_col)).mean().alias("d"))
        out[label] = per.sort("deal", "run_id")["d"].to_numpy().astype(float)
    return out


def sequential_effects(pairs: pl.DataFrame, plan: dict, times: int = 2000, seed: int = 0) -> pl.DataFrame:
    """``paired_effects`` of a study that stops when the answer is known (``plan``: study.json's
    ``sequential``: ``expect``, ``metric``, ``looks``, ``level``, ``width``), each intervention
    read on the deals up to its own stop: for the planned metric the effect and the design's exact
    interval (``interval`` = ``sequential``), with the ``verdict``, the ``stop`` (settled, width or
    max) and the ``expect``; for the other metric the bootstrap over the same deals
    (``interval`` = ``bootstrap``, a description, not the stopping rule's)."""
    from .sequential import Design, Region, sequential_effect

    design, region = Design(tuple(plan["looks"]), plan.get("level", 0.95)), Region.parse(plan["expect"])
    diffs = deal_differences(pairs, plan["metric"])
    frames = []
    for label, values in diffs.items():
        found = sequential_effect(values, design, region, plan.get("width"))
        part = pairs.filter((pl.col("intervention") == label) & (pl.col("deal") < found.deals))
        rows = paired_effects(part, times=times, seed=seed)
        planned = pl.col("metric") == plan["metric"]
        frames.append(rows.with_columns(
            effect=pl.when(planned).then(pl.lit(found.effect)).otherwise(pl.col("effect")),
            low=pl.when(planned).then(pl.lit(found.low)).otherwise(pl.col("low")),
            high=pl.when(planned).then(pl.lit(found.high)).otherwise(pl.col("high")),
            interval=pl.when(planned).then(pl.lit("sequential")).otherwise(pl.lit("bootstrap")),
            verdict=pl.when(planned).then(pl.lit(found.verdict)).otherwise(pl.lit(None, pl.String)),
            stop=pl.lit(found.reason), expect=pl.lit(str(region)), look=pl.lit(found.look)))
    return pl.concat(frames) if frames else paired_effects(pairs, times=times, seed=seed)


def read_study(run_dir: str | Path) -> dict | None:
    """A run folder's ``study.json`` (what it studied), or None."""
    store = RunStore(run_dir)
    return json.loads(store.read_text(STUDY_FILE)) if store.exists(STUDY_FILE) else None


def observational(con: duckdb.DuckDBPyConnection, observe: dict) -> dict[str, dict]:
    """What a league shows, in the study's control games, for one intervention's choice
    (``observe`` as in study.json): per metric, ``effect`` = mean outcome of the (game, seat) or
    (game, round, seat) rows where the base bot made that choice minus the others' (the marker:
    per round; an opening: per game or round, as the intervention's ``when``), a naive normal
    95% ``low``/``high`` (rows taken as independent), and ``rows``. Empty for allow=all."""
    what = observe.get("what")
    if what == "marker":
        rows = f"SELECT g, round, seat, TRUE AS made FROM {_takes(con)}"
        grain = "(SELECT hash(run_id, game_id) AS g, round, seat FROM rounds)"
        keys, made = "g, round, seat", "made" if observe["took"] else "NOT made"
    elif what == "opening":
        conds = [f"{k} = {v!r}" for k, v in (("source", observe["source"]), ("taken", observe["taken"]),
                                              ("line", observe["line"])) if v is not None]
        rows = f"SELECT g, round, seat, {' AND '.join(conds) or 'TRUE'} AS made FROM ({first_moves_sql(observe['when'])})"
        grain, keys, made = None, "g, round, seat", "made"
    else:
        return {}
    require(con, "games", "results", "moves", "rounds")
    source = f"{grain} x LEFT JOIN ({rows}) m USING ({keys})" if grain else f"({rows}) m"
    query = f"""
        WITH o AS ({OUTCOMES_SQL}),
        c AS (SELECT o.g, o.seat, o.score, o.points FROM o JOIN games USING (run_id, game_id)
              WHERE games.intervention = '{CONTROL}' AND (games.study_seat IS NULL OR o.seat = games.study_seat)),
        r AS (SELECT g, seat, coalesce(m.made, FALSE) AS made FROM {source})
        SELECT ({made}) AS made, count(*) AS n, avg(c.score) AS score, var_samp(c.score) AS score_var,
               avg(c.points) AS win, var_samp(c.points) AS win_var
        FROM r JOIN c USING (g, seat) GROUP BY 1"""
    groups = {row[0]: row[1:] for row in con.sql(query).fetchall()}
    out = {}
    for i, metric in enumerate(("points", "win")):
        yes, no = groups.get(True), groups.get(False)
        if not yes or not no:
            out[metric] = {"effect": math.nan, "low": math.nan, "high": math.nan,
                           "rows": sum(g[0] for g in groups.values())}
            continue
        diff = yes[1 + 2 * i] - no[1 + 2 * i]
        se = math.sqrt((yes[2 + 2 * i] or 0) / yes[0] + (no[2 + 2 * i] or 0) / no[0])
        out[metric] = {"effect": diff, "low": diff - Z95 * se, "high": diff + Z95 * se, "rows": yes[0] + no[0]}
    return out


def study_effects(con: duckdb.DuckDBPyConnection, study: dict | None = None, times: int = 2000,
                  seed: int = 0) -> pl.DataFrame:
    """``paired_effects`` of a study run, with the observational contrast of each intervention
    (``obs_effect``, ``obs_low``, ``obs_high``, ``obs_rows``) where ``study`` (its study.json)
    says how a league shows it; a study that stops when the answer is known (its study.json's
    ``sequential``) is read as ``sequential_effects`` does."""
    pairs = study_pairs(con)
    plan = (study or {}).get("sequential")
    effects = (paired_effects(pairs, times=times, seed=seed) if plan is None
               else sequential_effects(pairs, plan, times=times, seed=seed))
    observe = {i["label"]: i["observe"] for i in (study or {}).get("interventions", [])}
    obs = {label: observational(con, o) for label, o in observe.items()}
    extra = [obs.get(row["intervention"], {}).get(row["metric"], {})
             for row in effects.iter_rows(named=True)]
    return effects.with_columns(
        pl.Series("obs_effect", [e.get("effect") for e in extra], pl.Float64),
        pl.Series("obs_low", [e.get("low") for e in extra], pl.Float64),
        pl.Series("obs_high", [e.get("high") for e in extra], pl.Float64),
        pl.Series("obs_rows", [e.get("rows") for e in extra], pl.Int64))
