"""A rating list that grows run by run (``azul ratings``, docs/ratings.md): a folder holding
``list.json``, the list's versions, each the set of runs it rates (run id and folder) and its
settings (the anchor, the bots left out, the bots renamed).

    lst = RatingList.open("lists/main")
    lst.add(["runs/league-1", "runs/gauntlet-2"], exclude=["random"])   # version 2
    shown = lst.show()          # ratings of the last version, and the change since the one before

The list keeps no ratings: ``show`` rebuilds each version's from its runs' records (the fit of
``azul elo``, analysis/ratings.py: one per player count, with its intervals), so the list can
always be recomputed, and the change since the previous version is that version's ratings rebuilt
the same way (its bots' names passed through this version's renames). A run is found again by its
folder and checked by its run id: a folder moved or replaced is an error naming the run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from records.errors import AzulError
from records.folder import replace_text

LIST_FILE = "list.json"


class RatingListError(AzulError, ValueError):
    """A list that cannot be read, a run that cannot be added, a run that has moved."""


@dataclass
class Version:
    """One version of a list: the runs it rates and its settings."""

    number: int
    runs: list[dict]  # {"run_id": ..., "path": ...}
    anchor: str | None = None
    anchor_value: float = 0.0
    exclude: list[str] = field(default_factory=list)
    rename: dict[str, str] = field(default_factory=dict)  # a bot's name in the records -> its name here
    created: str = ""

    def to_dict(self) -> dict:
        return {"version": self.number, "created": self.created, "runs": self.runs, "anchor": self.anchor,
                "anchor_value": self.anchor_value, "exclude": self.exclude, "rename": self.rename}

    @classmethod
    def from_dict(cls, d: dict) -> Version:
        return cls(d["version"], list(d["runs"]), d.get("anchor"), float(d.get("anchor_value", 0.0)),
                   list(d.get("exclude", [])), dict(d.get("rename", {})), d.get("created", ""))


@dataclass
class Shown:
    """A version's ratings: per player count, one row a bot (``bot, games, rating, low, high,
    previous, change``: ``previous`` None for a bot new to the list)."""

    version: Version
    previous: Version | None
    tables: dict[int, pl.DataFrame]
    anchor: str | None
    anchor_value: float

    def as_dict(self) -> dict:
        return {"version": self.version.number, "previous": self.previous.number if self.previous else None,
                "runs": self.version.runs, "anchor": self.anchor, "anchor_value": self.anchor_value,
                "exclude": self.version.exclude, "rename": self.version.rename,
                "players": [{"num_players": n, "bots": t.to_dicts()} for n, t in self.tables.items()]}


class RatingList:
    """A list's folder and its versions (``list.json``)."""

    def __init__(self, folder: Path, versions: list[Version]):
        self.folder, self.versions = folder, versions

    @classmethod
    def open(cls, folder: str | Path, create: bool = False) -> RatingList:
        folder = Path(folder)
        path = folder / LIST_FILE
        if not path.exists():
            if create and (not folder.exists() or not any(folder.iterdir())):
                return cls(folder, [])
            raise RatingListError(f"{folder}: not a rating list (no {LIST_FILE})"
                                  + ("; choose an empty or new folder for a new list" if create else ""))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            versions = [Version.from_dict(v) for v in data["versions"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as exc:
            raise RatingListError(f"{path}: not a rating list's file ({type(exc).__name__}: {exc})") from None
        for i, v in enumerate(versions, 1):
            damage = _damage(v, i)
            if damage:  # before any command reads or adds to it
                raise RatingListError(f"{path}: version {i}: {damage}; the file is damaged (mend it or start "
                                      "a new list)")
        return cls(folder, versions)

    @property
    def last(self) -> Version | None:
        return self.versions[-1] if self.versions else None

    def add(self, run_dirs: list[str | Path], *, anchor: str | None = None, anchor_value: float | None = None,
            exclude: list[str] = (), include: list[str] = (), rename: dict[str, str] | None = None) -> Version:
        """A new version: the last one's runs and ``run_dirs``, its settings changed as given
        (``include`` takes a bot off the excluded). A run the list holds already (by run id), or
        given twice, is refused, and nothing is written."""
        from records.folder import run_id_of
        from records.store import open_store

        from .records import check_runs

        last = self.last or Version(0, [])
        held = {r["run_id"]: r["path"] for r in last.runs}
        runs = []
        for given in run_dirs:
            where, d = _located(given)  # where the list finds it again; a folder that reads as it
            shown = str(open_store(given))  # a folder as given, a run's URL
            if not (d / "games").is_dir():
                raise RatingListError(f"{shown}: not a run folder (no games records)")
            run_id = run_id_of(d)
            if run_id is None:
                raise RatingListError(f"{shown}: no run id (run.json) and no records")
            if run_id in {r["run_id"] for r in runs}:
                raise RatingListError(f"{shown}: run {run_id} is given twice (also as {held[run_id]})")
            if run_id in held:
                raise RatingListError(f"{shown}: run {run_id} is already in the list (from {held[run_id]})")
            try:
                check_runs(d)  # a damaged part is found now, not by every show after
            except ValueError as exc:
                raise RatingListError(str(exc)) from None
            held[run_id] = shown
            runs.append({"run_id": run_id, "path": where})
        if not runs and anchor is None and not exclude and not include and not rename:
            raise RatingListError("nothing to add: give runs, or settings to change")
        names = {**last.rename, **(rename or {})}
        for old, new in names.items():
            if old == new or not old or not new:
                raise RatingListError(f"--rename {old}={new}: give OLD=NEW, two different names")
        version = Version(last.number + 1, last.runs + runs,
                          anchor if anchor is not None else last.anchor,
                          float(anchor_value) if anchor_value is not None else last.anchor_value,
                          sorted((set(last.exclude) | set(exclude)) - set(include)), names,
                          datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        check_version(version, anchor)  # before anything is written
        self.folder.mkdir(parents=True, exist_ok=True)
        self.versions.append(version)
        self._save()
        return version

    def _save(self) -> None:
        replace_text(self.folder / LIST_FILE,
                     json.dumps({"versions": [v.to_dict() for v in self.versions]}, indent=2) + "\n")

    def version(self, number: int | None = None) -> Version:
        if not self.versions:
            raise RatingListError(f"{self.folder}: the list has no runs yet (azul ratings add)")
        if number is None:
            return self.versions[-1]
        if not 1 <= number <= len(self.versions):
            raise RatingListError(f"version {number}: the list has versions 1 to {len(self.versions)}")
        return self.versions[number - 1]

    def show(self, number: int | None = None, *, anchor: str | None = None, anchor_value: float | None = None,
             bootstrap: int = 200, seed: int = 0) -> Shown:
        """A version's ratings (default the last) and the change since the version before it,
        both rebuilt from their runs' records, on the version's anchor (or ``anchor``)."""
        version = self.version(number)
        previous = self.versions[version.number - 2] if version.number > 1 else None
        anchor = anchor if anchor is not None else version.anchor
        value = anchor_value if anchor_value is not None else version.anchor_value
        now = rate_version(version, anchor, value, bootstrap, seed, strict=True)
        before = rate_version(previous, anchor, value, 0, seed, version.rename) if previous else {}
        tables = {}
        for n, table in now.items():
            old = before.get(n)
            prev = (old.select("bot", pl.col("rating").alias("previous")) if old is not None
                    else pl.DataFrame(schema={"bot": pl.String, "previous": pl.Float64}))
            tables[n] = (table.join(prev, on="bot", how="left")
                         .with_columns(change=pl.col("rating") - pl.col("previous")))
        return Shown(version, previous, tables, anchor, value)


def _damage(v: Version, number: int) -> str | None:
    """What is wrong with version ``number`` as read from a list's file, or None."""
    if isinstance(v.number, bool) or not isinstance(v.number, int) or v.number != number:  # 2.0 is no place
        return f"numbered {v.number!r} in place {number}"
    for run in v.runs:
        if not isinstance(run, dict) or not all(isinstance(run.get(k), str) and run[k] for k in ("run_id", "path")):
            return f"a run without a run_id and a path ({run!r})"
    if v.anchor is not None and not isinstance(v.anchor, str):
        return f"anchor {v.anchor!r} is not a bot's name"
    if not all(isinstance(b, str) for b in v.exclude):
        return f"exclude {v.exclude!r} is not a list of bots' names"
    if not all(isinstance(a, str) and isinstance(b, str) for a, b in v.rename.items()):
        return f"rename {v.rename!r} does not map names to names"
    return None


def version_dirs(version: Version) -> list[Path]:
    """The run folders of a version, each checked to hold its run (a moved run is an error)."""
    from records.folder import run_id_of

    dirs = []
    for run in version.runs:
        where, d = _located(run["path"])
        found = run_id_of(d) if (d / "games").is_dir() else None
        if found != run["run_id"]:
            what = "holds run " + found if found else "holds no run"
            raise RatingListError(f"run {run['run_id']} of version {version.number} is not at {where} any more "
                                  f"(that folder {what}): move it back, or start a list without it")
        dirs.append(d)
    return dirs


def _located(run: str | Path) -> tuple[str, Path]:
    """Where a run is, as the list keeps it (a folder's absolute path, or an ``s3://`` URL), and a
    local folder that reads as it (the folder, or the run's view: records.store.local_run)."""
    from records.store import open_store

    store = open_store(run)  # typer's s3:/B/P as s3://B/P
    folder = store.own_folder()
    return store.address(), store.view() if folder is None else folder


def version_bots(version: Version) -> list[str]:
    """The bots a version rates: its runs' bots under their names in it, less the excluded."""
    from .records import connect

    with connect(version_dirs(version)) as con:
        bots = {b for (b,) in con.execute("SELECT DISTINCT bot FROM results").fetchall()}
    return sorted({version.rename.get(b, b) for b in bots} - set(version.exclude))


def check_version(version: Version, anchor: str | None) -> None:
    """A new version is one ``show`` can read: its runs where it says (``version_dirs``), a bot
    left to rate, and its anchor (``anchor``, given now, or the one it keeps) one of them."""
    bots = version_bots(version)
    if not bots:
        raise RatingListError(f"version {version.number} would rate no bot: every bot of its runs is excluded")
    if anchor is not None:
        check_anchor(version, anchor, bots)
    elif version.anchor is not None and version.anchor not in bots:
        raise RatingListError(f"the list's anchor {version.anchor} would not be a bot of version {version.number} "
                              f"(excluded or renamed): give another --anchor, or keep {version.anchor} in it")


def check_anchor(version: Version, anchor: str, bots: list[str] | None = None) -> None:
    """A ``RatingListError`` unless ``anchor`` is a bot the version rates (``bots``, read from its
    runs when not given), as ``azul elo --anchor`` refuses a bot of no game: a list anchored on a
    bot it does not hold would print "NAME at X" beside ratings centred at 0."""
    bots = version_bots(version) if bots is None else bots
    if anchor not in bots:
        raise RatingListError(f"--anchor {anchor}: not a bot of the list's runs (bots: {', '.join(bots)})")


def rate_version(version: Version, anchor: str | None, anchor_value: float, bootstrap: int, seed: int,
                 rename: dict[str, str] | None = None, strict: bool = False) -> dict[int, pl.DataFrame]:
    """A version's ratings per player count (``bot, games, rating, low, high``), from its runs'
    records: the games of an excluded bot left out, the renamed bots under their new names (and
    then under ``rename``: the later version's names, to compare with it). ``strict``: an ``anchor``
    that is none of its bots is a ``RatingListError`` (``check_anchor``); else it rates on the mean."""
    from .ratings import rate_by_players
    from .records import read_records

    records = read_records(version_dirs(version))
    results, games = records["results"], records["games"]
    names = {**version.rename, **(rename or {})}
    if names:
        results = results.with_columns(pl.col("bot").replace(names))
    if version.exclude:
        out = results.filter(pl.col("bot").is_in(version.exclude)).select("run_id", "game_id").unique()
        results = results.join(out, on=["run_id", "game_id"], how="anti")
        games = games.join(out, on=["run_id", "game_id"], how="anti")
    if results.is_empty():
        raise RatingListError(f"version {version.number}: no games left to rate")
    bots = sorted(set(results["bot"].to_list()))
    if strict and anchor is not None:  # the version shown: its anchor must be one of its bots
        check_anchor(version, anchor, bots)
    here = anchor if anchor is not None and anchor in bots else None
    fits = rate_by_players(results, games, anchor=here, anchor_value=anchor_value if here else 0.0,
                           bootstrap=bootstrap, seed=seed)
    return {n: fit.table.select("bot", "games", "rating", "low", "high") for n, fit in fits.items()}


def list_html(shown: Shown, title: str) -> str:
    """The list as a page of its own: a table per player count, with the change since the last version."""
    from .sections.format import esc, html_table

    v = shown.version
    where = f"{shown.anchor} at {shown.anchor_value:g}" if shown.anchor else "the mean bot at 0"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{padding:2px 8px;border-bottom:1px solid #ddd}.num{text-align:right}</style></head><body>",
             f"<h1>{esc(title)}: version {v.number}</h1>",
             f"<p>{len(v.runs)} runs; ratings on {esc(where)}; 95% intervals; change since version "
             f"{shown.previous.number if shown.previous else '-'}"
             + (f"; left out: {esc(', '.join(v.exclude))}" if v.exclude else "")
             + (f"; renamed: {esc(', '.join(f'{a} as {b}' for a, b in v.rename.items()))}" if v.rename else "")
             + "</p>"]
    for n, table in shown.tables.items():
        parts.append(f"<h2>{n} players</h2>")
        shown_change = pl.when(pl.col("previous").is_null()).then(pl.lit("new")).otherwise(
            pl.col("change").round(0).map_elements(lambda c: f"{c + 0.0:+.0f}", return_dtype=pl.String))
        parts.append(html_table(table.with_row_index("place", 1).with_columns(shown_change.alias("shown")), {
            "#": ("place", 0), "bot": ("bot", None), "rating": ("rating", 0), "95%": (("low", "high"), 0),
            "games": ("games", 0), "change": ("shown", None)}))
    parts.append("<h2>Runs</h2><ul>" + "".join(f"<li>{esc(r['run_id'])}: {esc(r['path'])}</li>" for r in v.runs)
                 + "</ul></body></html>")
    return "\n".join(parts) + "\n"
