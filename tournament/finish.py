"""What command finishes a run folder, by what the folder holds (``records.folder.run_kind``).

``finish_command(run_dir)`` is the line ``azul league repair`` prints and ``azul league run
--resume`` names when it refuses a study's or an SPRT's folder: a league resumes with ``azul
league run CONFIG --resume``, an SPRT with ``azul sprt`` and its test's settings (from
``sprt.yaml`` and ``config.yaml``), a tune with ``azul tune`` and the ``tune.yaml`` it keeps, a study with ``azul study marker`` when its ``study.json`` says
it is one, else a sentence (a study's other commands cannot be rebuilt from the folder).

``planned_games(run_dir, config)`` is how many games that run plays in all, by the same kind:
what ``azul league status`` counts the recorded games against (None for an SPRT, which plays
until it decides).
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import yaml

from records.folder import run_kind

CONFIG_FILE = "config.yaml"  # as tournament.runner.CONFIG_FILE


def finish_command(run_dir: str | Path) -> str:
    """How to finish the run in ``run_dir``: a command, or a sentence naming the command."""
    run_dir = Path(run_dir)
    kind = run_kind(run_dir)
    where = ["--out", str(run_dir.parent), "--name", run_dir.name]
    if kind == "league":
        return _line(["azul", "league", "run", str(run_dir / CONFIG_FILE), "--out", str(run_dir.parent), "--resume"])
    if kind == "tune":  # tune.yaml: the tune file as it started, its name the folder's
        return _line(["azul", "tune", str(run_dir / "tune.yaml"), "--out", str(run_dir.parent), "--resume"])
    config = _read(run_dir / CONFIG_FILE, yaml.safe_load) or {}
    if kind == "sprt":
        test = _read(run_dir / "sprt.yaml", yaml.safe_load)
        bots = config.get("bots") if isinstance(config.get("bots"), list) else []
        if not isinstance(test, dict) or len(bots) != 2:
            return (f"azul sprt with the settings that started this test, and {_line(where)} --resume "
                    "(its sprt.yaml or config.yaml is missing)")
        args = ["azul", "sprt"]
        for key in ("new", "base"):  # an A/A test's names carry " (seed N)"
            args += ["--bot", re.sub(r" \(seed \d+\)$", "", str(test.get(key)))]
        for key in ("elo0", "elo1", "alpha", "beta", "model"):
            args += [f"--{key}", f"{test.get(key):g}" if isinstance(test.get(key), float) else str(test.get(key))]
        args += ["--max-pairs", str(test.get("max_pairs")), "--variant", str(config.get("variant")),
                 "--seed", str(config.get("seed"))]
        for bot in bots:
            args += ["--bot-seed", str(bot.get("seed"))]
        return _line(args + where + ["--resume"])
    study = _read(run_dir / "study.json", json.loads)
    labels = [i.get("label") for i in study.get("interventions", [])] if isinstance(study, dict) else []
    if labels == ["marker=take", "marker=avoid"] and study.get("seats") == list(range(study.get("players", 0))):
        args = ["azul", "study", "marker", "--bot", str(study["bot"]), "--players", str(study["players"]),
                "--variant", str(study["variant"]), "--deals", str(study["deals"]), "--seed", str(config.get("seed"))]
        for spec in study.get("field", []):
            args += ["--field", str(spec)]
        return _line(args + where + ["--resume"])
    return (f"the azul study command (or study file) that started this study, with --resume and "
            f"its records in {_line(where)} (azul study run FILE --out {shlex.quote(str(run_dir.parent))} "
            "--resume for a study file)")


def planned_games(run_dir: str | Path, config) -> int | None:
    """The games the run in ``run_dir`` plays in all, by its kind: a league's ``config.total_games``
    (``config``: its saved config; an event's: the most it may play), a study's (rebuilt from its
    ``study.json`` and the config's seed), a tune's (from its ``tune.yaml``); None for an SPRT (it
    plays until it decides, at most its ``max_pairs`` pairs) or when the folder no longer says."""
    run_dir = Path(run_dir)
    kind = run_kind(run_dir)
    if kind == "league":
        return config.total_games
    if kind == "tune":
        from .config import ConfigError
        from .tune_config import load_tune_file

        try:
            return load_tune_file(run_dir / "tune.yaml").total_games
        except ConfigError:
            return None
    if kind == "study":
        from .config import ConfigError
        from .study import StudyConfig, study_games

        study = _read(run_dir / "study.json", json.loads)
        try:
            labels = tuple(i["label"] for i in study["interventions"])
            return len(study_games(StudyConfig(
                name=run_dir.name, bot=study["bot"], interventions=labels, players=study["players"],
                variant=study["variant"], deals=study["deals"], seats=tuple(study["seats"]),
                field=tuple(study["field"]), seed=config.seed)))
        except (ConfigError, KeyError, TypeError, ValueError):  # missing or not a study's
            return None
    return None


def _read(path: Path, parse):
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return None


def _line(args: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in args)
