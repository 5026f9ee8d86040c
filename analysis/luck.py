"""Luck and skill as numbers: how much of a league's points and wins the deal, the seat and the
player decide (docs/analysis.md, "Luck and skill").

Per player count, on a league whose deals are each played with every bot of the table in every
seat equally often (``balanced`` or ``rotate`` seating on shared deals; ``fully_seated`` checks):

- ``shares``: a variance decomposition of one seat's outcome in one game, for points (the score)
  and for wins (1, 1/2 for a shared first place, 0), into four parts that sum to 1: **deal** (the
  deal's effect on a player, the same in every seat it takes on that deal), **seat** (the seat,
  counted from the game's opener), **bot** (who is playing: skill) and **rest** (everything else:
  the play's own randomness, a deal's favour of one seat, interactions). With 95% intervals from
  the deal bootstrap (``analysis.bootstrap``: whole deals resampled, seeded).
- ``upsets``: per pair of bots, the share of the deals they both played on which the weaker (the
  lower win rate at this player count) finished ahead of the stronger in every game of the deal,
  with a Wilson interval over deals; ``sweeps``, the share on which the stronger did.
- ``first_mover``: the first mover's win rate minus the fair share 1 / players, and its score
  minus its table's mean score, with intervals that count a deal's games as sharing its luck.

A league that is not on shared deals with every seating gets no numbers but a ``refused`` line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .bootstrap import percentile_interval, resample_batches
from .stats import (
    SEAT_COLUMNS,
    Z95,
    clustered_se,
    deal_sums,
    design_effects,
    outcomes,
    wilson_exprs,
)

RESAMPLES = 200  # deal-bootstrap resamples of the shares' intervals
SEED = 0
COMPONENTS = ("deal", "seat", "bot", "rest")
SEAT_LESS_DEAL = "seat - deal"  # a contrast the shares table carries after the components
OUTCOMES = {"points": "score", "wins": "points"}  # the outcome's name -> its column of ``outcomes``
NEEDS = "needs every seating of shared deals"

MEANING = {  # one sentence per number, as the table and the report say it
    "deal": "deal: the share of the variance that the deal decides for a player, the same in every "
            "seat it takes on that deal (the luck of the draw).",
    "seat": "seat: the share that the seat decides, counted from the game's opener (the luck of "
            "the seating).",
    "bot": "bot: the share that who is playing decides (skill).",
    "rest": "rest: the share left to the play's own randomness, a deal's favour of one seat and "
            "interactions (what replaying the same deal and seating could change).",
    "seat - deal": "seat - deal: the seat's share less the deal's, with its own interval (above 0: "
                   "which seat you got swings more than which bag you drew).",
    "upsets": "upset rate: the share of the deals a pair of bots both played on which the weaker "
              "(by win rate) finished ahead of the stronger in every game of the deal; stronger swept: "
              "the share on which the stronger finished ahead in every game.",
    "first_mover": "first mover's edge: the first mover's win rate minus the fair share 1/players "
                   "(and its score minus its table's mean score).",
}


@dataclass
class LuckTable:
    """The luck-and-skill numbers of one player count; ``refused`` says why there are none."""
    num_players: int
    games: int
    deals: int
    bots: list[str]
    refused: str | None = None
    shares: pl.DataFrame | None = None  # outcome, component, share, low, high
    upsets: pl.DataFrame | None = None  # weaker, stronger, deals, upsets, upset_rate, low, high, sweeps, sweep_*
    first_mover: dict = field(default_factory=dict)
    resamples: int = RESAMPLES
    seed: int = SEED

    def as_dict(self) -> dict:
        """The table as plain values (JSON's ``luck`` entries)."""
        def rows(frame):
            return None if frame is None else frame.to_dicts()
        return {"num_players": self.num_players, "games": self.games, "deals": self.deals,
                "bots": self.bots, "refused": self.refused, "shares": rows(self.shares),
                "upsets": rows(self.upsets), "first_mover": self.first_mover or None,
                "resamples": self.resamples, "seed": self.seed}


def luck_tables(results: pl.DataFrame, games: pl.DataFrame, *, resamples: int = RESAMPLES,
                seed: int = SEED) -> list[LuckTable]:
    """One ``LuckTable`` per player count of the records, fewest players first. Deals with a
    forfeited game are left out (a forfeit is no outcome of the play)."""
    o = outcomes(results.select(SEAT_COLUMNS), games)
    bad = o.filter(pl.col("faulted")).select("deal_key").unique()
    o = o.join(bad, on="deal_key", how="anti")
    tables = []
    for n in sorted(o["num_players"].unique().to_list()):
        f = o.filter(pl.col("num_players") == n)
        table = LuckTable(num_players=n, games=f["game"].n_unique(), deals=f["deal_key"].n_unique(),
                          bots=sorted(f["bot"].unique().to_list()), resamples=resamples, seed=seed)
        table.refused = fully_seated(f, n)
        if table.refused is None:
            table.shares = shares(f, n, resamples, seed)
            table.upsets = upsets(f)
        table.first_mover = first_mover(f, n)
        tables.append(table)
    return tables


def fully_seated(f: pl.DataFrame, players: int) -> str | None:
    """None when every deal of ``f`` (the rows of one player count) is played by ``players``
    different bots, each in every seat (from the opener) equally often, and there are at least
    two deals; else the line that says it is not."""
    if f.height == 0:
        return f"{NEEDS}: no game without a forfeit"
    cells = f.group_by("deal_key", "bot", "order").agg(pl.len().alias("count"))
    per = (cells.group_by("deal_key").agg(
        pl.col("bot").n_unique().alias("bots"), pl.len().alias("filled"),
        pl.col("count").min().alias("least"), pl.col("count").max().alias("most"))
        .join(f.group_by("deal_key").agg(pl.col("game").n_unique().alias("games")), on="deal_key"))
    ok = ((pl.col("bots") == players) & (pl.col("filled") == players * players)
          & (pl.col("least") == pl.col("most")) & (pl.col("games") >= 2))
    short = per.filter(~ok).height
    if short:
        return (f"{NEEDS}: {short} of {per.height} deals are not played with every bot in every seat "
                "equally often")
    if per.height < 2:
        return f"{NEEDS}: one deal only"
    return None


# ---------------------------------------------------------------- the decomposition
def _per_deal(f: pl.DataFrame, value: str, players: int) -> dict[str, np.ndarray]:
    """The sums the decomposition reads, per deal: rows and sums of ``value`` per bot and per
    seat, the sum of squares per deal."""
    deal = f["deal_key"].rank("dense").cast(pl.Int64).to_numpy() - 1
    bots = sorted(f["bot"].unique().to_list())
    bot = f["bot"].cast(pl.Enum(bots)).to_physical().cast(pl.Int64).to_numpy()
    seat = f["order"].to_numpy()
    y = f[value].cast(pl.Float64).to_numpy()
    k, b = int(deal.max()) + 1, len(bots)

    def table(col, width, weights):
        out = np.zeros((k, width))
        np.add.at(out, (deal, col), weights)
        return out
    ones = np.ones_like(y)
    return {"n_db": table(bot, b, ones), "y_db": table(bot, b, y), "n_ds": table(seat, players, ones),
            "y_ds": table(seat, players, y), "yy_d": np.bincount(deal, y * y, minlength=k)}


FACTOR_SUMS = ("n", "y", "yy", "yn", "nn", "yY", "yN", "nY", "nN")  # per group: see ``_features``


def _features(s: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, slice]]:
    """Per deal, every product of its sums that the decomposition adds up (a deal's row of a
    (deals, features) matrix, and where each feature sits in it): so that a resample of deals
    is one weighted sum of rows, all resamples one matrix product. Per group of a factor (bot,
    seat), with ``n``, ``y`` its rows and sum in the deal and ``N``, ``Y`` the deal's: ``n``,
    ``y``, ``yy`` (y^2), ``yn``, ``nn``, ``yY``, ``yN``, ``nY``, ``nN``; and per deal ``one``,
    ``sq`` (the sum of squares of the values), ``YY``, ``YN``, ``NN``."""
    n_d, y_d = s["n_db"].sum(axis=1), s["y_db"].sum(axis=1)
    cols, where, at = [], {}, 0

    def put(name, block):
        nonlocal at
        block = block.reshape(len(n_d), -1)
        cols.append(block)
        where[name] = slice(at, at + block.shape[1])
        at += block.shape[1]
    for factor in ("b", "s"):
        n, y = s[f"n_d{factor}"], s[f"y_d{factor}"]
        for name, block in zip(FACTOR_SUMS, (n, y, y * y, y * n, n * n, y * y_d[:, None],
                                             y * n_d[:, None], n * y_d[:, None], n * n_d[:, None])):
            put(f"{factor}.{name}", block)
    for name, block in (("one", np.ones_like(n_d)), ("sq", s["yy_d"]), ("YY", y_d * y_d),
                        ("YN", y_d * n_d), ("NN", n_d * n_d)):
        put(name, block)
    return np.concatenate(cols, axis=1), where


def components(agg: np.ndarray, where: dict[str, slice]) -> np.ndarray:
    """The variance parts (deal, seat, bot, rest) and the total from the features of
    ``_features`` summed over a sample of deals (each deal once: the estimate; a resample's
    counts: its bootstrap value). Method of moments, so a part can come out a little below 0 when
    it is nil."""
    def get(name):
        v = agg[where[name]]
        return v if len(v) > 1 or "." in name else v[0]
    k, sq, big_yy, big_yn, big_nn = (get(x) for x in ("one", "sq", "YY", "YN", "NN"))
    nb, yb = get("b.n"), get("b.y")
    n = nb.sum()
    mu = yb.sum() / n
    lead_sq = (big_yy - 2 * mu * big_yn + mu * mu * big_nn) / (n * n)  # sum_d w (Y - N mu)^2 / N^2

    def fixed(f):
        """For factor ``f``: its group means' deviations from the mean, and the variance of the
        group means over rows less their deal-clustered sampling variance."""
        cn, cy = get(f"{f}.n"), get(f"{f}.y")
        mean = np.divide(cy, cn, out=np.full_like(cy, mu), where=cn > 0)
        inv = np.divide(1.0, cn, out=np.zeros_like(cn), where=cn > 0)
        a_sq = get(f"{f}.yy") - 2 * mean * get(f"{f}.yn") + mean * mean * get(f"{f}.nn")
        a_l = (get(f"{f}.yY") - mu * get(f"{f}.yN") - mean * get(f"{f}.nY") + mean * mu * get(f"{f}.nN"))
        t_sq = a_sq * inv * inv - 2 * a_l * inv / n + lead_sq * (cn > 0)
        noise = t_sq * k / max(k - 1, 1)
        dev = mean - mu
        return mean, a_sq, float((cn / n * (dev * dev - noise)).sum())
    a, r_sq, bot = fixed("b")
    seat_mean, _, seat = fixed("s")
    c = seat_mean - mu
    total = sq / n - mu * mu
    # the deal: the covariance of a player's residuals (outcome less its bot's mean and its seat's
    # edge) over pairs of different games of the same deal; a player's seat edges sum to 0
    zz = sq - 2 * yb @ a - 2 * get("s.y") @ c + nb @ (a * a) + get("s.n") @ (c * c)
    pairs = (get("b.nn") - nb).sum()
    deal = float(r_sq.sum() - zz) / pairs
    return np.array([deal, seat, bot, total - deal - seat - bot, total])


def shares(f: pl.DataFrame, players: int, resamples: int = RESAMPLES, seed: int = SEED) -> pl.DataFrame:
    """Per outcome (points, wins) and component (deal, seat, bot, rest): ``share`` of the
    outcome's variance with its 95% deal-bootstrap interval (``low``, ``high``: the percentile
    interval of ``resamples`` resamples of whole deals; NaN with none) and ``variance``; then
    the contrast ``seat - deal`` (the seat's share less the deal's, its interval from the same
    resamples)."""
    built = [_features(_per_deal(f, column, players)) for column in OUTCOMES.values()]
    feats = np.concatenate([b[0] for b in built], axis=1)  # one product for both outcomes
    width = built[0][0].shape[1]
    boot = [row for batch in resample_batches(len(feats), resamples, seed) for row in batch @ feats]
    rows = []
    for i, (outcome, (own, where)) in enumerate(zip(OUTCOMES, built)):
        part = slice(i * width, (i + 1) * width)
        est = components(own.sum(axis=0), where)
        parts = np.array([b[:4] / b[4] for b in (components(row[part], where) for row in boot)]).reshape(-1, 4)
        samples = np.column_stack([parts, parts[:, 1] - parts[:, 0]])  # the components, then seat - deal
        low, high = percentile_interval(samples, 0.95)
        for j, name in enumerate(COMPONENTS):
            rows.append({"outcome": outcome, "component": name, "share": est[j] / est[4],
                         "low": low[j], "high": high[j], "variance": est[j]})
        rows.append({"outcome": outcome, "component": SEAT_LESS_DEAL, "share": (est[1] - est[0]) / est[4],
                     "low": low[4], "high": high[4], "variance": est[1] - est[0]})
    return pl.DataFrame(rows)


# ---------------------------------------------------------------- upsets and the first mover
def upsets(f: pl.DataFrame) -> pl.DataFrame:
    """Per pair of bots that met on a deal, weaker first (the lower win rate at this player count,
    then the name): ``deals`` they both played, ``upsets`` (the weaker finished ahead of the
    stronger in every game of the deal), ``upset_rate`` with its Wilson ``low``/``high`` over
    deals, ``sweeps`` and ``sweep_rate`` (the stronger ahead in every game) with its own
    (``sweep_low``, ``sweep_high``)."""
    rate = f.group_by("bot").agg(pl.col("points").mean().alias("rate"))
    order = {b: i for i, b in enumerate(rate.sort(["rate", "bot"], descending=[False, False])["bot"])}
    seats = f.select("game", "deal_key", "bot", "rank").with_columns(
        pl.col("bot").replace_strict(order, return_dtype=pl.Int64).alias("strength"))
    pairs = (seats.join(seats, on=["game", "deal_key"], suffix="_s")
             .filter(pl.col("strength") < pl.col("strength_s")))
    per_deal = pairs.group_by("bot", "bot_s", "deal_key").agg(
        (pl.col("rank") < pl.col("rank_s")).all().alias("upset"),
        (pl.col("rank") > pl.col("rank_s")).all().alias("sweep"))
    table = per_deal.group_by("bot", "bot_s").agg(
        pl.len().alias("deals"), pl.col("upset").sum().alias("upsets"), pl.col("sweep").sum().alias("sweeps"))
    return (table.with_columns((pl.col("upsets") / pl.col("deals")).alias("upset_rate"),
                               *wilson_exprs("upsets", "deals"),
                               (pl.col("sweeps") / pl.col("deals")).alias("sweep_rate"),
                               *wilson_exprs("sweeps", "deals", prefix="sweep_"))
            .rename({"bot": "weaker", "bot_s": "stronger"})
            .sort("weaker", "stronger")
            .select("weaker", "stronger", "deals", "upsets", "upset_rate", "low", "high", "sweeps",
                    "sweep_rate", "sweep_low", "sweep_high"))


def first_mover(f: pl.DataFrame, players: int) -> dict:
    """The first mover's edge at this player count over every game of ``f``: ``win_edge`` (its
    win rate less 1 / players) with a Wilson interval at the deal design effect, ``score_edge``
    (its score less its table's mean) with a deal-clustered normal interval, the ``games`` and
    the ``bots`` it covers."""
    if f.height == 0:
        return {}
    first = f.filter(pl.col("order") == 0).with_columns(
        (pl.col("score") - pl.col("table_score") / players).alias("lead"))
    fair = 1.0 / players
    win = (first.select(pl.len().alias("games"), pl.col("points").sum().alias("points"))
           .join(design_effects(first.with_columns(pl.lit(1).alias("one")), ["one"]).drop("one"), how="cross")
           .with_columns(*wilson_exprs("points", "games", design="design")).row(0, named=True))
    lead = deal_sums(first.with_columns(pl.lit(1).alias("one")), ["one"], "lead").select(
        (pl.col("dy") / pl.col("dn")).alias("mean"), clustered_se()).row(0, named=True)
    se = lead["se"]
    return {"games": win["games"], "bots": sorted(f["bot"].unique().to_list()),
            "win_rate": win["points"] / win["games"], "fair": fair,
            "win_edge": win["points"] / win["games"] - fair, "win_low": win["low"] - fair,
            "win_high": win["high"] - fair, "score_edge": lead["mean"],
            "score_low": None if se is None else lead["mean"] - Z95 * se,
            "score_high": None if se is None else lead["mean"] + Z95 * se}


# ---------------------------------------------------------------- in words (the table, the report)
def headline(t: LuckTable) -> str:
    """The block's first line: what it covers, or why it has no numbers."""
    what = f"luck and skill ({t.num_players} players)"
    if t.refused:
        return f"{what}: {t.refused}"
    return (f"{what}: {t.deals:,} deals, {t.games:,} games; shares of the variance of one seat's "
            f"points and wins, 95% intervals from {t.resamples} resamples of whole deals (seed {t.seed})")


def first_mover_line(t: LuckTable) -> str | None:
    """The first mover's edge in one line, naming the bots it covers; None without games."""
    f = t.first_mover
    if not f:
        return None

    def pct(x):
        return "+0.0%" if f"{x:+.1%}" == "-0.0%" else f"{x:+.1%}"
    score = (f"{f['score_edge']:+.1f} points over its table's mean"
             + ("" if f["score_low"] is None else f" (95% {f['score_low']:+.1f} .. {f['score_high']:+.1f})"))
    win = "" if f["win_low"] is None else f" (95% {pct(f['win_low'])} .. {pct(f['win_high'])})"
    return (f"first mover's edge ({t.num_players} players, {f['games']:,} games of "
            f"{', '.join(f['bots'])}): wins {f['win_rate']:.1%} against a fair {f['fair']:.1%}, "
            f"{pct(f['win_edge'])}{win}; scores {score}")


def wide_shares(t: LuckTable) -> pl.DataFrame:
    """The shares one row per component: ``points``, ``points_low``, ``points_high``, ``wins``,
    ``wins_low``, ``wins_high``."""
    frames = [t.shares.filter(pl.col("outcome") == o).select(
        "component", pl.col("share").alias(o), pl.col("low").alias(f"{o}_low"),
        pl.col("high").alias(f"{o}_high")) for o in OUTCOMES]
    return frames[0].join(frames[1], on="component", maintain_order="left")
