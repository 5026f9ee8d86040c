"""The HTML of the run views, from the Jinja templates of web/templates/runs/: the page shell with
its polling script (shell.jinja), the index's table (index.jinja), a run page's sections
(run.jinja), the analysis of a position (analysis.jinja) and the refusals (plain.jinja,
unavailable.jinja), each drawn from the data of web/data.py. The script puts the server's
fragment in place, so the page is escaped once, by the templates.

Every value a template prints is escaped, and a ``.jinja`` template's lines are joined
(present/pages.py, ``html_pages``, as for the replay page). What the templates cannot say simply
(a number's format, a chart's points) is made here as plain text or numbers.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from present.pages import html_pages

from .svg import line_chart

POLL_MS = 1000  # how often an open page asks for its data again


def href(*parts: str) -> str:
    """A URL path of these parts, each quoted (``/`` inside a run's path kept)."""
    return "/" + "/".join(quote(p, safe="/") for p in parts)


def num(value: Any, fmt: str = "{:,.1f}") -> str:
    """``value`` in the format ``fmt``; "-" for none."""
    return "-" if value is None else fmt.format(value)


def cell(value: Any) -> str:
    """An event table's cell: a pair of values as ``a - b``, a float as ``%g``, none as nothing."""
    if isinstance(value, (list, tuple)):
        return " - ".join(_plain(v) for v in value)
    return _plain(value)


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return "" if value is None else str(value)


def games_text(row: dict) -> str:
    if row.get("recorded") is None:
        return "-"
    if row.get("planned") is not None:
        return f"{row['recorded']:,} of {row['planned']:,}"
    return f"{row['recorded']:,}" + (" (plays until it decides)" if row.get("decides") else "")


def seats_text(game: dict) -> str:
    """A last game's seats: ``bot score (#rank)``, seat by seat."""
    return "; ".join(f"{b} {s} (#{r})" for b, s, r in zip(game["bot"], game["score"], game["rank"]))


def final_text(final: dict) -> str:
    """A tune's final parameters: ``name=value, ...``."""
    return ", ".join(f"{k}={v:.4g}" for k, v in final.items())


def sprt_chart(path: dict) -> dict:
    """An SPRT's LLR after each pair, between its bounds."""
    return line_chart([(p[0], p[1]) for p in path["points"]], chart_id="llr", title="LLR after each pair",
                      x_label="pairs", y_label="LLR",
                      levels=[(path["lower"], f"{path['lower']:.2f}"), (path["upper"], f"{path['upper']:.2f}")])


def tune_charts(tune: dict) -> list[dict]:
    """A tune's path of each parameter against the pairs played, with its final value."""
    path = tune.get("path") or []
    charts = []
    for i, name in enumerate(list(path[0]["theta"]) if path else []):
        points = [(p["pairs"], p["theta"][name]) for p in path if name in p["theta"]]
        final = (tune.get("final") or {}).get(name)
        charts.append(line_chart(points, chart_id=f"tune-{i}", title=name, x_label="pairs", y_label=name,
                                 marks=len(points) < 40, levels=[] if final is None else [(final, "final")]))
    return charts


def gate_chart(lineage: list[dict]) -> dict | None:
    """A training run's gate Elo by generation (None before any gate)."""
    gated = [(r["generation"], r["gate"]["elo"]) for r in lineage if (r.get("gate") or {}).get("elo") is not None]
    if not gated:
        return None
    return line_chart(gated, chart_id="gate-elo", title="gate elo by generation", x_label="generation",
                      y_label="gate elo (new - current)", levels=[(0.0, "0")], marks=True)


RUNS = html_pages("web", "templates/runs")
RUNS.filters.update(num=num, cell=cell)
RUNS.globals.update(href=href, games_text=games_text, seats_text=seats_text, final_text=final_text,
                    sprt_chart=sprt_chart, tune_charts=tune_charts, gate_chart=gate_chart, poll_ms=POLL_MS)


def render(template: str, **context: Any) -> str:
    """The template of web/templates/runs/ filled with ``context``."""
    return RUNS.get_template(template).render(**context)


def shell(title: str, api: str, fragment: str) -> str:
    """A whole page: ``fragment`` (HTML a template made) in ``#view``, redrawn from ``api``'s
    ``html`` every second."""
    return render("shell.jinja", title=title, api=api, fragment=Markup(fragment))


def plain_page(title: str, message: str | None = None, heading: str | None = None, error: bool = False) -> str:
    """A page that does not update: a refusal's ``message`` (under ``heading`` when given; in the
    errors' colour when ``error``)."""
    return render("plain.jinja", title=title, message=message, heading=heading, error=error)


def index_fragment(rows: list[tuple[dict, bool]], served: list[str], problems: dict[str, str] | None = None) -> str:
    """The index: a row a run (``(row, nested)``: nested runs under their parent); ``problems``: a
    served prefix on object storage that could not be listed, by label, with why (one line each)."""
    return render("index.jinja", rows=rows, served=", ".join(served), runs=sum(not n for _, n in rows),
                  problems=problems or {})


PARTS = ("standings", "ratings", "event", "sprt_path", "tune", "lineage", "rating_list", "verdicts", "nested",
         "games")


def run_fragment(data: dict) -> str:
    """A run page's body: its status line, then each part its kind has (``PARTS``, in order: the
    run's data, else its kind's detail, names each)."""
    detail = data.get("detail") or {}
    pins = [(bot, pin) for bot, ps in (data.get("models") or {}).items() for pin in ps if isinstance(pin, dict)]
    errors = dict(data.get("errors") or {}, **({"status": data["error"]} if data.get("error") else {}))
    parts = [(name, value) for name in PARTS for value in [data.get(name, detail.get(name))] if value]
    return render("run.jinja", data=data, pins=pins, errors=errors, parts=parts)


def analysis_page(data: dict) -> str:
    """The analysis page: the top moves of one recorded position (``azul analyze``'s rows)."""
    return render("analysis.jinja", title=f"analysis {data['game_id']}", data=data)
