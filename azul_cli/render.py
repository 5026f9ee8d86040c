"""Drawing positions and self-play logs for the terminal with rich.

Everything here reads a position in the ``azul-position/1`` format (``GameState.to_json()``), so
it draws exactly what the contract says and nothing the engine keeps privately. Without colour
(``--plain``, or output that is not a terminal) the drawing still reads: tiles are upper-case
letters, the coloured wall's empty squares lower-case letters, empty slots ``.``.
"""
from __future__ import annotations

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.text import Text

from engine.rules import COLOURS, FLOOR_COSTS, wall_colour
from engine.text import status
from present import lines

STYLES = {"B": "bold blue", "Y": "bold yellow", "R": "bold red", "K": "bold grey50",
          "W": "bold bright_cyan", "1": "bold reverse"}
FAINT = {"B": "blue", "Y": "yellow", "R": "red", "K": "grey35", "W": "cyan"}
EMPTY_STYLE = "grey50"


def tiles(letters: str, sep: str = "") -> Text:
    """Tile letters, each in its colour (``1`` is the starting-player marker)."""
    text = Text()
    for i, letter in enumerate(letters):
        if i and sep:
            text.append(sep)
        text.append(letter, STYLES.get(letter, EMPTY_STYLE if letter == "." else ""))
    return text


def move_text(move: str) -> Text:
    """A move in notation with its colour letter coloured (``1B2``, ``CRF``, ``3@2``)."""
    if len(move) == 3 and move[1] in COLOURS:
        return Text.assemble(move[0], (move[1], STYLES[move[1]]), move[2])
    return Text(move)


def status_line(pos: dict) -> Text:
    """Who is to do what (``engine.text.status``), in bold."""
    return Text(status(pos), style="bold")


def supply_view(pos: dict) -> Group:
    """Factories numbered 1..N, the centre (with the marker if it is there), bag and lid."""
    factories = Text("factories ")
    for n, letters in enumerate(pos["factories"], 1):
        factories.append(f" {n}:", style="dim")
        factories.append_text(tiles(letters) if letters else Text("-", EMPTY_STYLE))
        factories.append(" " * (5 - max(len(letters), 1)))
    centre = Text("centre     ")
    marker = "1" if pos["marker"] == "center" else ""
    content = marker + pos["center"]
    centre.append_text(tiles(content, " ") if content else Text("-", EMPTY_STYLE))
    factories.rstrip()
    return Group(factories, centre, _counts_line("bag", pos["bag"]), _counts_line("lid", pos["lid"]))


def _counts_line(name: str, counts: dict) -> Text:
    text = Text(f"{name:<10} {sum(counts.values()):>3}  ")
    for letter in COLOURS:
        text.append(" ")
        text.append(letter, STYLES[letter])
        text.append(str(counts[letter]))
    return text


def _slots(cells: list[Text]) -> Text:
    return Text(" ").join(cells)


def _wall_cell(pos: dict, row: int, col: int, letter: str) -> Text:
    if letter != ".":
        return Text(letter, STYLES[letter])
    if pos["variant"] == "gray":
        return Text(".", EMPTY_STYLE)
    printed = COLOURS[wall_colour(row, col)]
    return Text(printed.lower(), f"dim {FAINT[printed]}")


def board_view(pos: dict, seat: int) -> Group:
    """One player's board: score, pattern lines right-aligned against the wall, wall, floor."""
    board = pos["boards"][seat]
    title = Text(f"seat {seat}", style="bold")
    title.append(f"  score {board['score']}")
    if pos["phase"] == "over":
        title.append(f"  rank {pos['ranks'][seat]}", style="bold")
    elif seat == pos["to_move"] and pos["phase"] in ("draft", "tiling"):
        title.append("  ")
        title.append("< to move", style="bold reverse")
    if pos["marker"] == seat and "1" not in board["floor"]:
        title.append("  holds ")
        title.append("1", STYLES["1"])
    rows = [title]
    if pos["variant"] == "gray":  # tiling moves name a column: 3@2
        rows.append(Text("            1 2 3 4 5", style="dim"))
    for k in range(5):
        line = board["lines"][k]
        slots = [Text(".", EMPTY_STYLE)] * (k + 1 - len(line)) + [Text(c, STYLES[c]) for c in line]
        row = Text(f"{k + 1} " + "  " * (4 - k))
        row.append_text(_slots(slots))
        row.append(" | ", style="dim")
        row.append_text(_slots([_wall_cell(pos, k, c, x) for c, x in enumerate(board["wall"][k])]))
        rows.append(row)
    floor = Text("floor")
    for i in range(7):
        letter = board["floor"][i] if i < len(board["floor"]) else "."
        floor.append("  ")
        floor.append_text(tiles(letter))
    rows.append(floor)
    rows.append(Text("     " + "".join(f"{-p:>3}" for p in FLOOR_COSTS), style="dim"))
    return Group(*rows)


def position_view(pos: dict) -> RenderableType:
    """The whole position: status line, supply, then every board (side by side as width allows)."""
    boards = Columns([board_view(pos, s) for s in range(pos["players"])], padding=(0, 4))
    return Group(status_line(pos), Text(), supply_view(pos), Text(), boards)


def round_header(pos: dict) -> Text:
    """The line that opens a round in a self-play log (``present.lines.round_header``): in bold,
    each dealt tile in its colour (no marker is ever in a factory)."""
    line = lines.round_header(pos)
    text = Text(line, style="bold")
    deal = line.index(")") + 1
    for i, letter in enumerate(line[deal:], deal):
        if letter in COLOURS:
            text.stylize(STYLES[letter], i, i + 1)
    return text


def scores_line(label: str, pos: dict) -> Text:
    """``label: seat 0 12, seat 1 9`` (``present.lines.scores_line``)."""
    return Text(lines.scores_line(label, pos))
