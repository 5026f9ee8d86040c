"""One MLflow run per league: the resolved config as params, the outcome as metrics and artifacts.

The tracking URI is ``mlflow.tracking_uri`` of the config, by default ``sqlite:///<out>/mlflow.db``
(artifacts under ``<out>/mlartifacts``). Browse it with

    mlflow ui --backend-store-uri sqlite:///runs/mlflow.db

Metrics: ``games``, ``failures`` and per bot ``<bot>.elo`` (the standings' rating: the fit of
``azul elo`` without its bootstrap), ``<bot>.win_rate``,
``<bot>.score_share``, ``<bot>.mean_score``. Artifacts: ``config.yaml`` and the final standings
(``standings.csv``, ``standings.json``). The run's id is kept in ``<run>/mlflow_run.txt``, so a
finished league is logged once however often it is resumed.

``log_report`` adds the league's report to that run (``azul league run`` calls it once the
report is written): artifacts ``report/report.html``, ``report/elo.csv``, ``report/summary.md``
and metrics ``<bot>.rating_<n>p`` with ``<bot>.rating_<n>p_low`` / ``_high`` (the report's
ratings per player count, 95% interval) and ``first_move_<n>p`` (seat 0's edge), withheld as the
report withholds them (``analysis.ratings``: no rating for a bot that forfeited most of its games,
no edge where most games were forfeited). A resume of a
finished league writes the report again and logs it again (the artifacts are replaced; each
metric gets a new point).
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from records.names import CONFIG_FILE, MLFLOW_RUN_FILE, STANDINGS_CSV, STANDINGS_JSON
from records.store import RunStore, open_root


def tracking_uri(config) -> str:
    if config.mlflow.tracking_uri:
        return config.mlflow.tracking_uri
    return default_uri(config.out)


def default_uri(out: str | Path) -> str:
    """Where runs under ``out`` are tracked unless told: ``sqlite:///<out>/mlflow.db``. Runs on
    object storage (an ``s3://`` out) are tracked where MLflow's own ``MLFLOW_TRACKING_URI`` says,
    else in ``sqlite:///mlflow.db`` of the working folder: never in the bucket, and the endpoint
    and credentials never reach MLflow."""
    folder = open_root(out).folder()
    if folder is None:
        return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{Path('mlflow.db').resolve()}"
    return f"sqlite:///{(folder / 'mlflow.db').resolve()}"


def mlflow_client(uri: str):
    """An MLflow client of ``uri``, its INFO lines off. A ``sqlite:///`` store that sqlite cannot
    open (a folder, a file that is no database) is an OSError at once: MLflow itself retries
    opening it with back-off for about 100 seconds before it fails."""
    from mlflow.tracking import MlflowClient

    quiet()
    check_sqlite_store(uri)
    return MlflowClient(tracking_uri=uri)


def check_sqlite_store(uri: str) -> None:
    """An OSError naming the file when ``uri`` is a ``sqlite:///`` store whose file exists and
    cannot be read as a database (one that does not exist yet is made by MLflow)."""
    if not uri.startswith("sqlite:///"):
        return
    path = Path(uri[len("sqlite:///"):])
    if not path.exists():
        return
    if not path.is_file():
        raise OSError(f"{path}: the MLflow store is not a file (a sqlite database)")
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as con:
            con.execute("PRAGMA schema_version").fetchone()
    except sqlite3.Error as exc:
        raise OSError(f"{path}: the MLflow store cannot be opened ({exc})") from None


def start_run(client, uri: str, experiment: str, name: str) -> str:
    """A new MLflow run named ``name`` in ``experiment`` (made if new: its artifacts beside a
    ``sqlite:///`` store, under ``mlartifacts``); returns its id."""
    found = client.get_experiment_by_name(experiment)
    if found is None:
        artifacts = None
        if uri.startswith("sqlite:///"):
            artifacts = (Path(uri[len("sqlite:///"):]).parent / "mlartifacts").resolve().as_uri()
        experiment_id = client.create_experiment(experiment, artifact_location=artifacts)
    else:
        experiment_id = found.experiment_id
    return client.create_run(experiment_id, run_name=name).info.run_id


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """A nested config as flat MLflow params: ``bots.0.params.iterations`` -> ``"1000"``."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}{i}."))
    else:
        out[prefix[:-1]] = str(value)[:6000]
    return out


def metric_key(text: str) -> str:
    """MLflow keys allow letters, digits and ``_-. /``; anything else becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_\-. /]", "_", text)


def logged(log) -> tuple[str | None, str | None]:
    """Run ``log`` (a step that logs to MLflow and returns the run id): ``(run id, None)``, or
    ``(None, the error as text)``. The records are safe whatever MLflow does, and a rerun or
    ``--resume`` tries again, so an MLflow failure is said, never raised."""
    try:
        return log(), None
    except Exception as exc:  # noqa: BLE001  (any failure of MLflow or its store)
        return None, f"{type(exc).__name__}: {exc}"


def quiet() -> None:
    """MLflow's and its store's INFO lines off (about its tables, at each start)."""
    for name in ("mlflow", "mlflow.store.db.utils", "alembic"):  # no INFO lines about its tables
        logging.getLogger(name).setLevel(logging.WARNING)


def log_league(config, run: RunStore, summary) -> str:
    """Log a finished league (once) and return the MLflow run id."""
    store = RunStore(run)
    if store.exists(MLFLOW_RUN_FILE):
        return store.read_text(MLFLOW_RUN_FILE).strip()
    from mlflow.entities import Metric, Param, RunTag

    uri = tracking_uri(config)
    client = mlflow_client(uri)
    run_id = start_run(client, uri, config.mlflow.experiment, config.name)
    now = int(time.time() * 1000)
    params = [Param(k, v) for k, v in flatten(config.to_dict()).items()]
    metrics = [Metric("games", summary.recorded, now, 0),
               Metric("failures", sum(summary.failures.values()), now, 0),
               Metric("elapsed_s", summary.elapsed_s, now, 0)]
    for row in summary.standings:
        for field in ("elo", "win_rate", "score_share", "mean_score", "mean_rank", "faults"):
            if getattr(row, field) is not None:  # a bot without games has no rating
                metrics.append(Metric(metric_key(f"{row.bot}.{field}"), float(getattr(row, field)), now, 0))
    tags = [RunTag("run_dir", store.address()),
            RunTag("rating", "bradley-terry (2 players) or plackett-luce (3-4), mean bot at 0")]
    for i in range(0, len(params), 100):  # MLflow takes at most 100 params per batch
        client.log_batch(run_id, params=params[i:i + 100])
    for i in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[i:i + 1000], tags=tags if i == 0 else [])
    for name in (CONFIG_FILE, STANDINGS_CSV, STANDINGS_JSON):
        if store.exists(name):
            client.log_artifact(run_id, str(store.local(name)))
    client.set_terminated(run_id)
    store.write_text(MLFLOW_RUN_FILE, run_id + "\n")
    return run_id


def log_report(config, run_id: str, paths: dict[str, Path], report) -> None:
    """Log the report's files and ratings to the league's MLflow run (``report``: the collected
    ``analysis.report.Report``). The withholding rule is the report's (``analysis.ratings``): a
    withheld bot logs no rating, and a player count whose seat edges are withheld no
    ``first_move``."""
    import math

    from mlflow.entities import Metric

    from analysis.ratings import edge_withheld, withheld, withhold

    client = mlflow_client(tracking_uri(config))
    now = int(time.time() * 1000)
    metrics = []
    hidden = withheld(report.faults)
    for n, fit in sorted(report.ratings.items()):
        for row in withhold(fit.table, hidden).iter_rows(named=True):
            for field, suffix in (("rating", ""), ("low", "_low"), ("high", "_high")):
                value = row[field]
                if value is not None and not math.isnan(value):
                    metrics.append(Metric(metric_key(f"{row['bot']}.rating_{n}p{suffix}"),
                                          float(value), now, 0))
        if not math.isnan(fit.first_move[0]) and not edge_withheld(report.forfeited, n):
            metrics.append(Metric(f"first_move_{n}p", float(fit.first_move[0]), now, 0))
    for i in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[i:i + 1000])
    for path in paths.values():
        client.log_artifact(run_id, str(path), artifact_path="report")
