"""``azul study`` to ``s3://`` and the readers over a run on object storage, against a real S3 server
(SeaweedFS, tests/s3_server.py): ``study show``, ``openings``, ``marker`` and ``ratings add``/``show``
print what they print for the same run written to a folder."""
from __future__ import annotations

import json

from s3_server import s3_env, s3_server  # noqa: F401 (fixtures: out uses them)
from test_s3_league import azul, out, rows  # noqa: F401 (out: a fixture)

from records.columns import TABLES
from records.folder import run_kind
from records.store import open_store

STUDY = ["study", "marker", "--bot", "greedy", "--deals", "3", "--seed", "5", "--no-mlflow", "--quiet"]


def _same(command: list, there: str, here) -> str:
    """The command's output over the run on the store and over the folder: equal, and it says so."""
    a, b = azul(*command, there), azul(*command, here)
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    assert a.output == b.output, command
    return a.output


def test_a_study_to_s3_and_every_reader_over_it_say_what_the_folder_says(tmp_path, out):  # noqa: F811
    local = tmp_path / "local"
    played_here = azul(*STUDY, "--out", local, "-f", "json")
    played_there = azul(*STUDY, "--out", out, "-f", "json")
    assert played_there.exit_code == 0 and played_here.exit_code == 0, played_there.output
    assert played_there.output == played_here.output and json.loads(played_there.output)  # its effects
    run, folder = f"{out}/marker-greedy-2p", local / "marker-greedy-2p"
    store = open_store(run)
    assert store.read_text("study.json") == (folder / "study.json").read_text()
    assert run_kind(store.view()) == "study" and not (tmp_path / "s3:").exists()
    for table in TABLES:
        assert rows(store.view(), table) == rows(folder, table), table
    assert json.loads(_same(["study", "show", "-f", "json"], run, folder)) == json.loads(played_here.output)
    _same(["openings", "-f", "json", "--scope", "round"], run, folder)
    assert "takes" in _same(["marker", "-f", "json"], run, folder)
    # a rating list (a local folder) holding the run on the store, by its URL
    added = azul("ratings", "add", tmp_path / "list", run)
    assert added.exit_code == 0 and "version 1, 1 runs (1 added)" in added.output, added.output
    assert azul("ratings", "add", tmp_path / "list-local", folder).exit_code == 0
    listed = json.loads((tmp_path / "list" / "list.json").read_text())
    assert run in json.dumps(listed) and "s3:/" + run[len("s3://"):] not in json.dumps(listed)
    there, here = (azul("ratings", "show", tmp_path / name, "-f", "json") for name in ("list", "list-local"))
    assert there.exit_code == 0 and json.loads(there.output)["players"] == json.loads(here.output)["players"]
    again = azul("ratings", "add", tmp_path / "list", run)
    assert again.exit_code == 1 and f"{run}: run " in again.output and "is already in the list" in again.output
