"""External bots: the azul-bot/1 protocol against examples/random_bot.py and examples/broken_bots.py."""
import os
import random
import sys
import time
from pathlib import Path

import pytest

from bots import make_bot
from bots.external import BotForfeit, ExternalBot
from engine import new_game

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RANDOM_BOT = [sys.executable, str(EXAMPLES / "random_bot.py")]


def broken(mode, *args, **params):
    params.setdefault("move_time", 0.5)
    params.setdefault("startup_time", 0.5)
    return make_bot("external", command=[sys.executable, str(EXAMPLES / "broken_bots.py"), mode,
                                         *args], **params)


def play_game(seats, deal_seed):
    """One 2-player game through the engine API; returns the final state and the moves."""
    rng = random.Random(deal_seed)
    state = new_game(players=2)
    played = []
    while not state.is_over:
        if state.phase == "refill":
            state.deal(seed=rng.randrange(2**32))
            continue
        seat = state.to_move
        before = state.to_json()
        move = seats[seat].act(state)
        assert state.to_json() == before  # act never changes the state it is shown
        assert move in state.legal_moves()
        state.play(move)
        played.append((seat, str(move)))
    return state, played


def assert_gone(process):
    """The process has exited and been reaped: no zombie is left behind."""
    assert process.poll() is not None
    if os.name == "posix":
        with pytest.raises(ProcessLookupError):
            os.kill(process.pid, 0)


# ---------------------------------------------------------------- the example bot
def test_a_full_game_against_the_random_bot():
    with make_bot("external", seed=3, command=RANDOM_BOT) as external:
        assert isinstance(external, ExternalBot)
        state, played = play_game([external, make_bot("random", seed=1)], deal_seed=5)
        assert state.is_over and state.legal_moves() == []
        assert any(seat == 0 for seat, _ in played)
        assert external.hello == {"name": "example-random", "version": "1.0"}
        assert external.name == "example-random"
        assert set(external.last_info) == {"choices"} and external.last_info["choices"] >= 1
        process = external.process
        assert process.poll() is None  # still running, ready for the next game
    assert external.process is None
    assert_gone(process)


def test_the_seed_and_reset_make_games_reproducible():
    def game(seed):
        with make_bot("external", seed=seed, command=RANDOM_BOT) as one, \
                make_bot("external", seed=seed + 1, command=RANDOM_BOT) as two:
            first = play_game([one, two], deal_seed=9)[1]
            process = one.process
            one.reset()
            two.reset()
            assert one.process is process  # reset keeps the program running
            again = play_game([one, two], deal_seed=10)[1]
            return first, again

    assert game(4) == game(4)
    assert game(4)[0] != game(6)[0]


def test_name_before_the_handshake_and_an_explicit_name():
    bot = make_bot("external", command=RANDOM_BOT)
    assert bot.name == "external(random_bot.py)" and bot.process is None  # started lazily
    assert make_bot("external", command=RANDOM_BOT, name="mine").name == "mine"


def test_close_is_idempotent_and_a_closed_bot_restarts():
    bot = make_bot("external", command=RANDOM_BOT)
    state = new_game(players=2, seed=1)
    bot.act(state)
    first = bot.process
    bot.close()
    bot.close()
    assert_gone(first)
    assert bot.act(state) in state.legal_moves()
    assert bot.process is not first
    bot.close()


def test_a_chatty_stderr_cannot_block_the_bot():
    with broken("chatty", move_time=5.0) as bot:
        state = new_game(players=2, seed=1)
        assert bot.act(state) == state.legal_moves()[0]
        assert bot.act(state) == state.legal_moves()[0]


# ---------------------------------------------------------------- broken bots
@pytest.mark.parametrize("mode,args,kind,message", [
    ("crash", [], "error", "exited with code 3: the bot crashed on purpose"),
    ("hang", [], "timeout", "timed out after 0.5 s"),
    ("stubborn", [], "timeout", "timed out after 0.5 s"),
    ("garbage", [], "error", "sent garbage: 'xyz'"),
    ("illegal", [], "illegal", "illegal move 1B9: not a move (a draft is "),
    ("illegal", ["6B1"], "illegal", "illegal move 6B1: factory 6 does not exist: a 2-player game has 5"),
    ("illegal", ["1K1"], "illegal", "illegal move 1K1: factory 1 has no black"),
    ("flood", [], "error", "sent a line longer than 1000000 characters"),
    ("nested", [], "error", "sent garbage: '[[[["),
])
def test_a_broken_bot_forfeits_and_is_killed(mode, args, kind, message):
    bot = broken(mode, *args)
    bot.start()
    assert bot.hello == {"name": f"broken-{mode}", "version": "0"}
    process = bot.process
    state = new_game(players=2, seed=7)  # factory 1 is BYRW: no black
    before = state.to_json()
    started = time.monotonic()
    with pytest.raises(BotForfeit) as caught:
        bot.act(state)
    assert time.monotonic() - started < 3.0
    assert caught.value.kind == kind
    assert str(caught.value).startswith(message), str(caught.value)
    assert caught.value.reason == str(caught.value)
    assert state.to_json() == before
    assert bot.process is None
    assert_gone(process)


def test_a_bot_that_does_not_answer_hello():
    bot = broken("silent-hello")
    with pytest.raises(BotForfeit) as caught:
        bot.act(new_game(players=2, seed=1))
    assert caught.value.kind == "timeout"
    assert str(caught.value) == "did not answer hello within 0.5 s"
    assert bot.process is None and bot.hello is None


def test_a_line_too_deep_to_read_at_hello_is_a_forfeit_and_the_program_is_killed(tmp_path):
    bot = broken("nested-hello", startup_time=5.0)
    with pytest.raises(BotForfeit) as caught:
        bot.reset()
    assert caught.value.kind == "error" and str(caught.value).startswith("sent garbage: '[[[[")
    assert bot.process is None and bot.hello is None


def test_after_a_protocol_forfeit_the_next_game_starts_with_a_hello(tmp_path, monkeypatch):
    bot = broken("nested", move_time=5.0)
    bot.reset()
    first = bot.process
    with pytest.raises(BotForfeit, match="sent garbage"):
        bot.act(new_game(players=2, seed=1))
    assert_gone(first)
    bot.command[-1] = "log"  # the next program logs what it is told
    bot.command.append(str(tmp_path / "log.txt"))
    bot.reset()
    assert bot.process is not None and bot.hello["name"] == "broken-log"
    assert (tmp_path / "log.txt").read_text().splitlines() == [f"hello {bot.seed}"]
    bot.close()


def test_stdout_read_ahead_is_bounded():
    from bots.external import LINE_CHARS, QUEUED_LINES
    assert QUEUED_LINES * LINE_CHARS <= 20_000_000  # the most a bot can make the referee hold
    with broken("spam", "100", move_time=10.0) as bot:
        bot.start()
        time.sleep(1.0)  # the bot has written all it can
        assert bot._lines.qsize() <= QUEUED_LINES
        state = new_game(players=2, seed=1)
        assert bot.act(state) == state.legal_moves()[0]  # the info lines are read and skipped


def test_a_forfeit_ends_one_game_and_the_next_starts_a_fresh_process():
    bot = broken("crash")
    state = new_game(players=2, seed=1)
    for _ in range(2):
        with pytest.raises(BotForfeit, match="exited with code 3"):
            bot.act(state)
        assert bot.process is None


def test_a_program_that_cannot_start():
    bot = make_bot("external", command=[str(EXAMPLES / "no-such-bot")])
    with pytest.raises(BotForfeit) as caught:
        bot.act(new_game(players=2, seed=1))
    assert caught.value.kind == "error" and "could not start" in str(caught.value)


def test_no_legal_move_is_a_plain_error():
    bot = make_bot("external", command=RANDOM_BOT)
    with pytest.raises(ValueError, match="no legal move"):
        bot.act(new_game(players=2))
    assert bot.process is None  # nothing was started for it


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("params", [{}, {"command": []}, {"command": None}])
def test_command_is_required(params):
    with pytest.raises(ValueError, match="command"):
        make_bot("external", **params)


@pytest.mark.parametrize("params,name", [
    ({"command": "python3 'bot.py"}, "command"),
    ({"command": [sys.executable, 3]}, "command"),
    ({"command": [""]}, "command"),
    ({"command": RANDOM_BOT, "move_time": 0}, "move_time"),
    ({"command": RANDOM_BOT, "move_time": -1.5}, "move_time"),
    ({"command": RANDOM_BOT, "startup_time": "soon"}, "startup_time"),
    ({"command": RANDOM_BOT, "moves": 3}, "moves"),
])
def test_bad_parameters_are_refused_by_name(params, name):
    with pytest.raises(ValueError, match=name):
        make_bot("external", **params)


def test_a_forgotten_bot_is_cleaned_up():
    import gc
    bot = make_bot("external", command=RANDOM_BOT)
    bot.start()
    process = bot.process
    del bot
    gc.collect()
    assert_gone(process)


def test_a_pickled_bot_starts_its_own_process():
    import pickle
    with make_bot("external", seed=2, command=RANDOM_BOT, move_time=2.0) as bot:
        state = new_game(players=2, seed=1)
        bot.act(state)
        with pickle.loads(pickle.dumps(bot)) as copy:
            assert copy.process is None and copy.command == RANDOM_BOT and copy.move_time == 2.0
            assert copy.act(state) in state.legal_moves()
            assert copy.process.pid != bot.process.pid
