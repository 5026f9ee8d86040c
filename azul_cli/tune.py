"""``azul tune FILE``: tune a bot's parameters by SPSA over game pairs (docs/tune.md).
``kinds.tune.run_tune`` plays; this module draws the progress line and the outcome.
"""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from .common import (AddressOpt, FreshOpt, NoMlflowOpt, OutOpt, QuietOpt, RunNameOpt, WorkersOpt, fail, os_error_message,
                     print_json, print_referee, referee_text)
from .progress import StatusLine

if TYPE_CHECKING:
    from kinds.tune import TuneOutcome, TuneProgress


class TuneFormat(str, Enum):
    table = "table"
    json = "json"


def tune(file: Annotated[Path, typer.Argument(help="The tune file (YAML; examples/tune.yaml).", metavar="FILE",
                                              show_default=False)],
         out: OutOpt = None, name: RunNameOpt = None, resume: Annotated[bool, typer.Option(
             "--resume", help="Go on with a stopped tune: theta is rebuilt from its records.")] = False,
         fresh: FreshOpt = False, address: AddressOpt = None, workers: WorkersOpt = None,
         no_mlflow: NoMlflowOpt = False, quiet: QuietOpt = False,
         format: Annotated[TuneFormat, typer.Option("--format", "-f", help="table (for people) or json.")]
         = TuneFormat.table) -> None:
    """Tune a bot's parameters by SPSA on paired games, as fishtest tunes chess engines."""
    from tournament.errors import AzulError
    from kinds.tune import league_of, run_tune
    from kinds.tune_config import load_tune_file

    if resume and fresh:
        fail("--resume and --fresh: choose one")
    try:
        config = load_tune_file(file, out=None if out is None else str(out), name=name, workers=workers)
        league = league_of(config, address, not no_mlflow)
    except AzulError as exc:
        fail(str(exc))
    console = Console(highlight=False, markup=False, stderr=format is TuneFormat.json)
    if format is TuneFormat.table:
        console.print(f"tune {config.bot} ({', '.join(p.name for p in config.params)}) at {config.players} "
                      f"players: {config.pairs:,} pairs in {config.steps:,} steps of {config.batch}",
                      soft_wrap=True)
    reasons = print_referee(console, league)
    line = StatusLine(console, progress_text, enabled=not quiet)
    try:
        with line:
            outcome = run_tune(config, resume=resume, fresh=fresh, progress=line.update, league=league,
                               referee_reasons=reasons)
    except (AzulError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, an object store that refuses...
        fail(f"{os_error_message(exc)}; the records written so far are intact: fix that and finish the tune "
             "with --resume")
    if outcome.interrupted:  # values half-way are no tune's result: only where it stands
        d = outcome.as_dict()
        console.print(f"stopped after {d['pairs']:,} of {d['total_pairs']:,} pairs: the same command with --resume "
                      f"goes on ({outcome.run_dir})", soft_wrap=True)
        raise typer.Exit(130)
    if format is TuneFormat.json:
        result = outcome.as_dict()
        result.pop("trajectory")
        print_json({**result, "seconds": round(outcome.seconds, 2),
                    "play_s": round(outcome.summary.play_s, 2), "referee": outcome.summary.referee}, indent=None)
    else:
        _show(console, outcome)
    if outcome.mlflow_error:
        console.print(f"warning: the tune is not in MLflow ({outcome.mlflow_error})", soft_wrap=True)


def progress_text(p: TuneProgress) -> str:
    values = ", ".join(f"{k}={v:.4g}" for k, v in p.values.items())
    return f"step {p.steps:,}/{p.total_steps:,}  {p.pairs:,} pairs  {values}  {p.seconds:.0f} s"


def _show(console: Console, outcome: TuneOutcome) -> None:
    d = outcome.as_dict()
    final = outcome.final()
    console.print(f"{d['pairs']:,} of {d['total_pairs']:,} pairs in {d['steps']:,} steps; final values (mean "
                  f"of the last {d['tail']:.0%} of the steps, with their sd):", soft_wrap=True)
    for name, f in final.items():
        console.print(f"  {name:<12} {d['params'][name]!s:>10}  sd {f['sd']:.3g}  (start {d['start'][name]:g}, "
                      f"last {f['last']:.4g})", soft_wrap=True)
    console.print(f"spec: {d['spec']}", soft_wrap=True)
    console.print("as a league bot:\n" + d["yaml"].rstrip(), soft_wrap=True)
    console.print(f"{outcome.summary.recorded:,} games recorded ({outcome.played:,} by this run, played by "
                  f"{referee_text(outcome.summary.referee)}) in {outcome.seconds:.1f} s; records and the "
                  f"paths' plot (tune.svg): {outcome.run_dir}", soft_wrap=True)
