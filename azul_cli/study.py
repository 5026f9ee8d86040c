"""``azul study marker|openings|run|show``: strategy studies by intervention (docs/studies.md).

Parses the options, plays the study with ``kinds.study.run_study`` (the league driver: Ray,
Parquet, ``--resume``), reads the effects with ``analysis.studies`` and prints them; ``--format
json`` prints SPEC 8's list (one object per intervention and metric).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import (Format, FormatOpt, NoMlflowOpt, Players, QuietOpt, Variant, VariantOpt, fail, json_rows,
                     os_error_message, print_json)

app = typer.Typer(name="study", no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="What a choice is worth, measured on the same deals: treatment vs control.")

BotOpt = Annotated[str, typer.Option("--bot", metavar="SPEC", help="The base bot (a spec, docs/bots.md).")]
DealsOpt = Annotated[int, typer.Option("--deals", min=1, help="Deals; each plays control and every treatment.")]
OutOpt = Annotated[Path, typer.Option("--out", metavar="DIR", help="Records go to DIR/<name>/ (a folder, or "
                                      "s3://BUCKET/PREFIX).")]
NameOpt = Annotated[Optional[str], typer.Option(
    "--name", help="The run's name (default: from the study, e.g. marker-greedy-2p).")]
FieldOpt = Annotated[Optional[list[str]], typer.Option(
    "--field", metavar="SPEC", help="Opponents: one spec for every other seat, or one per other seat "
    "(repeat); default: the base bot.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="The study's seed (deals and bot seeds).")]
WorkersOpt = Annotated[int, typer.Option(
    "--workers", min=0, help="Games played at once on a local Ray; 0 plays in this process.")]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Finish a stopped study.")]
ExpectOpt = Annotated[Optional[str], typer.Option(
    "--expect", metavar="REGION", help='Stop when the answer is known: the claim\'s region of the effect, '
    '"> X", "< X" or "within X" (in --metric\'s unit); --deals is then the most it plays '
    "(docs/studies.md).")]
MetricOpt = Annotated[Optional[str], typer.Option(
    "--metric", help="With --expect: the effect its stopping rule reads, points or win (default points).")]
StagesOpt = Annotated[Optional[int], typer.Option(
    "--stages", min=1, help="With --expect: the looks at the data, evenly spread over --deals (default 5).")]
WidthOpt = Annotated[Optional[float], typer.Option(
    "--width", help="With --expect: stop too once the stopping rule's interval is this narrow.")]
FreshOpt = Annotated[bool, typer.Option("--fresh", help="Delete this study's earlier records first.")]


def marker(bot: BotOpt, players: Players = 2, variant: VariantOpt = Variant.colored, deals: DealsOpt = 100,
           out: OutOpt = Path("runs"), name: NameOpt = None, field: FieldOpt = None, seed: SeedOpt = 0,
           workers: WorkersOpt = 0, resume: ResumeOpt = False, fresh: FreshOpt = False,
           no_mlflow: NoMlflowOpt = False, quiet: QuietOpt = False, format: FormatOpt = Format.table,
           expect: ExpectOpt = None, metric: MetricOpt = None, stages: StagesOpt = None,
           width: WidthOpt = None) -> None:
    """The marker: take it whenever a centre move does, or never while another move exists."""
    _study(f"marker-{_slug(bot)}-{players}p" if name is None else name, bot, ["marker=take", "marker=avoid"],
           players, variant, deals, out, field, seed, workers, resume, fresh, no_mlflow, quiet, format,
           dict(expect=expect, metric=metric, stages=stages, width=width))


def openings(bot: BotOpt, classes: Annotated[str, typer.Option(
                 "--classes", metavar="CLASS,...", help="Move classes to study, comma-separated: "
                 "line:1, floor, centre, factory+taken:2 ... (docs/bots.md).")] = "line:1,line:3,floor",
             when: Annotated[str, typer.Option(
                 "--when", help="game: the seat's first move of the game; round: of every round.")] = "game",
             players: Players = 2, variant: VariantOpt = Variant.colored, deals: DealsOpt = 100,
             out: OutOpt = Path("runs"), name: NameOpt = None, field: FieldOpt = None, seed: SeedOpt = 0,
             workers: WorkersOpt = 0, resume: ResumeOpt = False, fresh: FreshOpt = False,
             no_mlflow: NoMlflowOpt = False, quiet: QuietOpt = False, format: FormatOpt = Format.table,
             expect: ExpectOpt = None, metric: MetricOpt = None, stages: StagesOpt = None,
             width: WidthOpt = None) -> None:
    """First moves: the seat's first draft move of the game (or of every round) in each class."""
    suffix = ",when=round" if when == "round" else ""
    if when not in ("game", "round"):
        fail(f"--when must be game or round, not {when!r}")
    interventions = [f"opening={c.strip()}{suffix}" for c in classes.split(",") if c.strip()]
    _study(f"openings-{_slug(bot)}-{players}p" if name is None else name, bot, interventions, players, variant,
           deals, out, field, seed, workers, resume, fresh, no_mlflow, quiet, format,
           dict(expect=expect, metric=metric, stages=stages, width=width))


def run(config: Annotated[Path, typer.Argument(metavar="STUDY.yaml", help="A study file (docs/studies.md).")],
        out: Annotated[Optional[Path], typer.Option("--out", metavar="DIR", help="Default: the file's out.")] = None,
        resume: ResumeOpt = False, fresh: FreshOpt = False, no_mlflow: NoMlflowOpt = False,
        quiet: QuietOpt = False, format: FormatOpt = Format.table) -> None:
    """Several interventions at once, from a YAML study file (its mlflow: false, or --no-mlflow,
    keeps it out of MLflow)."""
    from tournament.errors import AzulError
    from kinds.study import load_study

    try:
        study = load_study(config, out=None if out is None else str(out), mlflow=False if no_mlflow else None)
    except AzulError as exc:
        fail(str(exc))
    _play(study, resume, fresh, quiet, format)


def show(run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A study's run folder (or s3:// run).")],
         format: FormatOpt = Format.table) -> None:
    """The effects of a study already played."""
    _print(run_dir, format)


def _study(name, bot, interventions, players, variant, deals, out, field, seed, workers, resume, fresh, no_mlflow,
           quiet, format, sequential):
    from tournament.errors import AzulError
    from kinds.study import StudyConfig

    try:
        study = StudyConfig(name=name, bot=bot, interventions=tuple(interventions), players=players,
                            variant=variant.value, deals=deals, field=tuple(field or ()), seed=seed,
                            out=str(out), workers=workers, mlflow=not no_mlflow,
                            **{k: v for k, v in sequential.items() if v is not None})
    except AzulError as exc:
        fail(str(exc))
    _play(study, resume, fresh, quiet, format)


def _play(study, resume: bool, fresh: bool, quiet: bool, format: Format) -> None:
    from rich.console import Console

    from tournament.errors import AzulError
    from kinds.study import run_study

    from .progress import ProgressBar

    if resume and fresh:
        fail("--resume and --fresh: choose one")
    _check_bot_names(study)
    console = Console(highlight=False, markup=False, stderr=format is not Format.table)  # progress: off a table's way
    try:
        with ProgressBar(console, enabled=not quiet, what="study") as bar:
            summary = run_study(study, resume=resume, fresh=fresh, progress=bar.update)
    except (AzulError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, a full disk...
        fail(f"{os_error_message(exc)}; the records written so far are intact: fix that and finish the study "
             "with --resume")
    if summary.mlflow_error:
        typer.echo(f"warning: the study is not in MLflow ({summary.mlflow_error})", err=True)
    if summary.interrupted:
        typer.echo(f"stopped: {summary.recorded} of {summary.total} games in {summary.run_dir}; "
                   "the same command with --resume finishes it", err=True)
        raise typer.Exit(130)
    _print(summary.run_dir, format)


def _check_bot_names(study) -> None:
    """Each bot's name (the one its spec gives it: ``greedy+marker=take``) under the one rule for
    names (tournament.config.check_name), as a league's config checks its bots'; or fail."""
    from kinds.study import bot_specs, league_config
    from tournament.config import ConfigError, check_name

    try:
        for spec, entry in zip(bot_specs(study), league_config(study).bots):
            check_name(entry.name, f"bot spec {spec!r}: its name")
    except ConfigError as exc:
        fail(str(exc))


def _print(run_dir: Path, format: Format) -> None:
    from analysis.records import connect
    from analysis.studies import read_study, study_effects
    from records.store import local_run

    try:
        run_dir = local_run(run_dir)  # a folder, or the local view of a run on object storage
        with connect(run_dir) as con:
            frame = study_effects(con, read_study(run_dir))
    except (ValueError, OSError) as exc:
        fail(str(exc))
    if format is Format.json:
        print_json(json_rows(frame))
    elif format is Format.csv:
        typer.echo(frame.write_csv(), nl=False)
    else:
        from .strategy import _print as print_table

        columns = {"intervention": "intervention", "metric": "metric",
                   "effect": ("effect", ".2f"), "95%": ("low", "high", ".2f"),
                   "unpaired": ("unpaired_low", "unpaired_high", ".2f"),
                   "ratio": ("width_ratio", ".1f"), "observed": ("obs_effect", ".2f"),
                   "deals": "deals", "games": "games"}
        title = (f"{run_dir}: effect = treatment - control per studied seat and game, paired on "
                 "deals and bot seeds (95% bootstrap over deals); unpaired width / paired width; "
                 "observational: the same choice as a league shows it (control games)")
        if "verdict" in frame.columns:  # a study that stopped when the answer was known
            columns |= {"expect": "expect", "verdict": "verdict", "stop": "stop"}
            title += ("; each intervention read on the deals up to its stop: the planned metric's 95% is "
                      "the stopping rule's own (valid after the stop), the other's a bootstrap")
        print_table(title, frame, columns)


for command in (marker, openings, run, show):
    app.command()(command)


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")
