"""Calibrated win probabilities (issue 45, item 2): the map of analysis/calibration.py fitted on
one half of a set of synthetic games and checked on the other, against the squeezed map (the
negative control), at 2, 3 and 4 players.

    python benchmarks/bench_calibration.py                    # 4,000 games a player count, a few seconds
    python benchmarks/bench_calibration.py --games 20000 --positions 20 --a-true 0.6
    python benchmarks/bench_calibration.py --run runs/luck-2p --analyser mcts-2p:iterations=1000 --every 4
    python benchmarks/bench_calibration.py --run RUN --analyser mcts-2p:iterations=1000 \
        --save bots/models/calibration-2p.json

With ``--run``, the rows are real: every ``--every``-th position before a move of each recorded
game of the run (up to ``--limit`` games), valued for each seat as the review values a position
(kinds/review_move.py: the analyser's choice after one search, then each seat's mean value over a
search of the same budget through that move alone), each seat's outcome its share of first place
(the results table's ranks); the games, in the order of their ids, alternate between the fitted
half and the checked half.
``--save`` writes the fitted map, what it was fitted on (the analyser's spec and ``label``, the
spec with the digests of the models it reads, and its ``settings``: every MCTS parameter written
out, so that a preset's new constant shows too) and its check as the calibration file the review
reads (the shipped ones: bots/models/calibration-Np.json; a test holds their labels and settings to today's presets).

The games are ``analysis.calibration.synthetic_positions``: a true strength per seat and game,
the outcome drawn once per game from their softmax (a tenth of the games sharing first place),
and per position values whose logits are the strengths over ``--a-true`` plus a shift common to
the position's seats, so the calibrated map is a = a_true and the positions of a game share its
outcome. Printed per player count: the positions and games of each half, the fitted ``a`` with its
95% interval clustered by game, then for the fitted and the squeezed map (factor ``--factor``) on
the held-out half: the Brier score, alpha and beta of the calibration regression with their 95%
intervals, the clustered Wald test's chi-square, degrees of freedom and p-value, passed or failed;
and the fitted map's reliability table. Without ``--run`` these are synthetic figures.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from analysis.calibration import check, fit, squeezed, synthetic_positions


def report(players: int, train: dict, test: dict, factor: float, planted: float | None) -> dict:
    """Print the fitted map, the check of it and of the squeezed map, and its reliability table;
    return the map and the checks' figures (what ``--save`` writes)."""
    m = fit(train)
    print(f"{players} players: fitted on {m.positions:,} positions of {m.games:,} games, checked on "
          f"{len(test['won']) // players:,} positions of {len(np.unique(test['game'])):,} other games")
    print(f"  a = {m.a:.3f} (95% {m.a_low:.3f} .. {m.a_high:.3f}"
          + (f"; planted {planted:g})" if planted is not None else ")"))
    p = m.apply_rows(test)
    print(f"  {'map':<9} {'brier':>7} {'alpha':>7} {'alpha 95%':>17} {'beta':>6} {'beta 95%':>15} "
          f"{'chi2':>8} {'df':>2} {'p':>9}")
    checks = {"fitted": check(p, test["won"], test["game"]),
              "squeezed": check(squeezed(p, factor, players), test["won"], test["game"])}
    for name, c in checks.items():
        print(f"  {name:<9} {c.brier:>7.4f} {c.alpha:>+7.3f} {c.alpha_low:>+7.3f} .. {c.alpha_high:>+6.3f} "
              f"{c.beta:>6.3f} {c.beta_low:>6.3f} .. {c.beta_high:>5.3f} {c.chi2:>8.2f} {c.df:>2} "
              f"{c.p_value:>9.3g}  {'passed' if c.passed else 'FAILED'}")
    print(f"  reliability of the fitted map:\n  {'bin':<9} {'count':>7} {'predicted':>9} {'observed':>8} "
          f"{'95%':>15}")
    for r in checks["fitted"].table.iter_rows(named=True):
        print(f"  {r['bin']:.1f}-{r['bin'] + 0.1:.1f}   {r['count']:>7,} {r['predicted']:>9.3f} "
              f"{r['observed']:>8.3f} {r['low']:>6.3f} .. {r['high']:.3f}")
    figures = {name: {"brier": c.brier, "alpha": c.alpha, "alpha_low": c.alpha_low, "alpha_high": c.alpha_high,
                      "beta": c.beta, "beta_low": c.beta_low, "beta_high": c.beta_high, "chi2": c.chi2,
                      "df": c.df, "p_value": c.p_value, "passed": bool(c.passed)} for name, c in checks.items()}
    return {"map": m.to_dict(), "check": figures, "reliability": checks["fitted"].table.to_dicts(),
            "checked_positions": len(test["won"]) // players, "checked_games": int(len(np.unique(test["game"])))}


def reliability_figure() -> str:
    """The shipped maps' reliability diagrams side by side: per player count, each bin's mean
    predicted win probability against the observed rate with its 95% interval (the held-out games)."""
    from analysis.plots import BLUE, GREY, error_bars, figure, to_svg
    from kinds.review_move import calibration_path, shipped_calibration

    counts = [p for p in (2, 3, 4) if calibration_path(p).exists()]
    fig, _ = figure(3.0 * len(counts), 3.1)
    fig.clf()
    axes = fig.subplots(1, len(counts), squeeze=False)[0]
    for ax, players in zip(axes, counts):
        shipped = shipped_calibration(players)
        bins = shipped["reliability"]
        predicted = [b["predicted"] for b in bins]
        observed = [b["observed"] for b in bins]
        ax.plot([0, 1], [0, 1], color=GREY, linewidth=0.8, linestyle="--")
        ax.errorbar(predicted, observed, yerr=error_bars(observed, [b["low"] for b in bins], [b["high"] for b in bins]),
                    fmt="o", color=BLUE, markersize=3, linewidth=0.8)
        fitted = shipped["check"]["fitted"]
        ax.set_title(f"{players} players: a = {shipped['map']['a']:.3f}, slope {fitted['beta']:.2f}, "
                     f"Brier {fitted['brier']:.3f}", fontsize=8)
        ax.set_xlabel("predicted win probability")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("observed win rate (95%)")
    return to_svg(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000, help="synthetic games per player count, half fitted")
    parser.add_argument("--positions", type=int, default=10, help="positions analysed per game")
    parser.add_argument("--a-true", type=float, default=0.8, help="the planted a (below 1: values too confident)")
    parser.add_argument("--factor", type=float, default=0.5, help="the squeezed map's pull towards 1/players")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run", help="a run folder whose recorded games give the rows instead")
    parser.add_argument("--analyser", default="mcts-2p:iterations=1000", help="with --run: the analyser's spec")
    parser.add_argument("--every", type=int, default=4, help="with --run: every N-th position of a game")
    parser.add_argument("--limit", type=int, default=400, help="with --run: the most games read")
    parser.add_argument("--save", help="with --run: write the fitted map and its check to this calibration file")
    parser.add_argument("--figure", metavar="SVG", help="draw the shipped maps' reliability diagrams (their "
                        "held-out bins, from bots/models/calibration-Np.json) into this file and exit")
    args = parser.parse_args()
    if args.figure:
        Path(args.figure).write_text(reliability_figure() + "\n")
        print(f"drawn: {args.figure}")
        return
    if args.run:
        from kinds.review_move import calibration_rows
        from records.store import open_store

        started = time.perf_counter()
        players, rows = calibration_rows(open_store(args.run), args.analyser, args.every, args.limit)
        fitted = rows["game"] % 2 == 0
        print(f"{args.run}, analysed by {args.analyser}: {len(np.unique(rows['position'])):,} positions "
              f"in {time.perf_counter() - started:.0f} s")
        figures = report(players, {k: v[fitted] for k, v in rows.items()}, {k: v[~fitted] for k, v in rows.items()},
                         args.factor, None)
        if args.save:
            command = (f"python benchmarks/bench_calibration.py --run {args.run} --analyser {args.analyser} "
                       f"--every {args.every} --limit {args.limit} --save {args.save}")
            from kinds.review_move import Analyser

            analyser = Analyser.for_table(players, args.analyser, calibrated=False)
            Path(args.save).write_text(json.dumps({"analyser": args.analyser, "label": analyser.label(players),
                                                   "settings": analyser.bot.parameters(),
                                                   "players": players, "run": args.run,
                                                   "every": args.every, "command": command, **figures},
                                                  indent=1) + "\n")
            print(f"saved: {args.save}")
        return
    for players in args.players:
        started = time.perf_counter()
        rows = synthetic_positions(players, args.games, args.positions, args.a_true, args.seed + players)
        fitted = rows["game"] < args.games // 2
        report(players, {k: v[fitted] for k, v in rows.items()}, {k: v[~fitted] for k, v in rows.items()},
               args.factor, args.a_true)
        print(f"  ({time.perf_counter() - started:.1f} s)\n")


if __name__ == "__main__":
    main()
