"""Strategy studies: intervention wrappers, the paired design on the league driver, its analysis
and its validation (A/A, a known-harmful intervention, coverage on synthetic paired data)."""
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.records import connect
from analysis.studies import paired_effects, read_study, study_effects, study_pairs
from azul_cli.main import app
from bots import make_bot
from bots.greedy import GreedyBot
from bots.spec import bot_from_spec
from engine import new_game
from engine.loop import Moved, play
from tournament.config import ConfigError
from tournament.scheduler import round_seed
from kinds.study import StudyConfig, run_study, study_games

SPEC8 = {"intervention", "metric", "effect", "low", "high", "deals", "games"}


def game_moves(bots, seed: int, players: int = 2, watch=None) -> list[str]:
    """Play one game with ``bots`` (one per seat); the moves in order. ``watch(seat, view, move)``
    sees each decision."""
    state = new_game(players=players)
    for b in bots:
        b.reset()

    def act(seat, view):
        move = bots[seat].act(view)
        if watch:
            watch(seat, view, move)
        return move

    return [str(e.played.move) for e in play(state, act, lambda r: round_seed(seed, r)) if type(e) is Moved]


# ---------------------------------------------------------------- wrappers
@pytest.mark.parametrize("spec", ["greedy", "heuristic", "random", "mcts:iterations=40"])
def test_allow_all_goes_through_the_constrained_path_and_changes_nothing(spec):
    base = game_moves([bot_from_spec(spec, 7), bot_from_spec(spec, 8)], 1)
    wrapped = game_moves([bot_from_spec(spec + (",", ":")[":" not in spec] + "allow=all", 7),
                          bot_from_spec(spec, 8)], 1)
    assert wrapped == base


def test_marker_take_and_avoid_do_what_they_say():
    seen = {"take": [0, 0], "avoid": [0, 0]}
    for kind in ("take", "avoid"):
        def watch(seat, view, move, kind=kind):
            if seat != 0 or view.phase != "draft":
                return
            free = view.to_json()["marker"] == "center"
            takers = [m for m in view.legal_moves() if free and m.from_center]
            others = len(view.legal_moves()) - len(takers)
            if kind == "take" and takers:
                seen[kind][0] += 1
                seen[kind][1] += move in takers
            if kind == "avoid" and takers and others:
                seen[kind][0] += 1
                seen[kind][1] += move not in takers
        for seed in range(3):
            game_moves([make_bot("greedy", seed=1, marker=kind), make_bot("greedy", seed=2)], seed, watch=watch)
    for kind, (chances, kept) in seen.items():
        assert chances > 3 and kept == chances, kind


def test_opening_constrains_the_first_draft_move_of_the_game_or_of_every_round():
    firsts = {}

    def watch(seat, view, move):
        if seat == 0 and view.phase == "draft":
            firsts.setdefault(view.round, move)

    for spec, rounds in (("greedy:opening=line:1", {1}), ("greedy:opening=floor,when=round", None)):
        firsts.clear()
        game_moves([bot_from_spec(spec, 3), make_bot("greedy", seed=4)], 11, watch=watch)
        want = "1" if "line" in spec else "F"
        checked = [m for r, m in firsts.items() if rounds is None or r in rounds]
        assert checked and all(str(m).endswith(want) for m in checked), firsts
    assert not all(str(m).endswith("1") for m in firsts.values())  # only the first is constrained


def test_greedy_under_a_constraint_takes_its_best_allowed_move():
    state = new_game(players=2, seed=5)
    bot = GreedyBot(seed=1)
    values = bot._policy.values(state)
    allowed = [m for m in state.legal_moves() if m.line is None]  # to the floor only
    move = bot.choose_among(state, allowed)
    assert move in allowed and values[move.code] == max(values[m.code] for m in allowed)
    mcts = make_bot("mcts", seed=1, iterations=60)
    assert mcts.choose_among(state, allowed) in allowed


def test_spec_errors_are_one_line_and_name_the_problem():
    for spec, words in (("greedy:marker=often", "marker must be one of take, avoid"),
                        ("greedy:opening=line:9", "unknown move class term 'line:9'"),
                        ("greedy:opening=floor,marker=take", "not marker and opening together"),
                        ("greedy:when=round", "one of marker=take|avoid"),
                        ("greedy:allow=some", "allow must be 'all'")):
        with pytest.raises(ValueError, match=words) as info:
            bot_from_spec(spec, 0)
        assert "\n" not in str(info.value)
    assert make_bot("heuristic", seed=0, marker=2.0).weights["marker"] == 2.0  # the weight, not a wrapper
    assert bot_from_spec("heuristic:marker=avoid", 0).name == "heuristic+marker=avoid"


# ---------------------------------------------------------------- the design
def test_treatment_and_control_share_deals_and_bot_seeds():
    study = StudyConfig(name="s", bot="greedy", interventions=("marker=take",), players=3, deals=2)
    games = study_games(study)
    assert len(games) == 2 * (1 + 3)  # one shared control per deal, one treatment per seat
    for g in games:
        control = next(c for c in games if c.deal == g.deal and c.intervention == "control")
        assert (g.deal_seed, g.bot_seeds) == (control.deal_seed, control.bot_seeds)
        if g.intervention != "control":
            assert g.seats[g.study_seat] == 1 and sum(g.seats) == 1
    fielded = study_games(StudyConfig(name="s", bot="greedy", interventions=("marker=take",),
                                      field=("random",), deals=1))
    assert [(g.intervention, g.study_seat, g.seats) for g in fielded] == [
        ("control", 0, (0, 2)), ("control", 1, (2, 0)), ("marker=take", 0, (1, 2)), ("marker=take", 1, (2, 1))]
    with pytest.raises(ConfigError, match="unknown move class term"):
        StudyConfig(name="s", bot="greedy", interventions=("opening=diagonal",))


@pytest.fixture(scope="module")
def small_study(tmp_path_factory):
    study = StudyConfig(name="aa", bot="greedy", deals=8, out=str(tmp_path_factory.mktemp("study")),
                        interventions=("allow=all", "opening=floor,when=round", "marker=take"))
    summary = run_study(study)
    assert summary.played == summary.total == 8 * (1 + 3 * 2)
    return summary.run_dir


def test_a_real_aa_study_has_an_effect_of_exactly_zero(small_study):
    with connect(small_study) as con:
        effects = study_effects(con, read_study(small_study), times=300)
    aa = effects.filter(pl.col("intervention") == "allow=all")
    assert aa.height == 2 and (aa["effect"] == 0).all() and (aa["low"] == 0).all() and (aa["high"] == 0).all()
    assert (aa["unpaired_high"] > 0).all()  # unpaired, the same games look noisy


def test_a_known_harmful_intervention_is_clearly_negative(small_study):
    with connect(small_study) as con:
        effects = study_effects(con, read_study(small_study), times=500)
    floor = effects.filter(pl.col("intervention") == "opening=floor,when=round")
    assert (floor["high"] < 0).all() and floor.filter(pl.col("metric") == "points")["effect"].item() < -5
    marker = effects.filter(pl.col("intervention") == "marker=take")
    assert marker["obs_rows"].min() > 0 and marker["obs_effect"].is_not_nan().all()


def test_resume_plays_only_the_new_deals(small_study, tmp_path):
    study = StudyConfig(name="aa", bot="greedy", deals=9, out=str(small_study.parent),
                        interventions=("allow=all", "opening=floor,when=round", "marker=take"))
    summary = run_study(study, resume=True)
    assert (summary.done_before, summary.played) == (8 * 7, 7)


# ---------------------------------------------------------------- the analysis on synthetic pairs
def synthetic_pairs(studies: int, deals: int, effect: float, seed: int) -> pl.DataFrame:
    """``studies`` independent small studies (one 'intervention' each) of 2 seats per deal: each
    deal has its own luck shared by treatment and control, plus noise; treatment adds ``effect``."""
    rng = np.random.default_rng(seed)
    n = studies * deals * 2
    luck = np.repeat(rng.normal(50, 8, studies * deals), 2)
    c = luck + rng.normal(0, 4, n)
    t = luck + effect + rng.normal(0, 4, n)
    return pl.DataFrame({
        "run_id": "r", "intervention": np.repeat([f"s{i:04d}" for i in range(studies)], deals * 2),
        "deal": np.tile(np.repeat(np.arange(deals), 2), studies), "seat": np.tile([0, 1], studies * deals),
        "t_score": t, "c_score": c, "t_win": (t > c).astype(float), "c_win": (c > t).astype(float),
        "c_game": [f"c{i // 2}" for i in range(n)]})


@pytest.mark.parametrize("effect", [0.0, 2.0])
def test_the_interval_covers_the_truth_at_about_its_nominal_rate(effect):
    effects = paired_effects(synthetic_pairs(400, 30, effect, seed=int(effect) + 1), times=400)
    points = effects.filter(pl.col("metric") == "points")
    covered = ((points["low"] <= effect) & (points["high"] >= effect)).mean()
    assert 0.88 <= covered <= 0.99, covered
    assert points["width_ratio"].median() > 1.5  # the deal's luck cancels in the pairs
    assert points["deals"].unique().to_list() == [30] and points["games"].unique().to_list() == [90]


def test_study_pairs_refuses_a_league_run(tmp_path):
    from analysis.synthetic_records import write_synthetic_run

    run = write_synthetic_run(tmp_path / "league", 20, part_games=20, seed=1)
    with connect(run) as con, pytest.raises(ValueError, match="not a study run"):
        study_pairs(con)


# ---------------------------------------------------------------- the command
def test_study_command_prints_spec8_json(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["study", "marker", "--bot", "greedy", "--deals", "2", "--out", str(tmp_path),
                                 "--format", "json", "--no-mlflow"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {(r["intervention"], r["metric"]) for r in rows} == {
        (i, m) for i in ("marker=take", "marker=avoid") for m in ("points", "win")}
    assert all(SPEC8 <= set(r) and r["deals"] == 2 and r["games"] == 6 for r in rows)
    bad = runner.invoke(app, ["study", "openings", "--bot", "greedy", "--classes", "line:1,diag",
                              "--out", str(tmp_path)])
    assert bad.exit_code == 1 and bad.output.startswith("error: ") and bad.output.count("\n") == 1


def test_the_report_has_a_study_section(small_study, tmp_path):
    from analysis.report import build_report

    html = build_report(small_study, tmp_path, bootstrap=0)["report.html"].read_text()
    assert "<h2>Intervention study</h2>" in html and "opening=floor,when=round" in html


def test_the_studies_notebook_shows_the_effects(small_study, monkeypatch):
    import importlib.util
    from pathlib import Path

    from polars.testing import assert_frame_equal

    monkeypatch.setenv("AZUL_RUN_DIR", str(small_study))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    path = Path(__file__).resolve().parents[1] / "analysis" / "notebooks" / "studies.py"
    spec = importlib.util.spec_from_file_location("notebook_studies", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, defs = module.app.run()
    with connect(small_study) as con:
        expected = study_effects(con, read_study(small_study))
        pairs = study_pairs(con)
    # the same numbers (DuckDB may sum a float column in another order from one run to the next)
    assert_frame_equal(defs["effects"], expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)
    assert defs["pairs"].equals(pairs) and pairs.height >= 8 * 2 * 3
