"""The property tests of league, study and SPRT configs (tests/test_properties.py,
tests/test_study_sprt_config.py) extended to train configs (issue 30): a train file, however
damaged (its fields replaced, deleted, nested, huge, extra ones, or no mapping at all), is either
accepted by kinds/train_config.py's checks, which write nothing, or ``azul train CONFIG`` refuses
it with exit 1 and one error line naming the file, writing nothing. An accepted config is not
played: its generations may be many."""
from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_league_support import league
from test_properties import mutated, values
from test_study_sprt_config import _inside, _refused_in_one_line, config_folder

from kinds.train import TrainError, load_train_config
from tournament.config import parse_config
from tournament.runner import run_league

PROPERTY = settings(max_examples=int(os.environ.get("AZUL_PROPERTY_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# examples/train.yaml made small: generation 0 from the shipped model, every section and field there
TRAIN = {"name": "p", "players": 2, "variant": "colored", "seed": 1, "generations": 1,
         "start": {"model": "value-2p-mlp"},
         "selfplay": {"deals": 2, "iterations": 10, "opponents": ["heuristic", "mcts:iterations=5"]},
         "train": {"value": "mlp", "hidden": [8, 4], "target": "blend", "epochs": 1, "batch": 64, "lr": 0.001},
         "window": 2, "gate": {"elo0": 0, "elo1": 40, "max_pairs": 3},
         "out": "o", "workers": 0, "mlflow": {"enabled": False, "experiment": "e"}}


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> str:
    """A finished 2-player league run, for generation 0 to start from (start.records)."""
    tmp = tmp_path_factory.mktemp("train-records")
    summary = run_league(parse_config(league(tmp, ["random", "greedy"], name="r", deals=1)), progress=False)
    assert summary.complete
    return str(tmp / "r")


def _bases(records: str) -> list[dict]:
    from_records = {**TRAIN, "start": {"records": [records]}, "mlflow": False, "address": None}
    return [TRAIN, from_records]


@PROPERTY
@given(data=st.data())
def test_a_mutated_train_config_is_accepted_or_refused_in_one_line(records, data):
    mapping = data.draw(st.one_of(*(mutated(base) for base in _bases(records)), values))
    with config_folder(mapping) as folder:
        if folder is None:
            return
        with _inside(folder):
            try:
                load_train_config("config.yaml")  # every field checked
                accepted = True
            except TrainError as error:
                assert str(error).startswith("config.yaml: ") and "\n" not in str(error), str(error)
                accepted = False
        assert sorted(p.name for p in folder.rglob("*")) == ["config.yaml"]  # the checks write nothing
        event("accepted" if accepted else "refused")
        if not accepted:
            _refused_in_one_line(["train", "config.yaml"], folder)


def test_the_bases_are_accepted(records, tmp_path):
    """The property's starting points are train configs the checks accept (else every example
    would only test a refusal)."""
    for base in _bases(records):
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(base))
        with _inside(tmp_path):
            config = load_train_config("config.yaml")
        assert config.name == "p" and config.generations == 1


# ---------------------------------------------------------------- what the property found, and its kin
@pytest.mark.parametrize("change, words", [
    ({"start": {"records": ["x" * 300]}}, "start.records[0]: xxx"),        # too long a name for a folder
    ({"start": {"model": "x" * 300}}, "cannot read it (File name too long)"),  # too long for a file
    ({"start": {"model": "/proc/self/mem"}}, "/proc/self/mem"),               # a file that cannot be read
    ({"selfplay": {"opponents": ["mcts:evaluator=value,model=/"]}},        # was found after generation 0
     "selfplay.opponents[0]: mcts: model '/' is neither a shipped model"),
    ({"selfplay": {"opponents": ["mcts:evaluator=value,model=" + "x" * 300]}},  # an OSError once
     "selfplay.opponents[0]: mcts: model 'xxx"),
    ({"out": "config.yaml"}, "config.yaml/p: Not a directory"),             # a file where the folder goes
    ({"name": "x" * 300}, "it is 300 characters long (a name is 1 to 128"),  # the one rule for names
])
def test_a_path_that_cannot_be_used_is_refused_in_one_line(tmp_path, change, words):
    mapping = {**TRAIN, "generations": 0, **change}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(mapping))
    with _inside(tmp_path):
        from typer.testing import CliRunner

        from azul_cli.main import app

        result = CliRunner().invoke(app, ["train", "config.yaml"])
    assert result.exit_code == 1 and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, \
        result.output
    assert words in result.stderr and "Traceback" not in result.output, result.stderr
    if "name" not in change:  # the run's folder is made before its name is found too long for a file
        assert sorted(p.name for p in tmp_path.rglob("*")) == ["config.yaml"]


def test_a_section_key_read_as_a_number_is_one_line(tmp_path):
    """Hypothesis: ``selfplay: {'': null, '0E0': null}`` (0E0 read back as the number 0.0) was a
    TypeError sorting the unknown keys."""
    path = tmp_path / "config.yaml"
    path.write_text("name: p\nselfplay: {'': null, 0E0: null}\nmlflow: false\n", encoding="utf-8")
    _refused_in_one_line(["train", "config.yaml"], tmp_path)
