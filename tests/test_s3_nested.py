"""A training run's nested runs on object storage (SeaweedFS, tests/s3_server.py), as in a folder: a
stopped self-play league under ``s3://.../<run>/gen-001/selfplay`` is finished by the training run's
``azul train ... --resume`` (kinds.base.parent_run of a URL), and ``azul league repair`` of the
training run itself says where its records are, as it does for a folder."""
from __future__ import annotations

import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_s3_league import azul, out  # noqa: F401 (out: a fixture)

import kinds.train as train_module
from kinds import finish_command, kind_named, parent_run
from kinds.train import load_train_config, run_train
from records.store import open_store


def _stopped_training_run(tmp_path, monkeypatch, where: str, name: str) -> str:
    """A training run under ``where`` (a folder or a URL) stopped as its generation 1 fits (its
    self-play recorded): returns the run."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseed: 5\ngenerations: 1\nselfplay: {{deals: 2, iterations: 8}}\n"
                    f"gate: {{elo0: 0, elo1: 40, max_pairs: 2}}\nmlflow: false\nworkers: 0\nout: {where}\n",
                    encoding="utf-8")
    fit = train_module._fit

    def killed(c, data, start, store, name, g, parent=None):
        if g == 1:
            raise KeyboardInterrupt
        return fit(c, data, start, store, name, g, parent)

    with monkeypatch.context() as m:
        m.setattr(train_module, "_fit", killed)
        with pytest.raises(KeyboardInterrupt):
            run_train(load_train_config(path), log=lambda line: None)
    return f"{where}/{name}"


def _uncommit_last_part(run: str) -> None:
    """The last part of a run uncommitted, as a kill mid-league leaves it."""
    store = open_store(run)
    last = store.committed()[-1]
    if hasattr(store, "uncommit"):
        store.uncommit(last)
    else:  # a folder's part is committed by its games table
        (store.root / "games" / f"part-{last}.parquet").unlink()


def test_a_nested_run_is_finished_by_its_training_runs_command_on_s3_as_in_a_folder(tmp_path, out,  # noqa: F811
                                                                                     monkeypatch):
    folder = str(tmp_path / "local")
    for run in (_stopped_training_run(tmp_path, monkeypatch, out, "nt"),
                _stopped_training_run(tmp_path, monkeypatch, folder, "nt")):
        inner = f"{run}/gen-001/selfplay"
        found = parent_run(inner)
        assert str(found) == run and str(parent_run(f"{run}/gen-001")) == run and parent_run(run) is None
        train = kind_named("train").finish_command(found)
        assert train.startswith("azul train ") and train.endswith(("--resume", "keeps it)"))
        assert finish_command(inner) == finish_command(run) == train
        # the training run itself: no config.yaml of its own, its records in the runs it holds (both alike)
        refused = azul("league", "repair", run)
        assert refused.exit_code == 1 and "Traceback" not in refused.output, refused.output
        assert f"{run}: a training run, whose records are in the runs it holds (gen-001/selfplay): repair each " \
               f"of them; finish it with: {train}" in refused.output, refused.output
        _uncommit_last_part(inner)  # its self-play stopped mid-league
        status = azul("league", "status", inner)
        assert status.exit_code == 0, status.output
        assert f"incomplete (finish it with: {train}" in status.output and "azul league run" not in status.output
        repaired = azul("league", "repair", inner)
        assert repaired.exit_code == 0, repaired.output
        assert f"finish the league with: {train}" in repaired.output
    assert f"azul train TRAIN.yaml --out {out} --name nt --resume (TRAIN.yaml: " in finish_command(f"{out}/nt/gen-001/selfplay")
    assert finish_command(f"{folder}/nt/gen-001/selfplay").startswith(f"azul train {folder}/nt/train.yaml --out ")
    # a prefix under no training run, the bucket's top: none above
    league = open_store(f"{out}/nt/gen-001/selfplay")
    assert parent_run(f"{out}/plain") is None
    assert parent_run(f"s3://{league.url.bucket}") is None and parent_run(f"s3://{league.url.bucket}/a") is None
    nothing = azul("league", "repair", f"{out}/none")
    assert nothing.exit_code == 1 and f"{out}/none: not a run (no config.yaml)" in nothing.output, nothing.output
