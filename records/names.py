"""Every file a run folder holds besides its record tables, named once (docs/league.md, "Records").

The record tables are folders of parts (``records.columns.TABLES``: ``games/``, ``results/``,
``moves/``, ``rounds/``); beside them a run keeps small files, each written by one package and
read by others, so their names live here, below all of them. No module outside ``records/``
spells one (tests/test_layout.py).
"""
from __future__ import annotations

# the tables a run may hold beside the four game tables (records.columns.TABLES), each a folder of
# parts committed on their own (records/side.py; RunStore.write_side): the review's (SPEC 11, its
# columns to be declared in records/columns.py beside the game tables'). The game checks
# (records/checks.py) and readers never look at them; ``--fresh`` and repair handle them with the games.
SIDE_TABLES = ("reviews",)

# the league driver's (tournament/)
CONFIG_FILE = "config.yaml"  # the resolved league config the run plays
RUN_FILE = "run.json"  # {"run_id": ..., "referee": ..., "kind": ...}, written when the run folder is created
LOCK_FILE = ".lock"  # the driver's lock (records.folder.take_lock)
QUARANTINE = "quarantine"  # damaged or foreign files, moved aside by repair
STANDINGS_CSV = "standings.csv"  # the finished league's standings
STANDINGS_JSON = "standings.json"
MLFLOW_RUN_FILE = "mlflow_run.txt"  # the run's MLflow run id (tournament/tracking.py)

# azul report's (analysis/report.py), in any run folder
REPORT_HTML = "report.html"
ELO_CSV = "elo.csv"
SUMMARY_MD = "summary.md"
REPORT_FILES = (REPORT_HTML, ELO_CSV, SUMMARY_MD)

# the run kinds' own (kinds/)
SPRT_FILE = "sprt.yaml"  # an SPRT's settings
STUDY_FILE = "study.json"  # what a study studied
TUNE_FILE = "tune.yaml"  # a tune as it started
TUNE_RESULT = "tune.json"  # a finished tune's outcome
TUNE_FIGURE = "tune.svg"  # its parameters' paths
TRAIN_FILE = "train.yaml"  # a training run's settings
LINEAGE_FILE = "lineage.json"  # its generations
CURVE_FILE = "curve.png"  # its losses and gate Elo by generation
TRAIN_MLFLOW_FILE = "mlflow_run_id"  # its MLflow run id
POSITIONS_DONE = "DONE"  # in a generation's data/: its positions are all written (their count)
SHARD_PREFIX, SHARD_SUFFIX = "positions-", ".parquet"  # a data/ folder's shards: positions-00000.parquet...
MODEL_FILE = "model.azv"  # generation 0's model, fit on the start records
CANDIDATE_FILE = "candidate.azv"  # a later generation's model, before its gate
TRAINED_FILE = "trained.azv"  # with train.average above 1: the tables its training made, before the mean
ATLAS_FILE = "atlas.yaml"  # an atlas's claims, as it started
ATLAS_JSON = "atlas.json"  # its measures and verdicts
ATLAS_HTML = "atlas.html"  # its page
CLAIMS_FOLDER = "claim-runs"  # its claims' runs: claim-runs/<id>-<N>p/

# every name above, for the layout check
RUN_FOLDER_FILES = (CONFIG_FILE, RUN_FILE, LOCK_FILE, QUARANTINE, STANDINGS_CSV, STANDINGS_JSON, MLFLOW_RUN_FILE,
                    *REPORT_FILES, SPRT_FILE, STUDY_FILE, TUNE_FILE, TUNE_RESULT, TUNE_FIGURE, TRAIN_FILE,
                    LINEAGE_FILE, CURVE_FILE, TRAIN_MLFLOW_FILE, POSITIONS_DONE, SHARD_PREFIX, MODEL_FILE,
                    CANDIDATE_FILE, TRAINED_FILE, ATLAS_FILE, ATLAS_JSON, ATLAS_HTML, CLAIMS_FOLDER)
