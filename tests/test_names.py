"""One rule for names (tournament.fields.NAME_RULE, ``check_name``): a run's and a bot's, in league
configs, ``--bot`` specs, SPRTs, studies and the web table: printable characters only, at most
``MAX_NAME``, no '/', no leading '.', and the rule stated in the error. Also the spec's empty value
(``mcts:prune=``) and ``azul series``' up-front check of a bot at a table it cannot play.
"""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots.spec import parse_bot_spec
from tournament.config import ConfigError, check_name, parse_config
from tournament.fields import MAX_NAME, NAME_RULE

runner = CliRunner()
EXTERNAL = "external:command=python3 examples/random_bot.py"
BAD = [("a\tb", "a tab (U+0009) at 1"), ("nul\x00", "a NUL (U+0000) at 3"),
       ("ab\u202ecd", "U+202E RIGHT-TO-LEFT OVERRIDE (a format character) at 2"),
       ("x" * 200, "it is 200 characters long"), (".hidden", "it starts with '.'"),
       ("a/b", "it holds a '/'"), ("  ", "it is only spaces"), ("line\u2028two", "U+2028")]


def league(name=None, run="t") -> dict:
    bot = {"type": "greedy"} if name is None else {"type": "greedy", "name": name}
    return {"name": run, "deals": 1, "bots": [bot, "random"]}


@pytest.mark.parametrize("name, why", BAD)
def test_a_league_bot_name_breaking_the_rule_is_refused_stating_it(name, why):
    with pytest.raises(ConfigError) as info:
        parse_config(league(name), source="my.yaml")
    text = str(info.value)
    assert text.startswith("my.yaml: bots[0].name: must be a non-empty name without '/'")
    assert why in text and NAME_RULE in text and "\n" not in text and "\t" not in text


@pytest.mark.parametrize("name, why", BAD)
def test_a_run_name_breaking_the_rule_is_refused_stating_it(name, why):
    with pytest.raises(ConfigError, match="128 printable characters") as info:
        check_name(name)
    assert why in str(info.value)
    with pytest.raises(ConfigError, match="name: .*128 printable characters"):
        parse_config(league(run=name))


def test_good_names_pass_and_the_limit_is_exact():
    for name in ("café", "my bot (v2)", "x" * MAX_NAME, "mcts(iterations=200)", "greedy+marker=take"):
        assert check_name(name) == name
        assert parse_config(league(name)).bots[0].name == name
    with pytest.raises(ConfigError, match=f"it is {MAX_NAME + 1} characters long"):
        check_name("x" * (MAX_NAME + 1))
    # a bot's own name spells its spec: the long ones the docs' commands make still pass
    spec = "mcts:exploration=0.1458,value_scale=2.598,seconds=0.01,opening=factory+taken:2,when=round"
    assert len(parse_config({"name": "t", "deals": 1, "bots": [spec, "greedy"]}).bots[0].name) > 90


def test_a_bot_named_in_its_spec_is_held_to_the_rule_in_a_league_and_an_sprt(tmp_path):
    with pytest.raises(ConfigError, match=r"bots\[0\]\.name: .*a tab \(U\+0009\)"):
        parse_config({"name": "t", "deals": 1, "bots": [f"{EXTERNAL},name=a\tb", "greedy"]})
    result = runner.invoke(app, ["sprt", "--bot", f"{EXTERNAL},name=a\tb", "--bot", "greedy", "--max-pairs", "1",
                                 "--out", str(tmp_path), "--workers", "0", "--no-mlflow"])
    assert result.exit_code == 1 and "a tab (U+0009)" in result.output and "128 printable" in result.output
    assert not any(tmp_path.iterdir())  # refused before anything is written


def test_a_study_holds_its_bots_names_to_the_rule(tmp_path):
    result = runner.invoke(app, ["study", "marker", "--bot", f"{EXTERNAL},name=ab\u202ecd", "--deals", "1",
                                 "--out", str(tmp_path), "--no-mlflow", "--quiet"])
    assert result.exit_code == 1, result.output
    assert "its name: must be a non-empty name" in result.output and "RIGHT-TO-LEFT OVERRIDE" in result.output
    assert not any(tmp_path.iterdir())


def test_series_holds_a_bot_named_in_its_spec_to_the_rule():
    result = runner.invoke(app, ["series", "--bot", "greedy", "--bot", f"{EXTERNAL},name=x\x00", "--seed", "1",
                                 "--quiet"])
    assert result.exit_code == 1 and "a NUL (U+0000)" in result.output and "128 printable" in result.output
    assert "series:" not in result.output  # nothing played


def test_the_web_tables_name_for_a_person_goes_by_the_same_rule():
    from web.play_setup import check_name as person_name

    with pytest.raises(ValueError, match="RIGHT-TO-LEFT OVERRIDE.*128 printable"):
        person_name("ab\u202ecd", ["greedy"])


def test_an_empty_spec_value_says_so_and_lists_the_choices():
    with pytest.raises(ValueError) as info:
        parse_bot_spec("mcts:prune=")
    assert str(info.value) == ("bot spec 'mcts:prune=': the value of prune is empty (prune must be one of "
                               "'none', 'floor')")
    with pytest.raises(ValueError, match="the value of iterations is empty .iterations must be an integer"):
        parse_bot_spec("mcts-2p:iterations= ,seconds=1")
    with pytest.raises(ValueError, match="^bot spec 'greedy:marker=': the value of marker is empty$"):
        parse_bot_spec("greedy:marker=")  # a wrapper's key: no declared choices to list
    with pytest.raises(ValueError, match="'prune' is not key=value"):
        parse_bot_spec("mcts:prune")


def test_series_refuses_a_model_for_another_player_count_up_front():
    result = runner.invoke(app, ["series", "--bot", "mcts:evaluator=value,model=value-3p,iterations=10",
                                 "--bot", "greedy", "--seed", "1", "--quiet"])
    assert result.exit_code == 1
    assert "ValueError" not in result.output and "series:" not in result.output  # before any game
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --bot: bot spec 'mcts:evaluator=value,model=value-3p")
    assert "value-3p" in lines[0] and "2-player" in lines[0]
