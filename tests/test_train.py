"""``azul train`` end to end on a tiny budget: generation 0 from records, two generations of
self-play, training and gating, an interruption and ``--resume``, the MLflow run (kinds/train.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import kinds.train as train_module
from azul_cli.main import app
from bots.value_file import read_model
from kinds.train import TrainError, load_train_config, run_train
from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league


def _config(tmp_path, records):
    path = tmp_path / "train.yaml"
    path.write_text(f"""
name: tiny
seed: 3
generations: 2
start: {{records: ["{records}"]}}
selfplay: {{deals: 2, iterations: 8}}
train: {{value: mlp, hidden: [8], epochs: 2, batch: 64}}
gate: {{elo0: 0, elo1: 40, max_pairs: 3}}
out: {tmp_path / 'out'}
workers: 0
""", encoding="utf-8")
    return path



def killed_in_generation_two(monkeypatch):
    """Make the training stop (a KeyboardInterrupt, as a kill) when generation 2 fits its model;
    return the real fit, to put back."""
    fit = train_module._fit

    def killed(c, data, start, store, name, g, parent=None):
        if g == 2:
            raise KeyboardInterrupt
        return fit(c, data, start, store, name, g, parent)

    monkeypatch.setattr(train_module, "_fit", killed)
    return fit


def test_a_tiny_train_runs_resumes_and_logs(tmp_path, monkeypatch):
    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=2, seed=4))
    assert run_league(config, progress=False).complete
    path = _config(tmp_path, tmp_path / "r")
    fit = killed_in_generation_two(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        run_train(load_train_config(path), log=lambda line: None)
    root = tmp_path / "out" / "tiny"
    assert len(json.loads((root / "lineage.json").read_text())) == 2      # generations 0 and 1
    assert len(read_table(root / "gen-002" / "selfplay", "games")) == 2   # its self-play was done (one bot, seats swapped)
    monkeypatch.setattr(train_module, "_fit", fit)

    with pytest.raises(TrainError, match="--resume"):
        run_train(load_train_config(path), log=lambda line: None)
    result = CliRunner().invoke(app, ["train", str(path), "--resume"])
    assert result.exit_code == 0, result.output
    lineage = json.loads((root / "lineage.json").read_text())
    assert [r["generation"] for r in lineage] == [0, 1, 2]
    assert len(read_table(root / "gen-002" / "selfplay", "games")) == 2   # not played again
    for r in lineage[1:]:
        assert r["gate"]["verdict"] in ("H0", "H1", "undecided") and 1 <= r["gate"]["pairs"] <= 3
        assert r["accepted"] == (r["gate"]["verdict"] == "H1")
        assert r["model"] == f"gen-{r['generation']:03d}/candidate.azv"  # relative to the run
        header, _ = read_model((root / r["model"]).read_bytes())
        assert header["meta"]["parent"] == train_module.current_model(lineage[:r["generation"]])
    assert (root / "curve.png").stat().st_size > 1000

    from mlflow.tracking import MlflowClient
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'out' / 'mlflow.db'}")
    run_id = (root / "mlflow_run_id").read_text().strip()
    assert [m.step for m in client.get_metric_history(run_id, "held_out_loss")] == [0, 1, 2]
    assert sorted(m.step for m in client.get_metric_history(run_id, "gate_pairs")) == [1, 2]


def test_a_bad_train_config_names_the_field(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: x\ngate: {max_pairs: 0}\n", encoding="utf-8")
    with pytest.raises(TrainError, match="max_pairs"):
        load_train_config(path)
    path.write_text("name: x\nwindows: 3\n", encoding="utf-8")
    with pytest.raises(TrainError, match="unknown field 'windows'"):
        load_train_config(path)


def test_damaged_yaml_is_a_one_line_error_naming_line_and_column(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: x\ngate: {max_pairs: 3\n", encoding="utf-8")
    with pytest.raises(TrainError, match=r"t\.yaml: line \d+, column \d+: not valid YAML") as caught:
        load_train_config(path)
    assert "\n" not in str(caught.value)
    path.write_text(f"name: x\nout: {tmp_path / 'out'}\n", encoding="utf-8")
    saved = tmp_path / "out" / "x" / "train.yaml"  # the settings a run started with, damaged
    saved.parent.mkdir(parents=True)
    saved.write_text("seed: [3\n", encoding="utf-8")
    with pytest.raises(TrainError, match=r"cannot resume: .*train\.yaml: line \d+, column \d+") as caught:
        run_train(load_train_config(path), resume=True, log=lambda line: None)
    assert "\n" not in str(caught.value)


def test_start_records_without_games_of_the_runs_player_count_are_refused(tmp_path):
    four = parse_config(league(tmp_path, ["random", "greedy", "heuristic", "mcts:iterations=5"], name="four",
                               players=4, deals=2))
    assert run_league(four, progress=False).complete
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {tmp_path / 'out'}\nstart: {{records: ['{tmp_path / 'four'}']}}\n")
    result = CliRunner().invoke(app, ["train", str(path)])
    assert result.exit_code == 1 and "no 2-player games to learn from (its games are 4-player ones)" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, message", [
    ("train: {lr: -1.0}", "lr: must be a learning rate above 0"),
    ("train: {lr: fast}", "lr: must be a learning rate above 0 (at most 10), not 'fast'"),
    ("mlflow: {enabled: 'no'}", "mlflow: must be true or false, not 'no'"),
    ("name: 5", "name: must be a non-empty name without '/', not 5"),
    ("name: ../x", "name: must be a non-empty name without '/'"),
    ("out: 7", "out: must be a folder name, not 7"),
    ("seed: abc", "seed: must be a whole number, not 'abc'"),
    ("seed: -5", "seed: must be from 0 to"),
    ("variant: grey", "variant: must be one of colored, gray, not 'grey'"),
    ("gate: {elo0: zero}", "elo0: must be a finite number, not 'zero'"),
    ("gate: {elo0: 50, elo1: 40}", "elo0 must be below elo1"),
    ("selfplay: {opponents: h}", "selfplay.opponents: must be a list of bot specs, not 'h'"),
    ("selfplay: {opponents: [h]}", "selfplay.opponents[0]: unknown bot type 'h'"),
    ("start: {records: somewhere}", "start.records: must be a list of run folders"),
    ("start: {records: [no-such-run]}", "start.records[0]: no-such-run: no game records there"),
    ("start: {model: no-such-model}", "no-such-model' is neither a shipped model"),  # read from t.yaml's folder
    ("train: {hidden: [true]}", "hidden: must be a list of layer widths"),
    ("train: {base: best}", "train.base: must be one of current, last, not 'best'"),
    ("train: {average: 0}", "average: must be from 1 to 1000, not 0"),
    ("start: {model: value-2p-mlp}\ntrain: {value: mlp, average: 2}",
     "train.average: the mean of generations' tables is of train.value ntuple; train.value mlp takes 1, not 2"),
    # at 3 and 4 players, the league gate's and self-play's own fields
    ("players: 3\ngate: {max_deals: 1}", "gate.max_deals: must be"),
    ("players: 3\ngate: {max_deals: many}", "gate.max_deals: must be a whole number, not 'many'"),
    ("players: 3\ngate: {field: random}", "gate.field: must be one of current, greedy, not 'random'"),
    ("players: 4\ngate: {max_deals: 3}", "gate.max_deals: must be even at 4 players"),
    ("players: 4\nselfplay: {deals: 5}", "selfplay.deals: must be even at 4 players"),
    ("players: 3\nselfplay: {opponents: [heuristic]}", "give 2 or more opponents, or none (self-play alone), not 1"),
])
def test_every_train_field_is_checked_before_anything_is_written(tmp_path, text, message):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {tmp_path / 'out'}\n{text}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["train", str(path)])
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output and len(result.output.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_fresh_starts_a_training_run_over_and_status_reads_it(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {tmp_path / 'out'}\ngenerations: 0\nmlflow: false\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["train", str(path)]).exit_code == 0
    root = tmp_path / "out" / "t"
    (root / "gen-007").mkdir()  # a generation of an earlier, longer run
    again = CliRunner().invoke(app, ["train", str(path)])
    assert again.exit_code == 1 and "--fresh" in again.output
    both = CliRunner().invoke(app, ["train", str(path), "--fresh", "--resume"])
    assert both.exit_code == 1 and "choose one" in both.output
    fresh = CliRunner().invoke(app, ["train", str(path), "--fresh"])
    assert fresh.exit_code == 0, fresh.output
    assert not (root / "gen-007").exists() and json.loads((root / "lineage.json").read_text())[0]["generation"] == 0
    status = CliRunner().invoke(app, ["league", "status", str(root)])
    assert status.exit_code == 0, status.output
    assert "training run t: 0 games recorded" in status.output and "complete" in status.output
    assert "lineage: 1 of 1 generations, accepted [0]; the current model: value-2p" in status.output


def test_a_moved_training_run_resumes_with_its_whole_window_and_a_missing_input_is_named(tmp_path):
    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=2, seed=4))
    assert run_league(config, progress=False).complete
    path = _config(tmp_path, tmp_path / "r")
    path.write_text(path.read_text().replace("generations: 2", "generations: 1"), encoding="utf-8")
    assert CliRunner().invoke(app, ["train", str(path)]).exit_code == 0
    old = tmp_path / "out" / "tiny"
    lineage = json.loads((old / "lineage.json").read_text())
    assert [r["data"] for r in lineage] == ["gen-000/data", "gen-001/data"]  # relative to the run
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    old.rename(moved / "tiny")
    path.write_text(path.read_text().replace("generations: 1", "generations: 2"), encoding="utf-8")
    resumed = CliRunner().invoke(app, ["train", str(path), "--out", str(moved), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    window = read_model((moved / "tiny" / "gen-002" / "candidate.azv").read_bytes())[0]["meta"]["data"]
    assert [p.rsplit("/", 2)[-2] for p in window] == ["gen-001", "gen-002"]  # the whole window of 2
    import shutil
    shutil.rmtree(moved / "tiny" / "gen-001" / "data")
    path.write_text(path.read_text().replace("generations: 2", "generations: 3"), encoding="utf-8")
    missing = CliRunner().invoke(app, ["train", str(path), "--out", str(moved), "--resume"])
    assert missing.exit_code == 1 and "gen-001/data" in missing.output and "Traceback" not in missing.output


def test_league_repair_on_a_training_run_or_a_missing_folder_says_what_it_is(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {tmp_path / 'out'}\ngenerations: 0\nmlflow: false\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["train", str(path)]).exit_code == 0
    root = tmp_path / "out" / "t"
    repaired = CliRunner().invoke(app, ["league", "repair", str(root)])
    assert repaired.exit_code == 1 and "a training run, whose records are in the runs it holds (none yet)" in \
        repaired.output and f"azul train {root / 'train.yaml'}" in repaired.output
    missing = CliRunner().invoke(app, ["league", "repair", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "nope: no such folder" in missing.output


def test_a_training_run_under_a_folder_with_a_comma_and_an_equals_sign(tmp_path):
    """The model's path goes into the gate's bot spec as a quoted value, not as spec text that a comma
    or '=' would cut ("unknown parameter 'b'" after a whole generation)."""
    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=2, seed=4))
    assert run_league(config, progress=False).complete
    path = _config(tmp_path, tmp_path / "r")
    path.write_text(path.read_text().replace("generations: 2", "generations: 1"), encoding="utf-8")
    odd = tmp_path / "a,b=c"
    result = CliRunner().invoke(app, ["train", str(path), "--out", str(odd)])
    assert result.exit_code == 0, result.output
    assert [r["generation"] for r in json.loads((odd / "tiny" / "lineage.json").read_text())] == [0, 1]


@pytest.mark.parametrize("store", ["folder", "garbage"])
def test_a_broken_mlflow_store_is_said_once_and_the_training_goes_on(tmp_path, store):
    """Training logs through ``tracking.logged`` as every other kind does: an MLflow store that
    cannot be opened is one line, said at once (not after MLflow's 100 s of retries: the test
    would take that long), and the run's lineage is written whole."""
    out = tmp_path / "out"
    out.mkdir()
    if store == "folder":
        (out / "mlflow.db").mkdir()  # not a database: sqlite cannot open it
    else:
        (out / "mlflow.db").write_bytes(b"not a sqlite database" * 10)
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {out}\ngenerations: 0\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["train", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.count("MLflow: ") == 1 and "goes on without it" in result.output
    assert "the MLflow store" in result.output and "mlflow.db" in result.output
    assert json.loads((out / "t" / "lineage.json").read_text())[0]["generation"] == 0
    assert not (out / "t" / "mlflow_run_id").exists()


def test_the_lineage_is_strict_json(tmp_path):
    """A generation without held-out positions has no held-out loss: null in lineage.json, not
    NaN, which strict JSON readers refuse."""
    from records.store import RunStore

    train_module._save(RunStore(tmp_path), [{"generation": 0, "held_out_loss": float("nan"),
                                             "gate": {"elo": float("inf")}, "accepted": True}])
    text = (tmp_path / "lineage.json").read_text()
    refuse = lambda constant: pytest.fail(f"{constant} in lineage.json")  # noqa: E731
    assert json.loads(text, parse_constant=refuse) == [
        {"generation": 0, "held_out_loss": None, "gate": {"elo": None}, "accepted": True}]


def ntuple_config(tmp_path, records, out, where=None):
    """A tiny two-generation n-tuple training run's settings (``nt``), to ``where`` (a folder or an
    s3:// URL; by default the folder ``tmp_path/out``), in ``tmp_path/out.yaml``."""
    path = tmp_path / f"{out}.yaml"
    path.write_text(f"""
name: nt
seed: 5
generations: 2
start: {{records: ["{records}"]}}
selfplay: {{deals: 2, iterations: 8}}
train: {{value: ntuple, lam: 0.5, epochs: 2, batch: 32, lr: 0.002}}
gate: {{elo0: 0, elo1: 40, max_pairs: 2}}
out: {tmp_path / out if where is None else where}
workers: 0
""", encoding="utf-8")
    return path


def test_an_ntuple_training_run_fits_then_learns_by_td_and_resumes_to_the_same_tables(tmp_path, monkeypatch):
    """train.value: ntuple: generation 0 fits the start records' outcomes, later generations move
    the tables by TD(lambda) along their self-play's round ends; killed in generation 2 and
    resumed (MLflow on, as a user runs it), it ends with the tables of a run never killed."""
    from learn.ntuple import NTupleModel

    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=3, seed=4))
    assert run_league(config, progress=False).complete
    whole = CliRunner().invoke(app, ["train", str(ntuple_config(tmp_path, tmp_path / "r", "whole"))])
    assert whole.exit_code == 0, whole.output
    fit = killed_in_generation_two(monkeypatch)
    path = ntuple_config(tmp_path, tmp_path / "r", "killed")
    with pytest.raises(KeyboardInterrupt):
        run_train(load_train_config(path), log=lambda line: None)
    monkeypatch.setattr(train_module, "_fit", fit)
    resumed = CliRunner().invoke(app, ["train", str(path), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    lineage = json.loads((tmp_path / "killed" / "nt" / "lineage.json").read_text())
    assert [r["generation"] for r in lineage] == [0, 1, 2]
    models = {}
    for run in ("whole", "killed"):
        root = tmp_path / run / "nt"
        models[run] = [NTupleModel.load(root / f"gen-{g:03d}" / name) for g, name in
                       ((0, "model.azv"), (1, "candidate.azv"), (2, "candidate.azv"))]
    for a, b in zip(models["whole"], models["killed"]):
        assert np.array_equal(a.weights, b.weights)
    zero, one = models["killed"][0], models["killed"][1]
    assert zero.meta["fit"] == "outcomes" and one.meta["fit"] == "td(lambda=0.5)"
    assert not np.array_equal(zero.weights, one.weights) and one.meta["parent"] == "gen-000/model.azv"
    from mlflow.tracking import MlflowClient
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'killed' / 'mlflow.db'}")
    run_id = (tmp_path / "killed" / "nt" / "mlflow_run_id").read_text().strip()
    assert [m.step for m in client.get_metric_history(run_id, "held_out_loss")] == [0, 1, 2]


def test_train_base_last_goes_on_from_the_last_generation_not_accepted(tmp_path):
    """train.base: last: generation 2 trains from generation 1's candidate though its gate (at
    most 2 pairs) did not accept it; self-play and the gate stay the current model's. With the
    default base, generation 2 trains from generation 0's model again."""
    from learn.ntuple import NTupleModel

    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=3, seed=4))
    assert run_league(config, progress=False).complete
    starts = {}
    for base in ("current", "last"):
        path = ntuple_config(tmp_path, tmp_path / "r", base)
        path.write_text(path.read_text().replace("lr: 0.002}", f"lr: 0.002, base: {base}}}") + "mlflow: false\n")
        result = CliRunner().invoke(app, ["train", str(path)])
        assert result.exit_code == 0, result.output
        lineage = json.loads((tmp_path / base / "nt" / "lineage.json").read_text())
        assert [r["accepted"] for r in lineage] == [True, False, False]
        assert [r["parent"] for r in lineage[1:]] == ["gen-000/model.azv"] * 2
        two = NTupleModel.load(tmp_path / base / "nt" / "gen-002" / "candidate.azv")
        assert two.meta["parent"] == lineage[2]["trained_from"]
        starts[base] = lineage[2]["trained_from"]
    assert starts == {"current": "gen-000/model.azv", "last": "gen-001/candidate.azv"}


def test_train_average_offers_the_mean_of_the_last_generations_tables(tmp_path):
    """train.average: 2 with base last: each generation keeps the tables its TD made
    (trained.azv) and offers its gate their mean with the generation before's; the trajectory
    goes on from the trained tables, not from the mean; stopped in generation 2 after its
    training and before the mean was written, and resumed, it ends with the same candidate."""
    import numpy as np
    from learn.ntuple import NTupleModel

    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=3, seed=4))
    assert run_league(config, progress=False).complete
    path = ntuple_config(tmp_path, tmp_path / "r", "avg")
    path.write_text(path.read_text().replace("lr: 0.002}", "lr: 0.002, base: last, average: 2}") + "mlflow: false\n")
    result = CliRunner().invoke(app, ["train", str(path)])
    assert result.exit_code == 0, result.output
    run = tmp_path / "avg" / "nt"
    lineage = json.loads((run / "lineage.json").read_text())
    assert [r.get("averaged") for r in lineage] == [
        None, ["gen-001/trained.azv"], ["gen-001/trained.azv", "gen-002/trained.azv"]]
    assert lineage[2]["trained_from"] == "gen-001/trained.azv"
    load = lambda g, f: NTupleModel.load(run / f"gen-{g:03d}" / f)  # noqa: E731
    assert np.array_equal(load(1, "candidate.azv").weights, load(1, "trained.azv").weights)
    mean = (load(1, "trained.azv").weights.astype(np.float64) + load(2, "trained.azv").weights) / 2
    two = load(2, "candidate.azv")
    assert np.allclose(two.weights, mean, atol=1e-7) and not np.array_equal(two.weights, load(2, "trained.azv").weights)
    assert two.meta["averaged"] == lineage[2]["averaged"] and two.meta["parent"] == "gen-001/trained.azv"
    # resumed after a kill that left generation 2 half done (its candidate not yet written)
    (run / "gen-002" / "candidate.azv").unlink()
    (run / "lineage.json").write_text(json.dumps(lineage[:2]))
    result = CliRunner().invoke(app, ["train", str(path), "--resume"])
    assert result.exit_code == 0, result.output
    assert np.array_equal(load(2, "candidate.azv").weights, two.weights)


def test_a_start_model_of_the_other_kind_is_one_line(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nout: {tmp_path / 'out'}\ntrain: {{value: mlp}}\nmlflow: false\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["train", str(path)])
    assert result.exit_code == 1 and not (tmp_path / "out").exists()
    assert "start.model: value-2p is an azul-ntuple/1 model; train.value mlp goes on from an azul-value/1 one" \
        in result.output


def test_train_policy_fits_a_prior_beside_each_model_and_resumes_to_the_same_files(tmp_path, monkeypatch):
    """train.policy: true: every generation's model file holds a policy prior fitted on the moves
    its bot played (generation 0: the start records'), and the next self-play and gate search by
    PUCT with it; killed in generation 2 and resumed, the files are those of a run never killed."""
    from bots.model_container import unpack
    from bots.prior import SECTION, PolicyPrior

    config = parse_config(league(tmp_path, ["greedy", "heuristic"], name="r", deals=3, seed=4))
    assert run_league(config, progress=False).complete
    paths = {}
    for out in ("whole", "killed"):
        paths[out] = ntuple_config(tmp_path, tmp_path / "r", out)
        paths[out].write_text(paths[out].read_text().replace("lr: 0.002}", "lr: 0.002, policy: true}")
                              + "mlflow: false\n")
    whole = CliRunner().invoke(app, ["train", str(paths["whole"])])
    assert whole.exit_code == 0, whole.output
    fit = killed_in_generation_two(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        run_train(load_train_config(paths["killed"]), log=lambda line: None)
    monkeypatch.setattr(train_module, "_fit", fit)
    resumed = CliRunner().invoke(app, ["train", str(paths["killed"]), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    names = [(0, "model.azv"), (1, "candidate.azv"), (2, "candidate.azv")]
    for g, name in names:  # the same tables and the same prior (the headers name each run's own folders)
        files = [(tmp_path / run / "nt" / f"gen-{g:03d}" / name).read_bytes() for run in ("whole", "killed")]
        values = [unpack(f).value.arrays for f in files]
        assert values[0].keys() == values[1].keys()
        assert all(np.array_equal(values[0][k], values[1][k]) for k in values[0]), (g, name)
        priors = [PolicyPrior.from_model(f, name) for f in files]
        assert priors[0] is not None and priors[0].players == 2 and SECTION in unpack(files[0]).sections
        assert np.array_equal(priors[0].weights, priors[1].weights), (g, name)
    lineage = json.loads((tmp_path / "killed" / "nt" / "lineage.json").read_text())
    assert all(r["policy_positions"] > 0 for r in lineage)
    selfplay = (tmp_path / "killed" / "nt" / "gen-001" / "selfplay" / "config.yaml").read_text()
    assert "prior: model" in selfplay
