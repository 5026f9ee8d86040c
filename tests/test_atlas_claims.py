"""An atlas's claims file and its measures (kinds/atlas_config.py, analysis/atlas.py): a claims
file reads into typed claims; a bad field is one line naming the file, the claim and the field;
a statistic is read from a real luck-and-skill block; a comparison of player counts and the
verdicts that changed between two atlases."""
from __future__ import annotations

import math

import pytest
import yaml

from analysis.atlas import changed_verdicts, compared, measured, statistic_value
from analysis.luck import luck_tables
from analysis.sequential import Region
from analysis.synthetic import synthetic_luck_league
from kinds.atlas_config import StatisticTest, StudyTest, load_atlas
from tournament.errors import ConfigError

GOOD = {
    "name": "claims",
    "claims": [
        {"id": "second-mover", "claim": "At 2 players the second mover wins 69% of games",
         "test": "the first mover's win rate less 1/2 between copies of mcts-2p",
         "source": "Trace Studio, Azul by the Numbers", "players": [2], "metric": "win", "expect": "< -0.19",
         "statistic": "first-mover"},
        {"id": "marker-take", "claim": "Take the starting marker", "source": "a forum", "players": [2, 3, 4],
         "metric": "points", "expect": "> 0", "compare": [2, 4],
         "study": {"bot": "mcts-{players}p:iterations=100", "intervention": "marker=take", "max_deals": 60}},
    ],
}


def write(tmp_path, data, name="claims.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_claims_file_reads_into_typed_claims(tmp_path):
    atlas = load_atlas(write(tmp_path, GOOD), out=str(tmp_path / "runs"))
    assert atlas.name == "claims" and atlas.out == str(tmp_path / "runs") and len(atlas.claims) == 2
    first, second = atlas.claims
    assert first.tested_by == StatisticTest("first-mover") and first.expect == Region("<", -0.19)
    assert first.test.startswith("the first mover's") and first.compare is None
    assert second.tested_by == StudyTest("mcts-{players}p:iterations=100", "marker=take", (), 60, 5)
    assert second.players == (2, 3, 4) and second.compare == (2, 4)
    assert second.bot_for(second.tested_by.bot, 3) == "mcts-3p:iterations=100"
    assert load_atlas(write(tmp_path, {"claims": GOOD["claims"]}, "mine.yaml")).name == "mine"  # the stem


def bad(**changes):
    """GOOD with its second claim changed (a key set to None is removed)."""
    claim = {**GOOD["claims"][1], **changes}
    return {**GOOD, "claims": [GOOD["claims"][0], {k: v for k, v in claim.items() if v is not None}]}


@pytest.mark.parametrize("data, field", [
    (bad(expect=None), "expect: missing"),
    (bad(expect="bigger 0"), "expect: must be"),
    (bad(players=[2, 5]), "players: must be a list of distinct player counts"),
    (bad(metric="elo"), "metric: must be points or win"),
    (bad(statistic="first-mover"), "study, statistic: a claim is tested by one of them"),
    (bad(study=None), "study, statistic: a claim is tested by one of them"),
    (bad(colour="blue"), "'colour': unknown field"),
    (bad(id="second-mover"), "id: 'second-mover' is the id of an earlier claim"),
    (bad(study={"bot": "mcts-{players}p", "intervention": "marker=sometimes"}), "study.intervention:"),
    (bad(study={"bot": "nobot:x=1", "intervention": "marker=take"}), "study.bot:"),
    (bad(study={"bot": "greedy", "intervention": "marker=take", "max_deals": 4}), "study.max_deals:"),
    (bad(compare=[2, 5]), "compare: must be two different player counts"),
    (bad(study=None, statistic="luckiness"), "statistic.name: must be one of"),
    (bad(study=None, metric="points", statistic={"name": "upset-rate", "bots": ["greedy", "random"]}),
     "metric: upset-rate counts deals won"),
    (bad(study=None, metric="win", statistic={"name": "upset-rate"}), "statistic.bots: upset-rate compares"),
    (bad(claim=""), "claim: must be a sentence"),
])
def test_a_bad_field_is_one_line_naming_the_file_the_claim_and_the_field(tmp_path, data, field):
    path = write(tmp_path, data)
    with pytest.raises(ConfigError) as exc:
        load_atlas(path)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"{path}: claims[1] (") and field in text, text


def test_a_bad_file_level_field_names_the_file(tmp_path):
    for data, field in (({**GOOD, "workers": -1}, "workers:"), ({**GOOD, "claims": []}, "claims: must be a list"),
                        ({**GOOD, "colour": 1}, "'colour': unknown field")):
        with pytest.raises(ConfigError) as exc:
            load_atlas(write(tmp_path, data))
        assert str(exc.value).startswith(f"{tmp_path / 'claims.yaml'}: ") and field in str(exc.value)


@pytest.fixture(scope="module")
def luck():
    data = synthetic_luck_league([("strong", 0.4), ("weak", -0.4)], 150, 2, seat_effects=[1.5, -1.5], seed=4)
    (table,) = luck_tables(data["results"], data["games"], resamples=200)
    return table.as_dict()


def test_a_statistic_is_read_from_a_luck_block(luck):
    edge = statistic_value(luck, "first-mover", "win")
    assert edge == (luck["first_mover"]["win_edge"], luck["first_mover"]["win_low"], luck["first_mover"]["win_high"])
    assert edge[1] > 0  # the planted first-seat advantage is seen
    seat = statistic_value(luck, "seat-share", "points")
    assert seat[1] <= seat[0] <= seat[2] and seat[0] > 0
    assert statistic_value(luck, "upset-rate", "win")[0] == luck["upsets"][0]["upset_rate"]
    sweep = statistic_value(luck, "sweep-rate", "win")
    assert sweep[0] == luck["upsets"][0]["sweep_rate"] and sweep[1] < sweep[0] < sweep[2]
    deal = statistic_value(luck, "deal-share", "points")
    contrast = statistic_value(luck, "seat-less-deal", "points")
    assert contrast[0] == pytest.approx(seat[0] - deal[0]) and contrast[1] < contrast[0] < contrast[2]
    with pytest.raises(ValueError, match="no luck-and-skill numbers: not seated"):
        statistic_value({**luck, "refused": "not seated every way"}, "seat-share", "points")


def test_a_comparison_and_the_verdicts_that_changed():
    region = Region.parse("> 0")
    a = measured("c", 2, "points", region, 3.0, 1.0, 5.0, 100)
    b = measured("c", 4, "points", region, 1.0, 0.0, 2.0, 80)
    assert (a.verdict, b.verdict) == ("supported", "undecided")
    d = compared(a, b, region)
    half = 1.959963984540054 * math.hypot(2.0 / 1.959963984540054, 1.0 / 1.959963984540054)
    assert d.players == "2-4" and d.effect == 2.0 and d.low == pytest.approx(2 - half) and d.games == 180
    assert d.verdict == "undecided"
    before = [a.as_dict(), b.as_dict()]
    now = [a.as_dict(), {**b.as_dict(), "verdict": "supported", "effect": 1.5}, d.as_dict()]
    assert changed_verdicts(before, now) == [
        {"id": "c", "players": "2-4", "before": None, "now": "undecided", "effect_before": None, "effect_now": 2.0},
        {"id": "c", "players": "4", "before": "undecided", "now": "supported", "effect_before": 1.0,
         "effect_now": 1.5}]


def test_the_shipped_claims_file_reads_and_plays_the_strongest_presets():
    from pathlib import Path

    atlas = load_atlas(Path(__file__).resolve().parents[1] / "atlas" / "claims.yaml")
    assert len({c.id for c in atlas.claims}) == len(atlas.claims) >= 7
    for claim in atlas.claims:
        for n in claim.players:
            assert claim.bot_for(claim.tested_by.bot, n).startswith(f"mcts-{n}p:iterations="), claim.id
