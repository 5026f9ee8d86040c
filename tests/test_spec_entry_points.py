"""Bot specs behave the same at every entry point (play, series, league configs, SPRT, studies):
``seed=`` is refused by name, and an external program is written as a spec."""
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots import check_params, make_bot
from bots.external import ExternalBot
from bots.registry import SEED_APART
from bots.spec import bot_from_spec, parse_bot_spec
from tournament.config import ConfigError, parse_config
from kinds.sprt import SprtSettings
from kinds.study import StudyConfig, league_config

runner = CliRunner()
RANDOM_BOT = Path(__file__).resolve().parents[1] / "examples" / "random_bot.py"
LEAGUE = {"name": "s", "players": 2, "deals": 1, "out": "unused"}


# ---------------------------------------------------------------- seed= in a spec
def test_the_spec_grammar_and_the_checker_refuse_seed_by_name():
    with pytest.raises(ValueError) as caught:
        parse_bot_spec("random:seed=5")
    assert str(caught.value) == f"bot spec 'random:seed=5': {SEED_APART}"
    with pytest.raises(ValueError, match="^greedy: seed is not a bot parameter"):
        check_params("greedy", {"seed": 5})
    with pytest.raises(ValueError, match="^bot spec 'greedy:seed=4': seed is not a bot parameter"):
        bot_from_spec("greedy:seed=4", seed=1)


@pytest.mark.parametrize("bot", ["greedy:seed=5", {"type": "greedy", "params": {"seed": 5}}])
def test_a_league_config_refuses_seed_in_a_bot(bot):
    with pytest.raises(ConfigError) as caught:
        parse_config({**LEAGUE, "bots": [bot, "random"]}, source="c.yaml")
    text = str(caught.value)
    assert text.startswith("c.yaml: bots[0]") and "seed is not a bot parameter" in text, text
    assert "\n" not in text and "multiple values" not in text


def test_an_sprt_and_a_study_refuse_seed_in_a_spec():
    with pytest.raises(ValueError, match="seed is not a bot parameter"):
        SprtSettings("greedy:seed=4", "greedy").league()
    with pytest.raises(ValueError, match="seed is not a bot parameter"):
        league_config(StudyConfig(name="s", bot="greedy:seed=4", interventions=("marker=take",)))


@pytest.mark.parametrize("args", [
    ["play", "--vs", "random:seed=5"],
    ["series", "--bot", "greedy:seed=4", "--bot", "greedy"],
    ["sprt", "--bot", "greedy:seed=4", "--bot", "greedy", "--elo1", "5", "--no-mlflow"],
    ["study", "marker", "--bot", "greedy:seed=4", "--deals", "2"],
    ["study", "marker", "--bot", "greedy", "--field", "random:seed=3", "--deals", "2"],
])
def test_every_command_refuses_seed_in_a_spec_in_one_line(args, tmp_path):
    if args[0] in ("sprt", "study"):
        args = [*args, "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "seed is not a bot parameter" in lines[0] and "Traceback" not in result.output
    assert lines[0].count("bot spec") == 1
    assert not any(tmp_path.iterdir())  # nothing was started


# ---------------------------------------------------------------- external programs as specs
def test_an_external_program_is_written_as_a_spec():
    spec = f"external:command={sys.executable} {RANDOM_BOT},move_time=2"
    bot = bot_from_spec(spec, seed=3)
    assert isinstance(bot, ExternalBot)
    assert bot.command == [sys.executable, str(RANDOM_BOT)] and bot.move_time == 2.0
    assert bot.name == "external(random_bot.py)" and bot.process is None  # started lazily
    quoted = bot_from_spec("external:command=python3 'my bot.py' --depth=3,name=mine", seed=1)
    assert quoted.command == ["python3", "my bot.py", "--depth=3"] and quoted.name == "mine"


@pytest.mark.parametrize("command, words", [
    ("python3 'bot.py", "external: parameter command: cannot split \"python3 'bot.py\" into words"),
    ("", "external: parameter command must be a list of 1 or more strings"),
])
def test_a_command_that_is_not_words_is_refused(command, words):
    with pytest.raises(ValueError) as caught:
        make_bot("external", command=command)
    assert str(caught.value).startswith(words), str(caught.value)


def test_an_external_spec_in_a_league_config_and_an_sprt():
    spec = f"external:command=python3 {RANDOM_BOT}"
    league = parse_config({**LEAGUE, "bots": [spec, "random"]}, source="c.yaml")
    assert league.bots[0].name == "external(random_bot.py)"
    assert league.bots[0].params == {"command": f"python3 {RANDOM_BOT}"}
    settings = SprtSettings(spec, "random")
    assert settings.bot_names() == ("external(random_bot.py)", "random")
    sprt_league = settings.league()
    assert [b.name for b in sprt_league.bots] == ["external(random_bot.py)", "random"]
    assert sprt_league.bots[0].type == "external"
    twice = SprtSettings(spec, spec, seeds=(1, 2))
    assert twice.bot_names() == ("external(random_bot.py) (seed 1)", "external(random_bot.py) (seed 2)")
