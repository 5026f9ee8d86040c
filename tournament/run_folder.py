"""A league's run folder: its writer lock, its preparation for a run (``prepare_run_dir``: the
run's id and kind in ``run.json``, its config, the games already recorded) and the checks a
resume must pass (``check_resumable``: the same games; the folder repaired first,
``tournament.repair``). The driver (tournament/runner.py) calls these before it plays.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from records.columns import SCHEMAS
from records.folder import RunInUse, new_run_id, run_id_of, run_kind, save_run_id
from records.names import CONFIG_FILE, MLFLOW_RUN_FILE, QUARANTINE, RUN_FILE, STANDINGS_CSV, STANDINGS_JSON
from records.read import done_game_ids
from records.store import RunStore, store_holding

from .errors import LeagueError
from .config import IDENTITY, ConfigError, LeagueConfig, parse_config, read_stored_yaml
from .repair import RepairReport, repair
from .scheduler import seat_blocks


@contextmanager
def _locked(store: RunStore):
    """The run's writer lock (its store's: a folder's lock file, an object store's ``.lock``) while the
    block runs; ``store``: a store, or a run folder's path."""
    try:
        with RunStore(store).lock():
            yield
    except RunInUse as exc:
        raise LeagueError(str(exc)) from None


def repair_run(run: RunStore) -> RepairReport:
    """``tournament.repair.repair`` under the run's lock (no driver may write meanwhile)."""
    store = RunStore(run)
    with _locked(store):
        return repair(store)


class FolderKind(Protocol):
    """What the driver asks of the kind of run it plays (kinds.RunKind is one): ``name`` goes to
    ``run.json``; ``owned``, the files and folders of its own that ``--fresh`` removes besides
    the driver's; ``refuse(run, other)``, the refusal to play it into a folder of another kind."""

    name: str
    owned: tuple[str, ...]

    def refuse(self, run: RunStore, other: str) -> str: ...


@dataclass(frozen=True)
class PlainLeague:
    """The kind of a run played without one (a league config handed to ``run_league`` as it is)."""

    name: str = "league"
    owned: tuple[str, ...] = ()

    def refuse(self, run: RunStore, other: str) -> str:
        return (f"{run} holds a run of kind {other}, not a league: playing it as one would spoil its "
                "records (azul league repair names the command that finishes it)")


# what the driver writes in a run folder (the records, the config, the run's id, the standings)
DRIVER_FILES = (*SCHEMAS, CONFIG_FILE, RUN_FILE, STANDINGS_CSV, STANDINGS_JSON, MLFLOW_RUN_FILE, QUARANTINE)


@dataclass(frozen=True)
class Prepared:
    """What ``prepare_run_dir`` found and made: the run's id, the ids of the games already
    recorded, and what a resume's repair mended first (None: no repair ran)."""

    run_id: str
    done: set[str]
    repair: RepairReport | None


def prepare_run_dir(config: LeagueConfig, run: RunStore, resume: bool, fresh: bool, referee: str | None = None,
                    kind: FolderKind = PlainLeague()) -> Prepared:
    """Check the run folder against the config and return its ``Prepared``: the run's id, the
    games already recorded and the repair a resume made.

    Makes the run's id when the folder is new (or ``fresh``: the driver's files and the kind's
    ``owned`` ones removed first) and keeps it, with the run's kind and ``referee`` (who plays
    this run's games, ``folder_referee``; None: not said), in ``run.json``; a folder whose records
    are of another kind is refused (``kind.refuse``). A resume repairs the folder first
    (``tournament.repair``).
    """
    store = RunStore(run)
    report = None
    if fresh:
        store.remove(*DRIVER_FILES, *kind.owned)
    elif store.has_records():  # a config.yaml alone is a league that never got to play
        other = run_kind(store.view(parts=False))
        if other != kind.name:
            raise LeagueError(kind.refuse(store.root, other))
        if not resume:
            raise LeagueError(f"{run} already holds this league's records: add --resume to finish it, "
                              "--fresh to start it over, or choose another --out")
        if store.exists(CONFIG_FILE):
            try:
                before = read_stored_yaml(store, CONFIG_FILE)
            except ConfigError as exc:  # one line: the file, the line and column
                raise LeagueError(f"cannot resume: {exc}") from None
            pinned = pinned_models(store)
            check_resumable(config, before, store.where(CONFIG_FILE), pinned is not None)
            check_models(config, pinned, store.root)
        report = repair(store)
    view = store.view()  # the run as a folder reads it (a local run: the folder itself)
    run_id = run_id_of(view) or new_run_id(config.name)  # an older folder keeps its records' id
    done = done_game_ids(view)
    save_run_id(store, run_id, None if referee is None else folder_referee(store, referee, bool(done)),
                kind.name, config.model_pins())
    store.write_text(CONFIG_FILE, config.to_yaml())
    return Prepared(run_id, done, report)


def folder_referee(run: RunStore, referee: str, kept: bool) -> str:
    """Who played a run folder's games, for its ``run.json``: ``referee`` (this run's), or
    ``mixed`` when the games ``kept`` from an earlier run were played by the other one."""
    try:
        before = json.loads(RunStore(run).read_text(RUN_FILE)).get("referee") if kept else None
    except (OSError, ValueError, AttributeError):
        before = None
    return referee if before in (None, referee) else "mixed"


def pinned_models(store: RunStore) -> dict[str, list[dict[str, str]]] | None:
    """The models ``run.json`` pinned when the run started (``LeagueConfig.model_pins``), or None
    for a run from before runs pinned them."""
    try:
        pins = json.loads(store.read_text(RUN_FILE)).get("models")
    except (OSError, ValueError, AttributeError):
        return None
    return pins if isinstance(pins, dict) else None


def check_models(config: LeagueConfig, pinned: dict | None, run: RunStore) -> None:
    """A resume plays the models the run started with, byte for byte: a bot whose model's bytes
    differ from those ``run.json`` pinned is refused, naming the bot, the model and both digests."""
    if pinned is None:
        return
    for bot, pins in config.model_pins().items():
        then = {p.get("model"): p.get("sha256") for p in pinned.get(bot, []) if isinstance(p, dict)}
        for pin in pins:
            before = then.get(pin["model"], next(iter(then.values()), None) if len(then) == 1 else None)
            if before is not None and before != pin["sha256"]:
                raise LeagueError(
                    f"cannot resume {run}: bot {bot!r} plays model {pin['model']}, whose bytes are not those "
                    f"the run started with (sha256 {before} then, {pin['sha256']} now): put "
                    "that model back, use --fresh to start over, or give the bot another name")


def check_resumable(config: LeagueConfig, saved: dict, where: str | Path, pinned: bool = False) -> None:
    """A run resumes only with the same games: same bots, seats, seeds... (deals may grow).
    ``where``: the run's stored config (a path, or an ``s3://`` URL). ``pinned``: the run keeps its
    models' digests (``check_models`` compares them), so a model file found at another path, the
    run's folders moved, is the same model."""
    run = store_holding(where)
    try:
        before = parse_config(saved, source=str(where))
    except ConfigError as exc:
        raise LeagueError(f"cannot resume: {exc}") from None
    now, then = config.to_dict(), before.to_dict()
    if pinned:
        for d in (now, then):
            d["bots"] = [{**b, "params": {k: v for k, v in b["params"].items() if k != "model"}}
                         for b in d["bots"]]
    changed = [k for k in IDENTITY if now.get(k) != then.get(k)
               and not (k == "seats" and seat_blocks(config.players, config.seats)
                        == seat_blocks(before.players, before.seats))]  # at 2 players every mode is one
    if config.format != "round-robin" and config.deals != before.deals:  # an event's deals are its games'
        changed.append("deals")
    if changed:
        raise LeagueError(f"cannot resume {run}: the config differs from the one it was started "
                          f"with in {', '.join(changed)} (use --fresh to start over, or another --out)")
    if config.deals < before.deals:
        raise LeagueError(f"cannot resume {run}: deals went down from {before.deals} to "
                          f"{config.deals} (a league can only be extended)")
