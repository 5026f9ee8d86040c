"""The top moves of a position, as ``azul analyze`` and the web's analysis page show them: any
registered bot with an ``analyze(state, iterations=...)`` method, one row per root move
(``{"move", "visits", "value", "pv"}``), sorted by visits."""
from __future__ import annotations

from bots import BOTS, bot_parameters, make_bot


def analyzing_bots() -> list[str]:
    """The registered bot types that can analyze a position."""
    bot_parameters("random")  # makes the registry load the built-in bots
    return sorted(name for name, cls in BOTS.items() if callable(getattr(cls, "analyze", None)))


def run_analysis(state, bot: str, iterations: int, seed: int) -> list[dict]:
    """The bot's rows for ``state``, checked and sorted by visits (ties keep the bot's order).

    Raises ValueError with a one-line message for anything the user can fix.
    """
    if state.phase not in ("draft", "tiling"):
        why = "the game is over" if state.phase == "over" else "a deal is due"
        raise ValueError(f"nothing to analyze in phase {state.phase} ({why}); "
                         "a position in phase draft or tiling has moves to choose from")
    able = analyzing_bots()
    bot_parameters(bot)  # an unknown type: ValueError naming the known ones
    if bot not in able:
        raise ValueError(f"bot {bot!r} cannot analyze a position "
                         f"(bots that can: {', '.join(able) or 'none'})")
    player = make_bot(bot, seed=seed)
    unfit = player.table_error(state.players, state.variant)
    if unfit:  # a preset made for another player count, a model of another: said, not played
        raise ValueError(unfit)
    rows = []
    for row in player.analyze(state, iterations=iterations):
        rows.append({"move": str(row["move"]), "visits": int(row["visits"]),
                     "value": float(row["value"]), "pv": [str(m) for m in row.get("pv", [])]})
    rows.sort(key=lambda r: -r["visits"])
    return rows
