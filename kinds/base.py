"""What a run kind declares, and the registry of kinds keyed by ``run.json``'s kind.

A run folder holds one kind of run: a league (a round-robin or an event format), an SPRT, a
study, a tune or a training run. Each kind is one ``RunKind`` object, registered once
(``register``), that says what the driver and the commands need to know of it: its settings
file, the files it owns besides the driver's (``--fresh`` removes exactly the driver's and
these), the command that finishes a stopped run of it, how many games it plans, and where a run
of it stands (``status``), whose ``detail`` is a ``StatusDetail`` of that kind: it describes
itself (the lines ``azul league status`` prints, the words of its status line, who is ahead on a
web page, the JSON the web returns), so the commands and the web test no keys.
The league driver (``tournament.runner.run_league``) plays a schedule into a folder and knows
no kind: it is handed one (``RunKind`` satisfies its ``FolderKind``) and asks it.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from records.folder import run_kind, saved_models
from records.names import CONFIG_FILE, REPORT_FILES, RUN_FILE
from records.store import RunStore


class StatusDetail:
    """What a kind's status has besides the counts, described by the kind itself: a kind with
    something to say subclasses it (``RunKind.detail`` returns one). The commands and the web ask
    it, never its keys: ``lines`` (``azul league status``'s lines after its status line),
    ``until_decided`` and ``complete`` (the words of the status line of a run that plays until it
    decides, and of a finished one), ``standings`` (the table the status draws), ``ahead`` (who is
    ahead, on the web's index and run page), ``parts`` (the run page's parts of this kind that the
    web reads from the records) and ``as_dict`` (the ``detail`` of the web's JSON)."""

    parts: tuple[str, ...] = ()  # e.g. an SPRT's "sprt_path"

    def as_dict(self) -> dict[str, Any]:
        return {}

    def lines(self, models: list[str]) -> list[str]:
        """The lines printed after the status line; ``models``: the run's model lines
        (``model_lines``), which the kind places among its own (by default: only they)."""
        return list(models)

    def until_decided(self) -> str:
        """What follows "plays until it decides" in the status line of a kind that ``decides``."""
        return " (its settings are unreadable)"

    def complete(self) -> str:
        """A finished run's state word(s) in the status line."""
        return "complete"

    def standings(self) -> list:
        """The standings to draw as a table (``tournament.standings.BotStanding``); none by default."""
        return []

    def ahead(self) -> str | None:
        """Who is ahead, in a few words (None: nothing to say)."""
        return None


class NoteDetail(StatusDetail):
    """A detail that is only a note (an SPRT whose settings cannot be read)."""

    def __init__(self, note: str):
        self.note = note

    def as_dict(self) -> dict[str, Any]:
        return {"note": self.note}

    def until_decided(self) -> str:
        return f" ({self.note})"


def model_lines(models: dict[str, list[dict[str, str]]]) -> list[str]:
    """``models: BOT reads MODEL (sha256 ...)``, a line a bot, of the models a run pinned."""
    return [f"models: {bot} reads {pin.get('model')} (sha256 {pin.get('sha256')})"
            for bot, pins in models.items() for pin in pins if isinstance(pin, dict)]


def failures_text(failures: dict[str, int]) -> str:
    """Failures by kind in a few words ("2 timeout, 1 error", or "none")."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(failures.items())) or "none"


@dataclass
class RunStatus:
    """Where a run stands, as data: ``recorded`` games of ``planned`` (None: the kind plays until
    it decides, or the folder no longer says), its ``state`` (``running`` while a driver holds
    the folder, ``finished``, else ``stopped``), the command that finishes it (None when finished),
    the pid of the driver playing it, and ``detail``: what that kind has besides (the standings,
    an SPRT's LLR and bounds, a tune's parameters, a training run's lineage), a ``StatusDetail``
    that describes itself."""

    kind: str
    name: str
    recorded: int
    planned: int | None
    state: str
    finish: str | None
    driver: str | None = None
    detail: StatusDetail = field(default_factory=StatusDetail)
    decides: bool = False  # the kind plays until a test decides (``RunKind.decides``)
    # each bot's models and their sha256 as the run started with them (run.json's ``models``)
    models: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # the tables beside the games it holds (records.names.SIDE_TABLES): {table: (parts, rows)}
    side: dict[str, tuple[int, int]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The lines ``azul league status`` prints after its status line (the kind's, and the
        models the run pinned, where the kind places them; then a line a side table it holds)."""
        return self.detail.lines(model_lines(self.models)) + side_lines(self.side)


def side_lines(side: dict[str, tuple[int, int]]) -> list[str]:
    """``TABLE: N parts, R rows (beside the games)``, a line a side table a run holds."""
    return [f"{table}: {parts:,} part{'s' * (parts != 1)}, {rows:,} row{'s' * (rows != 1)} (beside the games)"
            for table, (parts, rows) in side.items()]


class RunKind:
    """A kind of run. Subclasses set the class attributes and override what differs.

    ``name``: run.json's kind; ``label``: how a sentence names one run ("SPRT"); ``article``:
    "an SPRT"; ``settings``: the file it keeps its settings in, beside the records; ``owned``:
    the files and folders it writes besides the driver's (removed by ``--fresh``); ``nests``:
    whether its runs hold runs of their own (a training run's self-play and gates), whose
    stopped runs are finished by finishing this one."""

    name = "run"
    label = "run"
    article = "a run"
    settings = CONFIG_FILE
    owned: tuple[str, ...] = REPORT_FILES
    nests = False
    decides = False  # plays until a test decides (an SPRT): no planned total

    def finish_command(self, run: RunStore) -> str:
        """The command (or a sentence naming it) that finishes a stopped run of this kind."""
        raise NotImplementedError

    def planned_games(self, run: RunStore) -> int | None:
        """How many games the run plays in all; None when the kind plays until it decides or
        the folder no longer says."""
        return None

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        """Whether the run is over (by default: every planned game recorded)."""
        return planned is not None and recorded >= planned

    def detail(self, run: RunStore) -> StatusDetail:
        """What this kind's status has besides the counts (``RunStatus.detail``), describing itself."""
        return StatusDetail()

    def event_results(self, run: RunStore, records: dict) -> tuple[Any, list[tuple[int, int, int, int]]]:
        """The ``results`` rows (``records``: a run's frames, analysis.records) its event's table
        counts, and the pairings left out as unfinished (``kinds.league.finished_pairings``); by
        default every row, none left out."""
        return records["results"], []

    def nested_runs(self, run: RunStore) -> list[str]:
        """The runs this one holds that have records, as paths relative to it (a kind that
        ``nests``: a training run's ``gen-001/selfplay``...); none by default."""
        return []

    def recorded_games(self, run: RunStore, nested_in: RunStore | None = None) -> int:
        """The games recorded in the run ``run`` (read through its local view) and in the runs it
        holds (``nested_in``: the store they are found in, by default ``run`` itself; status hands
        the run's own store while ``run`` is its view), each read through its own store."""
        from records.read import done_game_ids

        outer = run if nested_in is None else nested_in
        return sum(len(done_game_ids(one)) for one in [run, *(outer.sub(inner) for inner in self.nested_runs(outer))])

    def status(self, run: RunStore) -> RunStatus:
        """Where the run (its store; a path or URL is opened) stands (``RunStatus``). Reads the
        lock's holder without taking the lock, so a reader never makes a starting driver fail. The
        kind reads the run's files through its local view (``RunStore.viewed``: a folder is its own
        view; a run on object storage downloaded once), asks the store itself who holds it."""
        store = RunStore(run)
        here = store.viewed()
        recorded, planned = self.recorded_games(here, store), self.planned_games(here)
        driver = store.holder()
        finished = self.is_finished(here, recorded, planned)
        state = "running" if driver is not None else "finished" if finished else "stopped"
        finish = None if finished else finish_command(store)
        return RunStatus(self.name, store.name, recorded, planned, state, finish, driver, self.detail(here),
                         self.decides, saved_models(here.view(parts=False)), store.side_counts())

    # what the league driver asks (tournament.runner.FolderKind)
    def refuse(self, run: RunStore, other: str) -> str:
        """The driver's refusal to play this kind into a run of kind ``other``."""
        return (f"{run} holds {kind_named(other).article}, not {self.article}: playing it as one would "
                f"spoil its records; finish it with: {finish_command(run)}")


KINDS: dict[str, RunKind] = {}


def register(kind: RunKind) -> RunKind:
    """Add a kind to the registry (by ``kind.name``); a name registered twice is an error."""
    if kind.name in KINDS and KINDS[kind.name] is not kind:
        raise ValueError(f"run kind {kind.name!r} is registered already")
    KINDS[kind.name] = kind
    return kind


def kind_named(name: str) -> RunKind:
    """The registered kind of that name (an unknown one: a ValueError naming the known)."""
    if name not in KINDS:
        raise ValueError(f"unknown run kind {name!r} (kinds: {', '.join(KINDS)})")
    return KINDS[name]


def kind_of(run: RunStore) -> RunKind:
    """The kind of the run (its store; a path or URL is opened): ``records.folder.run_kind``,
    run.json's kind, or what an older folder holds."""
    return kind_named(run_kind(RunStore(run).view(parts=False)))


def parent_run(run: RunStore) -> RunStore | None:
    """The store of the run that holds ``run`` (a training run's ``gen-NNN/selfplay`` or gate),
    if any: the nearest run above it, at most two levels up (``RunStore.above``: a folder, or a
    prefix on object storage), whose kind (its ``run.json``'s) nests runs."""
    for up in RunStore(run).above():
        kind = _kind_at(up)
        if kind is not None and kind.nests:
            return up
    return None


def _kind_at(store: RunStore) -> RunKind | None:
    """The kind its ``run.json`` names, or None (no run there, an unreadable one, an unknown kind)."""
    try:
        return kind_named(json.loads(store.read_text(RUN_FILE)).get("kind"))
    except (OSError, ValueError, AttributeError):
        return None


def finish_command(run: RunStore) -> str:
    """How to finish the run (its store; a path or URL is opened): its kind's command, or, for a run nested in
    another (a training run's self-play league or gate), the command that finishes the outer run.
    A run on object storage is named by its URL (a nested one by its training run's), its kind
    read from its view."""
    store = RunStore(run)
    outer = parent_run(store)
    if outer is not None:
        return _kind_at(outer).finish_command(outer)
    return kind_of(store).finish_command(store)


def out_and_name(run: RunStore) -> tuple[str, str]:
    """A run's ``--out`` and ``--name`` (``RunStore.out_and_name``)."""
    return RunStore(run).out_and_name()


def settings_command(run: RunStore, words: list[str], settings: str, placeholder: str,
                     what: str) -> str:
    """The command ``words SETTINGS --out OUT --name NAME --resume`` that finishes a run from its
    settings file ``settings``: the run's own file where a command can read it by name (a folder),
    else ``placeholder`` and a sentence saying it is ``what`` (a run on object storage keeps it)."""
    store = RunStore(run)
    given = store.file_argument(settings)
    line = command_line([*words, placeholder if given is None else given, "--out", *out_name_args(store),
                         "--resume"])
    return line if given is not None else f"{line} ({placeholder}: {what}, as {store.where(settings)} keeps it)"


def out_name_args(run: RunStore) -> list[str]:
    """``[OUT, "--name", NAME]``: the arguments after ``--out`` that name the run's own folder, so that a
    printed command finishes exactly that run, wherever its folder was copied or moved to."""
    out, name = out_and_name(run)
    return [out, "--name", name]


def load_settings_file(path, parse, **options):
    """A kind's settings file (YAML) with a command's options laid over its fields
    (``with_options``), parsed by ``parse(data, source, default_name)``: the file's path names its
    errors and its stem is the run's default name."""
    from tournament.config import read_yaml

    data = read_yaml(path)
    if isinstance(data, dict):
        data = with_options(data, **options)
    return parse(data, str(path), Path(path).stem)


def with_options(fields: dict, **options) -> dict:
    """Settings (a file's fields, or a stopped run's stored ones) with a command's options laid
    over them: an option given (not None) replaces its field, one left out keeps it. The one way
    every command and every resume does it; the kind then checks the result as it checks a file,
    so an option is refused as its field would be. (A league's nested config takes its options
    typed, ``LeagueConfig.with_overrides``, the form the kinds hand the driver.)"""
    return {**fields, **{k: v for k, v in options.items() if v is not None}}


def command_line(args: list[str]) -> str:
    """A command as it can be pasted into a shell."""
    return " ".join(shlex.quote(a) for a in args)
