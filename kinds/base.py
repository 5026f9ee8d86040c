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

from records.folder import lock_holder, run_kind, saved_models
from records.names import CONFIG_FILE, REPORT_FILES, RUN_FILE
from records.store import as_store, open_store
from records.urls import S3Url, is_url


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

    def lines(self) -> list[str]:
        """The lines ``azul league status`` prints after its status line (the kind's, and the
        models the run pinned, where the kind places them)."""
        return self.detail.lines(model_lines(self.models))


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

    def finish_command(self, run_dir: Path) -> str:
        """The command (or a sentence naming it) that finishes a stopped run of this kind."""
        raise NotImplementedError

    def planned_games(self, run_dir: Path) -> int | None:
        """How many games the run plays in all; None when the kind plays until it decides or
        the folder no longer says."""
        return None

    def is_finished(self, run_dir: Path, recorded: int, planned: int | None) -> bool:
        """Whether the run is over (by default: every planned game recorded)."""
        return planned is not None and recorded >= planned

    def detail(self, run_dir: Path) -> StatusDetail:
        """What this kind's status has besides the counts (``RunStatus.detail``), describing itself."""
        return StatusDetail()

    def event_results(self, run_dir: Path, records: dict) -> tuple[Any, list[tuple[int, int, int, int]]]:
        """The ``results`` rows (``records``: a run's frames, analysis.records) its event's table
        counts, and the pairings left out as unfinished (``kinds.league.finished_pairings``); by
        default every row, none left out."""
        return records["results"], []

    def nested_runs(self, run_dir: Path) -> list[str]:
        """The runs this one holds that have records, as paths relative to it (a kind that
        ``nests``: a training run's ``gen-001/selfplay``...); none by default."""
        return []

    def recorded_games(self, run_dir: Path, store=None) -> int:
        """The games recorded in the folder ``run_dir`` (a run on object storage: its local view,
        ``store`` the run's store), and in the runs it holds, each read through its own store."""
        from records.read import done_game_ids

        store = as_store(run_dir) if store is None else store
        nested = [store.sub(inner).view() for inner in self.nested_runs(store)]
        return sum(len(done_game_ids(folder)) for folder in [Path(run_dir), *nested])

    def status(self, run_dir: Path) -> RunStatus:
        """Where the run in ``run_dir`` stands (``RunStatus``). Reads the lock's holder without
        taking the lock, so a reader never makes a starting driver fail."""
        store = open_store(run_dir) if is_url(str(run_dir)) else None  # a run on object storage
        run_dir = store.view() if store is not None else Path(run_dir)  # read from its local view
        recorded, planned = self.recorded_games(run_dir, store), self.planned_games(run_dir)
        driver = store.holder() if store is not None else lock_holder(run_dir)
        finished = self.is_finished(run_dir, recorded, planned)
        state = "running" if driver is not None else "finished" if finished else "stopped"
        finish = None if finished else finish_command(run_dir if store is None else str(store))
        name = run_dir.name if store is None else str(store).rsplit("/", 1)[-1]
        return RunStatus(self.name, name, recorded, planned, state, finish, driver, self.detail(run_dir),
                         self.decides, saved_models(run_dir))

    # what the league driver asks (tournament.runner.FolderKind)
    def refuse(self, run_dir: Path, other: str) -> str:
        """The driver's refusal to play this kind into a folder of kind ``other``."""
        return (f"{run_dir} holds {kind_named(other).article}, not {self.article}: playing it as one would "
                f"spoil its records; finish it with: {finish_command(run_dir)}")


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


def kind_of(run_dir: str | Path) -> RunKind:
    """The kind of the run in ``run_dir`` (``records.folder.run_kind``: run.json's kind, or what
    an older folder holds)."""
    return kind_named(run_kind(run_dir))


def parent_run(run_dir: str | Path) -> Path | str | None:
    """The run that holds ``run_dir`` (a training run's ``gen-NNN/selfplay`` or gate), if any:
    the nearest folder above it, at most two levels up, whose kind nests runs. A run on object
    storage (an ``s3://`` URL) is looked for the same way, a prefix up and two (a prefix's kind
    is its ``run.json``'s): the URL of the run that holds it, or None."""
    if is_url(str(run_dir)):
        url = open_store(run_dir).url
        for up in (_above(url), _above(_above(url))):
            kind = _kind_at(open_store(str(up))) if up != url else None
            if kind is not None and kind.nests:
                return str(up)
        return None
    run_dir = Path(run_dir)
    for up in (run_dir.parent, run_dir.parent.parent):
        try:
            if up != run_dir and kind_of(up).nests:
                return up
        except ValueError:
            continue
    return None


def _above(url: S3Url) -> S3Url:
    """The prefix above ``url`` (the bucket's top stays where it is)."""
    return S3Url(url.bucket, url.prefix.rpartition("/")[0])


def _kind_at(store) -> RunKind | None:
    """The kind of the run on object storage there (its ``run.json``'s), or None (no run there,
    an unreadable one, an unknown kind)."""
    try:
        return kind_named(json.loads(store.read_text(RUN_FILE)).get("kind"))
    except (OSError, ValueError, AttributeError):
        return None


def finish_command(run_dir: str | Path) -> str:
    """How to finish the run in ``run_dir``: its kind's command, or, for a run nested in another
    (a training run's self-play league or gate), the command that finishes the outer run. A run
    on object storage (an ``s3://`` URL) is named by its URL (a nested one by its training run's),
    its kind read from its view."""
    outer = parent_run(run_dir)
    if outer is not None:
        kind = _kind_at(open_store(outer)) if is_url(str(outer)) else kind_of(outer)
        return kind.finish_command(outer)
    if is_url(str(run_dir)):
        store = open_store(run_dir)
        return kind_of(store.view(parts=False)).finish_command(str(store))
    return kind_of(run_dir).finish_command(Path(run_dir))


def out_and_name(run_dir: str | Path) -> tuple[str, str]:
    """A run's ``--out`` and ``--name``: a folder's parent and name, or an ``s3://`` run's URL
    split at its last ``/``."""
    if is_url(str(run_dir)):
        out, _, name = str(open_store(run_dir)).rpartition("/")
        return out, name
    return str(Path(run_dir).parent), Path(run_dir).name


def out_name_args(run_dir: str | Path) -> list[str]:
    """``[OUT, "--name", NAME]``: the arguments after ``--out`` that name the run's own folder, so that a
    printed command finishes exactly that run, wherever its folder was copied or moved to."""
    out, name = out_and_name(run_dir)
    return [out, "--name", name]


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
