"""``azul league run``, ``status`` and ``repair``: play a league from a config, see where a run
stands, mend a damaged run folder (docs/league.md). ``tournament.run_league`` plays; this module
draws its progress.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from records.names import CONFIG_FILE, REPORT_HTML, RUN_FILE

from .common import (AddressOpt, FreshOpt, NoMlflowOpt, OutOpt, QuietOpt, ResumeOpt, RunNameOpt, WorkersOpt,
                     fail, fail_if_forfeited, os_error_message, print_referee, print_table, referee_text)
from .progress import ProgressBar, rate_text

if TYPE_CHECKING:  # the league's modules (pyarrow, yaml, bots) load when a command runs
    from tournament.repair import RepairReport
    from tournament.runner import LeagueSummary
    from tournament.standings import BotStanding


app = typer.Typer(
    name="league",
    help="Leagues of bots on Ray: run one from a config, see where a run stands, repair a run folder.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

ConfigArg = Annotated[Path, typer.Argument(
    help="A league config (YAML), e.g. configs/quick.yaml.", metavar="CONFIG", show_default=False)]
WriteOpt = Annotated[Optional[str], typer.Option(
    "--write", metavar="WHO", help="Who writes the part files: 'driver' (the default) or 'workers', each "
    "Ray task its own (the run folder must then be on a filesystem every node shares, or an s3:// --out; "
    "the config key ray.write).")]
PythonRefereeOpt = Annotated[bool, typer.Option(
    "--python-referee", help="Play every game through the Python referee, even between built-in "
    "compiled bots (the same records, slower; the config key python_referee: true).")]
NoReportOpt = Annotated[bool, typer.Option(
    "--no-report", help="Do not write report.html, elo.csv and summary.md at the end of the league.")]
RunDirArg = Annotated[Path, typer.Argument(
    help="A run folder (<out>/<name>), e.g. runs/quick.", metavar="RUN_DIR", show_default=False)]


@app.command()
def run(config: ConfigArg, out: OutOpt = None, name: RunNameOpt = None, address: AddressOpt = None,
        workers: WorkersOpt = None,
        resume: ResumeOpt = False, fresh: FreshOpt = False, no_mlflow: NoMlflowOpt = False,
        quiet: QuietOpt = False, no_report: NoReportOpt = False,
        python_referee: PythonRefereeOpt = False, write: WriteOpt = None) -> None:
    """Play a league: every table, deal and seat arrangement, records written as games finish."""
    if resume and fresh:
        fail("--resume and --fresh: choose one")
    from kinds import LEAGUE
    from tournament.config import load_config
    from tournament.errors import AzulError
    from tournament.runner import run_league

    console = Console(highlight=False, markup=False)
    try:
        league = load_config(config).with_overrides(
            out=str(out) if out is not None else None, name=name, address=address, workers=workers,
            mlflow=False if no_mlflow else None, python_referee=True if python_referee else None,
            write=write)
        deals = (f"{league.pairs_per_match} deals a match" if league.format == "knockout"
                 else f"{league.deals} deals, seats {league.seats}")
        console.print(f"league {league.name}: {len(league.bots)} bots, {league.players}-player tables, "
                      f"{league.variant} wall, {deals}: {league.total_games:,} games", soft_wrap=True)
        for note in league.notes():
            console.print(f"warning: {note}", soft_wrap=True)
        reasons = print_referee(console, league)
        with ProgressBar(console, enabled=not quiet, leader=league.format != "knockout") as bar:
            summary = run_league(league, resume=resume, fresh=fresh, progress=bar.update, kind=LEAGUE,
                                 referee_reasons=reasons)
    except AzulError as exc:
        fail(str(exc))
    except OSError as exc:  # a folder that cannot be written, a full disk...
        fail(f"{os_error_message(exc)}; the records written so far are intact: fix that and finish the league "
             "with --resume")
    except KeyboardInterrupt:  # a second Ctrl-C: stopped at once
        console.print("stopped at once: the records written so far are intact; the same command with "
                      "--resume finishes the league", soft_wrap=True)
        raise typer.Exit(130) from None
    _report(console, summary)
    if summary.interrupted:
        console.print(f"stopped: {summary.recorded:,} of {summary.total:,} games recorded in "
                      f"{summary.run_dir}; the same command with --resume finishes the league",
                      soft_wrap=True)
        raise typer.Exit(130)
    if summary.mlflow_error:
        console.print(f"warning: the league is not in MLflow ({summary.mlflow_error}); the same command "
                      "with --resume tries again", soft_wrap=True)
    if not no_report:
        _write_report(console, league, summary)
    if summary.mlflow_run_id:
        from tournament.tracking import tracking_uri
        console.print(f"mlflow run {summary.mlflow_run_id}: browse with "
                      f"mlflow ui --backend-store-uri {tracking_uri(league)}", soft_wrap=True)
    fail_if_forfeited(summary)


def _write_report(console: Console, league, summary: LeagueSummary) -> None:
    """The finished league's report, into its run folder and its MLflow run. A failure only warns
    (exit status 0): the records are complete and ``azul report RUN_DIR`` makes the report later."""
    try:
        from analysis.report import collect, write_report
        result = collect(summary.run_dir)  # the defaults of ``azul report``: the same numbers
        paths = write_report(result, summary.run_dir)
    except Exception as exc:  # noqa: BLE001 - the league is done: a report bug must not hide it
        console.print(f"warning: no report ({type(exc).__name__}: {exc}); the records are complete: "
                      f"make it with azul report {summary.run_dir}", soft_wrap=True)
        return
    from records.store import open_store

    console.print(f"report: {open_store(summary.run_dir).where(REPORT_HTML)} (and elo.csv, summary.md)",
                  soft_wrap=True)
    if summary.mlflow_run_id:
        from tournament.tracking import log_report
        try:
            log_report(league, summary.mlflow_run_id, paths, result)
        except Exception as exc:  # noqa: BLE001 - as for the league's own MLflow logging
            console.print(f"warning: the report is not in MLflow ({type(exc).__name__}: {exc}); "
                          "the same command with --resume tries again", soft_wrap=True)


@app.command()
def status(run_dir: RunDirArg) -> None:
    """Where a run stands: games done of the total, failures, current standings."""
    from records.store import open_store

    try:
        store = open_store(run_dir)
        if not any(map(store.exists, (RUN_FILE, CONFIG_FILE))):
            fail(f"{store}: not a run folder (no {RUN_FILE} or {CONFIG_FILE}): not a league run, an SPRT, a "
                 "study, a tune or a training run")
    except (ValueError, OSError) as exc:  # a bad URL, the store unreachable
        fail(str(exc))
    from kinds import kind_of

    try:
        kind = kind_of(store.view(parts=False))
        st = kind.status(store)  # a run on object storage: read from its local view
    except (ValueError, OSError) as exc:  # an unknown kind; a damaged part names itself and the repair
        fail(str(exc))
    console = Console(highlight=False, markup=False)
    console.print(status_line(kind, st), soft_wrap=True)
    for line in st.lines():  # the kind's own: failures, the models' pins, a training run's lineage...
        console.print(line, soft_wrap=True)
    standings = st.detail.standings()
    if standings:
        print_table(_standings_table(standings), console)
    _print_event(console, run_dir, kind)


def status_line(kind, st) -> str:
    """``<kind> NAME: X of T games recorded, <state>`` from a kind's ``RunStatus`` (its detail
    says the words that are its kind's own: ``until_decided``, ``complete``)."""
    if st.planned is not None:
        counted = f"{st.recorded:,} of {st.planned:,} games recorded"
    elif st.decides:  # an SPRT plays until it decides
        counted = f"{st.recorded:,} games recorded: {kind.article} plays until it decides{st.detail.until_decided()}"
    else:
        counted = f"{st.recorded:,} games recorded (the total is unknown: the folder does not say)"
    if st.state == "running":
        state = f"being played now by a driver (pid {st.driver})"
    elif st.state == "finished":
        state = st.detail.complete()
    else:
        state = f"incomplete (finish it with: {st.finish})"
    return f"{kind.label} {st.name}: {counted}, {state}"


@app.command()
def repair(run_dir: RunDirArg) -> None:
    """Mend a run folder: damaged or foreign files to quarantine/, only whole games kept."""
    from records.store import open_store

    try:
        store = open_store(run_dir)
        folder = store.own_folder()  # None: a run on object storage
        if folder is not None and not folder.is_dir():
            fail(f"{run_dir}: no such folder")
        if not store.exists(CONFIG_FILE):  # a training run (a folder or a URL) holds its records in its runs
            from kinds import finish_command, kind_of

            kind = kind_of(store.view(parts=False)) if store.exists(RUN_FILE) else None
            if kind is not None and kind.nests:
                inner = ", ".join(kind.nested_runs(store)) or "none yet"
                fail(f"{store}: {kind.article}, whose records are in the runs it holds ({inner}): repair each "
                     f"of them; finish it with: {finish_command(store)}")
            fail(f"{store}: not a run{'' if folder is None else ' folder'} (no {CONFIG_FILE}): not a league, an SPRT, "
                 "a study or a tune")
    except (ValueError, OSError) as exc:
        fail(str(exc))
    from tournament.errors import AzulError
    from tournament.run_folder import repair_run

    try:
        report = repair_run(store)
    except AzulError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{os_error_message(exc)}; nothing is lost: files are moved, never deleted")
    console = Console(highlight=False, markup=False)
    if not report.changed:
        console.print(f"{store}: every part reads and every game is whole: nothing to repair", soft_wrap=True)
    _print_repair(console, report)
    from kinds import finish_command, kind_of

    console.print(f"finish the {kind_of(store).label} with: {finish_command(store)}", soft_wrap=True)


def _print_repair(console: Console, report: RepairReport | None) -> None:
    if report is None or not report.changed:
        return
    for path, target, why in report.quarantined:
        console.print(f"quarantined {path} ({why}): now {target}", soft_wrap=True)
    if report.dropped:
        console.print(f"{len(report.dropped):,} games no longer recorded (in a damaged part, or partly "
                      f"written) and to be played again: {_ids(report.dropped)}", soft_wrap=True)


def _ids(ids: list[str], shown: int = 4) -> str:
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown:,} more" if len(ids) > shown else "")


def _report(console: Console, summary: LeagueSummary) -> None:
    from kinds import LEAGUE, failures_text

    _print_repair(console, summary.repair)
    rate = rate_text(summary.played, summary.play_s)  # over the playing time, shown beside it
    played = f"{summary.play_s:.1f} s of play ({rate}), " if rate else ""
    console.print(f"{summary.played:,} games played by {referee_text(summary.referee)} in "
                  f"{played}{summary.elapsed_s:.1f} s in all; "
                  f"{summary.recorded:,} of {summary.total:,} recorded; failures: {failures_text(summary.failures)}",
                  soft_wrap=True)
    console.print(f"records: {summary.run_dir}/ (games/, results/, moves/, rounds/ as Parquet; "
                  f"config.yaml{', standings.csv' if summary.complete else ''})", soft_wrap=True)
    if summary.standings:
        print_table(_standings_table(summary.standings), console)
    _print_event(console, summary.run_dir, LEAGUE)


def _print_event(console: Console, run_dir: Path, kind) -> None:
    """An event's own table (Swiss, bracket, gauntlet: azul_cli/event_table.py) as it stands;
    ``kind``: the run's, which says which games the table counts (``RunKind.event_results``)."""
    from analysis.events import event_settings, event_standings
    from records.store import RunStore

    here = RunStore(run_dir).viewed()  # a run on object storage: its local view
    run_dir = here.view()
    if event_settings(run_dir) is None or not (run_dir / "games").exists():
        return
    from analysis.records import read_records

    from .event_table import print_event

    try:
        records = read_records(run_dir)
    except (ValueError, OSError) as exc:  # the standings above said what they could
        console.print(f"the event's table cannot be read: {exc}", soft_wrap=True)
        return
    results, unfinished = kind.event_results(here, records)  # as the finished event's table counts
    print_event(console, event_standings(run_dir, results, records["games"]))
    if unfinished:
        games = sum(u[2] for u in unfinished)
        which = ", ".join(f"round {r} pairing {p}: {n} of {size} games" for r, p, n, size in unfinished[:4])
        console.print(f"the event's table leaves out {_counted(games, 'game')} of "
                      f"{_counted(len(unfinished), 'unfinished pairing')} ({which}{', ...' if len(unfinished) > 4 else ''}"
                      "): a pairing counts once all its games are recorded", soft_wrap=True)


def _counted(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _standings_table(standings: list[BotStanding]) -> Table:
    table = Table(title="standings (elo: mean bot 0, intervals in azul elo)",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("bot", no_wrap=True)
    for col in ("games", "win rate", "score", "score share", "faults", "elo"):
        table.add_column(col, justify="right")
    for i, r in enumerate(standings, 1):
        table.add_row(str(i), r.bot, f"{r.games:,}", f"{r.win_rate:.1%}", f"{r.mean_score:.1f}",
                      f"{r.score_share:.1%}", str(r.faults), "-" if r.elo is None else f"{r.elo:+.0f}")
    return table
