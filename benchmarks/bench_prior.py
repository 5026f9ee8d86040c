"""The policy prior (issue 46; docs/train.md, "The policy prior"): fitted on the moves a run's bots
played, how well it predicts held-out moves, and what it costs the search.

    python benchmarks/bench_prior.py --run runs/claims/claim-runs/second-mover-2p
    python benchmarks/bench_prior.py --run RUN --save bots/models/value-2p-prior.azv   # the shipped file
    python benchmarks/bench_prior.py --run RUN --value value-3p --spec mcts:evaluator=value,exploration=0.07767,iterations=2000 \
        --prior-spec mcts-3p:iterations=2000                                            # 3 players
    python benchmarks/bench_prior.py --run RUN --targets 400 --targets-out /tmp      # moves played against visits

The run's draft positions (``learn.policy.played_positions``: the features of the legal moves
before each move, the move played as the target) are split by game, even games fitted
(``learn.policy.fit``, the conditional logit of Bradley-Terry's move model) and odd games
checked: printed are the positions, the fit's time, the held-out log loss (nats a move) and
top-1 rate (how often the prior's likeliest move is the one played) of the fit, of greedy's value
alone (weight 1 on ``greedy``, the rest 0) and of the uniform prior, and the weights by feature.
``--save`` writes a model file of the value model ``--value`` with the fitted weights as its
``policy`` section. Then, one core: MCTS iterations a second of ``--spec`` (UCT) and of
``--prior-spec`` (by default ``--spec`` with ``prior=model`` on the saved or shipped
``VALUE-prior`` file), at the opening and at round 2's first move.

``--targets N`` instead compares the two targets the prior can learn from, on the same positions
(every 2nd position before a move of the even games among the run's first N): the move played
(one-hot, free: the records hold it) and the visit shares of a search of ``--spec`` from the
position (what AlphaZero-style training uses; a search a position). Printed: the positions, the
searches' time, and for each target its fit's time and its held-out log loss and top-1 on the
moves played in the odd games; ``--targets-out DIR`` writes each prior as
``DIR/value-2p-prior-{played,visits}.azv`` for a league between them.
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="a run whose recorded games give the moves")
    parser.add_argument("--limit", type=int, default=None, help="the most games read")
    parser.add_argument("--save", help="write the value model with the fitted policy section to this file")
    parser.add_argument("--value", default="value-2p", help="with --save: the value model the file holds")
    parser.add_argument("--spec", default="mcts:evaluator=value,prune=floor,iterations=2000",
                        help="the search timed without the prior (mcts-2p before it had one; with --targets: the "
                        "search whose visit shares are a target)")
    parser.add_argument("--prior-spec", help="the search timed with the prior (default: --spec with the "
                        "saved or shipped model and prior=model)")
    parser.add_argument("--targets", type=int, metavar="N", help="compare moves played and visit shares as targets "
                        "on the run's first N games")
    parser.add_argument("--targets-out", metavar="DIR", help="with --targets: write both priors' model files here")
    args = parser.parse_args()
    if args.targets:
        targets(args)
        return

    import records.store  # noqa: F401 (a run's store)
    from bots.model_container import pack, unpack
    from bots.prior import FEATURES, SECTION, PolicyPrior
    from bots.value_file import model_bytes, read_model
    from learn.policy import fit, log_loss, played_positions, top1

    started = time.perf_counter()
    positions = list(played_positions(args.run, limit=args.limit))
    read = time.perf_counter() - started
    train = [p for g, p in positions if g % 2 == 0]
    test = [p for g, p in positions if g % 2 == 1]
    started = time.perf_counter()
    w = fit(train)
    fitted = time.perf_counter() - started
    print(f"{args.run}: {len(train):,} positions fitted, {len(test):,} checked (read in {read:.1f} s, "
          f"fitted in {fitted:.1f} s)")
    greedy = np.zeros(len(FEATURES))
    greedy[FEATURES.index("greedy")] = 1
    print(f"{'prior':<10} {'log loss':>9} {'top-1':>7}")
    for name, weights in (("fitted", w), ("greedy", greedy), ("uniform", np.zeros(len(FEATURES)))):
        hit = top1(weights, test) if name != "uniform" else np.mean([1 / len(f) for f, _ in test])
        print(f"{name:<10} {log_loss(weights, test):>9.3f} {hit:>7.1%}")
    print("weights: " + ", ".join(f"{n} {x:+.3f}" for n, x in zip(FEATURES, w)))
    model = f"{args.value}-prior"
    players = read_model(model_bytes(args.value))[0]["players"]
    if args.save:
        data = pack(unpack(model_bytes(args.value), args.value).value, {SECTION: PolicyPrior(w, players).section()})
        with open(args.save, "wb") as out:
            out.write(data)
        print(f"saved: {args.save} ({args.value}'s value and the fitted policy)")
        model = args.save
    speeds(args.spec, args.prior_spec or f"{args.spec},model={model},prior=model", players)


def targets(args) -> None:
    """Moves played against visit shares as the prior's target (``--targets``)."""
    import records.store  # noqa: F401 (a run's store)
    from bots import _prior
    from bots.model_container import pack, unpack
    from bots.prior import SECTION, PolicyPrior
    from bots.spec import bot_from_spec
    from bots.value_file import model_bytes
    from engine import Move
    from learn.policy import fit, log_loss, played_positions, top1
    from tournament.replay import walk_games

    bot = bot_from_spec(args.spec, 7)
    played, visits, searching = [], [], 0.0
    for g, (_, walk) in enumerate(walk_games(args.run)):
        if g >= args.targets:
            break
        before = None
        for i, (_, _, _, move, state, _) in enumerate(walk):
            if g % 2 == 0 and move is not None and before is not None and i % 2 == 0:
                codes, features, position = before
                started = time.perf_counter()
                bot.seed = g * 1000 + i
                rows = bot.analyze(position)
                searching += time.perf_counter() - started
                share = np.zeros(len(codes))
                total = sum(r["visits"] for r in rows)
                for r in rows:
                    share[codes.index(Move.parse(r["move"]).code)] = r["visits"] / total
                visits.append((features, share))
                played.append((features, np.eye(len(codes))[codes.index(Move.parse(move).code)]))
            before = (*_prior.features(state), state.clone()) if state.phase == "draft" else None
    test = [p for g, p in played_positions(args.run, limit=args.targets) if g % 2 == 1]
    print(f"{len(played):,} positions of {args.run}'s even games (of its first {args.targets}); the searches "
          f"({args.spec}) took {searching:.1f} s; checked on {len(test):,} moves played in its odd games")
    for name, data in (("played", played), ("visits", visits)):
        started = time.perf_counter()
        w = fit(data)
        print(f"{name:<7} fit {time.perf_counter() - started:.1f} s, held-out log loss {log_loss(w, test):.3f}, "
              f"top-1 {top1(w, test):.1%}")
        if args.targets_out:
            value = unpack(model_bytes("value-2p"), "value-2p").value
            path = f"{args.targets_out}/value-2p-prior-{name}.azv"
            with open(path, "wb") as out:
                out.write(pack(value, {SECTION: PolicyPrior(w, 2).section()}))
            print(f"        written: {path}")


def speeds(spec: str, prior_spec: str, players: int) -> None:
    """Iterations a second of ``spec`` and of ``prior_spec`` (the search with the prior), at a table
    of ``players``' opening and at round 2's first move (round 1 played by greedy)."""
    from bots.spec import bot_from_spec
    from engine import new_game

    state = new_game(players=players, seed=5)
    later = state.clone()
    greedy = bot_from_spec("greedy", 1)
    while later.phase == "draft":
        later.play(greedy.act(later))
    later.deal(seed=7)
    for name, position in (("opening", state), ("round 2's first move", later)):
        rates = []
        for searched in (spec, prior_spec):
            bot = bot_from_spec(searched, 1)
            bot.act(position)
            started = time.perf_counter()
            for _ in range(10):
                bot.act(position)
            rates.append(10 * bot.iterations / (time.perf_counter() - started))
        print(f"{name}: {spec} {rates[0]:,.0f} iterations/s, {prior_spec} {rates[1]:,.0f} "
              f"({rates[1] / rates[0]:.2f}x)")


if __name__ == "__main__":
    main()
