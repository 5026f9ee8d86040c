"""Study and SPRT settings held to the league config's checks: a bad field is one error line
naming it (never a traceback, never a run folder started), a base bot that already sets what a
study intervenes on is refused, an output folder that cannot be written is one line, progress
shows off a terminal, and (a property test) any mutation of a study file or an SPRT config, made
with the league config test's strategies (tests/test_properties.py), is accepted or refused in
one line with nothing written."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import mutated, values
from typer.testing import CliRunner

from azul_cli.main import app
from tournament.config import ConfigError
from kinds.sprt import SprtSettings, load_sprt_file
from kinds.study import league_config, parse_study

runner = CliRunner()
STUDY = {"name": "p", "bot": "greedy", "interventions": ["marker=take", "marker=avoid"], "players": 2,
         "variant": "colored", "deals": 2, "seats": [0, 1], "field": ["random"], "seed": 1, "out": "o",
         "workers": 0, "mlflow": False}
SPRT = {"bots": ["greedy", "random"], "elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "model": "normalized",
        "max_pairs": 4, "variant": "colored", "seed": 1, "seeds": [1, 2], "name": "p", "out": "o", "workers": 0,
        "mlflow": False}


def _one_line(result, *words):
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.output
    assert "Traceback" not in result.output
    for w in words:
        assert w in result.stderr, result.stderr


@pytest.mark.parametrize("key,value,words", [
    ("seed", 1.5, "seed: must be a whole number, not 1.5"), ("seed", -1, "seed: must be 0 or more"),
    ("seed", 1e23, "seed: must be a whole number"), ("deals", float("inf"), "deals: must be a whole number"),
    ("deals", "3", "deals: must be a whole number, not '3'"), ("field", 5, "field: must be a list, not 5"),
    ("seats", 1, "seats: must be a list, not 1"), ("workers", "many", "workers: must be a whole number"),
    ("workers", -1, "workers: must be 0 or more, not -1"), ("players", 5, "players: must be from 2 to 4"),
    ("mlflow", "yes", "mlflow: must be true or false"),
])
def test_a_bad_study_field_is_one_line_naming_it(tmp_path, key, value, words):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "out": str(tmp_path / "out"), key: value}))
    _one_line(runner.invoke(app, ["study", "run", str(path)]), f"{path}: {words}")
    assert not (tmp_path / "out").exists()


def test_an_out_that_cannot_be_written_is_one_line(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "out": "/proc/nope"}))
    _one_line(runner.invoke(app, ["study", "run", str(path)]), "/proc/nope")
    (tmp_path / "blocked").write_text("a file where the folder should be")
    _one_line(runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "1", "--no-mlflow",
                                  "--out", str(tmp_path / "blocked")]), str(tmp_path / "blocked"))


@pytest.mark.parametrize("command", [["marker"], ["openings", "--classes", "line:1"]])
def test_a_base_bot_that_sets_what_is_studied_is_refused(tmp_path, command):
    spec = "greedy:marker=take" if command[0] == "marker" else "greedy:opening=line:1"
    result = runner.invoke(app, ["study", *command, "--bot", spec, "--deals", "1", "--out", str(tmp_path)])
    _one_line(result, f"bot: '{spec}' already sets {'marker' if command[0] == 'marker' else 'opening'}")
    assert not any(tmp_path.iterdir())


def test_progress_shows_off_a_terminal_and_json_stays_clean(tmp_path):
    study = runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "2", "--out", str(tmp_path),
                                "--no-mlflow", "-f", "json"])
    assert study.exit_code == 0, study.output
    assert "study marker-greedy-2p (python): 10/10 games" in study.stderr and json.loads(study.stdout)
    sprt = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--max-pairs", "4", "--elo1", "20",
                               "--workers", "0", "--no-mlflow", "--out", str(tmp_path)])
    assert sprt.exit_code == 0, sprt.output
    assert "4/4 pairs" in sprt.stdout and "LLR" in sprt.stdout
    quiet = runner.invoke(app, ["sprt", "--bot", "greedy", "--bot", "random", "--max-pairs", "4", "--elo1", "20",
                                "--workers", "0", "--no-mlflow", "--out", str(tmp_path), "--name", "q", "-q"])
    assert "4/4 pairs" not in quiet.output


def test_a_study_logs_to_mlflow_unless_told_not_to(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "deals": 1, "out": str(tmp_path / "on"), "mlflow": True}))
    assert runner.invoke(app, ["study", "run", str(path), "-q"]).exit_code == 0
    assert (tmp_path / "on" / "mlflow.db").exists()
    assert runner.invoke(app, ["study", "run", str(path), "-q", "--no-mlflow", "--out", str(tmp_path / "off")]
                         ).exit_code == 0
    assert not (tmp_path / "off" / "mlflow.db").exists() and (tmp_path / "off" / "p" / "study.json").exists()


# ---------------------------------------------------------------- property: any mutation
@contextlib.contextmanager
def _inside(folder: Path):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def config_folder(mapping):
    """A temporary folder holding ``mapping`` as ``config.yaml``; None when the mapping cannot be
    written as YAML (then there is nothing to refuse)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        try:
            (folder / "config.yaml").write_text(yaml.safe_dump(mapping))
        except (yaml.YAMLError, RecursionError, ValueError):  # not writable as YAML
            folder = None
        yield folder


def _refused_in_one_line(args: list[str], folder: Path) -> None:
    """The command refuses: exit 1, one error line, and nothing written under ``folder`` (the
    working folder, where a relative ``out`` would go) but the config file."""
    with _inside(folder):
        result = runner.invoke(app, args)
    _one_line(result)
    assert sorted(p.name for p in folder.rglob("*")) == ["config.yaml"], result.output


PROPERTY = settings(max_examples=int(os.environ.get("AZUL_PROPERTY_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(data=st.data())
def test_a_mutated_study_is_accepted_or_refused_in_one_line(data):
    mapping = data.draw(st.one_of(mutated(STUDY), values))
    try:
        study = parse_study(mapping)
    except ConfigError as error:  # a field: named after the file
        assert str(error).startswith("study: ") and "\n" not in str(error)
        study = None
    try:
        if study is not None:
            league_config(study)  # its bots made: an unknown type, a bad parameter
            return  # accepted: a study that can be played (not played here: its deals may be many)
    except ConfigError as error:
        assert str(error).startswith("bot spec ") and "\n" not in str(error)
    with config_folder(mapping) as folder:
        if folder is not None:
            _refused_in_one_line(["study", "run", "config.yaml"], folder)


@PROPERTY
@given(data=st.data())
def test_a_mutated_sprt_config_is_accepted_or_refused_in_one_line(data):
    mapping = data.draw(st.one_of(mutated(SPRT), values))
    with config_folder(mapping) as folder:
        if folder is None:
            return
        try:
            fields = load_sprt_file(folder / "config.yaml")
            SprtSettings(**fields).league()
            return  # accepted (not played: max_pairs may be many)
        except (ValueError, TypeError) as error:
            assert "\n" not in str(error)
        _refused_in_one_line(["sprt", "--config", "config.yaml"], folder)


@pytest.mark.parametrize("command, base", [
    (["sprt", "--config"], SPRT), (["study", "run"], STUDY), (["tune"], "examples/tune.yaml"),
    (["league", "run"], {"name": "l", "bots": ["greedy", "random"], "deals": 1}),
    (["league", "run"], {"name": "l", "bots": [{"type": "greedy", "\n": 1}, "random"], "deals": 1}),
])
def test_a_key_that_is_a_line_break_is_named_in_one_line(tmp_path, command, base):
    """Hypothesis found ``"\\n": None`` in an SPRT config printed as a line break: every config's
    unknown key is named visibly (``engine.errors.field_name``)."""
    mapping = dict(yaml.safe_load(Path(base).read_text())) if isinstance(base, str) else dict(base)
    if not any("\n" in str(v) for v in mapping.get("bots", [])):
        mapping["\n"] = None
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(mapping))
    _refused_in_one_line([*command, "config.yaml"], tmp_path)
    with _inside(tmp_path):
        _one_line(runner.invoke(app, [*command, "config.yaml"]), "'\\n': unknown field")
