"""``azul sprt``: an A/B test of two bots on paired deals that stops when the answer is known
(docs/sprt.md). ``kinds.sprt.run_sprt`` plays; this module draws the progress line and the
verdict.
"""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.console import Console

from .common import (AddressOpt, FreshOpt, NoMlflowOpt, QuietOpt, Variant, WorkersOpt, fail, fail_if_forfeited,
                     os_error_message, print_json, print_referee, referee_text)
from .progress import StatusLine

if TYPE_CHECKING:
    from kinds.sprt import SprtOutcome, SprtProgress


class Model(str, Enum):
    normalized = "normalized"
    logistic = "logistic"


class SprtFormat(str, Enum):
    table = "table"
    json = "json"


BotOpt = Annotated[Optional[list[str]], typer.Option(
    "--bot", metavar="SPEC", help="A bot spec, TYPE:key=value,... (bots.spec): give it twice, the new "
    "bot first, then the base.", show_default=False)]
ConfigOpt = Annotated[Optional[Path], typer.Option(
    "--config", metavar="FILE", help="An SPRT config (YAML): the same fields by name, bots as a list of "
    "two specs; options given on the command line win.", show_default=False)]


def sprt(bot: BotOpt = None, config: ConfigOpt = None,
         elo0: Annotated[Optional[float], typer.Option(help="H0: the new bot is this much stronger "
                                                      "(default 0).", show_default=False)] = None,
         elo1: Annotated[Optional[float], typer.Option(help="H1: the new bot is this much stronger "
                                                      "(default 5).", show_default=False)] = None,
         alpha: Annotated[Optional[float], typer.Option(help="The chance of accepting H1 when H0 "
                                                       "holds (default 0.05).", show_default=False)] = None,
         beta: Annotated[Optional[float], typer.Option(help="The chance of accepting H0 when H1 "
                                                      "holds (default 0.05).", show_default=False)] = None,
         model: Annotated[Optional[Model], typer.Option(help="Elo of elo0/elo1: normalized (default) or "
                                                       "logistic.", show_default=False)] = None,
         variant: Annotated[Optional[Variant], typer.Option(
             case_sensitive=False, help="Wall variant (default colored).", show_default=False)] = None,
         max_pairs: Annotated[Optional[int], typer.Option(
             "--max-pairs", metavar="N", min=1, help="Stop undecided after N pairs (default 10000).",
             show_default=False)] = None,
         out: Annotated[Optional[Path], typer.Option(
             "--out", metavar="DIR", help="Folder (or s3://BUCKET/PREFIX) for the run (records go to DIR/<name>/; "
             "default runs).",
             show_default=False)] = None,
         name: Annotated[Optional[str], typer.Option(help="The run's name (default sprt).",
                                                     show_default=False)] = None,
         seed: Annotated[Optional[int], typer.Option(min=0, help="The league seed: the deals and the "
                                                     "bots' seeds (default 0).", show_default=False)] = None,
         bot_seed: Annotated[Optional[list[int]], typer.Option(
             "--bot-seed", metavar="N", min=0, help="The bots' seeds, twice (default: from --seed).",
             show_default=False)] = None,
         resume: Annotated[bool, typer.Option(
             "--resume", help="Go on with a stopped test (or one whose --max-pairs you raise): the "
             "decision is recomputed from its records; settings not given are the test's own.")] = False,
         fresh: FreshOpt = False, address: AddressOpt = None, workers: WorkersOpt = None,
         no_mlflow: NoMlflowOpt = False, quiet: QuietOpt = False,
         format: Annotated[SprtFormat, typer.Option("--format", "-f", help="table (for people) or json.")]
         = SprtFormat.table) -> None:
    """Test a new bot against a base bot on paired deals until the SPRT accepts H1 or H0."""
    from tournament.errors import AzulError
    from kinds.base import with_options
    from kinds.sprt import SprtSettings, load_sprt_file, run_sprt, stored_fields

    fields: dict = {}
    if config is not None:
        try:
            fields = load_sprt_file(config)
        except ValueError as exc:
            fail(str(exc))
    if bot:
        if len(bot) != 2:
            fail(f"--bot: give two bots, the new one then the base, not {len(bot)}")
        fields["new"], fields["base"] = bot
    if bot_seed:
        if len(bot_seed) != 2:
            fail(f"--bot-seed: give two seeds, one per bot, not {len(bot_seed)}")
        fields["seeds"] = tuple(bot_seed)
    options = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "max_pairs": max_pairs,
               "model": model.value if model else None, "variant": variant.value if variant else None,
               "out": str(out) if out is not None else None, "name": name, "seed": seed,
               "workers": workers, "address": address, "mlflow": False if no_mlflow else None}
    fields = with_options(fields, **options)
    if resume and fresh:
        fail("--resume and --fresh: choose one")
    where = fields.get("out", SprtSettings.out), fields.get("name", SprtSettings.name)
    if resume and all(isinstance(w, str) and w for w in where):  # what the options leave out: the test's own
        try:
            stored = stored_fields(Path(*where))
        except ValueError as exc:
            fail(str(exc))
        if stored is not None:
            fields = with_options(stored, **fields)
    if "new" not in fields:
        fail("--bot: give two bots (--bot NEW --bot BASE), or a --config with bots")
    try:
        settings = SprtSettings(**fields)
        settings.check()
        league = settings.league()
    except (TypeError, ValueError) as exc:
        fail(str(exc))
    console = Console(highlight=False, markup=False, stderr=format is SprtFormat.json)
    new, base = settings.bot_names()
    if format is SprtFormat.table:
        console.print(f"sprt {new} against {base}: H0 elo {settings.elo0:g} against H1 elo "
                      f"{settings.elo1:g} ({settings.model}), alpha {settings.alpha:g}, beta "
                      f"{settings.beta:g}, at most {settings.max_pairs:,} pairs", soft_wrap=True)
    reasons = print_referee(console, league)
    line = StatusLine(console, progress_text, enabled=not quiet)
    try:
        with line:
            outcome = run_sprt(settings, resume=resume, fresh=fresh, progress=line.update, referee_reasons=reasons)
    except AzulError as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, a full disk...
        fail(f"{os_error_message(exc)}; the records written so far are intact: fix that and finish the test "
             "with --resume")
    if format is SprtFormat.json:
        print_json({**outcome.result.as_dict(), "run_dir": str(outcome.run_dir),
                    "seconds": round(outcome.seconds, 2), "referee": outcome.summary.referee}, indent=None)
    else:
        _verdict(console, outcome)
    if outcome.interrupted:
        console.print(f"stopped: the same command with --resume goes on ({outcome.run_dir})",
                      soft_wrap=True)
        raise typer.Exit(130)
    note = outcome.result.fault_note()
    if note:
        console.print(f"warning: {note}", soft_wrap=True, markup=False)
    if outcome.mlflow_error:
        console.print(f"warning: the test is not in MLflow ({outcome.mlflow_error})", soft_wrap=True)
    fail_if_forfeited(outcome.summary)


def progress_text(p: SprtProgress) -> str:
    """One line: pairs, pentanomial, LLR against its bounds, the Elo estimate."""
    e = p.estimate
    return (f"{p.pairs:,}/{p.max_pairs:,} pairs  {list(p.pentanomial)}  LLR {p.llr:+.2f} "
            f"[{p.lower:.2f}, {p.upper:.2f}]  elo {e.text()}  "
            f"{p.games:,} games  {p.seconds:.0f} s")


def _verdict(console: Console, outcome: SprtOutcome) -> None:
    from analysis.sprt_run import fault_text

    r = outcome.result.as_dict()
    meaning = {"H1": "accept H1: the new bot is stronger by elo1 rather than elo0",
               "H0": "accept H0: the new bot is not stronger by elo1",
               "undecided": "undecided: the pairs ran out before the test had its answer"}[r["verdict"]]
    console.print(f"verdict: {r['verdict']} ({meaning})", soft_wrap=True)
    console.print(f"LLR {r['llr']:+.3f} in [{r['lower']:.3f}, {r['upper']:.3f}] after {r['pairs']:,} "
                  f"pairs; pentanomial {r['pentanomial']} (pairs scoring 0, 1/2, 1, 3/2, 2)", soft_wrap=True)
    elo = "n/a" if r["elo"] is None else f"{r['elo']:+.1f} ({r['model']}), 95% {r['elo_low']:+.1f} to {r['elo_high']:+.1f}"
    console.print(f"elo {elo}; LOS {r['los']:.1%}", soft_wrap=True)
    console.print(f"faults: {fault_text(r['faults'])}", soft_wrap=True, markup=False)
    console.print(f"{r['games']:,} games recorded ({outcome.played:,} by this run, played by "
                  f"{referee_text(outcome.summary.referee)}) in {outcome.seconds:.1f} s; records: "
                  f"{outcome.run_dir}", soft_wrap=True)
    if r["pairs_after"]:
        console.print(f"{r['pairs_after']:,} more pairs finished but were not counted (after the "
                      f"decision or beyond a missing pair): {r['pentanomial_after']}", soft_wrap=True)
