"""The compiled core against the pure-Python reference, in lockstep, position by position.

Every game is dealt by the core from a seed and the same factories are forced on the reference;
after every deal and every move the two full positions (azul-position/1) must be equal, and so
must the lists of legal moves. Three move policies reach different corners of the rules: uniform
random play, a floor-happy player (full floors, tiles overflowing to the lid) and a hoarder
that fills big pattern lines (bags that run dry, short deals). Positions that random play reaches
too rarely (the marker kept beside a full floor, an empty deal, games that can no longer end)
are built by hand and played on in lockstep from there.
"""
import random
from collections import Counter

import pytest

from engine import GameState, new_game
from engine import reference as ref

SETUPS = [(p, v) for v in ("colored", "gray") for p in (2, 3, 4)]
GAMES_PER_SETUP = 340  # x 6 setups = 2,040 games


def uniform(state, moves, rng):
    return rng.choice(moves)


def floor_first(state, moves, rng):
    """Send factory tiles to the floor before touching the centre: full floors, overflow to the lid."""
    floor = len(state.to_json()["boards"][state.to_move]["floor"])
    factory_floor = [m for m in moves if m.factory and m.line is None]
    centre = [m for m in moves if m.from_center]
    if floor < 7 and factory_floor and rng.random() < 0.9:
        return rng.choice(factory_floor)
    if floor == 7 and centre:
        return rng.choice(centre)
    return rng.choice(moves)


def hoarder(state, moves, rng):
    """Prefer big pattern lines over the floor: lines fill slowly and tiles run short."""
    lines = [m for m in moves if m.line and m.line >= 3 and not m.is_tiling]
    return rng.choice(lines if lines and rng.random() < 0.8 else moves)


def centre_first(state, moves, rng):
    centre = [m for m in moves if m.from_center]
    return rng.choice(centre or moves)


POLICIES = (uniform, floor_first, hoarder)


def play_lockstep(players, variant, seed, policy, seen, start=None):
    rng = random.Random(seed)
    core = new_game(players=players, variant=variant) if start is None else GameState.from_json(start)
    oracle = ref.new_position(players, variant) if start is None else core.to_json()
    assert core.to_json() == oracle
    while core.phase != "over":
        if core.phase == "refill":
            core.deal(seed=rng.randrange(2 ** 64))
            dealt = core.to_json()
            oracle = ref.deal(oracle, dealt["factories"])
            seen["empty deal"] += not any(dealt["factories"])
            seen["short deal"] += 0 < sum(map(len, dealt["factories"])) < 4 * len(dealt["factories"])
        else:
            moves = core.legal_moves()
            assert [str(m) for m in moves] == ref.legal_moves(oracle), oracle
            move = policy(core, moves, rng)
            before = core.to_json()
            core.play(move)
            oracle = ref.play(oracle, str(move))
            after = core.to_json()
            seen["tiling move"] += move.is_tiling
            seen["marker beside the board"] += (
                after["phase"] == "draft" and after["marker"] != "center" and before["marker"] == "center"
                and "1" not in after["boards"][after["marker"]]["floor"])
        assert core.to_json() == oracle
    final = core.to_json()
    if not any("." not in row for b in final["boards"] for row in b["wall"]):
        seen["ended without a complete row"] += 1
    return final


@pytest.mark.parametrize("players,variant", SETUPS)
def test_core_and_reference_agree(players, variant):
    seen = Counter()
    rounds = []
    for game in range(GAMES_PER_SETUP):
        policy = POLICIES[game % len(POLICIES)]
        final = play_lockstep(players, variant, seed=1000 * players + game, policy=policy, seen=seen)
        rounds.append(final["round"])
    # The corners the policies are there to reach were reached (the rarest ones start from the
    # built positions below).
    if variant == "gray":
        assert seen["tiling move"] > 0
    if players == 4:
        assert seen["short deal"] > 0


# Positions found by random play where no wall row can ever be completed any more: black is
# frozen in pattern lines (coloured), or no free square can take a row's missing colour (gray).
STUCK = [
    {"format": "azul-position/1", "variant": "colored", "players": 4, "round": 81, "phase": "draft",
     "to_move": 1, "opener": 1,
     "factories": ["YYYW", "BYRW", "BBRW", "BRWW", "BYYR", "RRRW", "YRWW", "BBY", ""], "center": "",
     "marker": "center", "bag": dict.fromkeys("BYRKW", 0), "lid": dict.fromkeys("BYRKW", 0),
     "boards": [
         {"score": 0, "lines": ["", "K", "", "", "KKKK"], "wall": ["BYR.W", ".B...", ".WBYR", "R.WBY", "....."], "floor": ""},
         {"score": 0, "lines": ["", "", "", "KKK", "KK"], "wall": ["BYR.W", "WBYR.", ".WBYR", ".....", "....."], "floor": ""},
         {"score": 0, "lines": ["", "", "KK", "KK", "KKKK"], "wall": ["BYR.W", "WBYR.", ".....", ".....", "....."], "floor": ""},
         {"score": 0, "lines": ["", "", "KK", "", ""], "wall": ["BYR.W", "WBYR.", ".....", "R.WBY", "YR.WB"], "floor": ""}]},
    {"format": "azul-position/1", "variant": "gray", "players": 2, "round": 81, "phase": "draft",
     "to_move": 0, "opener": 0, "factories": ["BBWW", "BRKW", "BRKW", "YRKK", "BBKK"], "center": "",
     "marker": "center", "bag": {"B": 4, "Y": 4, "R": 2, "K": 3, "W": 2},
     "lid": {"B": 3, "Y": 6, "R": 1, "K": 2, "W": 5},
     "boards": [
         {"score": 0, "lines": ["", "K", "", "", "RRRR"], "wall": [".KRYW", "BRW.Y", "K.YWR", "WBKR.", "YWBK."], "floor": ""},
         {"score": 0, "lines": ["", "", "R", "K", "RR"], "wall": [".RBYW", "Y.WRK", "KBY..", "BY.WR", "W.KBY"], "floor": ""}]},
]


def balanced(pos):
    """Put every tile the position does not place into the bag, so each colour totals 20."""
    used = Counter("".join(pos["factories"]) + pos["center"])
    for b in pos["boards"]:
        used.update("".join(b["lines"]) + "".join(b["wall"]).replace(".", "") + b["floor"].replace("1", ""))
    pos["bag"] = {c: 20 - used[c] - pos["lid"][c] for c in "BYRKW"}
    return pos


def board(lines=("", "", "", "", ""), wall=(".....",) * 5, floor="", score=0):
    return {"score": score, "lines": list(lines), "wall": list(wall), "floor": floor}


def start(players, variant="colored", phase="draft", factories=None, center="", marker="center",
          boards=None, lid=None, round_=2, to_move=0):
    return balanced({
        "format": "azul-position/1", "variant": variant, "players": players, "round": round_,
        "phase": phase, "to_move": to_move, "opener": to_move,
        "factories": factories or [""] * (2 * players + 1), "center": center, "marker": marker,
        "bag": {}, "lid": lid or dict.fromkeys("BYRKW", 0),
        "boards": boards or [board() for _ in range(players)]})


NO_BLUE = [".YRKW", "W.YRK", "KW.YR", "RKW.Y", "YRKW."]   # every row lacks blue (coloured wall)
BUILT = {
    # seat 0's floor is full and nobody has taken from the centre: the marker stays beside the board
    "marker-beside-full-floor": start(2, factories=["BBRY", "KKWW", "", "", ""], center="RRYK",
                                      boards=[board(floor="BBYYRRK"), board()]),
    "marker-beside-full-floor-gray": start(3, "gray", factories=["BBRY", "", "", "KKWW", "", "", ""],
                                           center="RRYK", boards=[board(floor="WWYYRRK"), board(), board()]),
    # bag and lid are empty: the deal finds no tile and the game ends at once
    "empty-deal": start(4, phase="refill", marker=0, round_=6, boards=[
        board(["", "B", "BB", "BBB", "BBBB"], NO_BLUE), board(["", "B", "BB", "BBB", "BBBB"], NO_BLUE),
        board(wall=NO_BLUE), board(wall=NO_BLUE)]),
    # short deal: the bag holds 6 tiles and the lid none
    "short-deal": start(4, phase="refill", marker=1, to_move=1, round_=5, boards=[
        board(["", "B", "BB", "BBB", "BBBB"], NO_BLUE), board(["", "B", "BB", "BBB", ""], NO_BLUE),
        board(wall=["..RKW"] + NO_BLUE[1:4] + ["YRK.."]), board(wall=NO_BLUE)]),
    "stuck-colored-4p": STUCK[0],
    "stuck-gray-2p": STUCK[1],
}


@pytest.mark.parametrize("name", BUILT)
def test_built_corners_agree(name):
    """Lockstep play from positions that random play reaches too rarely."""
    pos = BUILT[name]
    GameState.from_json(pos)  # the built position is valid
    finals = Counter()
    policy = centre_first if name.startswith("marker-beside") else uniform
    for seed in range(20):
        seen = Counter()
        final = play_lockstep(pos["players"], pos["variant"], seed, policy, seen, start=pos)
        finals[final["round"]] += 1
        if name.startswith("marker-beside"):
            assert seen["marker beside the board"] == 1
        if name.startswith("stuck"):
            assert final["round"] == pos["round"] and seen["ended without a complete row"] == 1
        if name == "empty-deal":
            assert final["round"] == pos["round"] and seen["empty deal"] == 1
        if name == "short-deal":
            assert seen["short deal"] >= 1


def test_states_read_back_from_json_play_on_identically():
    """A position written and read back mid-game carries everything that matters."""
    rng = random.Random(5)
    for game in range(60):
        players, variant = SETUPS[game % len(SETUPS)]
        kept = new_game(players, variant, seed=game)
        reread = kept.clone()
        while kept.phase != "over":
            if rng.random() < 0.3:
                reread = GameState.from_json(reread.to_json())
            if kept.phase == "refill":
                seed = rng.randrange(1 << 30)
                kept.deal(seed=seed)
                reread.deal(seed=seed)
            else:
                move = rng.choice(kept.legal_moves())
                kept.play(move)
                reread.play(move)
            assert reread.to_json() == kept.to_json()
