"""The atlas kind: ``azul atlas CLAIMS.yaml`` tests each claim of a file on the strongest bots and
writes ``atlas.json`` and ``atlas.html`` (SPEC 11; docs/studies.md, "The strategy atlas").

    from kinds.atlas import run_atlas
    from kinds.atlas_config import load_atlas
    outcome = run_atlas(load_atlas("atlas/claims.yaml", out="runs"))
    outcome.atlas["rows"]          # per claim and player count: effect, low, high, games, verdict

Each claim at each player count is a run of its own under the atlas's folder,
``<out>/<name>/claim-runs/<id>-<N>p/``: a study that stops when the answer is known (kinds/study.py)
for a ``study:`` claim, a league of copies of the bot on shared deals in every balanced seating
for a ``statistic:`` claim (read by analysis/luck.py). The atlas nests them (its kind ``nests``),
so their status and refusals name the atlas's command, and ``--resume`` goes on with each where it
stopped: a claim's run already finished is read again, not played. Bots play at iteration
budgets, so an atlas is the same for the same seed on any machine. ``atlas.json`` is written after
each claim (``complete`` false until the last), ``atlas.html`` with it (present/atlas_page.py).
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from analysis.atlas import Measured, changed_verdicts, compared, measured, statistic_value
from engine import __version__ as ENGINE_VERSION
from present.strict_json import dumps
from records.folder import RunInUse, new_run_id, run_id_of, run_kind, save_run_id, saved_models
from records.names import ATLAS_FILE, ATLAS_HTML, ATLAS_JSON, CLAIMS_FOLDER, RUN_FILE
from records.store import RunStore, open_root
from tournament.config import BotEntry, LeagueConfig, MlflowSettings, bot_seed, league_config
from tournament.errors import ConfigError, LeagueError
from tournament.runner import LeagueProgress, run_league

from .atlas_config import AtlasConfig, Claim, StatisticTest, StudyTest, claims_data, parse_atlas
from .base import RunKind, StatusDetail, register, settings_command
from .study import StudyConfig, run_study

FORMAT = "azul-atlas/1"


@dataclass
class AtlasOutcome:
    atlas: dict  # atlas.json's contents
    interrupted: bool = False


def store_of(c: AtlasConfig) -> RunStore:
    """The atlas's run: ``<out>/<name>``, a folder or under an ``s3://`` out."""
    return open_root(c.out).run(c.name)


def run_atlas(c: AtlasConfig, *, resume: bool = False, fresh: bool = False, compare_with: str | None = None,
              progress: Callable[[str, LeagueProgress], None] | None = None) -> AtlasOutcome:
    """Test every claim of ``c`` (each a run of its own under the atlas) and write the atlas.
    ``compare_with``: an earlier atlas run, whose verdicts this one's are compared with (read
    before anything is written). ``progress(claim run, league progress)`` as a claim's games go."""
    if resume and fresh:
        raise LeagueError("--resume and --fresh: choose one")
    store = store_of(c)
    before = None if compare_with is None else _earlier(compare_with)
    if not fresh and store.exists(RUN_FILE):
        kind = run_kind(store.view(parts=False))
        if kind != ATLAS.name:
            raise LeagueError(ATLAS.refuse(store, kind))
    if not fresh and store.exists(ATLAS_FILE):
        if not resume:
            raise LeagueError(f"{store} already holds an atlas: add --resume to go on with it, --fresh to start "
                              "it over, or choose another --out or --name")
        _check_same(c, store)
    try:
        with store.lock():  # one driver an atlas (its claims' runs lock their own)
            return _run(c, store, fresh, before, compare_with, progress)
    except RunInUse as exc:
        raise LeagueError(str(exc)) from None


def _earlier(where: str) -> list[dict]:
    earlier = RunStore(where)
    try:
        rows = json.loads(earlier.read_text(ATLAS_JSON))["rows"]
    except FileNotFoundError:
        raise LeagueError(f"--compare-with {where}: no {ATLAS_JSON} there (not an atlas, or one not yet "
                          "written)") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise LeagueError(f"--compare-with {earlier.where(ATLAS_JSON)}: not an atlas's ({exc})") from None
    return rows


def _check_same(c: AtlasConfig, store: RunStore) -> None:
    """An atlas resumes with the claims and the seed it started with (a LeagueError naming what differs)."""
    try:
        saved = parse_atlas(yaml.safe_load(store.read_text(ATLAS_FILE)), store.where(ATLAS_FILE), c.name)
    except (ConfigError, yaml.YAMLError) as exc:
        raise LeagueError(f"cannot resume {store}: its {ATLAS_FILE} does not read ({exc})") from None
    if saved.seed != c.seed:
        raise LeagueError(f"cannot resume {store}: it was started with seed {saved.seed}, not {c.seed} "
                          "(--fresh starts it over)")
    then, now = {x.id: x for x in saved.claims}, {x.id: x for x in c.claims}
    for cid in sorted(then.keys() | now.keys()):
        if then.get(cid) != now.get(cid):
            what = "is new" if cid not in then else "is gone" if cid not in now else "differs"
            raise LeagueError(f"cannot resume {store}: claim {cid} {what} since it started; an atlas resumes "
                              "with its claims (--fresh starts it over, or choose another --name)")


def _run(c: AtlasConfig, store: RunStore, fresh: bool, before, compare_with, progress) -> AtlasOutcome:
    if fresh:
        store.remove(ATLAS_FILE, ATLAS_JSON, ATLAS_HTML, CLAIMS_FOLDER, RUN_FILE)
    save_run_id(store, run_id_of(store.view(parts=False)) or new_run_id(c.name), kind=ATLAS.name)
    store.write_text(ATLAS_FILE, yaml.safe_dump(
        {"name": c.name, "seed": c.seed, "claims": claims_data(c.claims)}, sort_keys=False))
    claims: list[dict] = []
    for claim in c.claims:
        tested = _claim(c, store, claim, progress)
        if tested is None:  # its run was stopped (Ctrl-C): the atlas stops, its claims so far written
            return AtlasOutcome(_write(c, store, claims, False, before, compare_with), interrupted=True)
        claims.append(tested)
        _write(c, store, claims, False, before, compare_with)
    return AtlasOutcome(_write(c, store, claims, True, before, compare_with))


def _claim(c: AtlasConfig, store: RunStore, claim: Claim, progress) -> dict | None:
    """One claim measured at each of its player counts (and compared), with its runs' models;
    None when one of its runs was stopped."""
    found: dict[int, Measured] = {}
    models: dict[str, Any] = {}
    for n in claim.players:
        result = _measure(c, store, claim, n, progress)
        if result is None:
            return None
        found[n], run_models = result
        models.update(run_models)
    rows = [{**found[n].as_dict(), "run": f"{CLAIMS_FOLDER}/{_run_name(claim, n)}"} for n in claim.players]
    if claim.compare is not None:
        a, b = claim.compare
        rows.append({**compared(found[a], found[b], claim.expect).as_dict(), "run": None})
    return {**claims_data([claim])[0], "expect": str(claim.expect), "models": models, "rows": rows}


def _run_name(claim: Claim, players: int) -> str:
    return f"{claim.id}-{players}p"


def _measure(c: AtlasConfig, store: RunStore, claim: Claim, n: int, progress) -> tuple[Measured, dict] | None:
    """The claim measured at ``n`` players by its run (played, or finished where it stopped), and
    the models its bots read; None when the run was stopped."""
    name = _run_name(claim, n)
    claims = store.sub(CLAIMS_FOLDER)
    run = claims.sub(name)
    say = None if progress is None else (lambda p: progress(name, p))
    t = claim.tested_by
    try:
        if isinstance(t, StudyTest):
            study = StudyConfig(name=name, bot=claim.bot_for(t.bot, n), interventions=(t.intervention,), players=n,
                                deals=t.max_deals, field=tuple(claim.bot_for(s, n) for s in t.field), seed=c.seed,
                                out=str(claims), workers=c.workers, mlflow=False, expect=str(claim.expect),
                                metric=claim.metric, stages=t.stages)
            summary = run_study(study, resume=run.has_records(), progress=say)
        else:
            summary = run_league(_statistic_league(c, claim, t, n, str(claims)), resume=run.has_records(),
                                 progress=say)
    except ConfigError as exc:
        raise LeagueError(f"claim {claim.id} at {n} players: {exc}") from None
    if summary.interrupted:
        return None
    view = run.view()
    effect, low, high, games = (_study_measure(view, claim) if isinstance(t, StudyTest)
                                else _statistic_measure(view, claim, t, n))
    return measured(claim.id, n, claim.metric, claim.expect, effect, low, high, games), saved_models(view)


def _statistic_league(c: AtlasConfig, claim: Claim, t: StatisticTest, n: int, out: str) -> LeagueConfig:
    """Copies of the bot named apart (or the claim's bots), on shared deals in every balanced seating."""
    specs = [claim.bot_for(s, n) for s in t.bots] or [claim.bot_for(t.bot, n)] * n
    bots = [BotEntry.of_spec(f"{_label(spec)}-{chr(ord('a') + i)}", spec, bot_seed(c.seed, i))
            for i, spec in enumerate(specs)]
    return league_config(f"claim {claim.id}", _run_name(claim, n), bots, players=n, deals=t.deals,
                         seats="balanced", seed=c.seed, out=out, mlflow=MlflowSettings(enabled=False)
                         ).with_overrides(workers=c.workers)


def _label(spec: str) -> str:
    return spec.split(":", 1)[0]


def _study_measure(view, claim: Claim) -> tuple[float, float, float, int]:
    from analysis.records import connect
    from analysis.studies import read_study, study_effects

    with connect(view) as con:
        frame = study_effects(con, read_study(view))
    row = frame.filter(frame["metric"] == claim.metric).row(0, named=True)
    return row["effect"], row["low"], row["high"], row["games"]


def _statistic_measure(view, claim: Claim, t: StatisticTest, n: int) -> tuple[float, float, float, int]:
    from analysis.luck import luck_tables
    from analysis.records import read_records

    records = read_records(view)
    table = next(x for x in luck_tables(records["results"], records["games"]) if x.num_players == n)
    try:
        effect, low, high = statistic_value(table.as_dict(), t.name, claim.metric)
    except ValueError as exc:
        raise LeagueError(f"claim {claim.id} at {n} players: {exc}") from None
    return effect, low, high, table.games


def _write(c: AtlasConfig, store: RunStore, claims: list[dict], complete: bool, before, compare_with) -> dict:
    from present.atlas_page import atlas_html

    rows = [r for claim in claims for r in claim["rows"]]
    finish = ATLAS.finish_command(store)  # a finished atlas is played again from its start with --fresh
    atlas = {"format": FORMAT, "name": c.name, "complete": complete, "engine": ENGINE_VERSION, "seed": c.seed,
             "command": finish.replace(" --resume", " --fresh", 1) if complete else finish,
             "changed": None if before is None else changed_verdicts(before, rows),
             "compared_with": None if compare_with is None else str(compare_with),
             "claims": claims, "rows": rows}
    store.write_text(ATLAS_JSON, dumps(atlas) + "\n")  # strict: NaN and infinities as null
    store.write_text(ATLAS_HTML, atlas_html(atlas))
    return atlas


class AtlasDetail(StatusDetail):
    """An atlas as it stands: each claim's verdict per player count."""

    def __init__(self, rows: list[dict]):
        self.rows = rows

    def as_dict(self) -> dict[str, Any]:
        """``verdicts``: the rows of atlas.json (the web's run page shows them, with the atlas's page)."""
        return {"verdicts": self.rows}

    def lines(self, models: list[str]) -> list[str]:
        return [f"{r['id']} at {r['players']} players: {r['verdict']}, {r['metric']} {_num(r['effect'])} "
                f"(95% {_num(r['low'])} .. {_num(r['high'])}), {r['games']:,} games" for r in self.rows] + models

    def until_decided(self) -> str:
        return f" (each claim's study until its answer is known; {len(self.rows)} verdicts so far)"

    def complete(self) -> str:
        return f"complete ({len(self.rows)} verdicts)"

    def ahead(self) -> str | None:
        counts = {v: sum(r["verdict"] == v for r in self.rows) for v in ("supported", "refuted", "undecided")}
        return ", ".join(f"{n} {v}" for v, n in counts.items() if n) or None


def _num(x) -> str:
    return "?" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.3g}"


class AtlasKind(RunKind):
    """An atlas: its claims' runs nested under ``claim-runs/``, its verdicts in ``atlas.json``."""

    name, label, article, settings = "atlas", "atlas", "an atlas", ATLAS_FILE
    owned = (ATLAS_JSON, ATLAS_HTML, CLAIMS_FOLDER)
    nests = True
    decides = True  # each claim's study plays until its answer is known: no planned total

    def finish_command(self, run: RunStore) -> str:
        return settings_command(run, ["azul", "atlas"], ATLAS_FILE, "CLAIMS.yaml", "the claims file that started it")

    def nested_runs(self, run: RunStore) -> list[str]:
        store = RunStore(run)
        claims = store.sub(CLAIMS_FOLDER)
        return [f"{CLAIMS_FOLDER}/{name}" for name in claims.folders("") if claims.sub(name).has_records()]

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        atlas = self._atlas(run)
        return bool(atlas and atlas.get("complete"))

    def detail(self, run: RunStore) -> StatusDetail:
        atlas = self._atlas(run)
        return AtlasDetail(atlas["rows"] if atlas else [])

    @staticmethod
    def _atlas(run: RunStore) -> dict | None:
        try:
            return json.loads(RunStore(run).read_text(ATLAS_JSON))
        except (OSError, ValueError):
            return None


ATLAS = register(AtlasKind())
