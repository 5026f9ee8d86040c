"""The two-game series (rules text 000): openers, the tie-breaks, real bot series, ``azul series``."""
from __future__ import annotations

import re
import sys

import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots import make_bot
from engine import Move, new_game
from tournament.scheduler import derive_seed, round_seed, series_deal_seed
from tournament.series import (
    SeriesError,
    SeriesGame,
    combine,
    complete_rows,
    opener_of,
    play_series,
    series_ranks,
)

runner = CliRunner()


def crafted(number: int, scores: list[int], rows: list[int]) -> SeriesGame:
    return SeriesGame(number, opener_of(number, len(scores)), 0, scores, rows, [1] * len(scores), 5)


# ---------------------------------------------------------------- openers
def test_new_game_with_another_opener_keeps_the_deal():
    first, second = new_game(players=3, seed=11), new_game(players=3, seed=11, opener=1)
    assert (first.to_move, second.to_move) == (0, 1)
    assert second.to_json()["opener"] == 1 and second.to_json()["marker"] == "center"
    assert second.to_json()["factories"] == first.to_json()["factories"]
    waiting = new_game(players=4, opener=3)
    assert waiting.phase == "refill" and waiting.to_move == 3
    for bad in (2, -1, True, "1"):
        with pytest.raises(ValueError, match="opener must be a seat from 0 to 1"):
            new_game(players=2, opener=bad)


def test_game_two_opens_with_the_next_seat_clockwise():
    assert [opener_of(g, 2) for g in (1, 2)] == [0, 1]
    assert [opener_of(g, 4) for g in (1, 2)] == [0, 1]
    assert opener_of(2, 3, first_opener=2) == 0  # clockwise wraps round the table


# ---------------------------------------------------------------- who wins a series
def test_combined_score_decides_first():
    result = combine([crafted(1, [50, 40], [2, 0]), crafted(2, [20, 31], [0, 1])])
    assert result.totals == [70, 71] and result.complete_rows == [2, 1]
    assert result.ranks == [2, 1] and result.decided_by == "combined score" and result.winners == [1]


def test_complete_rows_break_a_combined_tie():
    # seat 0 won game one, seat 1 game two; equal totals, seat 1 has more rows over both games
    result = combine([crafted(1, [50, 40], [1, 0]), crafted(2, [30, 40], [0, 2])])
    assert result.totals == [80, 80] and result.complete_rows == [1, 2]
    assert result.ranks == [2, 1] and result.decided_by == "complete rows"


def test_a_full_tie_is_shared():
    result = combine([crafted(1, [50, 40, 10], [1, 0, 0]), crafted(2, [30, 40, 70], [0, 1, 1])])
    assert result.totals == [80, 80, 80] and result.complete_rows == [1, 1, 1]
    assert result.ranks == [1, 1, 1] and result.decided_by == "shared" and result.winners == [0, 1, 2]


def test_ranks_below_first_follow_the_same_tie_breaks():
    ranks, decided = series_ranks([90, 60, 60, 60], [3, 2, 1, 2])
    assert ranks == [1, 2, 4, 2] and decided == "combined score"
    ranks, decided = series_ranks([60, 60, 60], [2, 2, 1])
    assert ranks == [1, 1, 3] and decided == "shared"
    with pytest.raises(ValueError, match="one combined score and one row count per seat"):
        series_ranks([1, 2], [1])


def test_complete_rows_counts_full_wall_rows():
    pos = new_game(players=2).to_json()
    pos["boards"][1]["wall"] = ["BYRKW", "WBYR.", ".....", ".....", "....."]
    assert complete_rows(pos) == [0, 1]


# ---------------------------------------------------------------- a real series
def bots(kinds=("greedy", "random")):
    return lambda seat: make_bot(kinds[seat], seed=seat)


def test_a_bot_series_plays_two_whole_games():
    events = []
    result = play_series(2, "colored", 7, bots(),
                         on_game_start=lambda g, opener: events.append(("start", g, opener)),
                         on_move=lambda g, seat, move, state: events.append(("move", g, seat)),
                         on_game_end=lambda game: events.append(("end", game.number)))
    one, two = result.games
    assert (one.number, one.opener, two.number, two.opener) == (1, 0, 2, 1)
    firsts = [next(e for e in events if e[0] == "move" and e[1] == g) for g in (1, 2)]
    assert firsts == [("move", 1, 0), ("move", 2, 1)]  # game two's first move is seat 1's
    order = [e for e in events if e[0] != "move"]
    assert order == [("start", 1, 0), ("end", 1), ("start", 2, 1), ("end", 2)]  # game one shown first
    for game in result.games:
        assert game.final["phase"] == "over" and game.scores == [b["score"] for b in game.final["boards"]]
        assert game.complete_rows == complete_rows(game.final) and max(game.complete_rows) >= 1
        assert len(game.moves) == sum(1 for e in events if e[0] == "move" and e[1] == game.number)
    assert result.totals == [one.scores[s] + two.scores[s] for s in (0, 1)]
    assert result.complete_rows == [one.complete_rows[s] + two.complete_rows[s] for s in (0, 1)]
    assert result.ranks == series_ranks(result.totals, result.complete_rows)[0]


def test_the_deals_come_from_the_series_seed_and_the_game_number():
    seen = {}
    play_series(2, "colored", 21, bots(),
                on_deal=lambda g, state: seen.setdefault((g, state.round), state.to_json()["factories"]))
    for g in (1, 2):
        expected = new_game(players=2, seed=round_seed(series_deal_seed(21, g), 1)).to_json()["factories"]
        assert seen[(g, 1)] == expected
    assert series_deal_seed(21, 1) == 21 and series_deal_seed(21, 2) == derive_seed(21, "series", 2)
    assert seen[(1, 1)] != seen[(2, 1)]


def test_a_series_is_determined_by_its_seed():
    a = play_series(2, "gray", 3, bots(("greedy", "greedy")))
    b = play_series(2, "gray", 3, bots(("greedy", "greedy")))
    c = play_series(2, "gray", 4, bots(("greedy", "greedy")))
    assert [g.moves for g in a.games] == [g.moves for g in b.games]
    assert a.totals == b.totals and a.ranks == b.ranks
    assert [g.moves for g in a.games] != [g.moves for g in c.games]
    assert any("@" in m for m in a.games[0].moves)  # the gray wall's tiling moves are asked for


def test_three_players_and_a_reset_before_each_game():
    resets = []

    class Counting:
        def __init__(self, seat):
            self.bot, self.seat = make_bot("random", seed=seat), seat

        def reset(self):
            resets.append(self.seat)

        def act(self, state):
            return str(self.bot.act(state))  # a move as text is accepted too

    result = play_series(3, "colored", 5, Counting)
    assert resets == [0, 1, 2, 0, 1, 2]
    assert [g.opener for g in result.games] == [0, 1] and len(result.totals) == 3


def test_an_illegal_move_names_the_game_and_seat():
    class Stubborn:
        def act(self, state):
            return Move.parse("1B1") if state.round > 1 or state.to_move else state.legal_moves()[0]

    with pytest.raises(SeriesError, match=r"game 1, seat 1: illegal move"):
        play_series(2, "colored", 7, lambda seat: Stubborn())


@pytest.mark.parametrize("players, variant, seed, words", [
    (5, "colored", 1, "players must be 2, 3 or 4"),
    (2, "grey", 1, "variant must be 'colored' or 'gray'"),
    (2, "colored", -1, "seed must be a whole number"),
    (2, "colored", "7", "seed must be a whole number"),
])
def test_bad_arguments(players, variant, seed, words):
    with pytest.raises(SeriesError, match=words):
        play_series(players, variant, seed, bots())


# ---------------------------------------------------------------- azul series
def cli_bots(kinds, seed):
    return lambda seat: make_bot(kinds[seat], seed=derive_seed(seed, "bot", seat) % 2**31)


def test_cli_quiet_prints_totals_and_the_verdict():
    out = runner.invoke(app, ["series", "--bot", "greedy", "--bot", "random", "--seed", "7", "--quiet"])
    assert out.exit_code == 0, out.output
    expected = play_series(2, "colored", 7, cli_bots(("greedy", "random"), 7))
    lines = out.output.splitlines()
    assert lines[:3] == ["series: 2 players, colored wall, seed 7", "  seat 0: greedy", "  seat 1: random"]
    one, two = expected.games
    assert lines[3] == (f"game 1 totals (seat 0 opened, {one.rounds} rounds): seat 0 greedy {one.scores[0]} "
                        f"points, {one.complete_rows[0]} complete row{'' if one.complete_rows[0] == 1 else 's'}; "
                        f"seat 1 random {one.scores[1]} points, {one.complete_rows[1]} complete "
                        f"row{'' if one.complete_rows[1] == 1 else 's'}")
    assert lines[4].startswith(f"game 2 totals (seat 1 opened, {two.rounds} rounds): seat 0 greedy {two.scores[0]} ")
    row0 = re.search(r"seat 0 greedy\s+(\d+) \+\s+(\d+) =\s+(\d+) points, (\d+) complete rows?, rank (\d)",
                     out.output)
    assert row0 and [int(x) for x in row0.groups()] == [one.scores[0], two.scores[0], expected.totals[0],
                                                         expected.complete_rows[0], expected.ranks[0]]
    winner = expected.winners[0]
    assert lines[-1].startswith(f"winner: seat {winner} ") and lines[-1].endswith(expected.decided_by)


def test_cli_prints_each_game_and_game_one_before_game_two():
    out = runner.invoke(app, ["series", "--bot", "random", "--bot", "mcts:iterations=30", "--seed", "2",
                              "--plain"])
    assert out.exit_code == 0, out.output
    text = out.output
    assert "seat 1: mcts(iterations=30)" in text
    start1, end1 = text.index("game 1 of 2: seat 0 (random) opens"), text.index("game 1 totals")
    start2 = text.index("game 2 of 2: seat 1 (mcts(iterations=30)) opens")
    assert start1 < end1 < start2 < text.index("game 2 totals") < text.index("series result")
    game_two = text[start2:]
    first_move = re.search(r"^  seat (\d)  \S+$", game_two, re.MULTILINE)
    assert first_move.group(1) == "1"
    assert "round 1 (seat 1 opens)" in game_two and "scores after round 1" in game_two


def test_cli_a_person_plays_a_seat():
    seed = 9
    first = new_game(players=2, seed=round_seed(series_deal_seed(seed, 1), 1)).legal_moves()[3]
    out = runner.invoke(app, ["series", "--human", "0", "--bot", "greedy", "--seed", str(seed), "--plain"],
                        input=f"{first}\nquit\n")
    assert out.exit_code == 0, out.output
    assert "seat 0: person" in out.output and "seat 1: greedy" in out.output
    assert re.search(rf"  seat 0  {first}\n  seat 1  \S+\n", out.output)  # its move, then the reply
    assert "you left in game 1 round 1: the series stops, no result" in out.output
    assert "series result" not in out.output


@pytest.mark.parametrize("args, words", [
    (["--bot", "greedy"], "2 players need 2 --bot option(s), got 1"),
    (["--players", "3", "--bot", "greedy", "--bot", "random"], "3 players need 3 --bot option(s), got 2"),
    (["--human", "0", "--bot", "greedy", "--bot", "random"], "need 1 --bot option(s) and 1 person(s), got 2"),
    (["--human", "2", "--bot", "greedy"], "--human 2: seats of a 2-player game are 0 to 1"),
    (["--human", "0", "--human", "0"], "--human: a seat is given twice"),
    (["--bot", "greedy", "--bot", "nosuch"], "--bot: bot spec 'nosuch': unknown bot type 'nosuch'"),
    (["--bot", "greedy", "--bot", "mcts:iterationz=5"], "unknown parameter 'iterationz'"),
    (["--bot", "greedy", "--bot", "mcts:iterations"], "'iterations' is not key=value"),
])
def test_cli_errors_are_one_line(args, words):
    out = runner.invoke(app, ["series", *args])
    assert out.exit_code == 1
    errors = [line for line in out.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and words in errors[0], out.output
    assert "Traceback" not in out.output


def test_a_bad_variant_is_refused_like_every_command_refuses_it():
    out = runner.invoke(app, ["series", "--bot", "greedy", "--bot", "random", "--variant", "grey"])
    assert out.exit_code == 2
    assert "Invalid value for '--variant'" in out.output and "Traceback" not in out.output


def test_a_bot_that_forfeits_ends_the_series_with_one_error_line():
    from bots import Bot

    class Forfeiting(Bot):
        def act(self, state):
            exc = RuntimeError("the program went quiet")
            exc.kind = "timeout"
            raise exc

    with pytest.raises(SeriesError, match=r"^game 1, seat 1: the program went quiet$"):
        play_series(2, "colored", 3, lambda seat: make_bot("random", seed=seat) if seat == 0 else Forfeiting())


def test_a_bot_that_raises_at_a_move_or_a_reset_ends_the_series_with_a_series_error():
    from bots import Bot

    class Raising(Bot):
        def act(self, state):
            raise RuntimeError("boom")

    class NoReset(Bot):
        def reset(self):
            raise OSError("no program")

    with pytest.raises(SeriesError, match=r"^game 1, seat 1: RuntimeError: boom$"):
        play_series(2, "colored", 3, lambda seat: make_bot("random", seed=seat) if seat == 0 else Raising())
    with pytest.raises(SeriesError, match=r"^game 1, seat 0: OSError: no program$"):
        play_series(2, "colored", 3, lambda seat: NoReset() if seat == 0 else make_bot("random"))


@pytest.mark.parametrize("spec, words", [
    pytest.param("bots.base:Bot", "error: game 1, seat 1: NotImplementedError", id="raises"),
    pytest.param(f"external:command={sys.executable} -c pass", "error: game 1, seat 1: exited with code 0",
                 id="program-quits"),
])
def test_cli_a_bot_that_forfeits_is_one_error_line(spec, words):
    out = runner.invoke(app, ["series", "--bot", "greedy", "--bot", spec, "--seed", "1", "--quiet"])
    assert out.exit_code == 1, out.output
    errors = [line for line in out.output.splitlines() if line.startswith("error: ")]
    assert errors == [words], out.output
    assert "Traceback" not in out.output and "series result" not in out.output
