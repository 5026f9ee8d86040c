"""Run kinds declared once (kinds/): a kind defined here, with no other edit, gets its status,
its repair line, its --fresh and the refusals, and with a detail of its own (a ``StatusDetail``)
its status line's words, its status lines and its web row's and page's ahead text; a run nested
in a training run is finished by finishing the training run."""
from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from kinds import KINDS, LEAGUE, TRAIN, NoteDetail, RunKind, StatusDetail, finish_command, kind_of, register
from kinds.base import command_line
from records.folder import new_run_id, run_kind, save_run_id
from test_league_support import league
from tournament.errors import LeagueError
from tournament.config import parse_config
from tournament.runner import run_league

runner = CliRunner()


class CountKind(RunKind):
    """A throwaway kind: a league's games counted against a total of its own."""

    name, label, article, settings = "count", "count run", "a count run", "count.yaml"
    owned = ("count.json",)

    def finish_command(self, run):  # every method is handed the run's store (records.RunStore)
        return command_line(["azul-count", str(run), "--resume"])

    def planned_games(self, run):
        return 10

    def detail(self, run):
        return NoteDetail("counted by the test")


COUNT = register(CountKind())


class TallyDetail(StatusDetail):
    """A throwaway kind's detail: what it says of itself, wherever a run's status is shown."""

    def __init__(self, marks: int):
        self.marks = marks

    def as_dict(self):
        return {"marks": self.marks}

    def lines(self, models):
        return [f"tally: {self.marks} marks", *models, "tally: the end"]

    def until_decided(self):
        return ", until the tally says"

    def complete(self):
        return f"complete (tallied {self.marks})"

    def ahead(self):
        return f"the tally leads by {self.marks}"


class TallyKind(RunKind):
    """A throwaway kind that plays until it decides (a file ``tally.json`` says it has), with a
    detail of its own."""

    name, label, article, settings = "tally", "tally run", "a tally run", "tally.yaml"
    owned = ("tally.json",)
    decides = True

    def finish_command(self, run):
        return command_line(["azul-tally", str(run), "--resume"])

    def is_finished(self, run, recorded, planned):
        return run.exists("tally.json")  # through the store: a folder's file, or an object

    def detail(self, run):
        return TallyDetail(3)


TALLY = register(TallyKind())


def test_a_kind_declared_in_a_test_gets_status_repair_fresh_and_refusals(tmp_path):
    config = parse_config(league(tmp_path, ["random", "greedy"], name="c", deals=4))  # 8 games
    summary = run_league(config, kind=COUNT)
    run = tmp_path / "c"
    assert summary.recorded == 8 and run_kind(run) == "count" and kind_of(run) is COUNT
    (run / "count.json").write_text("{}")
    st = COUNT.status(run)
    assert (st.recorded, st.planned, st.state, st.detail.as_dict()) == (8, 10, "stopped", {"note": "counted by the test"})
    assert st.finish == f"azul-count {shlex.quote(str(run))} --resume"
    status = runner.invoke(app, ["league", "status", str(run)])
    assert status.exit_code == 0, status.output
    assert f"count run c: 8 of 10 games recorded, incomplete (finish it with: {st.finish})" in status.output
    repaired = runner.invoke(app, ["league", "repair", str(run)])
    assert repaired.exit_code == 0 and f"finish the count run with: {st.finish}" in repaired.output
    with pytest.raises(LeagueError, match=r"holds a count run, not a league: .* finish it with: azul-count"):
        run_league(config, resume=True, kind=LEAGUE)
    with pytest.raises(LeagueError, match=r"holds a league, not a count run"):
        other = parse_config(league(tmp_path, ["random", "greedy"], name="o", deals=1))
        run_league(other, kind=LEAGUE)
        run_league(other, resume=True, kind=COUNT)
    again = run_league(config, fresh=True, kind=COUNT)
    assert again.played == 8 and not (run / "count.json").exists()  # --fresh removes what the kind owns
    assert KINDS["count"] is COUNT and kind_of(run).status(run).recorded == 8


def test_a_kind_with_a_detail_of_its_own_describes_itself_to_status_and_the_web(tmp_path):
    from web.data import run_data, status_row
    from web.pages import run_fragment
    from web.runs import Found

    config = parse_config(league(tmp_path, ["random", "greedy"], name="t", deals=4))  # 8 games
    run_league(config, kind=TALLY)
    run = tmp_path / "t"
    st = kind_of(run).status(run)
    assert (st.recorded, st.planned, st.state) == (8, None, "stopped")
    status = runner.invoke(app, ["league", "status", str(run)])
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    assert lines[0] == (f"tally run t: 8 games recorded: a tally run plays until it decides, until the tally says, "
                        f"incomplete (finish it with: {st.finish})")
    assert lines[1:3] == ["tally: 3 marks", "tally: the end"]
    (run / "tally.json").write_text("{}")
    status = runner.invoke(app, ["league", "status", str(run)])
    assert status.output.splitlines()[0].endswith("a tally run plays until it decides, until the tally says, "
                                                  "complete (tallied 3)"), status.output
    row = status_row(Found(run, "runs/t"))
    assert (row["kind"], row["state"], row["ahead"], row["detail"]) == ("tally", "finished",
                                                                         "the tally leads by 3", {"marks": 3})
    page = run_fragment(run_data(Found(run, "runs/t"), lambda folder: True))
    assert "<span id='ahead'>the tally leads by 3</span>" in page


def test_a_kind_is_registered_once():
    with pytest.raises(ValueError, match="registered already"):
        register(CountKind())
    assert register(COUNT) is COUNT
    with pytest.raises(ValueError, match="unknown run kind 'nope'"):
        from kinds import kind_named

        kind_named("nope")


def test_a_run_nested_in_a_training_run_is_finished_by_the_training_run(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    save_run_id(root, new_run_id("t"), kind=TRAIN.name)
    (root / "train.yaml").write_text("name: t\ngenerations: 2\n")
    (root / "lineage.json").write_text(json.dumps([{"generation": 0, "accepted": True, "model": "value-2p"}]))
    selfplay = parse_config(league(root / "gen-001", ["random", "greedy"], name="selfplay", deals=1))
    run_league(selfplay)
    inner = root / "gen-001" / "selfplay"
    expected = f"azul train {shlex.quote(str(root / 'train.yaml'))} --out {shlex.quote(str(tmp_path))} --name t --resume"
    assert finish_command(inner) == expected == finish_command(root)
    repaired = runner.invoke(app, ["league", "repair", str(inner)])
    assert repaired.exit_code == 0 and expected in repaired.output
    from kinds.sprt import SprtSettings, run_sprt  # the gate: an SPRT whose bots' names are no specs

    run_sprt(SprtSettings("greedy", "random", elo0=0, elo1=200, max_pairs=1, workers=0, mlflow=False, name="gate",
                          names=("gen1-candidate", "gen1-current"), out=str(root / "gen-001")))
    gate = root / "gen-001" / "gate"
    assert finish_command(gate) == expected
    shown = runner.invoke(app, ["league", "repair", str(gate)])
    assert shown.exit_code == 0 and expected in shown.output and "gen1-candidate" not in shown.output
    st = TRAIN.status(root)
    assert st.recorded == 4 and st.state == "stopped" and st.finish == expected  # self-play 2, gate 2
    assert st.detail.as_dict()["generations"] == 2 and st.detail.as_dict()["lineage"][0]["model"] == "value-2p"
    status = runner.invoke(app, ["league", "status", str(root)])
    assert status.exit_code == 0 and "training run t: 4 games recorded" in status.output, status.output
    assert "lineage: 1 of 3 generations, accepted [0]; the current model: value-2p" in status.output
