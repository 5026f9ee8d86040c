"""League configs: the shipped files load, and every mistake gets an error that names its field."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tournament.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parent.parent
GOOD = {"bots": [{"type": "random", "seed": 1}, {"type": "greedy", "seed": 2}]}


@pytest.mark.parametrize("name", ["quick", "league-2p", "league-4p", "gray", "swiss", "gauntlet", "knockout"])
def test_shipped_configs_load(name):
    config = load_config(ROOT / "configs" / f"{name}.yaml")
    assert config.name == name
    assert config.total_games > 0
    assert len({b.name for b in config.bots}) == len(config.bots)


@pytest.mark.parametrize("name", ["swiss", "gauntlet", "knockout"])
def test_shipped_event_configs_are_their_format(name):
    config = load_config(ROOT / "configs" / f"{name}.yaml")
    assert config.format == name
    assert all(c in {b.name for b in config.bots} for c in config.challengers or [])


def test_quick_has_the_four_kinds_of_bot():
    config = load_config(ROOT / "configs" / "quick.yaml")
    assert [b.type for b in config.bots] == ["random", "greedy", "heuristic", "mcts"]
    assert config.players == 2 and config.variant == "colored"


def test_defaults_are_filled_in_and_round_trip():
    config = parse_config(GOOD, default_name="x")
    resolved = config.to_dict()
    assert resolved["name"] == "x" and resolved["players"] == 2 and resolved["seats"] == "balanced"
    assert [b["name"] for b in resolved["bots"]] == ["random", "greedy"]
    again = parse_config(yaml.safe_load(config.to_yaml()))
    assert again == config


def test_bots_without_a_seed_get_a_fixed_one():
    a = parse_config({"bots": ["random", "greedy"]})
    b = parse_config({"bots": ["random", "greedy"]})
    assert [x.seed for x in a.bots] == [x.seed for x in b.bots]
    assert a.bots[0].seed != a.bots[1].seed


@pytest.mark.parametrize("change, field, words", [
    ({"bots": [{"type": "nosuchbot"}, {"type": "random"}]}, "bots[0].type", "unknown bot type 'nosuchbot'"),
    ({"deals": -1}, "deals", "1 or more"),
    ({"deals": 2.5}, "deals", "whole number"),
    ({"players": 5}, "players", "from 2 to 4"),
    ({"players": 3}, "bots", "at least 3"),
    ({"variant": "grey"}, "variant", "colored, gray"),
    ({"seats": "shuffle"}, "seats", "rotate, permute"),
    ({"seed": -3}, "seed", "0 or more"),
    ({"time_limit": 0}, "time_limit", "positive number"),
    ({"deels": 3}, "deels", "unknown field"),
    ({"ray": {"workers": -1}}, "ray.workers", "0 or more"),
    ({"ray": {"host": "x"}}, "ray.host", "unknown field"),
    ({"mlflow": {"enabled": "yes"}}, "mlflow.enabled", "true or false"),
    ({"self_play": "yes"}, "self_play", "true or false, not 'yes'"),
    ({"self_play": 1}, "self_play", "true or false, not 1"),
    ({"bots": [{"type": "random", "seed": -1}, {"type": "greedy"}]}, "bots[0].seed", "0 or more"),
    ({"bots": [{"type": "mcts", "params": {"iterations": "many"}}, {"type": "greedy"}]},
     "bots[0].params", "iterations"),
    ({"bots": [{"type": "mcts", "params": {"speed": 3}}, {"type": "greedy"}]}, "bots[0].params",
     "unknown parameter 'speed'"),
    ({"bots": [{"type": "random"}, {"type": "random"}]}, "bots[1].name", "distinct name"),
    ({"bots": [{"type": "random", "colour": "B"}, {"type": "random"}]}, "bots[0].colour", "unknown field"),
    ({"bots": [{"type": "nosuchmodule:Bot"}, {"type": "random"}]}, "bots[0].type", "cannot import"),
    ({"bots": [{"type": "engine:GameState"}, {"type": "random"}]}, "bots[0].type", "not a Bot"),
    ({"bots": []}, "bots", "non-empty list"),
])
def test_errors_name_the_field(change, field, words):
    data = {**GOOD, **change}
    with pytest.raises(ConfigError) as err:
        parse_config(data, source="league.yaml")
    message = str(err.value)
    assert message.startswith(f"league.yaml: {field}: "), message
    assert words in message


def test_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("bots: [random\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    top = tmp_path / "list.yaml"
    top.write_text("- random\n- greedy\n")
    with pytest.raises(ConfigError, match=r"list\.yaml: \(top level\): a config is a mapping"):
        load_config(top)


def test_import_path_bots_and_overrides(tmp_path):
    config = parse_config({"bots": [{"type": "test_league_support:SlowBot", "params": {"seconds": 0.1}},
                                    "random"], "out": "runs"})
    assert config.bots[0].name == "bot"  # a plain Bot subclass's name: give it one in the config
    changed = config.with_overrides(out=str(tmp_path), address="auto", workers=3, mlflow=False)
    assert (changed.out, changed.ray.address, changed.ray.workers, changed.mlflow.enabled) == (
        str(tmp_path), "auto", 3, False)
    assert config.with_overrides() == config
    with pytest.raises(ConfigError, match="--workers"):
        config.with_overrides(workers=-2)


def test_self_play_option(tmp_path):
    from tournament.run_folder import check_resumable
    from tournament.errors import LeagueError

    plain = parse_config({**GOOD, "deals": 3, "name": "x"})
    assert plain.self_play is False and plain.to_dict()["self_play"] is False
    both = parse_config({**GOOD, "deals": 3, "name": "x", "self_play": True})
    assert both.to_dict()["self_play"] is True
    assert parse_config(yaml.safe_load(both.to_yaml())) == both
    # 2 bots, 3 deals: 1 table x 2 seatings, plus 1 game a bot and deal against itself
    assert plain.total_games == 6 and both.total_games == 6 + 2 * 3
    saved = tmp_path / "config.yaml"
    with pytest.raises(LeagueError, match="differs from the one it was started with in self_play"):
        check_resumable(both, plain.to_dict(), saved)
    with pytest.raises(LeagueError, match="in self_play"):
        check_resumable(plain, both.to_dict(), saved)
    check_resumable(both, both.to_dict(), saved)
    older = plain.to_dict()
    del older["self_play"]  # a run folder from before the option resumes as a league without it
    check_resumable(plain, older, saved)


def test_a_bot_that_cannot_play_the_table_is_refused_before_any_game(tmp_path):
    """A learned value for 2 players at a 4-player table: one line naming the bot, not a traceback
    at its first move (in a league, an SPRT's or study's league alike)."""
    from typer.testing import CliRunner

    from azul_cli.main import app

    bots = ["greedy", "random", "heuristic", "mcts:evaluator=value,model=value-2p"]
    with pytest.raises(ConfigError, match=r"bots\[3\]\.params: mcts: model 'value-2p' values 2-player games, "
                                          r"not 4-player ones"):
        parse_config({"players": 4, "deals": 2, "bots": bots})
    assert parse_config({"players": 2, "deals": 2, "bots": bots[2:]}).players == 2
    result = CliRunner().invoke(app, ["study", "marker", "--bot", "mcts:evaluator=value,model=value-2p",
                                      "--players", "3", "--deals", "1", "--out", str(tmp_path), "--no-mlflow"])
    assert result.exit_code == 1 and "values 2-player games, not 3-player ones" in result.output
    assert "Traceback" not in result.output and not any(tmp_path.iterdir())


def test_yaml_numbers_in_exponent_form_are_numbers(tmp_path):
    """PyYAML (YAML 1.1) reads 1e300 as text; a config's numbers follow YAML 1.2."""
    from tournament.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text("name: e\nflush_seconds: 1e1\ntime_limit: 5E-1\nbots: [random, greedy]\n", encoding="utf-8")
    config = load_config(path)
    assert config.flush_seconds == 10.0 and config.time_limit == 0.5


def test_an_event_stage_or_a_tune_too_big_to_hold_is_refused_in_one_line(tmp_path):
    """A Swiss round or a gauntlet builds its games in memory, a tune its steps: past their bounds
    a field error, not a MemoryError (a round-robin streams its games and has none)."""
    from kinds.tune_config import parse_tune

    bots = ["random", "greedy", "heuristic", "mcts"]
    with pytest.raises(ConfigError, match=r"deals: 1,000,000,000 deals make 4,000,000,000 games in a Swiss round"):
        parse_config({"format": "swiss", "rounds": 3, "deals": 10**9, "bots": bots})
    with pytest.raises(ConfigError, match=r"deals: .* games in a gauntlet, more than the 1,000,000"):
        parse_config({"format": "gauntlet", "challengers": ["random"], "deals": 10**9, "bots": bots})
    assert parse_config({"deals": 10**9, "bots": bots}).total_games == 12 * 10**9  # streamed
    for field, value in (("pairs", 10**9), ("batch", 10**9)):
        with pytest.raises(ConfigError, match=f"{field}: must be"):
            parse_tune({"bot": "heuristic", "params": {"line": {}}, field: value, "out": str(tmp_path)})
