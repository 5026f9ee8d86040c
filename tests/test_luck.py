"""analysis.luck (issue 44, want 2): the shares of the variance of points and wins that the deal,
the seat and the bot decide recover the components planted in a synthetic league; the upset rate,
the first mover's edge, the refusal of a league not on shared deals, and ``azul standings``."""
from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import polars as pl
import pytest
import yaml
from test_league_support import league
from typer.testing import CliRunner

from analysis.luck import NEEDS, luck_tables
from analysis.synthetic import synthetic_league, synthetic_luck_league, write_league
from azul_cli.main import app

runner = CliRunner()

DEAL_SD, SUIT_SD, NOISE = 5.0, 3.0, 6.0
PLANTS = {  # players -> skills and seat effects (points)
    2: ([("a", 6.0), ("b", 0.0), ("c", -6.0)], [2.0, -2.0]),
    4: ([("a", 6.0), ("b", 2.0), ("c", -2.0), ("d", -6.0)], [3.0, 1.0, -1.0, -3.0]),
}


def planted_points(skills, seats) -> dict[str, float]:
    """The planted shares of the points, exactly: each component's variance over the total
    (every bot plays as many seats as every other; the rest is the Gumbel noise and the rounding)."""
    s = np.array([v for _, v in skills])
    parts = {"deal": DEAL_SD ** 2 + SUIT_SD ** 2, "seat": np.var(seats), "bot": np.var(s),
             "rest": NOISE ** 2 * np.pi ** 2 / 6 + 1 / 12}
    total = sum(parts.values())
    return {k: v / total for k, v in parts.items()}


def planted_wins(skills, seats, players: int, draws: int = 100_000) -> dict[str, float]:
    """The planted shares of the wins, from the model's own probabilities: with Gumbel noise a
    seat wins with the softmax of its points (before noise) over ``NOISE``, exactly given the
    deal's favours ``U``, which are drawn ``draws`` times. bot and seat: the variance of the win
    rate by bot and by seat; deal: the covariance of a member's wins in two different games of
    the same deal after its bot's and seat's rates (games are independent given ``U``)."""
    rng = np.random.default_rng(99)
    seat = np.array(seats)
    by_bot = {name: [] for name, _ in skills}
    by_seat = [[] for _ in range(players)]
    probs = []  # per table: (rotations, draws, members) win probabilities, with bots and seats
    for members in combinations(range(len(skills)), players):
        u = rng.normal(0.0, SUIT_SD, size=(draws, players))
        table = []
        for arr in range(players):
            member = [(s + arr) % players for s in range(players)]  # member in seat s
            eta = (np.array([skills[members[m]][1] for m in member]) + seat + u[:, member]) / NOISE
            p = np.exp(eta - eta.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)  # by seat
            by_member = np.empty_like(p)
            by_member[:, member] = p
            table.append((by_member, [skills[members[m]][0] for m in range(players)],
                          [(m - arr) % players for m in range(players)]))
            for s in range(players):
                by_bot[skills[members[member[s]]][0]].append(p[:, s].mean())
                by_seat[s].append(p[:, s].mean())
        probs.append(table)
    rate = {b: np.mean(v) for b, v in by_bot.items()}
    seat_rate = [np.mean(v) for v in by_seat]
    fair = 1.0 / players
    parts = {"bot": np.mean([(r - fair) ** 2 for r in rate.values()]),
             "seat": np.mean([(r - fair) ** 2 for r in seat_rate])}
    cov = []
    for table in probs:
        for g, h in ((g, h) for g in range(players) for h in range(players) if g != h):
            (pg, names, sg), (ph, _, sh) = table[g], table[h]
            for m in range(players):
                fg = rate[names[m]] + seat_rate[sg[m]] - fair
                fh = rate[names[m]] + seat_rate[sh[m]] - fair
                cov.append(np.mean((pg[:, m] - fg) * (ph[:, m] - fh)))
    parts["deal"] = float(np.mean(cov))
    total = fair * (1 - fair)  # no shared places
    parts["rest"] = total - sum(parts.values())
    return {k: v / total for k, v in parts.items()}


@pytest.fixture(scope="module", params=[2, 4])
def planted(request):
    players = request.param
    skills, seats = PLANTS[players]
    data = synthetic_luck_league(skills, 300 if players == 2 else 400, players, seat_effects=seats,
                                 deal_sd=DEAL_SD, suit_sd=SUIT_SD, noise=NOISE, seed=13)
    (table,) = luck_tables(data["results"], data["games"])
    return players, table, {"points": planted_points(skills, seats),
                            "wins": planted_wins(skills, seats, players)}


def test_the_decomposition_recovers_the_planted_shares(planted):
    players, table, truth = planted
    assert table.refused is None and table.num_players == players
    shown = []
    for r in table.shares.iter_rows(named=True):
        planted = truth[r["outcome"]]  # the contrast seat - deal: the planted seat less the planted deal
        want = planted["seat"] - planted["deal"] if r["component"] == "seat - deal" else planted[r["component"]]
        shown.append(f"{players}p {r['outcome']} {r['component']}: planted {want:.3f}, "
                     f"estimated {r['share']:.3f} ({r['low']:.3f} .. {r['high']:.3f})")
        assert r["low"] <= want <= r["high"], shown[-1]
        assert r["high"] - r["low"] < 0.15, shown[-1]  # an interval that says something
    print("\n".join(shown))
    for outcome in ("points", "wins"):  # the four parts are the whole variance
        parts = table.shares.filter(pl.col("outcome") == outcome, pl.col("component") != "seat - deal")
        assert parts.height == 4 and parts["share"].sum() == pytest.approx(1.0)
    # the planted components are there: the deal and the bot matter, and beyond their noise
    points = {r["component"]: r for r in table.shares.filter(outcome="points").iter_rows(named=True)}
    assert points["deal"]["low"] > 0.15 and points["bot"]["low"] > 0.1 and points["seat"]["low"] > 0.0


def test_a_league_with_no_deal_luck_and_equal_bots_has_those_shares_near_zero():
    data = synthetic_luck_league([("x", 0.0), ("y", 0.0)], 300, 2, deal_sd=0.0, suit_sd=0.0, seed=7)
    (table,) = luck_tables(data["results"], data["games"])
    for r in table.shares.filter(pl.col("component") != "rest").iter_rows(named=True):
        assert r["low"] <= 0.0 <= r["high"], r  # nothing planted: every interval holds 0
        # (the wins' deal share at 2 players rests on 300 pairs of games: its spread is about 0.06)
        assert abs(r["share"]) < (0.03 if r["outcome"] == "points" else 0.15), r
    edge = table.first_mover
    assert edge["win_low"] <= 0.0 <= edge["win_high"] and edge["bots"] == ["x", "y"]


def test_the_first_movers_edge_between_copies():
    # copies of one bot (named apart), the first mover 4 points ahead before the noise
    data = synthetic_luck_league([("copy-1", 0.0), ("copy-2", 0.0)], 200, 2, seat_effects=[2.0, -2.0], seed=3)
    (table,) = luck_tables(data["results"], data["games"])
    edge = table.first_mover
    assert edge["games"] == 400 and edge["bots"] == ["copy-1", "copy-2"] and edge["fair"] == 0.5
    assert 0.0 < edge["win_low"] < edge["win_edge"] < edge["win_high"]
    assert edge["score_low"] < 2.0 < edge["score_high"]  # 2 points over the table's mean


def test_a_league_not_on_shared_deals_is_refused_in_one_line():
    data = synthetic_league([("a", 100.0), ("b", 0.0)], 20, seed=1)
    games = data["games"].drop("table", "deal")  # no deal named: every game its own deal
    (table,) = luck_tables(data["results"], games)
    assert table.refused == f"{NEEDS}: 40 of 40 deals are not played with every bot in every seat equally often"
    assert table.shares is None and table.upsets is None
    assert table.first_mover["games"] == 40  # the first mover's edge works on any league
    # a deal played in one seating only
    one = data["games"].filter(pl.col("arrangement") == 0)
    (table,) = luck_tables(data["results"], one)
    assert table.refused.startswith(NEEDS) and "20 of 20 deals" in table.refused


def _frames(winners):
    """games and results of 2-player games of ``strong`` and ``weak``: per deal, the winners of its
    two games (``strong`` in seat 0 in the first, ``weak`` in seat 0 in the second)."""
    games, results = [], []
    for d, pair in enumerate(winners):
        for a, (win, seats) in enumerate(zip(pair, (("strong", "weak"), ("weak", "strong")))):
            gid = f"t0-d{d}-a{a}"
            games.append({"run_id": "r", "game_id": gid, "table": 0, "deal": d, "num_players": 2})
            for seat, bot in enumerate(seats):
                results.append({"run_id": "r", "game_id": gid, "seat": seat, "bot": bot,
                                 "rank": 1 if bot == win else 2, "score": 50 if bot == win else 40})
    return pl.DataFrame(results), pl.DataFrame(games)


def test_the_upset_rate_counts_the_deals_the_weaker_won_in_every_seat():
    # strong wins both games of deals 0-3; seat 0 wins both games of deal 4; weak wins both of deal 5
    winners = [("strong", "strong")] * 4 + [("strong", "weak"), ("weak", "weak")]
    results, games = _frames(winners)
    (table,) = luck_tables(results, games)
    up = table.upsets.row(0, named=True)
    assert (up["weaker"], up["stronger"], up["deals"], up["upsets"], up["sweeps"]) == ("weak", "strong", 6, 1, 4)
    assert up["upset_rate"] == pytest.approx(1 / 6) and up["low"] < 1 / 6 < up["high"]
    assert table.first_mover["win_rate"] == pytest.approx(7 / 12)
    # the weak bot winning one game of a deal is no upset: deal 5 split the other way
    results, games = _frames([("strong", "strong")] * 4 + [("strong", "weak"), ("strong", "weak")])
    assert luck_tables(results, games)[0].upsets["upsets"].to_list() == [0]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """random against greedy on 5 deals, every seating (balanced), played by the league."""
    tmp = tmp_path_factory.mktemp("luck")
    config = tmp / "luck.yaml"
    config.write_text(yaml.safe_dump(league(tmp / "runs", ["random", "greedy"], name="luck", deals=5,
                                            seats="balanced")))
    result = runner.invoke(app, ["league", "run", str(config), "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    return tmp / "runs" / "luck"


def test_azul_standings_prints_the_block_and_json_has_the_key(real_run):
    result = runner.invoke(app, ["standings", str(real_run)])
    assert result.exit_code == 0, result.output
    out = result.output
    at = out.index("luck and skill (2 players): 5 deals, 10 games")
    assert out.index("win rate") < at  # after the standings
    block = out[at:]
    for word in ("deal ", "seat ", "bot ", "rest ", "points (95%)", "wins (95%)",
                 "upsets: the weaker ahead", "first mover's edge (2 players, 10 games of greedy, random)",
                 "deal: the share of the variance that the deal decides",
                 "bot: the share that who is playing decides (skill).",
                 "upset rate: the share of the deals", "seat - deal ", "seat - deal: the seat's share less"):
        assert word in block, (word, block)
    doc = json.loads(runner.invoke(app, ["standings", str(real_run), "-f", "json"]).output)
    assert doc["what"] == "standings" and {r["bot"] for r in doc["rows"]} == {"random", "greedy"}
    (entry,) = doc["luck"]
    assert entry["num_players"] == 2 and entry["refused"] is None and entry["deals"] == 5
    assert {(s["outcome"], s["component"]) for s in entry["shares"]} == {
        (o, c) for o in ("points", "wins") for c in ("deal", "seat", "bot", "rest", "seat - deal")}
    assert entry["upsets"][0]["weaker"] == "random" and entry["first_mover"]["games"] == 10
    other = json.loads(runner.invoke(app, ["standings", str(real_run), "-f", "json", "-w", "seats"]).output)
    assert "luck" not in other  # the other tables keep their shape


def test_standings_of_a_league_without_shared_deals_say_so_in_one_line(tmp_path):
    data = synthetic_league([("a", 100.0), ("b", 0.0)], 6, seed=1)
    data["games"] = data["games"].filter(pl.col("arrangement") == 0)
    data["results"] = data["results"].join(data["games"].select("game_id"), on="game_id")
    run = write_league(data, tmp_path / "one")
    out = runner.invoke(app, ["standings", str(run)]).output
    lines = [line for line in out.splitlines() if line.startswith("luck and skill")]
    assert lines == [(f"luck and skill (2 players): {NEEDS}: 6 of 6 deals are not played with every "
                      "bot in every seat equally often")]
    assert "points (95%)" not in out and "upsets:" not in out and "first mover's edge (2 players, 6 games of a, b)" in out


def test_the_report_has_the_section(real_run, tmp_path):
    from analysis.report import build_report

    files = build_report(real_run, tmp_path, bootstrap=0)
    html, md = files["report.html"].read_text(), files["summary.md"].read_text()
    assert "<h2>Luck and skill</h2>" in html and "luck and skill (2 players): 5 deals" in html
    assert "## Luck and skill" in md and "- rest: the share left to the play" in md
