"""Run settings declared once (tournament/settings.py) and one base for their errors
(tournament/errors.py): every kind of run takes the shared fields from the one declaration, says
a bad one in the same words, and raises errors an ``azul`` command turns into its error line."""
from __future__ import annotations

from pathlib import Path

import pytest

from kinds.sprt import SprtSettings
from kinds.study import StudyConfig
from kinds.train_config import TrainConfig, check
from kinds.tune_config import TuneConfig, parse_tune
from tournament.config import BotEntry, LeagueConfig, MlflowSettings, RaySettings, league_config, parse_config
from tournament.errors import AzulError, ConfigError, LeagueError, TrainError
from tournament.series import SeriesError
from tournament.settings import ADDRESS, MLFLOW, NAME, OUT, SEED, VARIANT, WORKERS

SHARED = {"name": NAME, "out": OUT, "workers": WORKERS, "address": ADDRESS, "mlflow": MLFLOW, "seed": SEED,
          "variant": VARIANT}


@pytest.mark.parametrize("settings", [LeagueConfig, RaySettings, MlflowSettings, SprtSettings, StudyConfig,
                                      TuneConfig, TrainConfig])
def test_every_settings_class_takes_the_shared_fields_from_the_one_declaration(settings):
    declared = settings.declared()
    shared = {a: f for a, f in declared.items() if a in SHARED or (settings is MlflowSettings and a == "enabled")}
    assert shared, f"{settings.__name__} declares none of the shared fields"
    for attr, field in shared.items():
        one = MLFLOW if attr == "enabled" else SHARED[attr]
        # the same check (a kind may give its own default: a study's workers 0, a tune's name)
        assert field.check is one.check, f"{settings.__name__}.{attr} has a check of its own"


def bad_workers() -> dict[str, Exception]:
    """The error of ``workers: -1`` in each kind's settings."""
    errors = {}
    cases = {
        "league": lambda: parse_config({"bots": ["greedy", "random"], "ray": {"workers": -1}}),
        "sprt": lambda: SprtSettings(new="greedy", base="random", workers=-1).check(),
        "study": lambda: StudyConfig(name="s", bot="greedy", interventions=("marker=take",), workers=-1),
        "tune": lambda: parse_tune({"bot": "heuristic", "params": ["line"], "workers": -1}),
        "train": lambda: check(TrainConfig(workers=-1)),
    }
    for kind, make in cases.items():
        with pytest.raises(AzulError) as caught:
            make()
        errors[kind] = caught.value
    return errors


def test_a_bad_shared_field_is_said_in_the_same_words_by_every_kind():
    errors = bad_workers()
    assert str(errors["league"]) == "config: ray.workers: must be 0 or more, not -1"
    assert str(errors["sprt"]) == str(errors["study"]) == "workers: must be 0 or more, not -1"
    assert str(errors["tune"]) == "tune: workers: must be 0 or more, not -1"
    assert str(errors["train"]) == "train: workers: must be 0 or more, not -1"
    for kind in ("league", "sprt", "study", "tune"):
        assert isinstance(errors[kind], ConfigError) and errors[kind].reason == "must be 0 or more, not -1", kind
    assert isinstance(errors["train"], TrainError)


def test_the_settings_and_run_errors_have_one_base_and_stay_value_or_runtime_errors():
    for error in (ConfigError, TrainError, SeriesError):  # callers that catch a ValueError still catch them
        assert issubclass(error, AzulError) and issubclass(error, ValueError)
    assert issubclass(LeagueError, AzulError) and issubclass(LeagueError, RuntimeError)
    for bad in ({"name": "a/b"}, {"out": 3}, {"seed": -1}, {"variant": "red"}, {"mlflow": "yes"}):
        with pytest.raises(ConfigError, match=f"^{next(iter(bad))}: "):
            SprtSettings(new="greedy", base="random", **bad).league()


# Exceptions outside the one base, each for a reason (records/errors.py says which): the engine's
# errors (SPEC 4), a game's control flow, failed I/O (OSError) and a web form too large for /play
OUTSIDE_THE_BASE = {"IllegalMoveError", "InvalidPositionError", "BotForfeit", "BotRaised", "MoveTimeout", "Forfeit",
                    "ObjectStoreError", "FormTooLarge", "LeaveGame", "_CommandDone", "BotFailed"}


def test_every_error_class_of_the_project_is_under_the_one_base_or_named_outside_it():
    """A new settings or run error joins ``AzulError`` (so each command turns it into its one
    ``error:`` line); only the classes named in ``OUTSIDE_THE_BASE`` stay out, on purpose."""
    import importlib
    import inspect

    root = Path(__file__).resolve().parents[1]
    found = {}
    for package in ("engine", "bots", "records", "tournament", "analysis", "learn", "present", "kinds", "web",
                    "azul_cli"):
        for path in sorted((root / package).rglob("*.py")):
            if "notebooks" in path.parts or "rl" in path.parts or path.name == "__main__.py":
                continue
            module = importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts))
            for name, cls in vars(module).items():
                if inspect.isclass(cls) and issubclass(cls, BaseException) and cls.__module__ == module.__name__:
                    found[name] = cls
    assert {"DamagedRecords", "RunInUse", "RatingListError", "ConfigError", "LeagueError"} <= set(found)
    stray = sorted(n for n, cls in found.items() if not issubclass(cls, AzulError) and n not in OUTSIDE_THE_BASE)
    assert not stray, f"{stray}: derive from AzulError (records/errors.py), or name why it stays outside"
    assert not OUTSIDE_THE_BASE - set(found), "a class named outside the base no longer exists"


def test_a_damaged_run_and_a_run_in_use_are_run_errors_of_the_one_base(tmp_path):
    from records.checks import DamagedRecords
    from records.folder import RunInUse, take_lock

    take_lock(tmp_path)
    with pytest.raises(RunInUse) as caught:  # the lock is this process's own: a second take is refused
        take_lock(tmp_path)
    assert isinstance(caught.value, AzulError) and isinstance(caught.value, RuntimeError)
    damaged = DamagedRecords(tmp_path, tmp_path / "games" / "part-000000.parquet", "not a Parquet file")
    assert isinstance(damaged, AzulError) and isinstance(damaged, ValueError)
    assert "part-000000.parquet" in str(damaged)


def test_a_league_built_typed_is_the_league_its_file_makes():
    """A kind's league (``league_config``: typed bots and fields) is the config ``parse_config``
    reads from the same settings as YAML: the same fields, the same stored config.yaml."""
    typed = league_config("tune", "t", [BotEntry("a", "heuristic", {"line": 1.5}, 7),
                                        BotEntry.of_spec("b", "mcts:iterations=20", 8)],
                          players=2, deals=4, seats="rotate", seed=3, out="s3:/bucket/runs",
                          mlflow=MlflowSettings(enabled=False))
    parsed = parse_config({"name": "t", "players": 2, "deals": 4, "seats": "rotate", "seed": 3,
                           "out": "s3:/bucket/runs", "mlflow": {"enabled": False},
                           "bots": [{"name": "a", "type": "heuristic", "params": {"line": 1.5}, "seed": 7},
                                    {"name": "b", "type": "mcts", "params": {"iterations": 20}, "seed": 8}]})
    assert typed == parsed and typed.to_yaml() == parsed.to_yaml()
    assert typed.out == "s3://bucket/runs"
    with pytest.raises(ConfigError, match=r"^tune: bots\[1\]\.name: 'a' is already the name of bots\[0\]"):
        league_config("tune", "t", [BotEntry("a", "greedy", {}, 1), BotEntry("a", "random", {}, 2)])
    with pytest.raises(ConfigError, match=r"^gate: deals: must be even at 4 players"):
        league_config("gate", "g", [BotEntry(f"b{i}", "greedy", {}, i) for i in range(4)], players=4, deals=3)
