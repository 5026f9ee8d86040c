"""Ratings per player count: the 2-player fit for 2 players, Plackett-Luce for 3 and 4.

A rating from 2-player games and one from 4-player games measure different things (and the
Plackett-Luce scale is not the Bradley-Terry one), so the counts are never mixed: each count
present in the records gets its own fit, on its own games only.
"""
from __future__ import annotations

import polars as pl

from .elo import EloFit, check_anchor_value, fit_elo
from .plackett_luce import fit_plackett_luce


def player_counts(results: pl.DataFrame) -> list[int]:
    """The player counts of the games in ``results`` (seats per game), sorted."""
    sizes = results.group_by("run_id", "game_id").agg(pl.len().alias("n"))
    return sorted(sizes["n"].unique().to_list())


def rate_by_players(results: pl.DataFrame, games: pl.DataFrame, *, anchor: str | None = None,
                    anchor_value: float = 0.0, bootstrap: int = 200, seed: int = 0,
                    level: float = 0.95, interval: str = "jackknife") -> dict[int, EloFit]:
    """``{players: fit}`` for every player count in the records, keys sorted.

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
    sizes = results.group_by("run_id", "game_id").agg(pl.len().alias("n"))
    fits: dict[int, EloFit] = {}
    for n in counts:
        keys = sizes.filter(pl.col("n") == n).select("run_id", "game_id")
        part = results.join(keys, on=["run_id", "game_id"])
        here = anchor if anchor is not None and anchor in set(part["bot"].to_list()) else None
        options = dict(anchor=here, anchor_value=anchor_value if here else 0.0,
                       bootstrap=bootstrap, seed=seed, level=level, interval=interval)
        if n == 2:
            fits[n] = fit_elo(part, games, **options)
        else:
            fits[n] = fit_plackett_luce(part, games, num_players=n, **options)
    return fits
