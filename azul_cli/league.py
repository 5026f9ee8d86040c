"""``azul league run``, ``status`` and ``repair``: play a league from a config, see where a run
stands, mend a damaged run folder (docs/league.md). ``tournament.run_league`` plays; this module
draws its progress.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from .common import fail, os_error_message, print_table

if TYPE_CHECKING:  # the league's modules (pyarrow, yaml, bots) load when a command runs
    from tournament.repair import RepairReport
    from tournament.runner import LeagueProgress, LeagueSummary
    from tournament.standings import BotStanding

CONFIG_FILE = "config.yaml"  # as tournament.runner.CONFIG_FILE

app = typer.Typer(
    name="league",
    help="Leagues of bots on Ray: run one from a config, see where a run stands, repair a run folder.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

ConfigArg = Annotated[Path, typer.Argument(
    help="A league config (YAML), e.g. configs/quick.yaml.", metavar="CONFIG", show_default=False)]
OutOpt = Annotated[Optional[Path], typer.Option(
    "--out", metavar="DIR", help="Folder for the run (records go to DIR/<name>/); default: the config's out.")]
AddressOpt = Annotated[Optional[str], typer.Option(
    "--address", metavar="ADDR", help="Join this Ray cluster (host:port, or 'auto'); default: RAY_ADDRESS, "
    "else start a local Ray.")]
WorkersOpt = Annotated[Optional[int], typer.Option(
    "--workers", metavar="N", min=0, help="Games played at once (default: the CPUs); 0 plays in this "
    "process without Ray.")]
WriteOpt = Annotated[Optional[str], typer.Option(
    "--write", metavar="WHO", help="Who writes the part files: 'driver' (the default) or 'workers', each "
    "Ray task its own (the run folder must then be on a filesystem every node shares; the config key "
    "ray.write).")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="Finish a stopped league: play only the games not yet recorded.")]
FreshOpt = Annotated[bool, typer.Option(
    "--fresh", help="Delete this league's earlier records and start it over.")]
PythonRefereeOpt = Annotated[bool, typer.Option(
    "--python-referee", help="Play every game through the Python referee, even between built-in "
    "compiled bots (the same records, slower; the config key python_referee: true).")]
NoMlflowOpt = Annotated[bool, typer.Option("--no-mlflow", help="Do not log the league to MLflow.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar (or progress lines).")]
NoReportOpt = Annotated[bool, typer.Option(
    "--no-report", help="Do not write report.html, elo.csv and summary.md at the end of the league.")]
RunDirArg = Annotated[Path, typer.Argument(
    help="A run folder (<out>/<name>), e.g. runs/quick.", metavar="RUN_DIR", show_default=False)]


@app.command()
def run(config: ConfigArg, out: OutOpt = None, address: AddressOpt = None, workers: WorkersOpt = None,
        resume: ResumeOpt = False, fresh: FreshOpt = False, no_mlflow: NoMlflowOpt = False,
        quiet: QuietOpt = False, no_report: NoReportOpt = False,
        python_referee: PythonRefereeOpt = False, write: WriteOpt = None) -> None:
    """Play a league: every table, deal and seat arrangement, records written as games finish."""
    if resume and fresh:
        fail("--resume and --fresh: choose one")
    from tournament.config import ConfigError, load_config
    from tournament.runner import LeagueError, run_league

    console = Console(highlight=False)
    try:
        league = load_config(config).with_overrides(
            out=str(out) if out is not None else None, address=address, workers=workers,
            mlflow=False if no_mlflow else None, python_referee=True if python_referee else None,
            write=write)
        console.print(f"league {league.name}: {len(league.bots)} bots, {league.players}-player tables, "
                      f"{league.variant} wall, {league.deals} deals, seats {league.seats}: "
                      f"{league.total_games:,} games", soft_wrap=True)
        if league.seating_note():
            console.print(f"warning: {league.seating_note()}", soft_wrap=True, markup=False)
        print_referee(console, league)
        with ProgressBar(console, enabled=not quiet) as bar:
            summary = run_league(league, resume=resume, fresh=fresh, progress=bar.update)
    except (ConfigError, LeagueError) as exc:
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


def fail_if_forfeited(summary: LeagueSummary) -> None:
    """Exit 1 with one line when a bot forfeited every game it played (the records are complete)."""
    forfeited = [f"{bot} ({games:,} of {games:,})" for bot, games in summary.forfeited]
    if forfeited:
        fail(f"{'a bot' if len(forfeited) == 1 else 'bots'} forfeited every game: {', '.join(forfeited)}; "
             "the records are complete, see their error column (azul league status, azul replay)")


def print_referee(console: Console, league) -> None:
    """Before a league starts: when a seat (or a setting) sends its games to the Python referee,
    which one and why (the compiled loop plays the others many times faster)."""
    from tournament.fastloop import why_python_referee

    reasons = why_python_referee(league.to_dict())
    if reasons:
        console.print("the Python referee plays these games (the compiled loop cannot):", soft_wrap=True,
                      markup=False)
        for reason in reasons:
            console.print(f"  {reason}", soft_wrap=True, markup=False)


def referee_text(referee: str) -> str:
    """``compiled`` -> ``the compiled loop``, ``python`` -> ``the Python referee``, ``mixed`` -> both."""
    return {"compiled": "the compiled loop", "python": "the Python referee"}.get(
        referee, "the compiled loop and the Python referee")


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
    console.print(f"report: {paths['report.html']} (and elo.csv, summary.md)", soft_wrap=True)
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
    saved = run_dir / CONFIG_FILE
    if not saved.exists():
        fail(f"{run_dir}: not a league run (no {CONFIG_FILE})")
    from tournament.config import ConfigError, parse_config, read_yaml
    from tournament.standings import league_standings

    try:
        league = parse_config(read_yaml(saved), source=str(saved))
    except ConfigError as exc:
        fail(str(exc))
    from records.folder import lock_holder

    driver = lock_holder(run_dir)
    try:
        standings, tally = league_standings(run_dir, [b.name for b in league.bots])
    except (ValueError, OSError) as exc:  # a damaged part names itself and the repair
        fail(str(exc))
    console = Console(highlight=False)
    console.print(_status_line(run_dir, league, tally.total, driver), soft_wrap=True)
    console.print(f"failures: {_failures(dict(tally.failures))}", soft_wrap=True)
    print_table(_standings_table(standings), console)
    _print_event(console, run_dir)


def _status_line(run_dir: Path, league, recorded: int, driver: str | None) -> str:
    """``<kind> NAME: X of T games recorded, <state>``, T by the run's kind
    (``tournament.finish.planned_games``); an SPRT's games stop when it decides."""
    from records.folder import run_kind
    from tournament.finish import finish_command, planned_games

    kind = run_kind(run_dir)
    name = "SPRT" if kind == "sprt" else kind
    unfinished = f"incomplete (finish it with: {finish_command(run_dir)})"
    if kind == "sprt":
        counted, state = _sprt_status(run_dir, recorded)
        state = state or unfinished
    else:
        total = planned_games(run_dir, league)
        counted = (f"{recorded:,} games recorded (the total is unknown: the folder no longer says)"
                   if total is None else f"{recorded:,} of {total:,} games recorded")
        state = "complete" if total is not None and recorded >= total else unfinished
    if driver is not None:
        state = f"being played now by a driver (pid {driver})"
    return f"{name} {league.name}: {counted}, {state}"


def _sprt_status(run_dir: Path, recorded: int) -> tuple[str, str | None]:
    """An SPRT's games and where its test stands (``analysis.sprt_run``): the count, and
    ``complete (...)`` once decided or at its most pairs (None while it goes on)."""
    import yaml

    from analysis.sprt_run import sprt_result

    counted = f"{recorded:,} games recorded: an SPRT plays until it decides"
    try:
        result = sprt_result(run_dir)
    except (ValueError, OSError, yaml.YAMLError):  # a damaged sprt.yaml: the count, and the command
        result = None
    if result is None:
        return f"{counted} (its sprt.yaml is unreadable)", None
    most, d = result.settings["max_pairs"], result.decision
    counted += f", at most {most:,} pairs ({2 * most:,} games)"
    if d.verdict != "undecided":
        return counted, f"complete ({d.verdict} after {d.pairs:,} pairs)"
    if d.pairs >= most:
        return counted, f"complete (undecided after the most pairs, {most:,})"
    return counted, None


@app.command()
def repair(run_dir: RunDirArg) -> None:
    """Mend a run folder: damaged or foreign files to quarantine/, only whole games kept."""
    if not (run_dir / CONFIG_FILE).exists():
        fail(f"{run_dir}: not a league run (no {CONFIG_FILE})")
    from tournament.runner import LeagueError, repair_run

    try:
        report = repair_run(run_dir)
    except LeagueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{os_error_message(exc)}; nothing is lost: files are moved, never deleted")
    console = Console(highlight=False)
    if not report.changed:
        console.print(f"{run_dir}: every part reads and every game is whole: nothing to repair", soft_wrap=True)
    _print_repair(console, report)
    from records.folder import run_kind
    from tournament.finish import finish_command

    kind = run_kind(run_dir)
    console.print(f"finish the {'SPRT' if kind == 'sprt' else kind} with: {finish_command(run_dir)}",
                  soft_wrap=True)


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


def rate_text(games: int, seconds: float) -> str:
    """A rate that reads well: games/s when fast, games/min, else seconds a game."""
    if not games or seconds <= 0:
        return ""
    per_s = games / seconds
    if per_s >= 1:
        return f"{per_s:,.1f} games/s"
    if per_s * 60 >= 1:
        return f"{per_s * 60:,.1f} games/min"
    return f"{seconds / games:,.0f} s/game"


class PlainLines:
    """Progress when the output is not a terminal: a plain line (``text(report)``) at the first
    report, then at most one every ``every`` seconds, and the last report at the end (``close``)
    if it came between two lines. ``azul league run``, ``azul study`` and ``azul sprt`` share it."""

    every = 10.0  # seconds between plain progress lines

    def __init__(self, console: Console, text):
        self.console, self.text = console, text
        self.last: float | None = None  # when the last line was printed
        self.pending = None  # the last report, if not printed

    def update(self, report, final: bool = False) -> None:
        self.pending = report
        now = time.monotonic()
        if self.last is None or now - self.last >= self.every or final:
            self.close()
            self.last = now

    def close(self) -> None:
        if self.pending is not None:
            self.console.print(self.text(self.pending), soft_wrap=True, markup=False)
            self.pending = None


class StatusLine:
    """The live line of a run that is not a league's bar (``azul sprt``, ``azul tune``): rich's
    transient status with ``text(report)`` on a terminal; else plain lines (``PlainLines``)."""

    def __init__(self, console: Console, text, enabled: bool = True):
        self.console, self.text, self.enabled = console, text, enabled
        self.status = None
        self.plain = PlainLines(console, text) if not console.is_terminal else None

    def update(self, report) -> None:
        if not self.enabled:
            return
        if self.plain is not None:
            self.plain.update(report)
        elif self.status is None:
            self.status = self.console.status(self.text(report))
            self.status.start()
        else:
            self.status.update(self.text(report))

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *exc) -> None:
        if self.status is not None:
            self.status.stop()
        if self.plain is not None:
            self.plain.close()


class ProgressBar:
    """A rich progress bar of ``run_league``'s reports: games done of total, the rate, ETA and the
    current leader. It appears at the first report (a league with nothing left to play has none).
    When the output is not a terminal, a plain line every ``PlainLines.every`` seconds and at the end."""

    def __init__(self, console: Console, enabled: bool = True, what: str = "league"):
        self.console, self.enabled, self.what = console, enabled, what  # what: the run's kind, in the label
        self.progress = None
        self.plain = PlainLines(console, lambda event: _line(event, what)) if not console.is_terminal else None

    def update(self, event: LeagueProgress) -> None:
        if not self.enabled:
            return
        fields = _fields(event)
        if self.plain is not None:
            self.plain.update(event, final=event.recorded >= event.total)
            return
        if self.progress is None:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeRemainingColumn)
            self.progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("{task.fields[leader]}"), console=self.console, transient=False)
            self.progress.start()
            self.task = self.progress.add_task(f"{self.what} {event.name} ({event.referee})", total=event.total,
                                               completed=event.recorded, **fields)
        else:
            self.progress.update(self.task, completed=event.recorded, **fields)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
        if self.plain is not None:  # the last report, come between two lines
            self.plain.close()


def _line(event: LeagueProgress, what: str = "league") -> str:
    """A plain progress line: games recorded of the total, the rate, the ETA, the leader."""
    fields = _fields(event)
    eta = ""
    if event.played and event.recorded < event.total:
        left = (event.total - event.recorded) * event.seconds / event.played
        eta = f"ETA {int(left // 3600)}:{int(left % 3600 // 60):02d}:{int(left % 60):02d}"
    parts = [f"{what} {event.name} ({event.referee}): {event.recorded:,}/{event.total:,} games",
             fields["rate"], eta, fields["leader"]]
    return ", ".join(p for p in parts if p)


def _fields(event: LeagueProgress) -> dict[str, str]:
    lead = event.leader
    return {"rate": rate_text(event.played, event.seconds),
            "leader": f"leader: {lead[0]} ({lead[1]:.0%} wins)" if lead else ""}


def _failures(failures: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(failures.items())) or "none"


def _report(console: Console, summary: LeagueSummary) -> None:
    _print_repair(console, summary.repair)
    rate = rate_text(summary.played, summary.play_s)
    console.print(f"{summary.played:,} games played by {referee_text(summary.referee)} in "
                  f"{summary.elapsed_s:.1f} s{f' ({rate})' if rate else ''}; "
                  f"{summary.recorded:,} of {summary.total:,} recorded; failures: {_failures(summary.failures)}",
                  soft_wrap=True)
    console.print(f"records: {summary.run_dir}/ (games/, results/, moves/, rounds/ as Parquet; "
                  f"config.yaml{', standings.csv' if summary.complete else ''})", soft_wrap=True)
    if summary.standings:
        print_table(_standings_table(summary.standings), console)
    _print_event(console, summary.run_dir)


def _print_event(console: Console, run_dir: Path) -> None:
    """An event's own table (Swiss, bracket, gauntlet: azul_cli/event_table.py) as it stands."""
    from analysis.events import event_settings, event_standings

    if event_settings(run_dir) is None or not (run_dir / "games").exists():
        return
    from analysis.records import read_records

    from .event_table import print_event

    try:
        records = read_records(run_dir)
    except (ValueError, OSError) as exc:  # the standings above said what they could
        console.print(f"the event's table cannot be read: {exc}", soft_wrap=True)
        return
    print_event(console, event_standings(run_dir, records["results"], records["games"]))


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
