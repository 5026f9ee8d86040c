"""``azul train``: generations of self-play, training and gating (docs/train.md).

    from kinds.train import load_train_config, run_train
    lineage = run_train(load_train_config("examples/train.yaml", out="runs"), resume=False)  # or out="s3://B/P"

A training run is a folder ``<out>/<name>/``, or a run on object storage
``s3://BUCKET/PREFIX/<name>/`` (every byte through its store: records/store.py): ``train.yaml``
(its settings), ``lineage.json`` (each generation: its model, losses, gate and whether it was
accepted) and ``gen-NNN/`` per generation. Generation 0 trains on the records of
``start.records`` (heuristic or MCTS leagues) when given; otherwise ``start.model`` (a shipped
model or a file) is generation 0's model. Generation g >= 1:

1. self-play: a league (tournament.runner.run_league, records as usual in ``gen-NNN/selfplay``)
   of the current model's MCTS bot against itself and the ``opponents``;
2. data: its positions (learn.data) in ``gen-NNN/data``;
3. training: a model on the positions of the last ``window`` generations (generation 0's
   records count as one), from the current model's weights (``train.base: last``: the last
   generation's model, accepted or not), with a held-out tenth of the games; with
   ``train.average: N`` above 1 the tables trained are kept as ``gen-NNN/trained.azv`` and the
   candidate is the mean of those of the last N generations (a ``base: last`` run goes on from
   the trained ones);
4. gate (kinds/train_gate.py): at 2 players an SPRT (kinds/sprt.py) of the new model's bot against
   the current one at the same iterations per move, at 3 and 4 players a league of the two and a
   field on shared deals with every seating, rated by Plackett-Luce; H1 accepts the new model,
   H0 or undecided does not.

Each step leaves its result in the generation's folder and is skipped when there, the league and
the SPRT go on from their records: ``--resume`` after a kill continues the generation it was in.
The driver holds the run's lock throughout (a second driver is refused). What a library reads
from a path (the self-play records walked for positions, the shards of a fit, a model a bot
plays, an MLflow artifact) is read from the store's local view (``RunStore.view``, ``local``):
on a folder, the folder itself.
The settings and their check are kinds/train_config.py's.
"""
from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import yaml

from bots.spec import format_bot_spec
from bots.value_file import resolved_model
from learn.data import write_shards
from present.strict_json import dumps
from records.folder import RunInUse, new_run_id, run_id_of, save_run_id
from records.names import (CANDIDATE_FILE, CURVE_FILE, LINEAGE_FILE, MODEL_FILE, POSITIONS_DONE, REPORT_FILES,
                           RUN_FILE, TRAIN_FILE, TRAIN_MLFLOW_FILE, TRAINED_FILE)
from records.store import RunStore, open_store, run_ref
from tournament.config import BotEntry, MlflowSettings, bot_seed, league_config, read_stored_yaml
from tournament.errors import ConfigError
from tournament.runner import run_league, store_of
from tournament.tracking import default_uri, logged, mlflow_client, start_run

from .base import RunKind, StatusDetail, register, settings_command
from .train_config import TrainConfig, TrainError, check, load_train_config  # noqa: F401 - kinds.train's API
from .train_fit import fit_generation as _fit
from .train_gate import describe, gate


# ---------------------------------------------------------------- the run

def spec(model_path: str, iterations: int) -> str:
    """The MCTS bot of a model, as a bot spec (a path with a comma or '=' quoted: bots/spec.py)."""
    return format_bot_spec("mcts", bot_params(model_path, iterations))


def bot_params(model_path: str, iterations: int) -> dict:
    """The MCTS bot of a model: its learned value, and PUCT with its policy prior when its file
    holds one (``train.policy``; docs/train.md, "The policy prior")."""
    from bots.prior import PolicyPrior
    from bots.value_file import model_bytes

    has_prior = PolicyPrior.from_model(model_bytes(model_path), model_path) is not None
    return {"evaluator": "value", "iterations": iterations, "model": model_path,
            **({"prior": "model"} if has_prior else {})}


def _policy(c: TrainConfig, store: RunStore, name: str, runs: list, bots: set[str] | None) -> dict:
    """With ``train.policy``: the model file ``name`` of ``store`` gains a policy prior fitted on
    the moves the ``bots`` (all when None) played in ``runs`` (learn/policy.py), once (a file that
    holds one already is left as it is: a resumed run fits nothing twice); its metrics."""
    if not c.policy:
        return {}
    from bots.model_container import pack, unpack
    from bots.prior import SECTION, PolicyPrior
    from learn.policy import fit, log_loss, played_positions

    container = unpack(store.read_bytes(name), store.where(name))
    if SECTION not in container.sections:
        positions = [p for run in runs for _, p in played_positions(run, bots=bots)]
        if not positions:
            raise TrainError(f"{store.where(name)}: no moves to fit its policy prior on")
        weights = fit(positions)
        section = PolicyPrior(weights, c.players).section()
        section.header["fit"] = {"policy_positions": len(positions), "policy_log_loss": log_loss(weights, positions)}
        container.sections[SECTION] = section
        store.write_bytes(name, pack(container.value, container.sections))
    return dict(container.sections[SECTION].header.get("fit", {}))


GENERATION = "gen-"  # a generation's folder: gen-000, gen-001, ...


def _quiet(line: str) -> None:
    """The default ``log`` of ``run_train``: the library prints nothing (azul_cli passes its printer)."""


def run_train(c: TrainConfig, *, resume: bool = False, fresh: bool = False,
              log: Callable[[str], None] = _quiet) -> list[dict]:
    """Play, train and gate ``c.generations`` generations; return the lineage (one dict a generation).
    ``fresh``: delete the run's generations, lineage and settings first (after the checks).
    ``log(line)``: a line a generation and step, for the command line to print (default: none)."""
    if resume and fresh:
        raise TrainError("--resume and --fresh: choose one")
    check(c)  # with the command's options laid over the file: everything before anything is written
    store = store_of(c)  # <out>/<name>: a folder, or a run on object storage (as a league's, by out and name)
    if not fresh and (store.exists(LINEAGE_FILE) or store.exists(TRAIN_FILE)):
        if not resume:
            raise TrainError(f"{store} already holds a training run: add --resume to go on with it, --fresh "
                             "to start it over, or choose another --out or name")
        before = _saved_settings(store) if store.exists(TRAIN_FILE) else asdict(c)
        changed = _changed(before, asdict(c))
        if changed:
            raise TrainError(f"cannot resume {store}: started with other {', '.join(changed)}")
    try:
        with store.lock():  # one driver a run: a second one is refused (its nested runs lock their own)
            return _run(c, store, fresh, log)
    except RunInUse as exc:
        raise TrainError(str(exc)) from None


def _run(c: TrainConfig, store: RunStore, fresh: bool, log) -> list[dict]:
    """The generations, under the run's lock."""
    if fresh:
        store.remove(*TRAIN.owned, TRAIN_FILE, TRAIN_MLFLOW_FILE, RUN_FILE, *store.folders(GENERATION))
    save_run_id(store, run_id_of(store.view(parts=False)) or new_run_id(c.name), kind=TRAIN.name)
    store.write_text(TRAIN_FILE, yaml.safe_dump(asdict(c), sort_keys=True))
    lineage = json.loads(store.read_text(LINEAGE_FILE)) if store.exists(LINEAGE_FILE) else []
    tracker = _Tracker(c, store, log) if c.mlflow else None
    if not lineage:
        lineage.append(_generation_zero(c, store, log))
        _save(store, lineage)
        if tracker:
            tracker.log(lineage[-1])
    while len(lineage) <= c.generations:
        g = len(lineage)
        record = _generation(c, store, g, lineage, log)
        lineage.append(record)
        _save(store, lineage)
        if tracker:
            tracker.log(record)
    if tracker:
        tracker.finish(lineage)
    return lineage


def current_model(lineage: list[dict]) -> str:
    """The model of the last accepted generation, as the lineage keeps it (``_at`` finds it)."""
    return [r for r in lineage if r["accepted"]][-1]["model"]


def _at(store: RunStore, ref: str, model: bool = True):
    """Where the lineage's ``ref`` is now. The lineage keeps a run's files relative to the run
    (``gen-001/candidate.azv``, ``gen-001/data``), so a run moved to another folder (and resumed
    with --out NEW) finds its models and positions, and a run on object storage reads as a local
    one. A model (``model``): a shipped model's name as it is, a file of the run as a local path
    for a bot's ``model=`` (the store's local view); positions: the store of their folder. A
    local run's lineage written before files were kept so names the path as it was typed. One
    found nowhere is a TrainError naming it, never a smaller window."""
    from bots.value_file import shipped_models

    if model and ref in shipped_models():
        return ref
    if store.exists(ref):
        return _local(store, ref) if model else store.sub(ref)
    if store.own_folder() is not None and Path(ref).exists():  # a local run's lineage of old
        return str(Path(ref)) if model else open_store(ref)
    raise TrainError(f"{store}: its lineage names {ref}, which is not in the run's folder any more "
                     "(moved or deleted): put it back, or start the run over with --fresh")


def _local(store: RunStore, ref: str) -> str:
    """A local path of the run's file ``ref`` (``gen-001/candidate.azv``): the file itself in a
    folder, its copy in the local view of its folder on object storage."""
    folder, _, name = ref.rpartition("/")
    return str((store.sub(folder) if folder else store).local(name))


def _saved_settings(store: RunStore) -> dict:
    """The settings a training run started with (its train.yaml); a damaged file is a TrainError
    of one line."""
    try:
        before = read_stored_yaml(store, TRAIN_FILE)
    except ConfigError as exc:
        raise TrainError(f"cannot resume: {exc}") from None
    if not isinstance(before, dict):
        raise TrainError(f"cannot resume: {store.where(TRAIN_FILE)}: not a mapping of settings")
    return before


def _changed(before: dict, now: dict) -> list[str]:
    """The settings that differ from those the run started with (a setting added to TrainConfig
    since, which the run's train.yaml lacks, is its default)."""
    free = {"generations", "out", "name", "workers", "address", "mlflow", "max_pairs"}  # name: a moved run's folder
    defaults = asdict(TrainConfig())
    before = {**defaults, **before}
    if isinstance(before.get("start_model"), str):  # a run started before paths were kept absolute: its
        before["start_model"] = resolved_model(before["start_model"])  # relative path read from here
    return sorted(k for k in now if k not in free and before.get(k) != now[k])


def _save(store: RunStore, lineage: list[dict]) -> None:
    """``lineage.json`` as strict JSON: a number that is not one (the held-out loss of a
    generation without held-out positions) is null, which every JSON reader takes."""
    store.write_text(LINEAGE_FILE, dumps(lineage, indent=1) + "\n")


def _generation_zero(c: TrainConfig, store: RunStore, log) -> dict:
    name = f"{GENERATION}000"
    record = {"generation": 0, "accepted": True, "gate": None}
    if not c.start_records:
        from bots.value_file import model_bytes
        model_bytes(c.start_model)       # a clear error now, not in a worker
        log(f"generation 0: the model {c.start_model}")
        return {**record, "model": c.start_model, "data": None}
    gen = store.sub(name)
    data = gen.sub("data")
    _positions([run_ref(r) for r in c.start_records], data)  # folders, or runs' URLs
    metrics = _fit(c, [data], None, gen, MODEL_FILE, 0)
    metrics.update(_policy(c, gen, MODEL_FILE, [run_ref(r) for r in c.start_records], None))
    log(f"generation 0: trained on {metrics['positions']:,} positions of {len(c.start_records)} runs, "
        f"held-out loss {metrics['held_out_loss']:.4f}")
    return {**record, "model": f"{name}/{MODEL_FILE}", "data": f"{name}/data", **metrics}


def _generation(c: TrainConfig, store: RunStore, g: int, lineage: list[dict], log) -> dict:
    name = f"{GENERATION}{g:03d}"
    gen = store.sub(name)  # its nested runs go under it: a folder, or the run's s3:// URL
    parent = current_model(lineage)
    current = _at(store, parent)
    bot = spec(current, c.iterations)
    # 1. self-play, with the league's records as usual
    started = time.perf_counter()
    seed = c.seed * 1000 + g
    bots = [BotEntry(f"gen{g}", "mcts", bot_params(current, c.iterations), g)]
    bots += [BotEntry.of_spec(f"opponent{i}", s, bot_seed(seed, 1 + i)) for i, s in enumerate(c.opponents)]
    league = league_config(f"generation {g}", "selfplay", bots, players=c.players, variant=c.variant, deals=c.deals,
                           seats="balanced", self_play=True, seed=seed, out=str(gen.root),
                           mlflow=MlflowSettings(enabled=False))
    league = league.with_overrides(workers=c.workers, address=c.address)
    summary = run_league(league, resume=gen.sub("selfplay").has_records())
    if not summary.complete:
        raise TrainError(f"generation {g}: self-play stopped; --resume goes on with it")
    games_per_s = summary.played / max(time.perf_counter() - started, 1e-9) if summary.played else None
    # 2. positions
    data = gen.sub("data")
    _positions([gen.sub("selfplay").root], data)
    # 3. training on the window
    window = [_at(store, r["data"], model=False) for r in lineage if r.get("data")][-(c.window - 1):] \
        if c.window > 1 else []
    # from the current model's weights, or (train.base last) the last generation's, accepted or not
    # (with train.average, the tables its training made, not their mean)
    trained_from = parent if c.base == "current" else lineage[-1].get("trained", lineage[-1]["model"])
    start = current if trained_from == parent else _at(store, trained_from)  # found once above
    averaged = []
    if c.average > 1:  # the candidate: the mean of this training's tables and those of the generations before
        metrics = _fit(c, [*window, data], start, gen, TRAINED_FILE, g, trained_from)
        averaged = [r["trained"] for r in lineage if r.get("trained")][-(c.average - 1):] + [f"{name}/{TRAINED_FILE}"]
        _average(store, averaged, gen)
    else:
        metrics = _fit(c, [*window, data], start, gen, CANDIDATE_FILE, g, trained_from)
    # the prior: fitted on the moves the current bot played in this generation's self-play
    metrics = {**metrics, **_policy(c, gen, CANDIDATE_FILE, [gen.sub("selfplay")], {f"gen{g}"})}
    candidate = _local(gen, CANDIDATE_FILE)
    # 4. the gate
    r = gate(c, gen, g, spec(candidate, c.iterations), bot)
    accepted = r["verdict"] == "H1"
    log(f"generation {g}: {summary.recorded:,} self-play games, held-out loss {metrics['held_out_loss']:.4f}, "
        f"{describe(r)}: {'accepted' if accepted else 'not accepted'}")
    return {"generation": g, "model": f"{name}/{CANDIDATE_FILE}", "accepted": accepted, "data": f"{name}/data",
            "parent": parent, "trained_from": trained_from, "selfplay_games": summary.recorded,
            **({"trained": averaged[-1], "averaged": averaged} if averaged else {}),
            "selfplay_games_per_s": games_per_s,
            "gate": r, **metrics}


def _average(store: RunStore, trained: list[str], gen) -> None:
    """The generation's candidate (in the store ``gen``): the mean of the tables of ``trained``
    (the run's files, this generation's last), once; its header keeps the last one's and names them."""
    if gen.exists(CANDIDATE_FILE):
        return
    from learn.ntuple import NTupleModel, average

    models = [NTupleModel.load(_at(store, ref)) for ref in trained]
    gen.write_bytes(CANDIDATE_FILE, average(models, {**models[-1].meta, "averaged": trained}).to_bytes())


def _positions(runs: list, data) -> None:
    """The positions of ``runs`` (folders, or runs' URLs) as shards in the store ``data``, once."""
    if not data.exists(POSITIONS_DONE):
        count = write_shards(runs, data)
        data.write_text(POSITIONS_DONE, f"{count}\n")


class _Tracker:
    """One MLflow run for the training run: per generation its losses, gate Elo and speeds as
    metrics (step = generation), each model an artifact, the curve's plot at the end. Each step
    goes through ``tracking.logged``: an MLflow failure is said once (``say``), never raised,
    and the training goes on (its records are safe; a ``--resume`` logs to the run again)."""

    def __init__(self, c: TrainConfig, store: RunStore, say):
        self.c, self.store, self.say, self.said = c, store, say, False
        self.run_id = self.step(self.start)

    def step(self, do):
        """``do()`` through ``tracking.logged``; its result, or None once MLflow failed."""
        if self.said:
            return None
        result, error = logged(do)
        if error:
            self.said = True
            self.say(f"MLflow: {error} (the training goes on without it; --resume logs again)")
        return result

    def start(self) -> str:
        from mlflow.exceptions import MlflowException

        uri = default_uri(self.c.out)
        self.client = mlflow_client(uri)
        if self.store.exists(TRAIN_MLFLOW_FILE):
            run_id = self.store.read_text(TRAIN_MLFLOW_FILE).strip()
            try:
                self.client.get_run(run_id)
                return run_id
            except MlflowException:  # a run moved to another --out: a new MLflow run in that out's store
                pass
        run_id = start_run(self.client, uri, self.c.experiment, self.c.name)
        for k, v in asdict(self.c).items():
            self.client.log_param(run_id, k, str(v)[:6000])
        self.store.write_text(TRAIN_MLFLOW_FILE, run_id + "\n")
        return run_id

    def log(self, record: dict) -> None:
        self.step(lambda: self._log(record))

    def _log(self, record: dict) -> None:
        g = record["generation"]
        for key in ("train_loss", "held_out_loss", "held_out_baseline", "train_samples_per_s",
                    "selfplay_games_per_s", "positions"):
            if record.get(key) is not None and np.isfinite(record[key]):
                self.client.log_metric(self.run_id, key, float(record[key]), step=g)
        gate = record.get("gate") or {}
        for key in ("elo", "elo_low", "elo_high", "llr", "pairs", "deals"):
            if gate.get(key) is not None:
                self.client.log_metric(self.run_id, f"gate_{key}", float(gate[key]), step=g)
        self.client.log_metric(self.run_id, "accepted", float(record["accepted"]), step=g)
        if self.store.exists(record["model"]):  # a file of the run (not a shipped model's name)
            self.client.log_artifact(self.run_id, _local(self.store, record["model"]), f"{GENERATION}{g:03d}")

    def finish(self, lineage: list[dict]) -> None:
        self.step(lambda: self._finish(lineage))

    def _finish(self, lineage: list[dict]) -> None:
        self.store.write_bytes(CURVE_FILE, plot_curve(lineage))
        self.client.log_artifact(self.run_id, str(self.store.local(CURVE_FILE)))
        self.client.log_artifact(self.run_id, str(self.store.local(LINEAGE_FILE)))


def _number(value) -> float:
    """A lineage's number for a plot: null (none) is NaN, a gap in the line."""
    return float("nan") if value is None else float(value)


def plot_curve(lineage: list[dict]) -> bytes:
    """The curve over generations: held-out loss and the gate's Elo (with its interval), as PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [r["generation"] for r in lineage]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2))
    a.plot(gens, [_number(r.get("held_out_loss")) for r in lineage], "o-", label="held-out")
    a.plot(gens, [_number(r.get("train_loss")) for r in lineage], "s--", label="train")
    a.set(xlabel="generation", ylabel="value loss (MSE)")
    a.legend()
    gated = [r for r in lineage if r.get("gate") and r["gate"].get("elo") is not None]
    if gated:
        x = [r["generation"] for r in gated]
        e = [r["gate"]["elo"] for r in gated]
        lo = [r["gate"]["elo"] - (r["gate"]["elo_low"] if r["gate"]["elo_low"] is not None else r["gate"]["elo"]) for r in gated]
        hi = [(r["gate"]["elo_high"] if r["gate"]["elo_high"] is not None else r["gate"]["elo"]) - r["gate"]["elo"] for r in gated]
        b.errorbar(x, e, yerr=[lo, hi], fmt="o")
    b.axhline(0, color="gray", lw=0.5)
    b.set(xlabel="generation", ylabel="gate elo (new - current)")
    from matplotlib.ticker import MaxNLocator

    for ax in (a, b):  # generations are whole numbers
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    plt.close(fig)
    return png.getvalue()


class LineageDetail(StatusDetail):
    """A training run as it stands: the generations it plans (None: its settings are unreadable)
    and its lineage (``lineage.json``'s rows), in one sentence after the models' lines; its last
    generation is ahead."""

    def __init__(self, generations: int | None, lineage: list[dict]):
        self.generations, self.lineage = generations, lineage

    def as_dict(self) -> dict:
        return {"generations": self.generations, "lineage": self.lineage}

    def accepted(self) -> list:
        return [r.get("generation") for r in self.lineage if r.get("accepted")]

    def lines(self, models: list[str]) -> list[str]:
        accepted = [r for r in self.lineage if r.get("accepted")]
        current = accepted[-1].get("model") if accepted else "none"
        return [*models, f"lineage: {len(self.lineage)} of {(self.generations or 0) + 1} generations, accepted "
                         f"{self.accepted()}; the current model: {current}"]

    def ahead(self) -> str | None:
        if not self.lineage:
            return "no generation yet"
        return f"generation {self.lineage[-1].get('generation')} of {self.generations}; accepted {self.accepted()}"


class TrainKind(RunKind):
    """A training run: generations of self-play (a league), training and a gate (an SPRT, or a league at
    3 and 4 players), each generation's runs nested in ``gen-NNN/``; finishing the run finishes them."""

    name, label, article, settings = "train", "training run", "a training run", TRAIN_FILE
    owned = (LINEAGE_FILE, CURVE_FILE, *REPORT_FILES)
    nests = True

    def finish_command(self, run: RunStore) -> str:
        return settings_command(run, ["azul", "train"], TRAIN_FILE, "TRAIN.yaml",
                                "the train config that started it")

    def nested_runs(self, run: RunStore) -> list[str]:
        """Its generations' self-play leagues and gates that hold records (a folder's, or on object
        storage those of the run's URL: its commits, never its local view's)."""
        store = RunStore(run)
        return [f"{gen}/{inner}" for gen in store.folders(GENERATION) for inner in store.sub(gen).folders("")
                if store.sub(gen).sub(inner).committed()]

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        lineage, settings = self._lineage(run), self._settings(run)
        return settings is not None and len(lineage) > settings.get("generations", 0)

    def detail(self, run: RunStore) -> StatusDetail:
        settings = self._settings(run) or {}
        return LineageDetail(settings.get("generations"), self._lineage(run))

    @staticmethod
    def _lineage(run: RunStore) -> list[dict]:
        try:
            lineage = json.loads(RunStore(run).read_text(LINEAGE_FILE))
        except (OSError, ValueError):
            return []
        return lineage if isinstance(lineage, list) else []

    @staticmethod
    def _settings(run: RunStore) -> dict | None:
        try:
            settings = read_stored_yaml(RunStore(run), TRAIN_FILE)
        except ConfigError:
            return None
        return settings if isinstance(settings, dict) else None


TRAIN = register(TrainKind())
