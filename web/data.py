"""What the pages show of a run, as data (the JSON of ``/api/run/<path>``): its kind's status
(``kinds``: ``RunStatus``, which reads the lock's holder, never waiting on it) and what that kind
has besides: a league's standings and ratings with intervals (``azul elo``'s fit) and each
bot's self-play games (which neither counts), an event's table, an SPRT's LLR path against its
bounds, a tune's parameter paths, a training run's lineage, a rating list's ratings (``azul
ratings show``), and the last games recorded.

Each part is read on its own: one that meets a half-written or damaged record (a repair or a
resume under way) answers an ``errors`` entry naming it, and the rest still shows. A run's data
is kept until its folder changes (``signature``: the folders' times, the lock file's; on object
storage its commits and the ETags of its small files and lock object) or for ``MAX_AGE`` seconds,
so that pages polling every second read the records once per change; a large run's data made
again does not hold its page up (``Cache``).
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, Callable

from records.names import LOCK_FILE, QUARANTINE
from records.store import RunStore

from .runs import Found, is_rating_list, view_lock

MAX_AGE = 5.0  # seconds a run's data is kept while its folder does not change
WAIT = 0.5  # seconds a request waits for a run's data made again before answering with the last
LAST_GAMES = 20  # games listed on a run page, the last recorded
PATH_POINTS = 400  # points of a drawn path at most (an SPRT's LLR, a tune's theta)
# The elo fit's bootstrap resamples: one, since the intervals are the deal jackknife's (as azul
# elo's), which the fit makes only when it resamples, and no resample goes into them
RATING_RESAMPLES = 1


def signature(found: Found, depth: int = 3) -> tuple:
    """What changes when anything is committed, repaired or started in a run: the times of its
    folders (a part committed is a rename into one) and of its lock file; on object storage
    (``s3_signature``) its commits and the ETags of its small files and of its lock object."""
    if found.store is not None:
        return s3_signature(found.store)
    out = []

    def walk(d: Path, level: int) -> None:
        try:
            out.append((str(d), d.stat().st_mtime_ns))
            if level < depth:
                for child in sorted(os.scandir(d), key=lambda e: e.name):
                    if child.is_dir(follow_symlinks=False) and child.name != QUARANTINE:
                        walk(Path(child.path), level + 1)
        except OSError:
            out.append((str(d), None))

    walk(found.folder, 0)
    try:
        lock = RunStore(found.folder).local(LOCK_FILE).stat()
        out.append((lock.st_mtime_ns, lock.st_size))
    except OSError:
        pass
    return tuple(out)


def s3_signature(store) -> tuple:
    """A run on object storage's signature, in two LIST requests: its committed parts (each
    commit's ETag) and the ETags of its small files, the lock object's among them (a driver
    taking, beating or giving back the lock writes it anew). A store that cannot be listed: the
    error (the data made then says so)."""
    try:
        files, _ = store.objects.level("")
        return tuple(sorted(store.commits().items())), tuple(sorted((n, e) for n, (e, _) in files.items()))
    except OSError as exc:
        return ("unreadable", str(exc))


class Cache:
    """Values by key, each kept while its signature holds and for at most ``MAX_AGE`` seconds.

    A value out of date is made again on a thread of its own, one at a time per key (two pages
    polling one large run read its records once); the request waits ``WAIT`` seconds for it and
    then answers with the value it has, so a page over a large run stays quick while its data is
    made again (``updating`` says so), and a small run's page is current at once."""

    def __init__(self):
        self.kept: dict[Any, tuple[tuple, float, Any]] = {}
        self.jobs: dict[Any, Future] = {}
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="azul-serve-data")

    def get(self, key, sig: tuple, make: Callable[[], Any]) -> Any:
        with self.lock:
            hit = self.kept.get(key)
            if hit is not None and hit[0] == sig and time.monotonic() - hit[1] < MAX_AGE:
                return hit[2]
            job = self.jobs.get(key)
            if job is None or job.done():
                job = self.jobs[key] = self.pool.submit(self._make, key, sig, make)
        try:
            return job.result(timeout=None if hit is None else WAIT)
        except FutureTimeout:
            return {**hit[2], "updating": True} if isinstance(hit[2], dict) else hit[2]

    def _make(self, key, sig: tuple, make: Callable[[], Any]) -> Any:
        value = make()
        with self.lock:
            self.kept[key] = (sig, time.monotonic(), value)
        return value


def failed(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def status_row(found: Found) -> dict:
    """A run's line of the index: kind, state, games of planned, who is ahead (the kind's detail
    says, ``StatusDetail.ahead``; ``error``: what could not be read)."""
    with view_lock(found):
        return _status(found)[0]


def _status(found: Found) -> tuple[dict, Path | None, Any]:
    """``status_row``'s row, the local folder it read (None when it could not) and the run's kind
    and status (None, None for a rating list or an unreadable run): the run's folder, or for a
    run on object storage its local view, whose state (``running``) comes from the store's lock
    object (the kind's status of the run's URL: ``store.holder()``)."""
    row: dict[str, Any] = {"url": found.url, "name": found.url, "kind": None, "state": None, "recorded": None,
                           "planned": None, "ahead": None, "error": None}
    if found.rating_list:
        row.update(kind="rating list", state="-", ahead=_list_ahead(found.folder, row))
        return row, found.folder, (None, None)
    from kinds import kind_of

    try:
        folder = found.local()
        kind = kind_of(folder)
        st = kind.status(found.where)
    except Exception as exc:  # noqa: BLE001 - a damaged or half-written run: its row says why, the page stays
        row["error"] = failed(exc)
        return row, None, (None, None)
    row.update(kind=kind.name, label=kind.label, nests=kind.nests, state=st.state, recorded=st.recorded,
               planned=st.planned, driver=st.driver, finish=st.finish, decides=st.decides,
               ahead=st.detail.ahead(), models=st.models)
    row["detail"] = st.detail.as_dict()
    return row, folder, (kind, st)


def _list_ahead(folder: Path, row: dict) -> str | None:
    from analysis.rating_list import RatingList

    try:
        last = RatingList.open(folder).last
    except Exception as exc:  # noqa: BLE001 - as a run's row
        row["error"] = failed(exc)
        return None
    return None if last is None else f"version {last.number}, {len(last.runs)} runs"


def run_data(found: Found, inside: Callable[[Path], bool]) -> dict:
    """Everything a run page shows: the index row, and each part its kind has (``errors``: the
    parts that could not be read, by name). ``inside``: whether a folder lies in the served ones
    (a rating list's runs are read only when they do). A run on object storage is read from its
    local view, made current first."""
    if found.rating_list or (found.store is None and is_rating_list(found.folder)):
        data = status_row(Found(found.folder, found.url, rating_list=True))
        data["errors"] = {}
        part(data, "rating_list", lambda: rating_list(found.folder, inside))
        return data
    with view_lock(found):
        data, folder, (kind, st) = _status(found)
        data["errors"] = {}
        data["nested"] = [{"url": n.url, "name": n.url} for n in found.nested]
        if data["error"] is not None or data.get("nests"):  # a training run: its records are in its runs
            return data
        records = part(data, "records", lambda: _records(folder))
        if records is None:
            return data
        part(data, "ratings", lambda: ratings(records))
        part(data, "self_play", lambda: self_play_games(records))
        part(data, "games", lambda: last_games(records))
        part(data, "event", lambda: event(folder, records, kind))
        for name in st.detail.parts:  # the parts its kind's detail names (an SPRT's LLR path)
            part(data, name, lambda make=PARTS[name]: make(folder, records))
        part(data, "tune", lambda: tune_data(folder))
    return data


def part(data: dict, name: str, make: Callable[[], Any]) -> Any:
    """``data[name] = make()``, or its error under ``data["errors"][name]``."""
    try:
        value = make()
    except Exception as exc:  # noqa: BLE001 - one part of a page that cannot be read says so; the rest shows
        data["errors"][name] = failed(exc)
        return None
    if name != "records":
        data[name] = value
    return value


def _records(folder: Path) -> dict | None:
    from analysis.records import read_records
    from records.parts import committed_parts

    if not committed_parts(folder):
        return None
    return read_records(folder)


def ratings(records: dict) -> list[dict]:
    """The ratings with 95% intervals per player count (``azul elo``'s fit, analysis/ratings.py)."""
    from analysis.ratings import has_rated_games, rate_by_players, withheld_bots, withhold
    from present.strict_json import json_rows

    results, games = records["results"], records["games"]
    if not has_rated_games(results):  # a self-play league of one bot: nothing to rate
        return []
    fits = rate_by_players(results, games, bootstrap=RATING_RESAMPLES)
    hidden = withheld_bots(results, games)
    return [{"players": n, "bots": json_rows(withhold(fit.table, hidden))} for n, fit in fits.items()]


def self_play_games(records: dict) -> dict[str, int]:
    """Per bot, its games against copies of itself (every seat the same bot, as a league with
    ``self_play`` plays them, a training run's self-play all of them), which the standings and the
    ratings leave out (analysis.stats.standings); {} when there are none."""
    import polars as pl

    from analysis.stats import SEAT_COLUMNS, outcomes

    equal = outcomes(records["results"].select(SEAT_COLUMNS), records["games"]).filter(~pl.col("counted"))
    return dict(equal.group_by("bot").agg(pl.col("game").n_unique()).sort("bot").iter_rows())


def last_games(records: dict) -> list[dict]:
    """The last ``LAST_GAMES`` games recorded: id, deal and each seat's bot, score and rank."""
    import polars as pl

    games = records["games"].tail(LAST_GAMES).select("run_id", "game_id")
    seats = (records["results"].join(games, on=["run_id", "game_id"]).sort("game_id", "seat")
             .group_by("game_id", maintain_order=True)
             .agg(pl.col("bot"), pl.col("score"), pl.col("rank")))
    return seats.to_dicts()


def event(folder: Path, records: dict, kind) -> dict | None:
    """An event's own table as it stands (a pairing counts once all its games are recorded: the
    run's kind says which, ``RunKind.event_results``)."""
    from analysis.events import event_settings, event_standings

    if event_settings(folder) is None:
        return None
    results, unfinished = kind.event_results(RunStore(folder), records)
    ev = event_standings(folder, results, records["games"])
    return None if ev is None else {**ev.as_dict(), "unfinished": len(unfinished)}


def thin(points: list, most: int = PATH_POINTS) -> list:
    """At most ``most`` of ``points``, evenly spaced, the last always among them."""
    if len(points) <= most:
        return points
    step = len(points) / most
    return [points[int(i * step)] for i in range(most - 1)] + [points[-1]]


def llr_path(folder: Path, records: dict) -> dict:
    """An SPRT's LLR after each pair counted (analysis/sprt_run.py), its bounds and verdict."""
    import numpy as np

    from analysis import sprt
    from analysis.sprt_run import in_order, pair_cells, read_settings

    s = read_settings(folder)
    cells = in_order(pair_cells(records["results"], records["games"], s["new"]))[:s["max_pairs"]]
    lower, upper = sprt.bounds(s["alpha"], s["beta"])
    if not cells:
        return {"points": [], "lower": lower, "upper": upper}
    cumulative = np.cumsum(np.eye(5, dtype=np.int64)[np.asarray(cells)], axis=0)
    values = sprt.llr_many(cumulative, s["elo0"], s["elo1"], s["model"])
    stop = np.flatnonzero((values >= upper) | (values <= lower))  # the decision: no pair counts after it
    values = values[: int(stop[0]) + 1] if stop.size else values
    points = [[i + 1, round(float(v), 4)] for i, v in enumerate(values)]
    return {"points": thin(points), "pairs": len(values), "lower": lower, "upper": upper}


def tune_data(folder: Path) -> dict | None:
    """A tune's parameter paths: theta at each step's start against the pairs before it."""
    from analysis.tune import read_result

    from kinds import tune_path

    steps = tune_path(folder)
    if steps is None:  # not a tune's records
        return None
    path = [{"pairs": 0, "theta": steps[0]["theta"]}] if steps else []
    path += [{"pairs": before["pairs"], "theta": after["theta"]} for before, after in zip(steps, steps[1:])]
    result = read_result(folder)
    return {"path": thin(path), "steps": len(steps), "final": (result or {}).get("params")}


PARTS: dict[str, Callable[[Path, dict], Any]] = {"sprt_path": llr_path}  # a part a kind's detail names


def rating_list(folder: Path, inside: Callable[[Path], bool]) -> dict:
    """A rating list's last version rebuilt from its runs' records (``azul ratings show``), when
    every run it rates lies in the served folders."""
    from analysis.rating_list import RatingList
    from present.strict_json import json_rows

    lst = RatingList.open(folder)
    if lst.last is None:
        return {"version": None, "players": []}
    outside = [r["path"] for r in lst.last.runs if not inside(Path(r["path"]))]
    if outside:
        raise ValueError(f"{len(outside)} of its runs lie outside the served folders: not read")
    shown = lst.show(None, bootstrap=RATING_RESAMPLES)
    doc = shown.as_dict()
    doc["players"] = [{"num_players": n, "bots": json_rows(t)} for n, t in shown.tables.items()]
    return doc
