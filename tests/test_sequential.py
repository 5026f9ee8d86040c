"""Studies that stop when the answer is known (analysis/sequential.py, kinds/study.py's
StudySchedule): the interval keeps its promise after a data-dependent stop, the stop saves games
away from the claim's boundary, a real study stops early and resumes to the same stop."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from test_studies import synthetic_pairs

from analysis import sequential as seq
from analysis.records import connect
from analysis.studies import deal_differences, read_study, study_effects
from kinds.study import StudyConfig, run_study
from tournament.errors import ConfigError

SD = 4.0  # a deal's paired difference in synthetic_pairs: two seats of N(0, 4) against N(0, 4)
DESIGN = seq.Design.even(400, 10)  # looks of 40 deals
REPS = 2000


@pytest.fixture(scope="module")
def scenarios():
    """2,000 synthetic studies at a true effect of 0, at the claim's boundary X and at 2X, where
    X is the distance the design decides with 90% power: each played through the stopping rule."""
    boundary = round(seq.planned_distance(DESIGN) * SD, 2)
    region = seq.Region.parse(f"> {boundary}")
    found = {}
    for k, effect in enumerate((0.0, boundary, 2 * boundary)):
        pairs = synthetic_pairs(REPS, DESIGN.looks[-1], effect, seed=100 + k)
        diffs = deal_differences(pairs, "points")
        assert len(diffs) == REPS and all(len(d) == DESIGN.looks[-1] for d in diffs.values())
        found[effect] = [seq.sequential_effect(d, DESIGN, region) for d in diffs.values()]
    return boundary, found


def test_the_interval_covers_the_truth_at_its_nominal_rate_after_the_stop(scenarios):
    _, found = scenarios
    for effect, results in found.items():
        covered = np.mean([r.low <= effect <= r.high for r in results])
        assert 0.93 <= covered <= 0.97, (effect, covered)
        naive = np.mean([abs(r.effect - effect) <= 1.96 * r.sd / np.sqrt(r.deals) for r in results])
        assert naive < covered  # the naive interval after the stop under-covers: the reason for the design


def test_the_stop_saves_games_away_from_the_boundary(scenarios):
    boundary, found = scenarios
    for effect, right in ((0.0, "refuted"), (2 * boundary, "supported")):
        power = np.mean([r.verdict == right for r in found[effect]])
        fixed = seq.fixed_deals(DESIGN, boundary / SD, power)  # one look, the same level and power
        deals = np.mean([r.deals for r in found[effect]])
        assert deals <= 0.7 * fixed, (effect, deals, fixed)
        assert deals == pytest.approx(seq.operating(DESIGN, abs(effect - boundary) / SD)[0], rel=0.05)
    at_boundary = np.mean([r.deals for r in found[boundary]])
    assert seq.fixed_deals(DESIGN, boundary / SD, 0.9) < at_boundary <= DESIGN.looks[-1]  # the price
    verdicts = {e: pl.Series("verdict", [r.verdict for r in rs]).value_counts(sort=True)["verdict"][0]
                for e, rs in found.items()}
    assert verdicts == {0.0: "refuted", boundary: "undecided", 2 * boundary: "supported"}
    wrong = np.mean([r.verdict == "refuted" for r in found[2 * boundary]] +
                    [r.verdict == "supported" for r in found[0.0]])
    assert wrong < 0.005


def test_the_design_spends_its_error_and_no_more():
    """Pocock-type spending: at the boundary the stopping rule ends decided 5% of the time in
    all; one look is the fixed test (1.96); its critical values fall slowly, look by look."""
    assert seq.operating(DESIGN, 0.0)[1] == pytest.approx(0.05, abs=1e-4)
    assert seq.Design((50,)).critical == pytest.approx((1.959964,), abs=1e-5)
    c = DESIGN.critical
    assert all(a > b for a, b in zip(c, c[1:])) and 2.3 < c[-1] < c[0] < 2.8
    assert seq.pocock_spending(1.0, 0.05) == pytest.approx(0.05)


def test_the_table_and_the_direct_solution_agree_and_two_boundaries_cover():
    looks = DESIGN.looks
    for estimate in (-0.4, 0.05, 0.3):
        fast = seq._ordered_interval(looks, 0.05, (0.1,), estimate)
        slow = seq._ordered_interval(looks, 0.05, (0.1,), estimate, table=False)
        assert fast == pytest.approx(slow, abs=2e-3)
    region = seq.Region.parse("within 1")  # two boundaries: the direct solution
    rng = np.random.default_rng(5)
    covered = [(r := seq.sequential_effect(rng.normal(0.5, SD, 400), DESIGN, region)).low <= 0.5 <= r.high
               for _ in range(150)]
    assert 0.88 <= np.mean(covered) <= 1.0


def test_regions_and_their_verdicts():
    assert str(seq.Region.parse(" within 0.03")) == "within 0.03"
    assert seq.Region.parse("< -1").verdict(-3, -1.5) == "supported"
    assert seq.Region.parse("< -1").verdict(-0.5, 2) == "refuted"
    assert seq.Region.parse("> 0").verdict(-1, 1) == "undecided"
    assert seq.Region.parse("within 1").verdict(-0.5, 0.5) == "supported"
    assert seq.Region.parse("within 1").verdict(1.5, 2) == "refuted"
    for bad in ("bigger 1", "> x", "within 0", ""):
        with pytest.raises(ValueError):
            seq.Region.parse(bad)
    with pytest.raises(ValueError, match="increasing"):
        seq.Design((10, 10))


def test_a_study_file_with_a_bad_plan_is_one_line_naming_the_field():
    base = dict(name="s", bot="greedy", interventions=("marker=avoid",), deals=40)
    for options, field in ((dict(expect="bigger 1"), "expect"), (dict(expect="> 1", metric="elo"), "metric"),
                           (dict(expect="> 1", stages=30), "deals"), (dict(expect="> 1", width=-1), "width"),
                           (dict(stages=4), "stages")):
        with pytest.raises(ConfigError) as exc:
            StudyConfig(**base, **options)
        assert str(exc.value).startswith(f"{field}:") and "\n" not in str(exc.value), str(exc.value)


def test_a_real_study_stops_early_and_a_stopped_one_resumes_to_the_same_stop(tmp_path):
    study = StudyConfig(name="seq", bot="greedy", interventions=("marker=avoid", "marker=take"), deals=60,
                        stages=3, expect="> 2", out=str(tmp_path / "whole"), mlflow=False)
    whole = run_study(study)
    assert whole.complete and whole.recorded == 200 < whole.total  # stopped at its second look of three
    saved = read_study(tmp_path / "whole" / "seq")
    assert saved["sequential"] == {"expect": "> 2", "metric": "points", "looks": [20, 40, 60], "level": 0.95,
                                   "width": None, "spending": "pocock", "complete": True}
    with connect(tmp_path / "whole" / "seq") as con:
        effects = study_effects(con, saved, times=200)
    planned = effects.filter(pl.col("metric") == "points")
    assert set(planned["interval"]) == {"sequential"} and set(planned["verdict"]) <= {"refuted", "undecided",
                                                                                       "supported"}
    assert (planned["deals"] <= 40).all() and (planned["low"] < planned["effect"]).all()

    def stop(progress):  # in the study's second look
        if progress.recorded >= 110:
            raise KeyboardInterrupt

    broken = dataclasses.replace(study, out=str(tmp_path / "broken"))
    first = run_study(broken, progress=stop)
    assert first.interrupted and not read_study(tmp_path / "broken" / "seq")["sequential"]["complete"]
    rest = run_study(broken, resume=True)
    assert rest.complete and first.recorded + rest.played == whole.recorded
    with connect(tmp_path / "broken" / "seq") as con:
        again = study_effects(con, read_study(tmp_path / "broken" / "seq"), times=200)
    assert_frame_equal(again, effects, rel_tol=1e-9)  # the same stops, the same numbers
    from analysis.report import build_report

    html = build_report(tmp_path / "whole" / "seq", tmp_path / "report", bootstrap=0)["report.html"].read_text()
    assert "<th class=\"text\">verdict</th>" in html and "the stopping rule's own interval" in html
    assert f'<td class="text">{planned["verdict"][0]}</td>' in html
    with pytest.raises(ConfigError, match="^expect: the study was started with '> 2'"):
        run_study(dataclasses.replace(broken, expect="> 1"), resume=True)
    assert json.loads((tmp_path / "broken" / "seq" / "study.json").read_text())["sequential"]["expect"] == "> 2"
