"""The HTML of the run views: the page shell with its polling script, the index's table and a run
page's sections, each drawn from the data of web/data.py. Every text from a record or a folder
goes through ``esc`` (a bot may be named ``<script>``); the script puts the server's fragment in
place, so the page is escaped once, here.
"""
from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from .svg import line_chart

POLL_MS = 1000  # how often an open page asks for its data again

STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
td.num,th.num{text-align:right}tr.nested td:first-child{padding-left:2em}
.errors{color:#a00}.state-running{color:#070;font-weight:bold}.state-stopped{color:#a60}
#live{color:#777;font-size:.85em}code{background:#f4f4f4;padding:0 3px}
svg.chart .frame{fill:none;stroke:#ccc}svg.chart .level{stroke:#a00;stroke-dasharray:4 3}
svg.chart .path{fill:none;stroke:#1f77b4;stroke-width:1.5}svg.chart .mark{fill:#1f77b4}
svg.chart .small{font-size:11px;fill:#555}"""

# Asks the page's JSON again every POLL_MS and puts its html in place (nothing else is built in
# the browser); the line under the page says when it last did, or that the server did not answer.
SCRIPT = """(function(){
  var view=document.getElementById('view'),live=document.getElementById('live'),api=view.dataset.api;
  function tick(){
    fetch(api,{cache:'no-store'}).then(function(r){return r.json();}).then(function(d){
      if(d.html!==undefined&&d.html!==view.dataset.shown){view.innerHTML=d.html;view.dataset.shown=d.html;}
      live.textContent='updated '+new Date().toLocaleTimeString();live.dataset.polls=(+live.dataset.polls||0)+1;
    }).catch(function(e){live.textContent='the server does not answer ('+e+')';}).finally(function(){
      setTimeout(tick,%d);});
  }
  setTimeout(tick,%d);
})();""" % (POLL_MS, POLL_MS)


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def href(*parts: str) -> str:
    """A URL path of these parts, each quoted (``/`` inside a run's path kept)."""
    return "/" + "/".join(quote(p, safe="/") for p in parts)


def shell(title: str, api: str, fragment: str) -> str:
    """A whole page: ``fragment`` in ``#view``, redrawn from ``api``'s ``html`` every second."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body><nav><a href='/'>all runs</a> &middot; <a href='/play/'>play the bots</a></nav>"
            f"<main id='view' data-api='{esc(api)}'>{fragment}</main><p id='live'>live: updated every "
            f"{POLL_MS // 1000} s</p><script>{SCRIPT}</script></body></html>")


def plain_page(title: str, body: str) -> str:
    """A page that does not update (the analysis of a position, a refusal)."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body><nav><a href='/'>all runs</a> &middot; <a href='/play/'>play the bots</a></nav>{body}</body></html>")


def games_text(row: dict) -> str:
    if row.get("recorded") is None:
        return "-"
    if row.get("planned") is not None:
        return f"{row['recorded']:,} of {row['planned']:,}"
    return f"{row['recorded']:,}" + (" (plays until it decides)" if row.get("decides") else "")


def index_fragment(rows: list[tuple[dict, bool]], served: list[str], problems: dict[str, str] | None = None) -> str:
    """The index: a row a run (``(row, nested)``: nested runs under their parent); ``problems``: a
    served prefix on object storage that could not be listed, by label, with why (one line each)."""
    out = [f"<h1>Runs</h1><p>under {esc(', '.join(served))}: {sum(not n for _, n in rows)} runs</p>"]
    out += [f"<p class='errors' data-served='{esc(label)}'>{esc(label)}: {esc(why)}</p>"
            for label, why in (problems or {}).items()]
    if not rows:
        return "".join(out) + "<p>no runs yet</p>"
    out.append("<table id='runs'><thead><tr><th>run</th><th>kind</th><th>state</th><th class='num'>games</th>"
               "<th>ahead</th></tr></thead><tbody>")
    for row, nested in rows:
        state = row.get("state") or "unreadable"
        out.append(f"<tr class='{'nested' if nested else 'run'}' data-run='{esc(row['url'])}' "
                   f"data-state='{esc(state)}' data-recorded='{esc(row.get('recorded'))}'>"
                   f"<td><a href='{esc(href('run', row['url']))}'>{esc(row['name'])}</a></td>"
                   f"<td>{esc(row.get('kind'))}</td><td class='state-{esc(state)}'>{esc(state)}</td>"
                   f"<td class='num'>{esc(games_text(row))}</td>"
                   f"<td>{esc(row.get('error') or row.get('ahead') or '')}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def table(columns: list[str], rows: list[list[Any]], table_id: str = "", numeric: set[str] = frozenset()) -> str:
    head = "".join(f"<th class='{'num' if c in numeric else ''}'>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td class='{'num' if c in numeric else ''}'>{v}</td>"
                                    for c, v in zip(columns, row)) + "</tr>" for row in rows)
    ident = f" id='{esc(table_id)}'" if table_id else ""
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def num(value: Any, fmt: str = "{:,.1f}") -> str:
    return "-" if value is None else esc(fmt.format(value))


def run_fragment(data: dict) -> str:
    """A run page's body: its status line, then each part its kind has."""
    state = data.get("state") or "unreadable"
    out = [f"<h1 id='run-name'>{esc(data['name'])}</h1>",
           f"<p id='summary' data-state='{esc(state)}' data-recorded='{esc(data.get('recorded'))}'>"
           f"{esc(data.get('label') or data.get('kind'))}: <span class='state-{esc(state)}'>{esc(state)}</span>; "
           f"games recorded: <span id='recorded'>{esc(games_text(data))}</span>"
           + (f"; driver pid {esc(data['driver'])}" if data.get("driver") else "")
           + ("; <em id='updating'>reading its newer records...</em>" if data.get("updating") else "") + "</p>"]
    if data.get("ahead"):
        out.append(f"<p>ahead: <span id='ahead'>{esc(data['ahead'])}</span></p>")
    if data.get("finish") and state == "stopped":
        out.append(f"<p>finish it with: <code>{esc(data['finish'])}</code></p>")
    pins = [(bot, pin) for bot, ps in (data.get("models") or {}).items() for pin in ps if isinstance(pin, dict)]
    if pins:  # the models the run started with, by content (run.json)
        out.append("<ul id='models'>" + "".join(
            f"<li>{esc(bot)} reads <code>{esc(pin.get('model'))}</code> (sha256 <code>{esc(pin.get('sha256'))}</code>)"
            "</li>" for bot, pin in pins) + "</ul>")
    errors = dict(data.get("errors") or {}, **({"status": data["error"]} if data.get("error") else {}))
    if errors:
        out.append("<ul class='errors' id='errors'>" + "".join(
            f"<li data-part='{esc(k)}'>{esc(k)} cannot be read now: {esc(v)}</li>" for k, v in errors.items())
                   + "</ul>")
    detail = data.get("detail") or {}
    for name, draw in (("standings", _standings), ("ratings", _ratings), ("event", _event),
                       ("sprt_path", _sprt), ("tune", _tune), ("lineage", _lineage), ("rating_list", _rating_list),
                       ("nested", _nested), ("games", _games)):
        value = data.get(name, detail.get(name))
        if value:
            out.append(draw(value, data))
    return "".join(out)


def _standings(rows: list[dict], data: dict) -> str:
    """The league's standings; with self-play games (a bot against copies of itself, which win rate,
    score and Elo leave out) a column of them, and a bot with none of the others shows "-" there."""
    selfplay = data.get("self_play") or {}
    cols = ["#", "bot", "games", "win rate", "score", "score share", "faults", "elo"]
    cols += ["self-play games"] if selfplay else []
    out = []
    for i, r in enumerate(rows, 1):
        counted = bool(r["games"])
        out.append([str(i), esc(r["bot"]), f"{r['games']:,}", f"{r['win_rate']:.1%}" if counted else "-",
                    f"{r['mean_score']:.1f}" if counted else "-", f"{r['score_share']:.1%}" if counted else "-",
                    str(r["faults"]), num(r.get("elo") if counted else None, "{:+.0f}")]
                   + ([f"{selfplay.get(r['bot'], 0):,}"] if selfplay else []))
    note = ("<p id='self-play-note'>Games, win rate, score and Elo count the games between different bots; a "
            "bot's games against copies of itself are its self-play games.</p>" if selfplay else "")
    return "<h2>Standings</h2>" + note + table(cols, out, "standings", {
        "#", "games", "win rate", "score", "score share", "faults", "elo", "self-play games"})


def _ratings(fits: list[dict], data: dict) -> str:
    out = ["<h2>Ratings</h2><p>Elo (mean bot 0) with 95% intervals by a jackknife over deals, as <code>azul elo"
           "</code>.</p>"]
    for fit in fits:
        out.append(f"<h3>{fit['players']} players</h3>" + table(["bot", "elo", "95% interval", "games"], [[
            esc(b["bot"]), *_rating(b), f"{b.get('games', 0):,}"]
            for b in fit["bots"]], f"ratings-{fit['players']}", {"elo", "95% interval", "games"}))
    return "".join(out)


def _rating(b: dict) -> list[str]:
    """A fit's rating and interval of a bot; "-" for a bot without a game against another (only
    self-play), whose fit's 0 is no rating."""
    if not b.get("games"):
        return ["-", "-"]
    return [num(b.get("rating"), "{:+.0f}"), f"[{num(b.get('low'), '{:+.0f}')}, {num(b.get('high'), '{:+.0f}')}]"]


def _cell(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return esc(" - ".join(_plain(v) for v in value))
    return esc(_plain(value))


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return "" if value is None else str(value)


def _event(ev: dict, data: dict) -> str:
    rows = ev.get("rows") or []
    title = {"swiss": "Swiss table", "knockout": "Knockout bracket", "gauntlet": "Gauntlet"}.get(ev["format"], "Event")
    out = [f"<h2>{esc(title)}</h2>"]
    if ev.get("champion"):
        out.append(f"<p>champion: {esc(ev['champion'])}</p>")
    if ev.get("unfinished"):
        out.append(f"<p>{ev['unfinished']} unfinished pairings are left out until all their games are recorded.</p>")
    if rows:
        cols = list(rows[0])
        out.append(table(cols, [[_cell(r.get(c)) for c in cols] for r in rows], "event"))
    return "".join(out)


def _sprt(path: dict, data: dict) -> str:
    test = (data.get("detail") or {}).get("test") or {}
    points = [(p[0], p[1]) for p in path["points"]]
    chart = line_chart(points, chart_id="llr", title="LLR after each pair", x_label="pairs", y_label="LLR",
                       levels=[(path["lower"], f"{path['lower']:.2f}"), (path["upper"], f"{path['upper']:.2f}")])
    text = ""
    if test:
        text = (f"<p>{esc(test['new'])} against {esc(test['base'])}: H0 elo {test['elo0']:g}, H1 elo "
                f"{test['elo1']:g} ({esc(test['model'])}); <strong>{esc(test['verdict'])}</strong> after "
                f"{test['pairs']:,} pairs; elo {num(test.get('elo'), '{:+.1f}')} "
                f"[{num(test.get('elo_low'), '{:+.1f}')}, {num(test.get('elo_high'), '{:+.1f}')}]</p>")
    return f"<h2>SPRT</h2>{text}<figure>{chart}</figure>"


def _tune(tune: dict, data: dict) -> str:
    path = tune.get("path") or []
    out = [f"<h2>Tune</h2><p>{tune['steps']:,} SPSA steps recorded"
           + (f"; final: {esc(', '.join(f'{k}={v:.4g}' for k, v in tune['final'].items()))}" if tune.get("final")
              else "") + "</p>"]
    names = list(path[0]["theta"]) if path else []
    for i, name in enumerate(names):
        points = [(p["pairs"], p["theta"][name]) for p in path if name in p["theta"]]
        final = (tune.get("final") or {}).get(name)
        out.append(f"<figure>{line_chart(points, chart_id=f'tune-{i}', title=name, x_label='pairs', y_label=name, marks=len(points) < 40, levels=[] if final is None else [(final, 'final')])}</figure>")
    return "".join(out)


def _lineage(lineage: list[dict], data: dict) -> str:
    rows = []
    for r in lineage:
        gate = r.get("gate") or {}
        rows.append([str(r.get("generation")), "yes" if r.get("accepted") else "no", esc(r.get("model")),
                     esc(gate.get("verdict", "-")),
                     f"{num(gate.get('elo'), '{:+.1f}')} [{num(gate.get('elo_low'), '{:+.1f}')}, "
                     f"{num(gate.get('elo_high'), '{:+.1f}')}]" if gate else "-",
                     num(r.get("held_out_loss"), "{:.4f}"), num(r.get("train_loss"), "{:.4f}")])
    gated = [(r["generation"], r["gate"]["elo"]) for r in lineage if (r.get("gate") or {}).get("elo") is not None]
    chart = line_chart(gated, chart_id="gate-elo", title="gate elo by generation", x_label="generation",
                       y_label="gate elo (new - current)", levels=[(0.0, "0")], marks=True) if gated else ""
    return ("<h2>Lineage</h2>" + table(["generation", "accepted", "model", "gate", "gate elo [95%]",
                                        "held-out loss", "train loss"], rows, "lineage")
            + (f"<figure>{chart}</figure>" if chart else ""))


def _rating_list(doc: dict, data: dict) -> str:
    if doc.get("version") is None:
        return "<h2>Rating list</h2><p>no version yet</p>"
    out = [f"<h2>Rating list, version {doc['version']}</h2><p>{len(doc['runs'])} runs; change since version "
           f"{esc(doc['previous'] or '-')}</p>"]
    for group in doc["players"]:
        n = group["num_players"]
        out.append(f"<h3>{n} players</h3>" + table(["bot", "elo", "95% interval", "games", "change"], [[
            esc(b["bot"]), num(b.get("rating"), "{:+.0f}"),
            f"[{num(b.get('low'), '{:+.0f}')}, {num(b.get('high'), '{:+.0f}')}]", f"{b.get('games') or 0:,}",
            "new" if b.get("previous") is None else num(b.get("change"), "{:+.0f}")] for b in group["bots"]],
            f"list-{n}", {"elo", "95% interval", "games", "change"}))
    return "".join(out)


def _nested(nested: list[dict], data: dict) -> str:
    return "<h2>Runs it holds</h2><ul id='nested'>" + "".join(
        f"<li><a href='{esc(href('run', n['url']))}'>{esc(n['name'])}</a></li>" for n in nested) + "</ul>"


def _games(games: list[dict], data: dict) -> str:
    rows = []
    for g in reversed(games):
        base = href("run", data["url"], "game", g["game_id"])
        seats = "; ".join(f"{b} {s} (#{r})" for b, s, r in zip(g["bot"], g["score"], g["rank"]))
        rows.append([f"<a class='replay' href='{esc(base)}'>{esc(g['game_id'])}</a>", esc(seats),
                     f"<a class='analyze' href='{esc(base + '/analyze')}'>analyze</a>"])
    return ("<h2>Last games</h2><p>a game's replay, and the analysis (top moves) of any position in it</p>"
            + table(["game", "seats: bot score (rank)", "analysis"], rows, "games"))


def analysis_body(data: dict) -> str:
    """The analysis page: the top moves of one recorded position (``azul analyze``'s rows)."""
    base = href("run", data["url"], "game", data["game_id"])
    step, last = data["step"], data["steps"]
    links = " ".join(f"<a id='{k}' href='{esc(base)}/analyze?step={s}'>{esc(label)}</a>" for k, s, label in
                     (("prev", step - 1, "previous step"), ("next", step + 1, "next step")) if 1 <= s <= last)
    out = [f"<h1>Analysis: {esc(data['game_id'])}, step {step} of {last}</h1>",
           f"<p>{esc(data['name'])}: <a href='{esc(base)}'>the replay</a>; {links}</p>",
           f"<p id='position'>round {data['round']}, {esc(data['phase'])}, seat {esc(data['to_move'])} to move; "
           f"played next: <code id='played'>{esc(data.get('played') or '-')}</code></p>"]
    if data.get("error"):
        out.append(f"<p class='errors' id='errors'>{esc(data['error'])}</p>")
        return "".join(out)
    total = data.get("visits") or sum(r["visits"] for r in data["rows"]) or 1  # all the root's visits
    out.append(f"<p>{esc(data['bot'])}, {data['iterations']:,} iterations, seed {data['seed']}; "
               f"<span id='root-visits'>{total:,}</span> visits at the root (each share is of them all)</p>")
    out.append(table(["#", "move", "visits", "share", "value", "principal variation"], [[
        str(i), esc(r["move"]), f"{r['visits']:,}", f"{100 * r['visits'] / total:.1f}%", f"{r['value']:.3f}",
        esc(" ".join(r["pv"]) or "-")] for i, r in enumerate(data["rows"], 1)], "top-moves",
        {"#", "visits", "share", "value"}))
    return "".join(out)
