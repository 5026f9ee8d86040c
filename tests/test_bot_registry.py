"""bots.registry: the parameter checker, module:Class types, and a registry that imports no bot."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated

import pytest

from bots import Bot, Param, bot_parameters, check_params, make_bot, register
from bots.spec import bot_from_spec
from tournament.backends import league_seats
from tournament.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parent.parent
HUGE = 100000000000000000000


@pytest.mark.parametrize("value", [HUGE, 1e20, 0, 2.5, "many", True])
def test_a_bad_value_names_the_bot_the_field_and_the_range(value):
    with pytest.raises(ValueError) as err:
        make_bot("mcts", iterations=value)
    assert str(err.value) == f"mcts: parameter iterations must be an integer from 1 to 10000000, not {value!r}"


@pytest.mark.parametrize("kind, params, words", [
    ("heuristic", {"marker": -10.5}, "heuristic: parameter marker must be a number from -10 to 10, not -10.5"),
    ("heuristic", {"line": float("inf")}, "heuristic: parameter line must be a number from 0 to 10, not inf"),
    ("mcts", {"rollout": "game"}, "mcts: parameter rollout must be one of 'random', 'greedy', 'heuristic'"),
    ("mcts", {"seconds": 0}, "mcts: parameter seconds must be a number from 0.001 to 3600 (or null for none)"),
    ("external", {"command": ""}, "external: parameter command must be a list of 1 or more strings"),
    ("external", {}, "external: parameter command is required: the program and its arguments"),
    ("greedy", {"depth": 2}, "greedy: unknown parameter 'depth' (its parameters: none)"),
])
def test_every_bot_is_checked_by_its_declarations(kind, params, words):
    with pytest.raises(ValueError, match="^" + words.replace("(", r"\(").replace(")", r"\)")):
        make_bot(kind, **params)


def test_the_checker_returns_values_of_the_declared_type():
    checked = check_params("mcts", {"exploration": 1, "seconds": None, "iterations": 7})
    assert checked == {"exploration": 1.0, "seconds": None, "iterations": 7}
    assert type(checked["exploration"]) is float


def test_every_registered_parameter_has_help_and_every_number_a_range():
    from bots import BOTS
    for kind in BOTS:
        for p in bot_parameters(kind).values():
            assert p.help, (kind, p.name)
            if p.kind in (int, float):
                assert p.low is not None and p.high is not None, (kind, p.name)


def test_register_refuses_a_number_without_a_range_or_help():
    with pytest.raises(TypeError, match="depth is a number without a range"):
        @register("unranged")
        class Unranged(Bot):
            def __init__(self, seed: int = 0, *, depth: Annotated[int, Param("plies")] = 2):
                super().__init__(seed)
    with pytest.raises(TypeError, match="depth has no Param"):
        @register("unhelped")
        class Unhelped(Bot):
            def __init__(self, seed: int = 0, *, depth: int = 2):
                super().__init__(seed)


def test_a_spec_and_a_config_are_checked_when_read(tmp_path):
    with pytest.raises(ValueError, match=r"^bot spec 'mcts:iterations=100000000000000000000': "
                                         r"mcts: parameter iterations must be an integer from 1 to 10000000"):
        bot_from_spec(f"mcts:iterations={HUGE}", seed=1)
    path = tmp_path / "huge.yaml"
    path.write_text(textwrap.dedent(f"""\
        bots:
          - type: mcts
            params:
              iterations: {HUGE}
          - greedy
        """))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (f"{path}: bots[0].params: mcts: parameter iterations must be an "
                              f"integer from 1 to 10000000, not {HUGE}")
    with pytest.raises(ConfigError, match=r"^config: bots\[1\]\.params: mcts: parameter iterations must"):
        parse_config({"bots": ["greedy", "mcts:iterations=0"]})
    with pytest.raises(ConfigError, match=r"^config: bots\[1\]: bot spec 'mcts:iterations': 'iterations' is not"):
        parse_config({"bots": ["greedy", "mcts:iterations"]})


def test_a_config_bot_may_be_a_spec_string():
    config = parse_config({"bots": ["greedy", "mcts:iterations=20,exploration=1"]})
    assert config.bots[1].type == "mcts" and config.bots[1].params == {"iterations": 20, "exploration": 1}
    seats = league_seats(config)
    bot = seats[1].make(5)
    assert (bot.iterations, bot.exploration, type(bot.exploration)) == (20, 1.0, float)


def test_module_class_types_go_through_the_same_path():
    bot = make_bot("test_league_support:RaisingBot", seed=3, after=2)
    assert type(bot).__name__ == "RaisingBot" and (bot.seed, bot.after) == (3, 2)
    assert bot_from_spec("test_league_support:RaisingBot:after=4", seed=1).after == 4
    with pytest.raises(ValueError, match="test_league_support:RaisingBot: parameter after must be an integer"):
        make_bot("test_league_support:RaisingBot", after="soon")
    with pytest.raises(ValueError, match="unknown parameter 'before'"):
        make_bot("test_league_support:RaisingBot", before=1)
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        make_bot("no_such_module:Bot")
    with pytest.raises(ValueError, match="is not a Bot subclass"):
        make_bot("engine:GameState")


def test_the_registry_imports_no_bot_module():
    # Load bots.registry without running bots/__init__.py (which imports the built-in bots).
    code = textwrap.dedent(f"""\
        import sys, types
        package = types.ModuleType("bots")
        package.__path__ = [{str(ROOT / "bots")!r}]
        sys.modules["bots"] = package
        import bots.registry
        print(sorted(m for m in sys.modules if m.startswith("bots.")), sorted(bots.registry.BOTS))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    assert out.strip() == "['bots.base', 'bots.registry'] []"


def test_a_quoted_spec_value_keeps_commas_and_equals_signs():
    from bots.spec import format_bot_spec, parse_bot_spec

    params = {"evaluator": "value", "model": "runs/a,b=c/m.azv", "iterations": 5}
    text = format_bot_spec("mcts", params)
    assert text == 'mcts:evaluator=value,model="runs/a,b=c/m.azv",iterations=5'
    assert parse_bot_spec(text) == ("mcts", params)
    assert parse_bot_spec('mcts:model="12"') == ("mcts", {"model": "12"})  # text, not a number
    with pytest.raises(ValueError, match="a quote is not closed"):
        parse_bot_spec('mcts:model="a,b')
