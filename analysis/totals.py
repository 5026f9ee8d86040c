"""Per-bot totals of games over whole columns: the one count behind every standings table.

A seat's outcome: a win (rank 1 alone), a shared first (rank 1 held by several seats) or a loss;
its points 1, 1/2 or 0; its score share, its score over all seats' scores at the table (1/players
when nobody scored). A game counts for a bot's rates (``games``) when it seats another bot too: a
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
                  rank: np.ndarray) -> dict[str, np.ndarray]:
    """Per row (a seat of a game): ``players``, ``win``, ``shared``, ``points``, ``share``,
    ``counted`` (the game seats more than one bot) and ``first`` (the row is its bot's first
    seat in the game).

    ``game``: per row its game, numbered 0, 1, ... with the rows of a game next to each other;
    ``bot``: per row its bot as a number; ``score`` and ``rank``: the seat's final score and rank.
    """
    n = int(game[-1]) + 1 if len(game) else 0
    score = score.astype(np.float64)
    first = np.ones(len(game), bool)  # seats of one game are at most 4 rows apart
    for back in range(1, 4):
        same = np.zeros(len(game), bool)
        same[back:] = (game[back:] == game[:-back]) & (bot[back:] == bot[:-back])
        first &= ~same
    players = np.bincount(game, None, n)[game]
    table = np.bincount(game, score, n)[game]
    firsts = np.bincount(game, rank == 1, n)[game]
    win = (rank == 1) & (firsts == 1)
    shared = (rank == 1) & (firsts > 1)
    return {"players": players, "win": win, "shared": shared,
            "points": win + 0.5 * shared,
            "share": np.divide(score, table, out=1.0 / players, where=table != 0),
            "counted": np.bincount(game, first, n)[game] > 1, "first": first}


def bot_totals(game: np.ndarray, bot: np.ndarray, bots: int, score: np.ndarray, rank: np.ndarray,
               faulted: np.ndarray | None = None, sums: dict[str, np.ndarray] | None = None,
               outcome: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Per bot (``bots`` of them, numbered as in ``bot``): ``COUNTS`` and ``SUMS`` over the rows
    (``seat_outcomes``' arguments; ``outcome``: its result, if already made), and the sum of each
    column of ``sums`` over the counted rows.

    ``faulted``: per row, whether its seat forfeited the game. A counted game's fault is the
    faulting seat's bot's; a self-play game's is its bot's, once.
    """
    o = outcome if outcome is not None else seat_outcomes(game, bot, score, rank)
    counted, first = o["counted"], o["first"]
    faulted = np.zeros(len(game), bool) if faulted is None else faulted
    game_faulted = np.bincount(game, faulted, int(game[-1]) + 1 if len(game) else 0)[game] > 0

    def per_bot(weights):
        return np.bincount(bot, weights, bots)

    totals = {
        "seated": per_bot(first), "games": per_bot(counted), "wins": per_bot(counted & o["win"]),
        "shared": per_bot(counted & o["shared"]),
        "losses": per_bot(counted & ~o["win"] & ~o["shared"]),
        "faults": per_bot((counted & faulted) | (~counted & first & game_faulted)),
        "points": per_bot(np.where(counted, o["points"], 0.0)),
        "score": per_bot(np.where(counted, score.astype(np.float64), 0.0)),
        "share": per_bot(np.where(counted, o["share"], 0.0)),
        "rank_sum": per_bot(np.where(counted, rank, 0.0)),
    }
    for key in COUNTS:
        totals[key] = totals[key].astype(np.int64)
    for key, column in (sums or {}).items():
        totals[key] = per_bot(np.where(counted, np.asarray(column, np.float64), 0.0))
    return totals
