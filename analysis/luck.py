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
from .stats import SEAT_COLUMNS, Z95, clustered_se, deal_sums, design_effects, outcomes, wilson_exprs

RESAMPLES = 200  # deal-bootstrap resamples of the shares' intervals
SEED = 0
COMPONENTS = ("deal", "seat", "bot", "rest")
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
    "upsets": "upset rate: the share of the deals a pair of bots both played on which the weaker "
              "(by win rate) finished ahead of the stronger in every game of the deal.",
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
    upsets: pl.DataFrame | None = None  # weaker, stronger, deals, upsets, upset_rate, low, high, sweeps, sweep_rate
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
        return f"{NEEDS} (no game left)"
    per = f.group_by("deal_key").agg(
        pl.col("bot").n_unique().alias("bots"), pl.col("game").n_unique().alias("games"),
        pl.struct("bot", "order").value_counts().alias("cells"))
    per = per.with_columns(
        pl.col("cells").list.eval(pl.element().struct.field("count").min()).list.first().alias("least"),
        pl.col("cells").list.eval(pl.element().struct.field("count").max()).list.first().alias("most"),
        pl.col("cells").list.len().alias("filled"))
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


def components(s: dict[str, np.ndarray], w: np.ndarray) -> np.ndarray:
    """The variance parts (deal, seat, bot, rest) and the total of the per-deal sums ``s`` with
    each deal counted ``w`` times (1 each: the estimate; a resample's counts: its bootstrap
    value). Method of moments, so a part can come out a little below 0 when it is nil."""
    nb, yb, ns, ys = w @ s["n_db"], w @ s["y_db"], w @ s["n_ds"], w @ s["y_ds"]
    n = nb.sum()
    mu = yb.sum() / n
    a = np.divide(yb, nb, out=np.full_like(yb, mu), where=nb > 0)  # each bot's mean
    c = np.divide(ys, ns, out=np.full_like(ys, mu), where=ns > 0) - mu  # each seat's edge
    total = (w @ s["yy_d"]) / n - mu * mu
    k = w.sum()  # deals in the (re)sample
    n_d, y_d = s["n_db"].sum(axis=1), s["y_db"].sum(axis=1)
    lead = (y_d - n_d * mu) / n  # each deal's pull on the overall mean

    def fixed(counts, sums, means, weights_n):
        """The variance of group means over rows, less their deal-clustered sampling variance."""
        dev = means - mu
        t = np.divide(sums - counts * means, weights_n, out=np.zeros_like(sums),
                      where=weights_n > 0) - lead[:, None]
        noise = (w[:, None] * t * t).sum(axis=0) * k / max(k - 1, 1)
        return float((weights_n / n * (dev * dev - noise)).sum())
    bot = fixed(s["n_db"], s["y_db"], a, nb)
    seat = fixed(s["n_ds"], s["y_ds"], c + mu, ns)
    # the deal: the covariance of a player's residuals (outcome less its bot's mean and its seat's
    # edge) over pairs of different games of the same deal; a player's seat edges sum to 0
    r = s["y_db"] - s["n_db"] * a
    zz = (s["yy_d"] - 2 * s["y_db"] @ a - 2 * s["y_ds"] @ c + s["n_db"] @ (a * a) + s["n_ds"] @ (c * c))
    pairs = w @ (s["n_db"] * (s["n_db"] - 1)).sum(axis=1)
    deal = float(w @ ((r * r).sum(axis=1) - zz)) / pairs
    return np.array([deal, seat, bot, total - deal - seat - bot, total])


def shares(f: pl.DataFrame, players: int, resamples: int = RESAMPLES, seed: int = SEED) -> pl.DataFrame:
    """Per outcome (points, wins) and component (deal, seat, bot, rest): ``share`` of the
    outcome's variance with its 95% deal-bootstrap interval (``low``, ``high``: the percentile
    interval of ``resamples`` resamples of whole deals; NaN with none) and ``variance``."""
    rows = []
    for outcome, column in OUTCOMES.items():
        s = _per_deal(f, column, players)
        deals = len(s["yy_d"])
        est = components(s, np.ones(deals))
        boot = [components(s, w) for batch in resample_batches(deals, resamples, seed) for w in batch]
        samples = np.array([b[:4] / b[4] for b in boot]).reshape(-1, 4)
        low, high = percentile_interval(samples, 0.95)
        for i, name in enumerate(COMPONENTS):
            rows.append({"outcome": outcome, "component": name, "share": est[i] / est[4],
                         "low": low[i], "high": high[i], "variance": est[i]})
    return pl.DataFrame(rows)


# ---------------------------------------------------------------- upsets and the first mover
def upsets(f: pl.DataFrame) -> pl.DataFrame:
    """Per pair of bots that met on a deal, weaker first (the lower win rate at this player count,
    then the name): ``deals`` they both played, ``upsets`` (the weaker finished ahead of the
    stronger in every game of the deal), ``upset_rate`` with its Wilson ``low``/``high`` over
    deals, ``sweeps`` and ``sweep_rate`` (the stronger ahead in every game)."""
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
                               (pl.col("sweeps") / pl.col("deals")).alias("sweep_rate"))
            .rename({"bot": "weaker", "bot_s": "stronger"})
            .sort("weaker", "stronger")
            .select("weaker", "stronger", "deals", "upsets", "upset_rate", "low", "high", "sweeps",
                    "sweep_rate"))


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
