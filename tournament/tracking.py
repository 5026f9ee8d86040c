"""One MLflow run per league: the resolved config as params, the outcome as metrics and artifacts.

The tracking URI is ``mlflow.tracking_uri`` of the config, by default ``sqlite:///<out>/mlflow.db``
(artifacts under ``<out>/mlartifacts``). Browse it with

    mlflow ui --backend-store-uri sqlite:///runs/mlflow.db

Metrics: ``games``, ``failures`` and per bot ``<bot>.elo`` (the provisional rating of
tournament/standings.py until the analysis package lands), ``<bot>.win_rate``,
``<bot>.score_share``, ``<bot>.mean_score``. Artifacts: ``config.yaml`` and the final standings
(``standings.csv``, ``standings.json``). The run's id is kept in ``<run>/mlflow_run.txt``, so a
finished league is logged once however often it is resumed.
"""
from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import Any

MLFLOW_RUN_FILE = "mlflow_run.txt"


def tracking_uri(config) -> str:
    if config.mlflow.tracking_uri:
        return config.mlflow.tracking_uri
    return f"sqlite:///{(Path(config.out) / 'mlflow.db').resolve()}"


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


def log_league(config, run_dir: Path, summary) -> str:
    """Log a finished league (once) and return the MLflow run id."""
    marker = Path(run_dir) / MLFLOW_RUN_FILE
    if marker.exists():
        return marker.read_text(encoding="utf-8").strip()
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.tracking import MlflowClient

    for name in ("mlflow", "mlflow.store.db.utils", "alembic"):  # no INFO lines about its tables
        logging.getLogger(name).setLevel(logging.WARNING)

    uri = tracking_uri(config)
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(config.mlflow.experiment)
    if experiment is None:
        artifacts = None
        if uri.startswith("sqlite:///"):
            artifacts = (Path(uri[len("sqlite:///"):]).parent / "mlartifacts").resolve().as_uri()
        experiment_id = client.create_experiment(config.mlflow.experiment, artifact_location=artifacts)
    else:
        experiment_id = experiment.experiment_id
    run = client.create_run(experiment_id, run_name=config.name)
    run_id = run.info.run_id
    now = int(time.time() * 1000)
    params = [Param(k, v) for k, v in flatten(config.to_dict()).items()]
    metrics = [Metric("games", summary.recorded, now, 0),
               Metric("failures", sum(summary.failures.values()), now, 0),
               Metric("elapsed_s", summary.elapsed_s, now, 0)]
    for row in summary.standings:
        for field in ("elo", "win_rate", "score_share", "mean_score", "mean_rank", "faults"):
            metrics.append(Metric(metric_key(f"{row.bot}.{field}"), float(getattr(row, field)), now, 0))
    tags = [RunTag("run_dir", str(Path(run_dir).resolve())), RunTag("rating", "bradley-terry quick elo")]
    for i in range(0, len(params), 100):  # MLflow takes at most 100 params per batch
        client.log_batch(run_id, params=params[i:i + 100])
    for i in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[i:i + 1000], tags=tags if i == 0 else [])
    for name in ("config.yaml", "standings.csv", "standings.json"):
        path = Path(run_dir) / name
        if path.exists():
            client.log_artifact(run_id, str(path))
    client.set_terminated(run_id)
    marker.write_text(run_id + "\n", encoding="utf-8")
    return run_id
