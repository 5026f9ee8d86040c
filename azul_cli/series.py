"""``azul series``: a two-game series (house rule of rules text 000) between bots, and people.

The library does the playing (``tournament.series.play_series``); this module parses the seats,
prints each game as it goes, game one's totals and complete rows before game two, and the
combined result with the tie-break that settled it.
"""
from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from bots.spec import parse_bot_spec
from tournament.scheduler import derive_seed
from present.lines import game_line, result_lines
from tournament.series import SeriesError, SeriesGame, play_series

from . import render
from .common import Plain, Players, Variant, VariantOpt, console, drawn_seed, fail, seed_option, spec_bot
from .play import HumanPlayer, LeaveGame, _stdin_line

BotsOpt = Annotated[list[str] | None, typer.Option(
    "--bot", metavar="TYPE[:PARAM=VALUE,...]",
    help="A bot seat, in seat order (the seats --human leaves free): e.g. greedy, "
         "mcts:iterations=500. Repeat once per bot.", show_default=False)]
HumanOpt = Annotated[list[int] | None, typer.Option(
    "--human", metavar="SEAT", help="A seat played by a person at the terminal (0-based). Repeatable.",
    show_default=False)]
SeedOpt = seed_option("Seed for both games' deals and the bots; the same seed plays the same series. "
                      "Without it, a seed is drawn and printed.", min=0)
QuietOpt = Annotated[bool, typer.Option(
    "--quiet", "-q", help="Print only each game's totals and the combined result, not every move.")]


def seat_plan(players: int, bots: list[str], humans: list[int]) -> list[tuple[str, dict] | None]:
    """Per seat: a bot's (type, params), or None for a person. Raises ValueError on a bad plan."""
    for seat in humans:
        if not 0 <= seat < players:
            raise ValueError(f"--human {seat}: seats of a {players}-player game are 0 to {players - 1}")
    if len(set(humans)) != len(humans):
        raise ValueError("--human: a seat is given twice")
    free = players - len(humans)
    if len(bots) != free:
        people = f" and {len(humans)} person(s)" if humans else ""
        raise ValueError(f"{players} players need {free} --bot option(s){people}, got {len(bots)}")
    specs = iter(parse_bot_spec(b) for b in bots)  # ValueError names a bad spec
    return [None if s in humans else next(specs) for s in range(players)]


def series(
    players: Players = 2,
    bot: BotsOpt = None,
    human: HumanOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = Variant.colored,
    quiet: QuietOpt = False,
    teach: Annotated[bool, typer.Option(
        "--teach", help="For people: preview each move (overflow, floor cost, tiling score) and confirm it.")] = False,
    plain: Plain = False,
) -> None:
    """Play a two-game series: the same players twice, game two opened by the next seat clockwise.

    The combined score decides, then complete wall rows over both games, then a shared result.
    """
    bots, humans = list(bot or []), list(human or [])
    try:
        plan = seat_plan(players, bots, humans)
    except ValueError as exc:
        fail(str(exc))
    seed = drawn_seed(seed)
    out = console(plain)
    texts = iter(bots)
    made = [HumanPlayer(_stdin_line, out, teach=teach, seed=seed) if spec is None
            else spec_bot("--bot", next(texts), derive_seed(seed, "bot", s) % 2**31)
            for s, spec in enumerate(plan)]
    for text, s in zip(bots, [s for s, spec in enumerate(plan) if spec is not None]):
        problem = made[s].table_error(players, variant.value) or _name_problem(made[s].name)
        if problem:  # found now, as a league's config and the web table find it, not at game start
            fail(f"--bot: bot spec {text!r}: {problem}")
    names = ["person" if spec is None else made[s].name for s, spec in enumerate(plan)]
    out.print(f"series: {players} players, {variant.value} wall, seed {seed}", soft_wrap=True)
    for s, name in enumerate(names):
        out.print(f"  seat {s}: {name}", soft_wrap=True)
    printer = _Printer(out, names, quiet)
    try:
        result = play_series(players, variant.value, seed, lambda s: made[s],
                             on_game_start=printer.game_start, on_deal=printer.deal,
                             on_move=printer.move, on_game_end=printer.game_end)
    except SeriesError as exc:
        fail(str(exc))
    except LeaveGame as leave:
        why = "you left" if leave.reason == "quit" else "end of input"
        out.print(f"{why} in game {printer.game} round {printer.round}: the series stops, no result",
                  soft_wrap=True)
        return
    finally:
        for player in made:
            close = getattr(player, "close", None)
            if callable(close):
                close()
    for line in result_lines(result, names):
        out.print(line, soft_wrap=True)


def _name_problem(name: str) -> str | None:
    """Why a bot's name breaks the one rule for names (tournament.config.check_name), or None."""
    from tournament.config import ConfigError, check_name

    try:
        check_name(name, "its name")
    except ConfigError as exc:
        return str(exc)
    return None


class _Printer:
    """The callbacks of play_series that print the series as it goes."""

    def __init__(self, out: Console, names: list[str], quiet: bool):
        self.out, self.names, self.quiet = out, names, quiet
        self.round = self.game = 0

    def game_start(self, number: int, opener: int) -> None:
        self.round, self.game = 0, number
        if not self.quiet:
            self.out.print(f"game {number} of 2: seat {opener} ({self.names[opener]}) opens", soft_wrap=True)

    def deal(self, number: int, state) -> None:
        self.round = state.round
        if not self.quiet and not state.is_over:
            self.out.print(render.round_header(state.to_json()), soft_wrap=True)

    def move(self, number: int, seat: int, move, state) -> None:
        if self.quiet:
            return
        self.out.print(f"  seat {seat}  ", render.move_text(str(move)), sep="", soft_wrap=True)
        if state.phase == "refill":
            self.out.print(render.scores_line(f"scores after round {self.round}", state.to_json()),
                           soft_wrap=True)

    def game_end(self, game: SeriesGame) -> None:
        self.out.print(game_line(game, self.names), soft_wrap=True)

