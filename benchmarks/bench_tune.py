"""SPSA measured on the synthetic game (kinds/spsa_simulation.py): the convergence table of
docs/tune.md, the share of seeds whose final values end within a tenth of each span of the optimum.

    python benchmarks/bench_tune.py               # 100 seeds per row (a few minutes)
    python benchmarks/bench_tune.py --seeds 20

Pairs per second of real tunes are measured with the command itself (docs/tune.md, "Measured"):
``azul tune FILE --workers N --no-mlflow --format json`` prints ``pairs`` and ``play_s``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kinds.spsa_simulation import table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="tunes per row (default 100)")
    args = parser.parse_args()
    print(table(seeds=args.seeds))
    print(f"(share of {args.seeds} seeds within a tenth of the span of the optimum; 'all': every parameter)")


if __name__ == "__main__":
    main()
