"""A run is pinned to its models' bytes (issue 42): ``run.json`` keeps each bot's models with their
sha256 when the run starts, ``league status`` shows them, and a resume whose model bytes differ,
a file copied over or a shipped model changed by a new install, is refused naming the bot, the
model and both digests. A relative model path is read from the config file's folder."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from bots.value_file import MODELS, MODELS_ENV
from records.names import CONFIG_FILE, RUN_FILE
from tournament.config import load_config
from tournament.runner import run_league

runner = CliRunner()
OTHER = MODELS / "value-2p-td2.azv"  # a valid 2-player model whose bytes are not value-2p's


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _config(tmp_path: Path, params: dict) -> Path:
    folder = tmp_path / "configs"
    folder.mkdir(exist_ok=True)
    path = folder / "pinned.yaml"
    path.write_text(yaml.safe_dump({
        "name": "pinned", "players": 2, "deals": 6, "seed": 3, "out": str(tmp_path / "runs"),
        "batch_games": 2, "flush_seconds": 0, "ray": {"workers": 0}, "mlflow": {"enabled": False},
        "bots": [{"type": "greedy"}, {"name": "valued", "type": "mcts",
                                      "params": {"iterations": 20, **params}}]}))
    return path


def _stopped(config_path: Path) -> Path:
    def stop(written):
        if written >= 2:
            raise KeyboardInterrupt

    first = run_league(load_config(config_path), progress=False, on_written=stop)
    assert first.interrupted and 0 < first.recorded < 24
    return Path(first.run_dir)


def test_a_model_copied_over_between_a_stop_and_a_resume_is_refused(tmp_path, monkeypatch):
    config_path = _config(tmp_path, {"evaluator": "value", "model": "m.azv"})
    model = config_path.parent / "m.azv"
    shutil.copy(MODELS / "value-2p.azv", model)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # m.azv is read from the config's folder, not the current one
    run = _stopped(config_path)
    pins = json.loads((run / RUN_FILE).read_text())["models"]
    assert pins == {"valued": [{"model": str(model), "sha256": _sha(model)}]}
    stored = yaml.safe_load((run / CONFIG_FILE).read_text())
    assert stored["bots"][1]["params"]["model"] == str(model)  # kept resolved

    status = runner.invoke(app, ["league", "status", str(run)])
    assert status.exit_code == 0 and f"models: valued reads {model} (sha256 {_sha(model)})" in status.output
    from serve_support import get, serving

    with serving([run.parent], tmp_path / "played") as base:  # the run's page in azul serve says it too
        code, page = get(f"{base}/run/runs/pinned")
    assert code == 200 and f"valued reads <code>{model}</code> (sha256 <code>{_sha(model)}</code>)" in page

    before = _sha(model)
    shutil.copy(OTHER, model)
    resumed = runner.invoke(app, ["league", "run", str(config_path), "--resume", "--no-mlflow"])
    assert resumed.exit_code != 0
    text = " ".join(resumed.output.split())
    assert "'valued'" in text and str(model) in text and before in text and _sha(OTHER) in text
    assert "--fresh" in text
    # the same from the stored config, from yet another folder: refused, not read relative to it
    monkeypatch.chdir(tmp_path)
    again = runner.invoke(app, ["league", "run", str(run / CONFIG_FILE), "--out", str(tmp_path / "runs"),
                                "--resume", "--no-mlflow"])
    assert again.exit_code != 0 and _sha(OTHER) in " ".join(again.output.split())

    shutil.copy(MODELS / "value-2p.azv", model)  # the model put back: the run finishes
    done = runner.invoke(app, ["league", "run", str(config_path), "--resume", "--no-mlflow"])
    assert done.exit_code == 0, done.output


def test_a_shipped_model_changed_by_a_new_install_is_refused(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for name in ("value-2p", "value-3p", "value-4p"):
        shutil.copy(MODELS / f"{name}.azv", shipped)
    monkeypatch.setenv(MODELS_ENV, str(shipped))  # the testing hook: the shipped models' folder
    config_path = _config(tmp_path, {"evaluator": "value"})  # no model: it implies value-2p
    run = _stopped(config_path)
    pins = json.loads((run / RUN_FILE).read_text())["models"]
    assert pins == {"valued": [{"model": "value-2p", "sha256": _sha(MODELS / "value-2p.azv")}]}

    shutil.copy(OTHER, shipped / "value-2p.azv")  # a new install ships other tables as value-2p
    resumed = runner.invoke(app, ["league", "run", str(config_path), "--resume", "--no-mlflow"])
    text = " ".join(resumed.output.split())
    assert resumed.exit_code != 0 and "'valued'" in text and "value-2p" in text and _sha(OTHER) in text


def test_a_preset_pins_its_shipped_tables(tmp_path):
    config = load_config(_config(tmp_path, {})).with_models()
    assert config.model_pins() == {}  # plain mcts reads no model
    path = tmp_path / "preset.yaml"
    path.write_text(yaml.safe_dump({"name": "p", "deals": 2, "bots": ["greedy", "mcts-2p:iterations=10"]}))
    pins = load_config(path).with_models().model_pins()
    assert pins == {"mcts-2p(iterations=10)": [{"model": "value-2p-prior",
                                                "sha256": _sha(MODELS / "value-2p-prior.azv")}]}


def test_an_sprt_resumed_with_another_model_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a --bot's model path is read from the current folder
    shutil.copy(MODELS / "value-2p.azv", tmp_path / "m.azv")
    base = ["sprt", "--bot", "mcts:evaluator=value,model=m.azv,iterations=10", "--bot", "greedy",
            "--workers", "0", "--no-mlflow", "--out", str(tmp_path / "runs")]
    first = runner.invoke(app, base + ["--max-pairs", "1", "--seed", "2"])
    assert first.exit_code == 0, first.output
    pins = json.loads((tmp_path / "runs" / "sprt" / RUN_FILE).read_text())["models"]
    assert [p["model"] for ps in pins.values() for p in ps] == [str(tmp_path / "m.azv")]
    shutil.copy(OTHER, tmp_path / "m.azv")
    resumed = runner.invoke(app, base + ["--max-pairs", "2", "--seed", "2", "--resume"])
    text = " ".join(resumed.output.split())
    assert resumed.exit_code != 0 and _sha(OTHER) in text and _sha(MODELS / "value-2p.azv") in text, text
