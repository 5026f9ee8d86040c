"""One league game as a referee plays it: the records it writes, and bots that forfeit."""
from __future__ import annotations

from collections import defaultdict

import pytest

from engine import COLOURS, new_game
from test_league_support import bot, league
from tournament.config import parse_config
from engine.rules import end_bonus, placement_points
from records.columns import SCHEMAS
from tournament.backends import play_batch
from tournament.scheduler import round_seed, schedule

FLOOR_COSTS = {0, 1, 2, 4, 6, 8, 11, 14}


def play(config_data: dict, limit: int | None = None):
    config = parse_config(config_data)
    specs = list(schedule(len(config.bots), config.players, config.deals, config.seats, config.seed))
    tables = play_batch(config, specs[:limit], config.name)
    return config, {name: t.to_pylist() for name, t in tables.items()}


def test_tables_have_the_spec_columns(tmp_path):
    _, t = play(league(tmp_path, ["random", "greedy"], deals=1))
    spec = {
        "games": "run_id game_id deal_seed variant num_players rounds plies termination error duration_s "
                 "engine_version",
        "results": "run_id game_id seat bot score rank is_winner complete_rows complete_columns complete_colors "
                   "bonus_points floor_penalty_total",
        "moves": "run_id game_id ply round seat bot move source factory color taken line to_floor took_marker "
                 "legal_moves think_ms",
        "rounds": "run_id game_id round seat opener factories wall_points floor_penalty score_after",
    }
    for name, columns in spec.items():
        names = SCHEMAS[name].names
        assert names[:len(columns.split())] == columns.split(), name
        assert set(t[name][0]) == set(names)


@pytest.mark.parametrize("players, variant", [(2, "colored"), (3, "gray"), (4, "colored"), (4, "gray")])
def test_records_match_the_engine_move_by_move(tmp_path, players, variant):
    """Replay every game with the engine, checking each recorded field against the position."""
    names = ["random", "greedy", "heuristic", {"name": "random-2", "type": "random"}][:players]
    _, t = play(league(tmp_path, names, players=players, variant=variant, deals=2 if players == 4 else 3))
    moves = defaultdict(list)
    for m in t["moves"]:
        moves[m["game_id"]].append(m)
    rounds = defaultdict(dict)
    for r in t["rounds"]:
        rounds[r["game_id"]][r["round"], r["seat"]] = r
    results = {(r["game_id"], r["seat"]): r for r in t["results"]}
    for g in t["games"]:
        gid = g["game_id"]
        assert g["termination"] == "normal" and g["error"] is None and g["num_players"] == players
        state = new_game(players=players, variant=variant)
        plies = sorted(moves[gid], key=lambda m: m["ply"])
        assert [m["ply"] for m in plies] == list(range(1, g["plies"] + 1))
        i = 0
        penalties = [0] * players
        for rnd in range(1, g["rounds"] + 1):
            before = state.to_json()
            cells_before = [_cells(b) for b in before["boards"]]
            state.deal(seed=round_seed(g["deal_seed"], rnd))
            dealt = state.to_json()
            row0 = rounds[gid][rnd, 0]
            assert row0["factories"] == " ".join(dealt["factories"])
            assert row0["opener"] == dealt["opener"] == dealt["to_move"]
            while i < len(plies) and plies[i]["round"] == rnd:
                m, pos = plies[i], state.to_json()
                assert m["seat"] == pos["to_move"] and m["legal_moves"] == len(state.legal_moves())
                assert m["think_ms"] >= 0
                if "@" in m["move"]:
                    line = int(m["move"][0])
                    assert m["source"] is None and m["line"] == line and m["column"] == int(m["move"][2])
                    assert m["color"] == pos["boards"][m["seat"]]["lines"][line - 1][0]
                else:
                    src = pos["center"] if m["move"][0] == "C" else pos["factories"][int(m["move"][0]) - 1]
                    assert m["source"] == ("center" if m["move"][0] == "C" else "factory")
                    assert m["color"] == m["move"][1]
                    assert m["taken"] == src.count(m["move"][1])
                    assert m["took_marker"] == (m["move"][0] == "C" and pos["marker"] == "center")
                    floor_before = len(pos["boards"][m["seat"]]["floor"])
                    state_copy = state.clone()
                    state_copy.play(m["move"])
                    if state_copy.phase in ("draft", "tiling"):  # the floor is still visible
                        floor_after = len(state_copy.to_json()["boards"][m["seat"]]["floor"])
                        assert floor_after == min(7, floor_before + m["to_floor"] + m["took_marker"])
                    if m["move"][2] == "F":
                        assert m["line"] is None and m["to_floor"] == m["taken"]
                state.play(m["move"])
                i += 1
            after = state.to_json()
            for s in range(players):
                r = rounds[gid][rnd, s]
                cells = _cells(after["boards"][s])
                assert r["wall_points"] == wall_points(cells_before[s], cells)
                assert r["score_after"] == after["boards"][s]["score"]
                previous = rounds[gid][rnd - 1, s]["score_after"] if rnd > 1 else 0
                bonus = end_bonus(after["boards"][s]["wall"]) if state.is_over else 0
                assert r["score_after"] == previous + r["wall_points"] - r["floor_penalty"] + bonus
                if r["score_after"] - bonus > 0:  # not cut off at 0: the floor's full cost
                    assert r["floor_penalty"] in FLOOR_COSTS
                penalties[s] += r["floor_penalty"]
        assert i == len(plies) and state.is_over
        final = state.to_json()
        for s in range(players):
            r = results[gid, s]
            assert r["score"] == final["boards"][s]["score"] and r["rank"] == final["ranks"][s]
            assert r["is_winner"] == (r["rank"] == 1)
            assert r["floor_penalty_total"] == penalties[s]
            assert r["bonus_points"] == end_bonus(final["boards"][s]["wall"])
            assert r["bonus_points"] == 2 * r["complete_rows"] + 7 * r["complete_columns"] + 10 * r["complete_colors"]


def wall_points(before: list[int], after: list[int]) -> int:
    """Points scored by the tiles placed between two walls, top row first (the order of tiling)."""
    cells, total = list(before), 0
    for i in range(25):
        if after[i] != cells[i]:
            cells[i] = after[i]
            total += placement_points([x != 255 for x in cells], *divmod(i, 5))
    return total


def _cells(board: dict) -> list[int]:
    return [255 if ch == "." else COLOURS.index(ch) for row in board["wall"] for ch in row]


def test_games_are_reproducible_and_bots_seeded_per_game(tmp_path):
    data = league(tmp_path, ["random", "greedy"], deals=2)
    _, a = play(data)
    _, b = play(data)
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("think_ms", "duration_s")} for r in rows]  # noqa: E731
    for name in ("games", "results", "moves", "rounds"):
        assert strip(a[name]) == strip(b[name])
    # rotated seats play the same first deal
    first = [r for r in a["rounds"] if r["round"] == 1 and r["seat"] == 0]
    assert first[0]["factories"] == first[1]["factories"]


FAULTS = [
    ("RaisingBot", {"after": 3}, "error", "RuntimeError: boom"),
    ("IllegalBot", {"after": 2}, "illegal", "illegal move"),
    ("GarbageBot", {"after": 1}, "illegal", "returned 42, not a move"),
    ("ForfeitBot", {"after": 2, "kind": "timeout"}, "timeout", "the program went quiet"),
    ("ForfeitBot", {"after": 2, "kind": "illegal"}, "illegal", "the program went quiet"),
    ("ForfeitBot", {"after": 2, "kind": "odd"}, "error", "Forfeit: the program went quiet"),
]


@pytest.mark.parametrize("cls, params, termination, words", FAULTS)
def test_a_faulty_bot_forfeits_and_ranks_last(tmp_path, cls, params, termination, words):
    _, t = play(league(tmp_path, [bot("bad", cls, **params), "greedy"], deals=1))
    assert len(t["games"]) == 2
    for g in t["games"]:
        assert g["termination"] == termination, g["error"]
        assert g["error"].startswith(f"seat {g['fault_seat']} (bad): ") and words in g["error"]
        seats = [r for r in t["results"] if r["game_id"] == g["game_id"]]
        bad = [r for r in seats if r["bot"] == "bad"][0]
        good = [r for r in seats if r["bot"] != "bad"][0]
        assert bad["seat"] == g["fault_seat"] and bad["rank"] == 2 and not bad["is_winner"]
        assert good["rank"] == 1 and good["is_winner"]
        plies = [m for m in t["moves"] if m["game_id"] == g["game_id"]]
        assert len(plies) == g["plies"]
        assert all(m["bot"] == "greedy" or m["seat"] == bad["seat"] for m in plies)


def test_time_limit_interrupts_a_slow_bot(tmp_path):
    data = league(tmp_path, [bot("slow", "SlowBot", seconds=5.0), bot("spin", "SpinBot"), "random"],
                  players=3, deals=1, time_limit=0.2)
    _, t = play(data, limit=1)
    g = t["games"][0]
    assert g["termination"] == "timeout" and "time limit of 0.2 s" in g["error"]
    assert g["duration_s"] < 3  # interrupted, not waited out
    assert [r["rank"] for r in t["results"] if r["seat"] == g["fault_seat"]] == [3]


def test_a_bot_time_limit_overrides_the_league_one(tmp_path):
    slow = {**bot("slow", "SlowBot", seconds=0.05), "time_limit": 5}
    _, t = play(league(tmp_path, [slow, "random"], deals=1, time_limit=0.01), limit=1)
    assert t["games"][0]["termination"] == "normal"
    _, t = play(league(tmp_path, [{**slow, "time_limit": 0.01}, "random"], deals=1), limit=1)
    assert t["games"][0]["termination"] == "timeout"


def test_three_players_fault_ranks_the_others_by_score(tmp_path):
    _, t = play(league(tmp_path, [bot("bad", "RaisingBot", after=12), "greedy", "heuristic"],
                       players=3, deals=1), limit=1)
    g = t["games"][0]
    ranks = {r["bot"]: r["rank"] for r in t["results"]}
    assert g["termination"] == "error" and ranks["bad"] == 3 and sorted(ranks.values())[:2] in ([1, 2], [1, 1])
