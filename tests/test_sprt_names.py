"""A bot given by one spec has one name: an SPRT names its bots as a league does, by the bot's own
name (``bots.spec.spec_name``: ``mcts-2p:iterations=20`` is ``mcts-2p(iterations=20)``), in its
records, ``sprt.yaml`` and output; a test whose records name its bots otherwise (by their spec
texts, as SPRTs did) resumes with those names, and a resume with another bot is still refused."""
from __future__ import annotations

import yaml
from typer.testing import CliRunner

from azul_cli.main import app
from bots.spec import spec_name
from kinds.sprt import SprtSettings, run_sprt
from records.read import read_table
from tournament.config import parse_config

runner = CliRunner()
SPEC = "mcts-2p:iterations=20"


def bots_in_records(run_dir) -> set[str]:
    return set(read_table(run_dir, "results", ["bot"])["bot"].to_pylist())


def test_a_spec_is_named_in_an_sprt_as_a_league_names_it(tmp_path):
    league = parse_config({"name": "l", "out": str(tmp_path), "deals": 1, "bots": [SPEC, "greedy"]})
    named = league.bots[0].name
    assert named == spec_name(SPEC) == "mcts-2p(iterations=20)"
    assert SprtSettings(SPEC, "greedy").bot_names() == (named, "greedy")
    result = runner.invoke(app, ["sprt", "--bot", SPEC, "--bot", "greedy", "--max-pairs", "2", "--elo1", "20",
                                 "--workers", "0", "--no-mlflow", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"sprt {named} against greedy" in result.output
    assert bots_in_records(tmp_path / "sprt") == {named, "greedy"}
    assert yaml.safe_load((tmp_path / "sprt" / "sprt.yaml").read_text())["new"] == named
    assert [b["name"] for b in yaml.safe_load((tmp_path / "sprt" / "config.yaml").read_text())["bots"]] == [
        named, "greedy"]


def test_a_test_whose_records_name_its_bots_by_their_specs_resumes_with_those_names(tmp_path):
    old = ("heuristic:denial=0.8", "greedy")  # as an SPRT named them before it named them as a league
    first = run_sprt(SprtSettings(*old, names=old, elo1=20, max_pairs=2, workers=0, out=str(tmp_path), mlflow=False))
    assert first.result is not None and bots_in_records(tmp_path / "sprt") == set(old)
    args = ["sprt", "--bot", old[0], "--bot", "greedy", "--elo1", "20", "--workers", "0", "--no-mlflow",
            "--out", str(tmp_path), "--resume"]
    more = runner.invoke(app, args + ["--max-pairs", "4"])
    assert more.exit_code == 0, more.output
    assert bots_in_records(tmp_path / "sprt") == set(old)
    assert len(read_table(tmp_path / "sprt", "games", ["game_id"])) > 4
    other = runner.invoke(app, ["sprt", "--bot", "heuristic:denial=0.7", *args[3:], "--max-pairs", "6"])
    assert other.exit_code == 1
    assert "--bot (the new bot) is heuristic:denial=0.7 but the test was started with heuristic:denial=0.8" in " ".join(
        other.output.split())
