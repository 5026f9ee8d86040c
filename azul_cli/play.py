"""``azul play``: a person against 1 to 3 bots in the terminal (see docs/play.md).

Two pieces, both driven only through ``read_line`` (one line of input, ``None`` at the end) and a
rich ``Console``, so tests can run them without a terminal:

- ``HumanPlayer``: lets a person choose one move in a state. It has a bot's interface
  (``act(state) -> Move``) and handles the prompt commands that concern one decision: a move in
  notation, ``moves``, ``hint [N]``, ``help``, ``quit``, the teaching preview and the gray wall's
  column question. ``quit`` and the end of input raise ``LeaveGame``.
- ``PlaySession``: a whole game. Deals come from the seed, bots play their seats, and the
  session-level commands ``undo``, ``save FILE`` and ``load FILE`` work at the person's prompt.
"""
from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.text import Text

from bots import Bot
from engine import GameState, IllegalMoveError, Move, new_game
from engine.loop import Dealt, step
from engine.rules import COLOUR_NAMES, COLOURS
from present.lines import verdict
from present.teach import hint, preview, preview_text
from tournament.series import fault_text

from . import render
from .common import Plain, Variant, console, drawn_seed, fail, read_position, seed_option, spec_bot

ReadLine = Callable[[], str | None]
SESSION_COMMANDS = frozenset({"undo", "save", "load"})
HELP = """commands:
  1B2, CR3, 2YF ...  a draft move in notation: source (factory 1-9 or C), colour (B Y R K W),
                     destination (pattern line 1-5 or F for the floor)
  3@2 or 2           gray wall, tiling phase: the wall column for the line being tiled
  moves              list the legal moves
  hint [N]           a bot's advice: its N best moves (default 3) with visits and values
  undo               take back your last move and the bots' replies (not past a deal)
  save FILE          write the position to FILE (azul-position/1 JSON)
  load FILE          continue from a position file (same number of players)
  help               this list
  quit               leave the game"""


class LeaveGame(BaseException):
    """The person left: ``reason`` is ``"quit"`` or ``"eof"`` (no more input). A BaseException,
    like Ctrl-C: it is no player's failure, so the loops that turn a bot's exception into a
    forfeit (``tournament.series.play_series``) let it pass."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Command:
    """A prompt command that the session handles (undo, save FILE, load FILE)."""

    name: str
    arg: str = ""


# ---------------------------------------------------------------- one decision of a person
class HumanPlayer(Bot):
    """A person at the keyboard, behind the bot interface: ``act(state)`` asks until a legal move.

    ``session_commands`` names the commands the caller handles (``undo``, ``save``, ``load``):
    ``choose`` returns them as a ``Command``; ``act`` refuses them with a message.
    """

    type_name = "human"

    def __init__(self, read_line: ReadLine, console: Console, teach: bool = False,
                 hint_iterations: int = 50000, seed: int = 0, show_position: bool = True,
                 session_commands: frozenset[str] = frozenset()):
        super().__init__(seed)
        self.read_line = read_line
        self.console = console
        self.teach = teach
        self.hint_iterations = hint_iterations
        self.show_position = show_position
        self.session_commands = frozenset(session_commands)

    @property
    def name(self) -> str:
        return "you"

    def act(self, state: GameState) -> Move:
        while True:
            choice = self.choose(state)
            if isinstance(choice, Move):
                return choice
            self.say(f"'{choice.name}' is not available here")

    def choose(self, state: GameState, show_position: bool | None = None) -> Move | Command:
        """Ask until the person gives a legal (and, when teaching, confirmed) move or a session
        command. Raises LeaveGame on ``quit`` or the end of input. The position is drawn first
        unless ``show_position`` (default: the player's setting) is False."""
        if state.phase not in ("draft", "tiling"):
            raise ValueError(f"no move to choose in phase {state.phase}")
        if self.show_position if show_position is None else show_position:
            self.console.print(render.position_view(state.to_json()))
        if state.phase == "tiling":
            self._tiling_question(state)
        while True:
            line = self._ask(self._prompt(state))
            word, _, arg = line.partition(" ")
            word, arg = word.lower(), arg.strip()
            if not word:
                continue
            if word == "quit":
                raise LeaveGame("quit")
            if word == "help":
                self.say(HELP)
            elif word == "moves":
                self._list_moves(state)
            elif word == "hint":
                self._hint(state, arg)
            elif word in SESSION_COMMANDS:
                if word not in self.session_commands:
                    self.say(f"'{word}' is not available here")
                elif word in ("save", "load") and not arg:
                    self.say(f"error: {word} needs a file name: {word} FILE")
                else:
                    return Command(word, arg)
            else:
                move = self._move(state, line.strip())
                if move is not None and (not self.teach or self._confirm(state, move)):
                    return move

    # ------------------------------------------------------------ the pieces
    def say(self, message: str | Text) -> None:
        self.console.print(message, soft_wrap=True, highlight=False, markup=False)

    def _ask(self, prompt: str) -> str:
        self.console.print(prompt, end="", soft_wrap=True, highlight=False, markup=False)
        line = self.read_line()
        if line is None:
            self.console.print()
            raise LeaveGame("eof")
        return line.strip()

    def _prompt(self, state: GameState) -> str:
        where = "tiling" if state.phase == "tiling" else "draft"
        return f"round {state.round} {where}, seat {state.to_move} > "

    def _tiling_question(self, state: GameState) -> None:
        legal = state.legal_moves()
        line = legal[0].line
        colour = state.to_json()["boards"][state.to_move]["lines"][line - 1][0]
        columns = ", ".join(str(m.column) for m in legal)
        self.say(f"Tiling: seat {state.to_move}, the {COLOUR_NAMES[COLOURS.index(colour)]} tile of "
                 f"pattern line {line} goes to wall row {line}. Legal columns: {columns}. "
                 f"Type a column (e.g. {legal[0].column}) or {legal[0]}.")

    def _move(self, state: GameState, text: str) -> Move | None:
        """The move the text names, if legal; otherwise say why and return None."""
        if state.phase == "tiling" and text.isdigit():
            legal = state.legal_moves()
            if not 1 <= int(text) <= 5:
                columns = ", ".join(str(m.column) for m in legal)
                self.say(f"error: column {text}: the legal columns are {columns}")
                return None
            text = f"{legal[0].line}@{text}"
        try:
            move = Move.parse(text)
        except IllegalMoveError:
            self.say(f"error: {text!r} is neither a move nor a command (a move looks like 1B2, CR3, "
                     "2YF or, when tiling the gray wall, 3@2; type help for the commands)")
            return None
        try:
            state.clone().play(move)
        except IllegalMoveError as exc:
            self.say(f"error: {exc}")
            if move not in state.legal_moves():
                self.say("type 'moves' for the legal moves")
            return None
        return move

    def _confirm(self, state: GameState, move: Move) -> bool:
        self.say(preview_text(preview(state, move)))
        while True:
            answer = self._ask("make this move? [y/n] > ").lower()
            if answer in ("y", "yes"):
                return True
            if answer == "quit":
                raise LeaveGame("quit")
            if answer in ("n", "no"):
                self.say("Then choose again.")
                return False
            self.say("answer y (make the move), n (choose another) or quit")

    def _list_moves(self, state: GameState) -> None:
        legal = [str(m) for m in state.legal_moves()]
        self.say(f"{len(legal)} legal moves: " + " ".join(legal))

    def _hint(self, state: GameState, arg: str) -> None:
        if arg and (not arg.isdigit() or int(arg) < 1):
            self.say(f"error: hint N: N is how many moves to show, a whole number from 1, not {arg!r}")
            return
        top = int(arg) if arg else 3
        try:
            rows = hint(state, self.hint_iterations, self.seed, top)
        except ValueError as exc:
            self.say(f"error: no hint: {exc}")
            return
        self.say(f"hint (mcts, {self.hint_iterations} iterations; value = chance of winning "
                 f"for seat {state.to_move}, 0 to 1):")
        for rank, row in enumerate(rows, 1):
            pv = " ".join(row["pv"][1:])
            self.say(f"  {rank}. {row['move']:<4} visits {row['visits']:>6}  value {row['value']:.3f}"
                     + (f"  then {pv}" if pv else ""))


# ---------------------------------------------------------------- a whole game
class _CommandDone(Exception):
    """A session command (undo, save, load) took the person's turn: no move this step."""


class BotFailed(Exception):
    """A bot failed at its move (it raised, an external program forfeited, or the rules refused
    its move): the game cannot go on. The message names the seat, the bot, the round and why."""


class PlaySession:
    """One game: people at ``human_seats``, bots at the others, deals from ``seed``.

    ``state`` continues a given position (``--load``); otherwise a new game of ``players`` and
    ``variant``. ``run()`` plays to the end and returns ``"over"``, ``"quit"`` or ``"eof"``; a bot
    that fails at its move raises ``BotFailed``.
    """

    def __init__(self, bots: list[tuple[int, Bot]], human_seats: list[int] | tuple[int, ...] = (0,),
                 players: int = 2, variant: str = "colored", seed: int = 0, teach: bool = False,
                 read_line: ReadLine | None = None, console: Console | None = None,
                 state: GameState | None = None, hint_iterations: int = 50000):
        self.state = state.clone() if state is not None else new_game(players=players, variant=variant)
        self.players = self.state.players
        self.bots = dict(bots)
        self.human_seats = set(human_seats)
        seats = sorted(list(self.bots) + list(human_seats))
        if seats != list(range(self.players)):
            raise ValueError(f"seats: {self.players} players need seats 0 to {self.players - 1} "
                             f"each taken once (bots at {sorted(self.bots)}, "
                             f"people at {sorted(human_seats)})")
        self.console = console or Console(highlight=False, markup=False)
        self.human = HumanPlayer(read_line or _stdin_line, self.console, teach=teach,
                                 hint_iterations=hint_iterations, seed=seed,
                                 session_commands=SESSION_COMMANDS)
        self.deals = random.Random(seed)
        self.history: list[tuple[GameState, str]] = []  # (state before, move) of people's moves
        self._redraw = True

    def say(self, message: str | Text) -> None:
        self.console.print(message, soft_wrap=True, highlight=False, markup=False)

    def run(self) -> str:
        """Play until the game is over or the person leaves."""
        try:
            while not self.state.is_over:
                self.step()
        except LeaveGame as leave:
            pos = self.state.to_json()
            if leave.reason == "quit":
                self.say(f"You left the game in round {pos['round']}; scores "
                         + ", ".join(f"seat {s} {b['score']}" for s, b in enumerate(pos["boards"])) + ".")
            else:
                self.say(f"End of input: the game stops in round {pos['round']}.")
            return leave.reason
        self._finish()
        return "over"

    def step(self) -> None:
        """One deal or one move (the person's prompt commands happen here too)."""
        state = self.state
        seat = state.to_move
        try:
            event = step(state, self._act, lambda r: self.deals.randrange(2**63))
        except _CommandDone:
            return
        except (TypeError, ValueError) as exc:  # a bot's answer the rules refuse (a person's is checked)
            if seat in self.human_seats or state.phase == "refill":
                raise
            raise self._failed(seat, exc) from None
        if type(event) is Dealt:
            self.history.clear()  # a deal is agreed: undo never goes back past it
            if state.is_over:
                self.say("No tile left in bag or lid: the game ends.")
            else:
                self.say(render.round_header(state.to_json()))
            return
        seat = event.played.seat
        who = "you" if seat in self.human_seats else self.bots[seat].name
        line = Text(f"seat {seat} ({who}) plays ")
        line.append_text(render.move_text(str(event.played.move)))
        self.say(line)
        if state.phase == "refill":  # at the end of the game the final scores say it
            self.say(render.scores_line(f"scores after round {event.round}", state.to_json()))

    def _act(self, seat: int, view: GameState) -> Move:
        """The move of ``seat``: a bot's, or the person's (whose session commands run here)."""
        if seat not in self.human_seats:
            try:
                return self.bots[seat].act(view)
            except Exception as exc:  # a bot's own bug, an external program's forfeit
                raise self._failed(seat, exc) from None
        choice = self.human.choose(self.state, show_position=self._redraw)
        if isinstance(choice, Command):
            before = self.state
            getattr(self, f"_{choice.name}")(choice.arg)
            self._redraw = self.state is not before  # draw again only if the position changed
            raise _CommandDone()
        self._redraw = True
        self.history.append((self.state.clone(), str(choice)))
        return choice

    def _failed(self, seat: int, exc: Exception) -> BotFailed:
        return BotFailed(f"seat {seat} ({self.bots[seat].name}) forfeits in round {self.state.round}: "
                         f"{fault_text(exc)}; the game stops")

    # ------------------------------------------------------------ session commands
    def _undo(self, _arg: str) -> None:
        if not self.history:
            self.say(f"nothing to undo: you have not moved since the deal of round {self.state.round}, "
                     "and undo does not go back past a deal")
            return
        before, move = self.history.pop()
        self.state = before
        self.say(f"undone: your move {move} and the replies after it; back to your decision "
                 f"in round {before.round}")

    def _save(self, arg: str) -> None:
        try:
            Path(arg).write_text(json.dumps(self.state.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            self.say(f"error: {arg}: cannot write it ({exc.strerror or exc})")
            return
        self.say(f"saved the position to {arg}")

    def _load(self, arg: str) -> None:
        try:
            state = read_position(Path(arg))
        except ValueError as exc:
            self.say(f"error: {exc}")
            return
        if state.players != self.players:
            self.say(f"error: {arg}: a {state.players}-player position, this game has {self.players} players")
            return
        self.state = state
        self.history.clear()
        self.say(f"loaded {arg}: {state.variant} wall, round {state.round}, phase {state.phase}")

    def _finish(self) -> None:
        pos = self.state.to_json()
        self.console.print(render.position_view(pos))
        self.say(render.scores_line("final scores", pos))
        people = sorted(self.human_seats)
        if len(people) == 1:
            self.say(verdict(pos["ranks"], people[0]))


def _stdin_line() -> str | None:
    line = sys.stdin.readline()
    return line if line else None


# ---------------------------------------------------------------- the command
VsOpt = Annotated[Optional[list[str]], typer.Option(
    "--vs", metavar="BOT",
    help="A bot opponent, TYPE or TYPE:key=value,... (e.g. mcts:iterations=2000); "
         "give it 1 to 3 times. Default: one greedy.")]
SeatOpt = Annotated[int, typer.Option("--seat", help="Your seat (0 opens round 1).")]
VariantOpt = Annotated[Optional[Variant], typer.Option(
    case_sensitive=False, help="Wall variant: colored (printed) or gray (you choose columns).",
    show_default="colored")]
SeedOpt = seed_option("Seed for the deals (and the bots'); without it one is drawn and printed.")
TeachOpt = Annotated[bool, typer.Option(
    "--teach", help="Teaching mode: preview each move (overflow, floor cost, tiling score) and confirm it.")]
LoadOpt = Annotated[Optional[Path], typer.Option(
    "--load", metavar="POSITION.json", help="Start from a saved position (azul-position/1).")]
HintOpt = Annotated[int, typer.Option(
    "--hint-iterations", min=1, help="MCTS iterations behind each 'hint'.")]


def play(
    vs: VsOpt = None,
    seat: SeatOpt = 0,
    variant: VariantOpt = None,
    seed: SeedOpt = None,
    teach: TeachOpt = False,
    load: LoadOpt = None,
    hint_iterations: HintOpt = 50000,
    plain: Plain = False,
) -> None:
    """Play a game against 1 to 3 bots in the terminal (type help at the prompt)."""
    specs = list(vs or [])
    try:
        loaded = read_position(load) if load is not None else None
    except ValueError as exc:
        fail(str(exc))
    if loaded is not None:
        if variant is not None and variant.value != loaded.variant:
            fail(f"--variant {variant.value}: the loaded position is on the {loaded.variant} wall")
        if loaded.is_over:
            fail(f"{load}: the game in it is over")
        specs = specs or ["greedy"] * (loaded.players - 1)
        if len(specs) != loaded.players - 1:
            fail(f"--vs given {len(specs)} times: the loaded position has {loaded.players} players, "
                  f"so give it {loaded.players - 1} times (or not at all for greedy bots)")
    specs = specs or ["greedy"]
    if len(specs) > 3:
        fail(f"--vs given {len(specs)} times: at most 3 bots (2 to 4 players)")
    players = len(specs) + 1
    if not 0 <= seat < players:
        fail(f"--seat {seat}: a {players}-player game has seats 0 to {players - 1}")
    seed = drawn_seed(seed)
    others = [s for s in range(players) if s != seat]
    table = loaded.variant if loaded is not None else (variant or Variant.colored).value
    bots = [(s, spec_bot("--vs", spec, seed + 1 + s, players, table)) for s, spec in zip(others, specs)]
    out = console(plain)
    session = PlaySession(bots, (seat,), players=players, seed=seed, teach=teach,
                          variant=(variant or Variant.colored).value, state=loaded,
                          console=out, hint_iterations=hint_iterations)
    names = ", ".join(f"seat {s} {b.name}" for s, b in bots)
    out.print(f"azul play: {players} players, {session.state.variant} wall, seed {seed} | "
                  f"you are seat {seat}; {names} | type help for the commands", soft_wrap=True)
    try:
        session.run()
    except BotFailed as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        out.print("\ninterrupted: the game stops here")
        raise typer.Exit(130) from None
    finally:
        for _, bot in bots:
            close = getattr(bot, "close", None)
            if callable(close):
                close()
