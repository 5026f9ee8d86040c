"""Strategy statistics of league records: standings, a head-to-head crosstable, seat advantage,
neighbours (who profits from sitting after whom at 3 and 4 players).

Every rate comes with its number of games ``n`` and a Wilson 95% interval (``low``, ``high``).
A game's outcome for a seat is its *points*: 1 for a win (rank 1 alone), 1/2 for a shared first
place (rank 1 held by more than one seat), 0 otherwise; a rate is points / games. The games of
one deal (played in every seat arrangement) share its luck, so with ``games`` (which names each
game's deal) the Wilson interval is taken at an effective number of games: the games over the
rate's design effect, measured from the spread of the points between deals (``design_effects``;
docs/analysis.md).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from .bootstrap import deal_columns, deal_key
from .totals import bot_totals, seat_outcomes

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials; (nan, nan) when ``n`` is 0."""
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (0.0 if k <= 0 else max(0.0, centre - half)), (1.0 if k >= n else min(1.0, centre + half))


def wilson_exprs(k: str, n: str, prefix: str = "", z: float = Z95,
                 design: str | None = None) -> list[pl.Expr]:
    """``low`` and ``high`` columns of the Wilson interval of columns ``k`` of ``n``; with
    ``design`` (a column of design effects), at the effective number of trials ``n / design``."""
    p = pl.col(k) / pl.col(n)
    nn = pl.col(n).cast(pl.Float64) / (1.0 if design is None else pl.col(design))
    denom = 1.0 + z * z / nn
    centre = (p + z * z / (2 * nn)) / denom
    half = z * (p * (1 - p) / nn + z * z / (4 * nn * nn)).sqrt() / denom
    low = pl.when(pl.col(k) <= 0).then(0.0).otherwise((centre - half).clip(0.0, 1.0))
    high = pl.when(pl.col(k) >= pl.col(n)).then(1.0).otherwise((centre + half).clip(0.0, 1.0))
    return [low.alias(f"{prefix}low"), high.alias(f"{prefix}high")]


def faulted() -> pl.Expr:
    """``faulted``: whether the row's ``seat`` forfeited its game (is its ``fault_seat``, from
    ``games``; false where null). A forfeiting seat's score share is 0 (``analysis.totals``)."""
    return ((pl.col("seat").cast(pl.Int64) == pl.col("fault_seat").cast(pl.Int64)).fill_null(False)
            .alias("faulted"))


def design_effects(o: pl.DataFrame, by: list[str], points: str = "points") -> pl.DataFrame:
    """Per group of ``by``: ``design``, the design effect of its rate (``points`` per row) when
    the rows of one deal (column ``deal_key``) share their luck (``design_expr``)."""
    return deal_sums(o, by, points).select(*by, design_expr())


def deal_sums(o: pl.DataFrame, by: list[str], value: str) -> pl.DataFrame:
    """Per group of ``by``, the per-deal sums of column ``value`` that ``design_expr`` and
    ``clustered_se`` read: ``dn`` rows, ``dy`` the sum, ``dk`` deals, ``dm`` the most rows of one
    deal, and over deals ``dyy`` (y_d^2), ``dyn`` (y_d n_d), ``dnn`` (n_d^2)."""
    per = o.group_by(*by, "deal_key").agg(pl.len().cast(pl.Float64).alias("n_d"),
                                          pl.col(value).cast(pl.Float64).sum().alias("y_d"))
    return per.group_by(*by).agg(
        pl.col("n_d").sum().alias("dn"), pl.col("y_d").sum().alias("dy"),
        pl.len().cast(pl.Float64).alias("dk"), pl.col("n_d").max().alias("dm"),
        (pl.col("y_d") ** 2).sum().alias("dyy"), (pl.col("y_d") * pl.col("n_d")).sum().alias("dyn"),
        (pl.col("n_d") ** 2).sum().alias("dnn"))


def _spread_between_deals(p: pl.Expr) -> pl.Expr:
    """sum_d (y_d - p n_d)^2 from the per-deal sums (``deal_sums``), for the mean ``p``."""
    return pl.col("dyy") - 2 * p * pl.col("dyn") + p * p * pl.col("dnn")


def clustered_se() -> pl.Expr:
    """The standard error of the mean ``dy / dn`` when the rows of one deal share their luck:
    ``sqrt(k / (k - 1) sum_d (y_d - m n_d)^2) / N`` over the per-deal sums (``deal_sums``);
    null with a single deal."""
    n, k = pl.col("dn"), pl.col("dk")
    ss = _spread_between_deals(pl.col("dy") / n).clip(0.0)
    return pl.when(k > 1).then((ss * k / (k - 1)).sqrt() / n).otherwise(None).alias("se")


def design_expr() -> pl.Expr:
    """The design effect of a rate from its per-deal sums (columns ``dn`` rows, ``dy`` points,
    ``dk`` deals, ``dm`` the most rows of one deal, and the sums over deals ``dyy`` of y_d^2,
    ``dyn`` of y_d n_d, ``dnn`` of n_d^2): the deal-clustered variance of the rate,
    ``k / (k - 1) sum_d (y_d - p n_d)^2 / N^2``, over the independent games' ``p (1 - p) / N``.
    It is kept between 1 (never narrower than the plain Wilson interval: a few deals estimate it
    noisily) and the most rows of one deal (every row of a deal alike); where it cannot be
    measured (``p`` 0 or 1, or one deal) it is ``N / k``, each deal counted as one game."""
    n, k, p = pl.col("dn"), pl.col("dk"), pl.col("dy") / pl.col("dn")
    ss = _spread_between_deals(p)
    spread = p * (1 - p) * n
    design = pl.when((spread > 1e-12) & (k > 1)).then(ss * k / (k - 1) / spread).otherwise(n / k)
    return pl.min_horizontal(pl.max_horizontal(design, 1.0), pl.col("dm")).alias("design")


def seats_from_opener(results: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """``results`` with ``seat`` counted from the game's opener (the first mover is seat 0).

    Games open with seat 0, except game two of a two-game series (``games.series_game`` 2),
    which the next seat opens; the models' first-mover and seat terms are about the order of play.
    """
    if "series_game" not in games.columns:
        return results
    opener = games.select("run_id", "game_id", _opener().alias("_opener"))
    n = pl.len().over("run_id", "game_id")
    return (results.join(opener, on=["run_id", "game_id"], how="left")
            .with_columns(((pl.col("seat").cast(pl.Int64) - pl.col("_opener").fill_null(0)) % n)
                          .cast(results.schema["seat"]).alias("seat"))
            .drop("_opener"))


def _opener() -> pl.Expr:
    """The seat that opens a game (of ``games``): 0, or 1 in game two of a series."""
    return pl.col("series_game").fill_null(1).cast(pl.Int64) - 1


SEAT_COLUMNS = ["run_id", "game_id", "seat", "bot", "rank", "score"]  # what a seat's outcome reads


def game_seats(results: pl.DataFrame, games: pl.DataFrame | None,
               columns: Sequence[str] = ()) -> pl.DataFrame:
    """The rows of ``results`` of the games ``games`` lists (all of them without ``games``),
    sorted by run_id, game_id and seat, with that game's ``columns`` of ``games`` and: ``game``,
    its number in that order; ``players``, its rows in ``results``; ``order``, the row's seat
    counted from the opener (``seats_from_opener``; ``seat`` stays as recorded); ``deal_key``,
    its deal (``analysis.bootstrap.deal_key``) as a number. One join on the two string keys:
    what is counted per game then comes from whole columns, without a window over the strings."""
    if games is None:
        keys, cols, opener = results.select("run_id", "game_id").unique(), [], []
    else:
        cols = deal_columns(games)
        opener = [_opener().alias("_opener")] if "series_game" in games.columns else []
        keys = games.select("run_id", "game_id", *dict.fromkeys([*columns, *cols]), *opener)
    # by run_id, then game_id: two stable sorts of one column, a quarter of the time of one by both
    keys = (keys.sort("game_id", maintain_order=True).sort("run_id", maintain_order=True)
            .with_row_index("game")
            .with_columns(deal_key(cols).rank("dense").alias("deal_key"))
            .drop([c for c in cols if c not in columns]))
    seats = results.join(keys, on=["run_id", "game_id"]).sort("game", "seat")
    game = seats["game"].to_numpy()
    players = np.bincount(game)[game] if len(game) else np.zeros(0, np.int64)
    order = seats["seat"].cast(pl.Int64).to_numpy()
    if opener:
        order = np.mod(order - seats["_opener"].to_numpy(), players)
        seats = seats.drop("_opener")
    return seats.with_columns(pl.Series("players", players, pl.Int64),
                              pl.Series("order", order, pl.Int64))


def _known_games(results: pl.DataFrame, games: pl.DataFrame | None) -> pl.DataFrame:
    """``game_seats`` of ``results`` (its rows of the games ``games`` lists), with ``faulted``
    (false everywhere for records without ``fault_seat``)."""
    faults = ["fault_seat"] if games is not None and "fault_seat" in games.columns else []
    results = game_seats(results, games, faults)
    results = results.with_columns(faulted()).drop(faults) if faults else results.with_columns(
        pl.lit(False).alias("faulted"))
    if results.height == 0:
        raise ValueError("no game results in the records")
    return results


def outcomes(results: pl.DataFrame, games: pl.DataFrame | None = None) -> pl.DataFrame:
    """``results`` (as ``game_seats`` gives them: sorted, with ``game``, ``order`` and
    ``deal_key``, the game's deal as a number; the game itself without ``games``) with per seat:
    ``num_players``, ``win`` (rank 1 alone), ``shared`` (rank 1 held by several seats), ``loss``,
    ``points`` (1, 1/2, 0), ``table_score`` (all seats' scores), ``share`` (the score share),
    ``faulted`` and ``counted`` (the game seats more than one bot), from
    ``analysis.totals.seat_outcomes``. With ``games``, only the games that it lists are kept."""
    r = _known_games(results, games)
    game, score = r["game"].to_numpy(), r["score"].to_numpy()
    bot = bot_codes(r["bot"], sorted(r["bot"].unique().to_list()))
    o = seat_outcomes(game, bot, score, r["rank"].to_numpy(), r["faulted"].to_numpy())
    return r.rename({"players": "num_players"}).with_columns(
        pl.Series("win", o["win"]), pl.Series("shared", o["shared"]),
        pl.Series("table_score", np.bincount(game, o["score"])[game].astype(np.int64)),
        pl.Series("share", o["share"]), pl.Series("counted", o["counted"]),
        pl.Series("loss", ~o["win"] & ~o["shared"]), pl.Series("points", o["points"]))


def bot_codes(names: pl.Series, bots: list[str]) -> np.ndarray:
    """Each of ``names`` as its index in ``bots`` (which holds every one of them)."""
    return names.cast(pl.Enum(bots)).to_physical().cast(pl.Int64).to_numpy()


def standings(results: pl.DataFrame, games: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per bot, best first: ``games``, ``wins``, ``shared``, ``losses``, ``win_rate`` (points per
    game) with its Wilson ``low``/``high``, ``score_share`` (the mean over its games of its score
    over all seats' scores), ``mean_score`` with a normal 95% interval (``score_low``/``score_high``),
    ``mean_floor_penalty`` and ``mean_bonus``. Games of a bot against copies of itself (a league
    with ``self_play``) are left out: they are in ``seat_advantage``. The counts and sums are
    ``analysis.totals.bot_totals``, as in the league's own table."""
    r = _known_games(results.select(*SEAT_COLUMNS, "floor_penalty_total", "bonus_points"), games)
    game = r["game"].to_numpy()
    names = sorted(r["bot"].unique().to_list())
    bot = bot_codes(r["bot"], names)
    score = r["score"].cast(pl.Float64).to_numpy()
    outcome = seat_outcomes(game, bot, score, r["rank"].to_numpy(), r["faulted"].to_numpy())
    if not outcome["counted"].any():
        raise ValueError("no game between different bots in the records")
    t = bot_totals(game, bot, len(names), score, r["rank"].to_numpy(), outcome=outcome, sums={
        "score_sq": score * score, "floor": r["floor_penalty_total"].cast(pl.Float64).to_numpy(),
        "bonus": r["bonus_points"].cast(pl.Float64).to_numpy()})
    n = t["games"].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = t["score"] / n
        se = np.sqrt(np.maximum(t["score_sq"] - n * mean * mean, 0.0) / (n - 1)) / np.sqrt(n)
        table = pl.DataFrame({
            "bot": names, "games": t["games"], "wins": t["wins"], "shared": t["shared"],
            "losses": t["losses"], "points": t["points"], "win_rate": t["points"] / n,
            "score_share": t["share"] / n, "mean_score": mean, "score_low": mean - Z95 * se,
            "score_high": mean + Z95 * se, "mean_floor_penalty": t["floor"] / n,
            "mean_bonus": t["bonus"] / n}).filter(pl.col("games") > 0).with_columns(
                pl.col("games", "wins", "shared", "losses").cast(pl.UInt32))
    rows = r.select("bot", "deal_key", pl.Series("points", outcome["points"])).filter(outcome["counted"])
    table = table.join(design_effects(rows, ["bot"]), on="bot").with_columns(
        *wilson_exprs("points", "games", design="design"))
    return table.sort(["win_rate", "mean_score", "bot"], descending=[True, True, False]).select(
        "bot", "games", "wins", "shared", "losses", "win_rate", "low", "high", "score_share",
        "mean_score", "score_low", "score_high", "mean_floor_penalty", "mean_bonus")


def crosstable(results: pl.DataFrame, games: pl.DataFrame | None = None) -> pl.DataFrame:
    """2-player games head to head: per ordered pair (``bot``, ``opponent``) of different bots,
    ``games``, ``wins``, ``shared``, ``losses``, ``score`` (``bot``'s points per game against
    ``opponent``) and its Wilson ``low``/``high``. Each pair appears in both orders."""
    o = (outcomes(results.select(SEAT_COLUMNS), games).filter(pl.col("num_players") == 2)
         .select("game", "seat", "bot", "win", "shared", "loss", "points", "deal_key"))
    if o.height == 0:
        raise ValueError("no 2-player games in the records")
    opp = o.select("game", pl.col("seat").alias("opp_seat"), pl.col("bot").alias("opponent"))
    pairs = (o.join(opp, on="game").filter(pl.col("seat") != pl.col("opp_seat"))
             .filter(pl.col("bot") != pl.col("opponent")))
    table = pairs.group_by("bot", "opponent").agg(
        pl.len().alias("games"), pl.col("win").sum().alias("wins"),
        pl.col("shared").sum().alias("shared"), pl.col("loss").sum().alias("losses"),
        pl.col("points").sum().alias("points"))
    table = table.join(design_effects(pairs, ["bot", "opponent"]), on=["bot", "opponent"])
    return (table.with_columns((pl.col("points") / pl.col("games")).alias("score"),
                               *wilson_exprs("points", "games", design="design"))
            .sort("bot", "opponent")
            .select("bot", "opponent", "games", "wins", "shared", "losses", "score", "low", "high"))


def seat_advantage(results: pl.DataFrame, games: pl.DataFrame | None = None) -> pl.DataFrame:
    """Win rate (points per game) by seat, per player count. Rows with ``between`` "all" count
    every game: first all bots together (``bot`` null), then per bot and seat. Rows with
    ``between`` "equal" count only the games between equal bots (every seat the same bot, as a
    league with ``self_play`` plays them): pooled over the bots (``bot`` null), then per bot;
    there are none when no game seats one bot throughout. Columns: ``num_players``,
    ``between``, ``bot``, ``seat``, ``games``, ``win_rate``, Wilson ``low``/``high``, and
    ``expected`` (1 / num_players, the rate of a seat with no edge between equal players).
    With ``games``, seats are counted from the game's opener: in game two of a series (opened by
    seat 1) the first mover is reported as seat 0."""
    o = (outcomes(results.select(SEAT_COLUMNS), games)
         .with_columns(pl.col("order").alias("seat")))  # counted from the opener
    aggs = [pl.len().alias("games"), pl.col("points").sum().alias("points")]
    none = pl.lit(None, dtype=pl.String).alias("bot")
    equal = o.filter(~pl.col("counted"))
    cols = ["num_players", "between", "bot", "seat", "games", "points", "design"]
    parts = []
    for between, frame in (("all", o), ("equal", equal)):
        if frame.height == 0:
            continue
        label = pl.lit(between).alias("between")
        for by in (["num_players", "seat"], ["num_players", "bot", "seat"]):
            part = frame.group_by(*by).agg(*aggs).join(design_effects(frame, by), on=by)
            parts.append(part.with_columns(label, *([] if "bot" in by else [none])).select(cols))
    table = pl.concat(parts).with_columns(
        pl.col("num_players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
        (pl.col("points") / pl.col("games")).alias("win_rate"),
        *wilson_exprs("points", "games", design="design"),
        (1.0 / pl.col("num_players")).alias("expected"))
    return (table.sort(["num_players", "between", pl.col("bot").is_not_null(), "bot", "seat"])
            .select("num_players", "between", "bot", "seat", "games", "win_rate", "low", "high",
                    "expected"))


def neighbours(results: pl.DataFrame, games: pl.DataFrame | None = None) -> pl.DataFrame:
    """Who profits from sitting after whom, in 3- and 4-player games: per ``num_players``, ``bot``
    and ``before`` (the bot in the seat that moves just before it, seat s - 1, cyclically: the
    one whose leftovers it takes from), ``games``, ``win_rate`` (points per game) with its Wilson
    ``low``/``high``, and ``score_share`` (the mean score share) with a normal 95% interval
    (``share_low``/``share_high``); both intervals count the games of a deal as sharing its luck.
    A row with ``before`` null pools the bot's games after every other bot. Games after a copy of
    itself (self-play) are left out. A ValueError when no 3- or 4-player game is in the records."""
    o = outcomes(results.select(SEAT_COLUMNS), games).filter(pl.col("num_players") >= 3)
    if o.height == 0:
        raise ValueError("no 3- or 4-player games in the records: neighbours are about who plays after whom")
    prev = o.select("game", ((pl.col("seat").cast(pl.Int64) + 1) % pl.col("num_players"))
                    .alias("_seat"), pl.col("bot").alias("before"))
    o = (o.with_columns(pl.col("seat").cast(pl.Int64).alias("_seat"))
         .join(prev, on=["game", "_seat"]).filter(pl.col("bot") != pl.col("before")))
    parts = []
    for by in (["num_players", "bot", "before"], ["num_players", "bot"]):
        part = (o.group_by(*by).agg(pl.len().alias("games"), pl.col("points").sum().alias("points"))
                .join(design_effects(o, by), on=by)
                .join(deal_sums(o, by, "share").select(*by, (pl.col("dy") / pl.col("dn")).alias("score_share"),
                                                        clustered_se()), on=by))
        parts.append(part if "before" in by else part.with_columns(pl.lit(None, pl.String).alias("before")))
    table = pl.concat(parts, how="diagonal").with_columns(
        pl.col("num_players").cast(pl.Int64), (pl.col("points") / pl.col("games")).alias("win_rate"),
        *wilson_exprs("points", "games", design="design"),
        (pl.col("score_share") - Z95 * pl.col("se")).alias("share_low"),
        (pl.col("score_share") + Z95 * pl.col("se")).alias("share_high"))
    return (table.sort(["num_players", "bot", pl.col("before").is_not_null(), "before"])
            .select("num_players", "bot", "before", "games", "win_rate", "low", "high", "score_share",
                    "share_low", "share_high"))


FORFEIT_KINDS = ("error", "illegal", "timeout")  # the terminations of a game a seat forfeited
WITHHOLD_ABOVE = 0.5  # a bot that forfeited more than this share of its games: rating withheld


def faults(results: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Per bot that forfeited a game, most forfeits first: ``games`` (all it played),
    ``forfeits``, one count per kind (``error``, ``illegal``, ``timeout``), ``forfeit_rate``,
    ``withheld`` (the rate is above ``WITHHOLD_ABOVE``: its rating means nothing) and
    ``first_error``, the message of its first forfeit (by run and game id)."""
    schema = {"bot": pl.String, "games": pl.UInt32, "forfeits": pl.UInt32,
              **{k: pl.UInt32 for k in FORFEIT_KINDS}, "forfeit_rate": pl.Float64,
              "withheld": pl.Boolean, "first_error": pl.String}
    if "fault_seat" not in games.columns:
        return pl.DataFrame(schema=schema)
    seats = results.select("run_id", "game_id", pl.col("seat").cast(pl.Int64), "bot")
    lost = (games.filter(pl.col("fault_seat").is_not_null())
            .select("run_id", "game_id", "termination", "error", pl.col("fault_seat").cast(pl.Int64))
            .join(seats, left_on=["run_id", "game_id", "fault_seat"], right_on=["run_id", "game_id", "seat"])
            .sort("run_id", "game_id"))
    per_bot = lost.group_by("bot", maintain_order=True).agg(
        pl.len().alias("forfeits"),
        *((pl.col("termination") == k).sum().alias(k) for k in FORFEIT_KINDS),
        pl.col("error").first().alias("first_error"))
    played = seats.group_by("bot").agg(pl.len().alias("games"))
    table = per_bot.join(played, on="bot").with_columns(
        (pl.col("forfeits") / pl.col("games")).alias("forfeit_rate"))
    table = table.with_columns((pl.col("forfeit_rate") > WITHHOLD_ABOVE).alias("withheld"))
    return table.sort(["forfeits", "bot"], descending=[True, False]).select(list(schema)).cast(schema)
