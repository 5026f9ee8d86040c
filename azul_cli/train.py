"""``azul train``: generations of self-play, training a value network and gating it by SPRT
(kinds/train.py plays and trains; this module reads the options and prints each generation)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import AddressOpt, RunNameOpt, WorkersOpt, fail, os_error_message, print_json


def train(config: Annotated[Path, typer.Argument(metavar="CONFIG", help="A train config (YAML), e.g. "
                                                 "examples/train.yaml; docs/train.md lists its fields.")],
          out: Annotated[Optional[Path], typer.Option(
              "--out", metavar="DIR", help="Folder for the run (DIR/<name>/), or s3://BUCKET/PREFIX; default: "
              "the config's out.",
              show_default=False)] = None,
          name: RunNameOpt = None,
          resume: Annotated[bool, typer.Option(
              "--resume", help="Go on with a stopped training run, in the generation it was in.")] = False,
          fresh: Annotated[bool, typer.Option(
              "--fresh", help="Delete this training run's generations, lineage and settings and start it "
              "over.")] = False,
          address: AddressOpt = None, workers: WorkersOpt = None,
          no_mlflow: Annotated[bool, typer.Option("--no-mlflow", help="Do not log the run to MLflow.")] = False,
          ) -> None:
    """Train the MCTS bot's learned value: self-play, train on a window, gate (an SPRT at 2 players, a Plackett-Luce league at 3 and 4), per generation."""
    from kinds.train import load_train_config, run_train
    from tournament.errors import AzulError
    from tournament.runner import store_of

    try:
        c = load_train_config(config, out=None if out is None else str(out), name=name, address=address,
                              workers=workers,
                              mlflow=False if no_mlflow else None)
        lineage = run_train(c, resume=resume, fresh=fresh, log=lambda line: typer.echo(line))
    except (AzulError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, a full disk...
        fail(f"{os_error_message(exc)}; the generations written so far are intact: fix that and go on with "
             "--resume")
    accepted = [r["generation"] for r in lineage if r["accepted"]]
    typer.echo(f"lineage: generations {accepted} accepted; the current model: "
               f"{[r for r in lineage if r['accepted']][-1]['model']}")
    print_json({"run_dir": str(store_of(c)), "generations": len(lineage) - 1}, indent=None)
