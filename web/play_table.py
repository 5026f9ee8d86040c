"""One table in the browser: a person and the bots, a game or the rules' two-game series, kept on
the server between requests.

The engine calls are ``azul play``'s and ``azul series``': one ``engine.loop.step`` at a time (a
deal, a bot's move, the person's move), deals from ``round_seed(deal_seed, round)`` with a
series' deal seeds and openers as ``tournament.series`` plays them (``series_deal_seed``,
``opener_of``, ``combine``), the teaching preview and the hint of ``present.teach``, the lines of ``present.lines``, and undo as
``azul play`` has it (the person's last move and the bots' replies, never past a deal). A finished
game is written at once into the served ``--play-out`` folder (web/play_records.py); when that
fails, the game stays on the table (``unsaved``, ``save_error``) until a "Save again" writes it.
"""
from __future__ import annotations

import threading
import time

from bots import Bot
from engine import GameState, IllegalMoveError, Move, new_game
from engine.loop import Dealt, step
from present.lines import game_line, result_lines, round_header, scores_line
from tournament.scheduler import round_seed, series_deal_seed
from tournament.series import SeriesGame, SeriesResult, combine, complete_rows, fault_text, opener_of

from .play_records import FinishedGame, new_game_id, review_game, write_game
from .play_setup import Setup

class Table:
    """A table's game (or series) as it stands; every method is called under ``lock``."""

    def __init__(self, setup: Setup, bots: dict[int, Bot], play_out):
        self.setup, self.bots, self.play_out = setup, bots, play_out
        self.names = [setup.name if spec is None else bots[s].name for s, spec in enumerate(setup.specs)]
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.series_id = new_game_id() if setup.series else None
        self.games: list[SeriesGame] = []  # the finished games
        self.saved: list[str] = []  # their game ids in --play-out
        self.unsaved: list[FinishedGame] = []  # finished games whose save failed, kept to save again
        self.save_error: str | None = None  # why the last save failed (None: every finished game saved)
        self.reviews: dict[str, dict] = {}  # the saved games reviewed at the person's asking, by game id
        self.result: SeriesResult | None = None  # the series' result, once both games are over
        self.log: list[str] = []
        self.problem: str | None = None  # why the table cannot go on (a bot failed)
        self.notice: str | None = None  # what the person's last action did, said once on the page
        self.start_game(1)

    # ------------------------------------------------------------ the game
    @property
    def seat(self) -> int:
        return self.setup.seat

    @property
    def game_over(self) -> bool:
        return self.state.is_over

    @property
    def persons_turn(self) -> bool:
        return (self.problem is None and self.state.phase in ("draft", "tiling")
                and self.state.to_move == self.seat)

    @property
    def next_game(self) -> int | None:
        """The series' next game, once the one before it is over; None when there is none."""
        if self.setup.series and self.state.is_over and self.number == 1 and self.problem is None:
            return 2
        return None

    def start_game(self, number: int) -> None:
        """Deal game ``number`` (1, or 2 of a series) and play the bots up to the person's turn."""
        players = self.setup.players
        self.number = number
        self.opener = opener_of(number, players) if self.setup.series else 0
        self.deal_seed = series_deal_seed(self.setup.seed, number) if self.setup.series else self.setup.seed
        self.state = new_game(players=players, variant=self.setup.variant, opener=self.opener)
        self.moves: list[str] = []
        self.think_ms: list[float] = []
        self.history: list[tuple[GameState, int, int]] = []  # undo points: state, moves, log lines
        self.started = time.monotonic()
        for bot in self.bots.values():
            bot.reset()
        if self.setup.series:
            self.say(f"game {number} of 2: seat {self.opener} ({self.names[self.opener]}) opens")
        self.advance()

    def play(self, text: str) -> str | None:
        """The person's move (notation); then the bots' up to the person's next turn. Returns why
        the move was refused (None: played)."""
        if not self.persons_turn:
            return "it is not your turn"
        try:
            move = Move.parse(text)
            self.state.clone().play(move)
        except (IllegalMoveError, ValueError) as exc:
            return str(exc)
        self.history.append((self.state.clone(), len(self.moves), len(self.log)))
        think = (time.monotonic() - self.asked) * 1000.0
        self._step(lambda seat, view: move, think)
        self.advance()
        return None

    def undo(self) -> str:
        """Take back the person's last move and the bots' replies (not past a deal): what was done."""
        if self.state.is_over or self.problem is not None:
            return "nothing to undo: the game is over"
        if not self.history:
            return (f"nothing to undo: you have not moved since the deal of round {self.state.round}, "
                    "and undo does not go back past a deal")
        state, moves, lines = self.history.pop()
        move = self.moves[moves]
        self.state = state
        del self.moves[moves:], self.think_ms[moves:], self.log[lines:]
        self.asked = time.monotonic()
        return f"undone: your move {move} and the replies after it"

    def advance(self) -> None:
        """Deal and play the bots' moves until the person is to move or the game is over."""
        try:
            while not self.state.is_over and not self.persons_turn:
                self._step(self._bot, None)
        except Exception as exc:  # a bot's own failure: the game cannot go on
            self.problem = (f"seat {self.state.to_move} ({self.names[self.state.to_move]}) failed in round "
                            f"{self.state.round}: {fault_text(exc)}; the game stops (nothing is saved)")
            return
        self.asked = time.monotonic()
        if self.state.is_over:
            self._finish()

    def _bot(self, seat: int, view: GameState) -> Move:
        return self.bots[seat].act(view)

    def _step(self, act, think: float | None) -> None:
        state = self.state
        t0 = time.perf_counter()
        event = step(state, act, lambda r: round_seed(self.deal_seed, r), len(self.moves))
        if type(event) is Dealt:
            self.history.clear()  # a deal is agreed: undo never goes back past it
            self.say("no tile left in bag or lid: the game ends" if state.is_over
                     else round_header(state.to_json()))
            return
        played = event.played
        self.moves.append(str(played.move))
        self.think_ms.append(think if think is not None else (time.perf_counter() - t0) * 1000.0)
        self.say(f"seat {played.seat} ({self.names[played.seat]}) plays {played.move}")
        if played.round_over:
            self.say(scores_line(f"scores after round {event.round}", state.to_json()))

    def _finish(self) -> None:
        final = self.state.to_json()
        game = SeriesGame(self.number, self.opener, self.deal_seed, list(self.state.scores),
                          complete_rows(final), list(final["ranks"]), final["round"], list(self.moves), final)
        self.games.append(game)
        record = FinishedGame(self.names, self.setup.variant, self.deal_seed, self.opener, list(self.moves),
                              list(self.think_ms), time.monotonic() - self.started,
                              self.series_id, self.number if self.setup.series else None)
        self.unsaved.append(record)
        self.save()
        if self.setup.series:
            self.say(game_line(game, self.names))
            if self.number == 2:
                self.result = combine(self.games)
                for line in result_lines(self.result, self.names):
                    self.say(line)

    def save(self) -> str:
        """Write the finished games not saved yet, in the order played (web/play_records.py): what
        was done, in words. A failure of any kind (the folder, the store, the records' writer) is
        kept as ``save_error`` with the games, which the page's "Save again" writes later; it never
        reaches the server as an exception."""
        if not self.unsaved:
            return "nothing to save: every finished game of this table is saved"
        before = len(self.saved)
        while self.unsaved:
            try:
                self.saved.append(write_game(self.play_out, self.unsaved[0]))
            except Exception as exc:  # noqa: BLE001 - said on the page, the game kept
                text = str(exc) if isinstance(exc, ValueError) and str(exc) else fault_text(exc)
                self.save_error = (f"the game is over but was not saved: {text}; the table keeps it: "
                                   "save again")
                return f"not saved: {text}"
            self.unsaved.pop(0)
        self.save_error = None
        now = self.saved[before:]
        return f"saved as game{'s' if len(now) > 1 else ''} {', '.join(now)}"

    def review(self, game_id: str) -> str:
        """Review the saved game ``game_id`` (web/play_records.py, ``review_game``) and keep what it
        says of each seat: what was done, in words. A failure is said, never raised."""
        if game_id not in self.saved:
            return f"not reviewed: this table saved no game {game_id!r}"
        try:
            self.reviews[game_id] = review_game(self.play_out, game_id, self.setup.players)
        except Exception as exc:  # noqa: BLE001 - said on the page
            text = str(exc) if isinstance(exc, ValueError) and str(exc) else fault_text(exc)
            return f"not reviewed: {text}"
        mine = self.reviews[game_id]["accuracy"][self.seat]
        return f"reviewed game {game_id}: your accuracy {mine['accuracy']}"

    @property
    def series_lines(self) -> list[str]:
        """The series' combined table and verdict, once both games are over."""
        return [] if self.result is None else result_lines(self.result, self.names)

    def say(self, line: str) -> None:
        self.log.append(line)
