"""Per-bot totals of games over whole columns: the one count behind every standings table.

A seat's outcome: a win (rank 1 alone), a shared first (rank 1 held by several seats) or a loss;
its points 1, 1/2 or 0; its score share, its score over all seats' scores at the table (1/players
when nobody scored). A seat that forfeited the game has a share of 0, whatever it had scored: the
other seats share the whole table, by their scores (equally when none of them scored), so a bot
that forfeits every game at its first move shows a share of 0, not 1/players. A game counts for a bot's rates (``games``) when it seats another bot too: a
game of a bot against copies of itself (a ``self_play`` league) is in its ``seated`` games and its
``faults`` only, as it would pull the bot's rates toward 1/players.

``bot_totals`` sums these per bot. Totals add up, so the league's driver adds the totals of each
batch as it arrives (``tournament.standings.Tally``) and a reader takes them over all the records
(``analysis.stats.standings``): the same numbers, float sums included (``np.bincount`` adds in
row order, so a batch at a time or all at once give the same bits). Pure NumPy, no DataFrame, so
the driver's tally of a batch stays cheap.
"""
from __future__ import annotations

import numpy as np

# the sums per bot of ``bot_totals``: counts, then float sums
COUNTS = ("seated", "games", "wins", "shared", "losses", "faults")
SUMS = ("points", "score", "share", "rank_sum")


def seat_outcomes(game: np.ndarray, bot: np.ndarray, score: np.ndarray,
                  rank: np.ndarray, faulted: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per row (a seat of a game): ``players``, ``win``, ``shared``, ``points``, ``share``,
    ``counted`` (the game seats more than one bot), ``first`` (the row is its bot's first seat in
    the game) and ``score`` (as floats).

    ``game``: per row its game, numbered 0, 1, ... with the rows of a game next to each other;
    ``bot``: per row its bot as a number; ``score`` and ``rank``: the seat's final score and rank;
    ``faulted``: per row, whether its seat forfeited the game (its share is 0).
    """
    n = int(game[-1]) + 1 if len(game) else 0
    score = score.astype(np.float64)
    first = np.ones(len(game), bool)  # seats of one game are at most 4 rows apart
    for back in range(1, 4):
        first[back:] &= (game[back:] != game[:-back]) | (bot[back:] != bot[:-back])
    players = np.bincount(game, None, n)[game]
    kept = np.ones(len(game), bool) if faulted is None else ~np.asarray(faulted, bool)
    table = np.bincount(game, score * kept, n)[game]  # the scores of the seats that did not forfeit
    sharing = np.bincount(game, kept, n)[game]
    top = rank == 1
    alone = np.bincount(game, top, n)[game] == 1
    win, shared = top & alone, top & ~alone
    return {"players": players, "win": win, "shared": shared, "points": win + 0.5 * shared,
            "share": np.where(kept, np.divide(score, table, out=1.0 / np.maximum(sharing, 1),
                                              where=table != 0), 0.0),
            "counted": np.bincount(game, first, n)[game] > 1, "first": first, "score": score}


def bot_totals(game: np.ndarray, bot: np.ndarray, bots: int, score: np.ndarray, rank: np.ndarray,
               faulted: np.ndarray | None = None, sums: dict[str, np.ndarray] | None = None,
               outcome: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Per bot (``bots`` of them, numbered as in ``bot``): ``COUNTS`` and ``SUMS`` over the rows
    (``seat_outcomes``' arguments; ``outcome``: its result, if already made), and the sum of each
    column of ``sums`` over the counted rows.

    ``faulted``: per row, whether its seat forfeited the game (``outcome`` must have been made
    with it). A counted game's fault is the faulting seat's bot's; a self-play game's is its
    bot's, once.
    """
    o = outcome if outcome is not None else seat_outcomes(game, bot, score, rank, faulted)
    counted, first = o["counted"], o["first"]
    rated = np.where(counted, bot, bots)  # the rows of self-play games go to an extra bin, left out

    def per_bot(weights, rows=rated):
        return np.bincount(rows, weights, bots + 1)[:bots]

    games, wins, shared = per_bot(None), per_bot(o["win"]), per_bot(o["shared"])
    faults = np.zeros(bots)
    if faulted is not None and faulted.any():
        game_faulted = np.bincount(game, faulted, int(game[-1]) + 1)[game] > 0
        faults = per_bot((counted & faulted) | (~counted & first & game_faulted), bot)
    totals = {
        "seated": per_bot(first, bot), "games": games, "wins": wins, "shared": shared,
        "losses": games - wins - shared, "faults": faults, "points": wins + 0.5 * shared,
        "score": per_bot(o["score"]), "share": per_bot(o["share"]), "rank_sum": per_bot(rank),
    }
    for key in COUNTS:
        totals[key] = totals[key].astype(np.int64)
    for key, column in (sums or {}).items():
        totals[key] = per_bot(np.asarray(column, np.float64))
    return totals
