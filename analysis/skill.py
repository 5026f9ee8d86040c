"""OpenSkill ratings: a second, game-by-game view beside the batch fits.

The ``openskill`` package's Plackett-Luce model updates each bot's ``mu`` (skill) and ``sigma``
(uncertainty) after every game, so, unlike ``fit_elo`` and ``fit_plackett_luce``, the result
depends on the order of the games. Here the order is fixed, by ``run_id`` then ``game_id``
(schedule order), so the table is reproducible. Ties are passed as equal ranks. ``ordinal`` is
``mu - 3 * sigma``, a cautious estimate. There is no Elo column: ``mu`` lives on OpenSkill's own
scale (every bot starts at 25 +- 25/3), and how a difference of ``mu`` turns into a probability
depends on the sigmas of the game, so no fixed factor converts it.

A game that seats one bot more than once (a league's ``self_play`` games: every seat the same
bot) is left out: OpenSkill updates each seat as a separate player, and one rating cannot be
updated as its own opponent. Such a game says nothing about one bot against another anyway; its
seats' results are in ``analysis.stats.seat_advantage`` (``between`` "equal").
"""
from __future__ import annotations

import polars as pl


def openskill_table(results: pl.DataFrame, games: pl.DataFrame, *,
                    num_players: int) -> pl.DataFrame:
    """Per bot (best ``ordinal`` first): games, mu, sigma, ordinal, from the ``num_players``-player
    games of ``results`` that ``games`` lists, taken in (run_id, game_id) order. Games with a bot
    in more than one seat are skipped (not counted in ``games``)."""
    from openskill.models import PlackettLuce

    seats = (results.select("run_id", "game_id", "seat", "bot", "rank")
             .join(games.select("run_id", "game_id"), on=["run_id", "game_id"]))
    per_game = (seats.sort("run_id", "game_id", "seat")
                .group_by("run_id", "game_id", maintain_order=True).agg("bot", "rank")
                .filter(pl.col("bot").list.len() == num_players)
                .filter(pl.col("bot").list.n_unique() == num_players))
    if per_game.height == 0:
        raise ValueError(f"no {num_players}-player games in the records")
    model = PlackettLuce()
    ratings: dict[str, object] = {}
    played: dict[str, int] = {}
    for bots, ranks in per_game.select("bot", "rank").iter_rows():
        teams = [[ratings.setdefault(b, model.rating(name=b))] for b in bots]
        for b, (new,) in zip(bots, model.rate(teams, ranks=list(ranks))):
            ratings[b] = new
            played[b] = played.get(b, 0) + 1
    names = sorted(ratings)
    return pl.DataFrame({
        "bot": names, "games": pl.Series([played[b] for b in names], dtype=pl.Int64),
        "mu": [ratings[b].mu for b in names], "sigma": [ratings[b].sigma for b in names],
        "ordinal": [ratings[b].ordinal() for b in names],
    }).sort("ordinal", descending=True)
