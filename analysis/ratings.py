"""Ratings per player count: the 2-player fit for 2 players, Plackett-Luce for 3 and 4.

A rating from 2-player games and one from 4-player games measure different things (and the
Plackett-Luce scale is not the Bradley-Terry one), so the counts are never mixed: each count
present in the records gets its own fit, on its own games only.

A bot that forfeited more than half its games (``stats.faults``' ``withheld``) has a rating
that measures its faults, not its play: ``withheld`` names such bots and ``withhold`` blanks
their ratings, the one rule of ``azul elo``, the league's standings and the report; where most
games of a player count were forfeited, its seat edges are withheld too (``edge_withheld``).
"""
from __future__ import annotations

import polars as pl

from . import stats
from .elo import MIN_DEALS, EloFit, check_anchor_value, fit_elo
from .plackett_luce import fit_plackett_luce


def withheld(faults: pl.DataFrame) -> list[str]:
    """The bots whose ratings are withheld (``faults``: ``stats.faults``' frame): more than
    ``stats.WITHHOLD_ABOVE`` of their games forfeited."""
    return faults.filter(pl.col("withheld"))["bot"].to_list()


def withheld_bots(results: pl.DataFrame, games: pl.DataFrame) -> list[str]:
    """``withheld`` of the records' faults."""
    return withheld(stats.faults(results, games))


def intervals_text(fit: EloFit) -> str:
    """What a fit's intervals are, as a table's header says it: the method that made them, or
    that there are none (``bootstrap=0``, or too few deals: ``no_interval``)."""
    if fit.bootstrap == 0:
        return "no intervals (--bootstrap 0)"
    if fit.deals < MIN_DEALS:
        return f"no 95% intervals: too few deals ({_deals(fit)}; an interval takes {MIN_DEALS} or more)"
    how = "a jackknife" if fit.interval == "jackknife" else f"a {fit.interval} bootstrap"
    return f"95% intervals by {how} over deals"


def no_interval(fit: EloFit, short: bool = False) -> str:
    """Why a rating or an edge of ``fit`` has no interval (its ``low`` and ``high`` NaN), in words
    (``short``: as a table's cell says it): the intervals were not asked for, the games come from
    too few deals, or (``analysis.elo.measured``) its results do not vary from deal to deal."""
    if fit.bootstrap == 0:
        return "-" if short else "no interval (--bootstrap 0)"
    if fit.deals < MIN_DEALS:
        return "too few deals" if short else f"too few deals for an interval: {_deals(fit)}, it takes {MIN_DEALS}"
    return "too few games" if short else "too few games for an interval: its results do not vary from deal to deal"


def _deals(fit: EloFit) -> str:
    return f"{fit.deals} deal{'' if fit.deals == 1 else 's'}"


def unbounded_reason(players: int) -> str:
    """Why a bot of ``EloFit.unbounded`` has only a bound for a rating (its interval then has no
    width worth the name: the ridge sets both ends)."""
    return ("won every game or none" if players == 2
            else "finished first alone in every game, or last alone in every game")


def forfeited_by_players(games: pl.DataFrame) -> dict[int, float]:
    """Per player count, the share of its games that a seat forfeited (none without ``fault_seat``)."""
    if "fault_seat" not in games.columns:
        return {}
    share = games.group_by("num_players").agg(pl.col("fault_seat").is_not_null().mean())
    return dict(zip(share["num_players"].to_list(), share["fault_seat"].to_list()))


def edge_withheld(forfeited: dict[int, float], players: int) -> bool:
    """Whether a player count's seat edges are withheld (``forfeited``: ``forfeited_by_players``):
    they mean nothing where most games ended by a forfeit (its timing, not the seat)."""
    return forfeited.get(players, 0.0) > stats.WITHHOLD_ABOVE


def withhold(table: pl.DataFrame, bots: list[str]) -> pl.DataFrame:
    """A ratings table (``EloFit.table``) with the rating, low and high of ``bots`` set to null."""
    hide = pl.col("bot").is_in(bots)
    return table.with_columns(
        pl.when(hide).then(None).otherwise(pl.col(c)).alias(c) for c in ("rating", "low", "high"))


def player_counts(results: pl.DataFrame) -> list[int]:
    """The player counts of the games in ``results`` (seats per game), sorted."""
    sizes = results.group_by("run_id", "game_id").agg(pl.len().alias("n"))
    return sorted(sizes["n"].unique().to_list())


def has_rated_games(results: pl.DataFrame) -> bool:
    """Whether any game of ``results`` is between different bots: a ``self_play`` league's games of
    a bot against copies of itself rate nothing."""
    return bool(results.group_by("run_id", "game_id").agg(pl.col("bot").n_unique() > 1)["bot"].any())


def rate_by_players(results: pl.DataFrame, games: pl.DataFrame, *, anchor: str | None = None,
                    anchor_value: float = 0.0, bootstrap: int = 200, seed: int = 0,
                    level: float = 0.95, interval: str = "jackknife") -> dict[int, EloFit]:
    """``{players: fit}`` for every player count in the records with a game between different
    bots, keys sorted (none: a ``ValueError``, as ``analysis.stats.standings``'s).

    With ``anchor``, each count whose games the anchor bot played puts it at ``anchor_value``;
    a count it did not play is centred on its pool's mean instead. An anchor found in no count
    at all is a ``ValueError``. ``interval``: the method of the intervals (``fit_elo``).
    """
    check_anchor_value(anchor_value)
    counts = player_counts(results)
    if not counts:
        raise ValueError("no games in the records")
    if anchor is not None:
        played = results.filter(pl.col("bot") == anchor).height
        if not played:
            bots = sorted(results["bot"].unique().to_list())
            raise ValueError(f"anchor {anchor!r} is not a bot of these games "
                             f"(bots: {', '.join(bots)})")
    sizes = results.group_by("run_id", "game_id").agg(pl.len().alias("n")) if len(counts) > 1 else None
    fits: dict[int, EloFit] = {}
    for n in counts:
        part = results  # one player count: all of them
        if sizes is not None:
            part = results.join(sizes.filter(pl.col("n") == n).select("run_id", "game_id"),
                                on=["run_id", "game_id"])
        if not has_rated_games(part):
            continue  # only games of a bot against copies of itself (self_play): nothing to rate
        here = anchor if anchor is not None and (part["bot"] == anchor).any() else None
        options = dict(anchor=here, anchor_value=anchor_value if here else 0.0,
                       bootstrap=bootstrap, seed=seed, level=level, interval=interval)
        if n == 2:
            fits[n] = fit_elo(part, games, **options)
        else:
            fits[n] = fit_plackett_luce(part, games, num_players=n, **options)
    if not fits:
        raise ValueError("no game between different bots in the records")
    return fits
