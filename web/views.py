"""The pages over the runs under the served folders (read-only: every route answers GET only).

    /                                   the index of the runs (web/runs.py finds them)
    /api/index                          its data and its HTML, which the open page polls
    /run/<path>                         a run's page (web/data.py, web/pages.py)
    /api/run/<path>                     its data and its HTML
    /run/<path>/game/<id>               a recorded game's replay (azul replay --html's page), with
                                        its stored review when it has one
    /run/<path>/game/<id>/analyze?step=N  the top moves of that game's position after step N
    /atlas/<path>                       an atlas run's own page (its atlas.html)

``<path>`` is a served folder's label and the folders below it (``Served.folder`` refuses
anything else: 404); under a served ``s3://`` prefix that cannot be listed now, a 503 naming it.
A part of a page that cannot be read while a run is repaired or resumed is an ``errors`` entry of
its data, never a 500.
"""
from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from present.strict_json import strict
from records.names import ATLAS_HTML
from records.store import RunStore

from . import pages
from .data import Cache, failed, run_data, signature, status_row
from .runs import Found, Served, view_lock

ANALYZE_ITERATIONS = 2000  # the analysis view's search, by default
MAX_ANALYZE_ITERATIONS = 20000  # ... and at most (?iterations=N)
ANALYZE_BOT = "mcts"


def not_found(what: str = "no such run under the served folders") -> HTMLResponse:
    return HTMLResponse(pages.plain_page("not found", what, heading="Not found"), 404)


def unavailable(store: str, problem: str) -> HTMLResponse:
    """A served ``s3://`` prefix that cannot be listed now: 503, naming it (never a 404: whether the
    run is there is not known)."""
    return HTMLResponse(pages.render("unavailable.jinja", title="store unavailable", store=store, problem=problem), 503)


def view_routes(runs: list[Path]) -> list:
    served = Served(runs)
    cache = Cache()

    def rows() -> list[tuple[dict, bool]]:
        out = []
        for found in served.find():
            out.append((cache.get(("row", found.url), signature(found), lambda f=found: status_row(f)), False))
            out += [(cache.get(("row", n.url), signature(n), lambda n=n: status_row(n)), True)
                    for n in found.nested]
        return out

    def index_doc() -> dict:
        listed = rows()
        problems = dict(served.problems)  # a served prefix that could not be listed: why
        return {"runs": [dict(r, nested=n) for r, n in listed], "errors": problems,
                "html": pages.index_fragment(listed, served.labels(), problems)}

    def index(request: Request) -> Response:
        doc = index_doc()
        return HTMLResponse(pages.shell("azul runs", "/api/index", doc["html"]))

    def api_index(request: Request) -> Response:
        return JSONResponse(strict(index_doc()))

    def run_doc(found: Found) -> dict:
        data = cache.get(("run", found.url), signature(found),
                         lambda: run_data(found, lambda p: any(served.inside(p, r) for r in served.roots.values())))
        return {**data, "html": pages.run_fragment(data)}

    def missing(path: str) -> Response:
        """The answer for a path that names no run found: a store that cannot be listed (503), else 404."""
        down = served.unreadable(path)
        return not_found() if down is None else unavailable(*down)

    def run_page(request: Request) -> Response:
        found = served.found(request.path_params["path"])
        if found is None:
            return missing(request.path_params["path"])
        doc = run_doc(found)
        return HTMLResponse(pages.shell(found.url, pages.href("api", "run", found.url), doc["html"]))

    def api_run(request: Request) -> Response:
        found = served.found(request.path_params["path"])
        if found is None:
            down = served.unreadable(request.path_params["path"])
            if down is not None:
                return JSONResponse({"error": down[1], "store": down[0]}, 503)
            return JSONResponse({"error": "no such run under the served folders"}, 404)
        return JSONResponse(strict(run_doc(found)))

    def game_of(path: str, game_id: str):
        """The recorded game ``game_id`` of the run at ``path`` (its steps), or the response
        saying why not: no such run or game (404), records that cannot be read (503)."""
        from tournament.replay import replay_steps

        found = served.found(path)
        if found is None or found.rating_list:
            return None, missing(path) if found is None else not_found()
        try:
            with view_lock(found):
                return replay_steps(found.local(), game_id), None
        except KeyError:
            return None, not_found("no such game in this run")
        except Exception as exc:  # noqa: BLE001 - a damaged part, a store that cannot be read: said, never a 500
            return None, HTMLResponse(pages.plain_page("unreadable", failed(exc), error=True), 503)

    def replay(request: Request) -> Response:
        """The game's replay, with its stored review when the run holds one: read, never made (a
        review is made by ``azul review run``, or at /play for a person's game)."""
        from present.replay_page import page
        from present.review_view import game_review

        path, game_id = request.path_params["path"], request.path_params["game_id"]
        game, refused = game_of(path, game_id)
        if refused is not None:
            return refused
        found = served.found(path)
        try:
            with view_lock(found):  # game_review says what it cannot read in the page
                review = game_review(found.local(), game_id)
        except Exception as exc:  # noqa: BLE001 - the run's view cannot be made now: said on the page
            review = {"error": f"the review of this game cannot be read: {failed(exc)}"}
        return HTMLResponse(page(game.to_dict(), review))

    def analyze(request: Request) -> Response:
        path, game_id = request.path_params["path"], request.path_params["game_id"]
        found = served.found(path)
        if found is None:
            return missing(path)
        try:
            step = int(request.query_params.get("step", "1"))
            iterations = int(request.query_params.get("iterations", str(ANALYZE_ITERATIONS)))
        except ValueError:
            return HTMLResponse(pages.plain_page("bad request", "step and iterations are whole numbers"), 400)
        if not 1 <= iterations <= MAX_ANALYZE_ITERATIONS:
            return HTMLResponse(pages.plain_page("bad request", f"iterations: 1 to {MAX_ANALYZE_ITERATIONS:,}"), 400)
        game, refused = game_of(path, game_id)
        if refused is not None:
            return refused
        if not 1 <= step <= len(game.steps):
            return not_found(f"no step {step}: the game has steps 1 to {len(game.steps)}")
        data = analysis(game, step, iterations)
        data.update(url=found.url, name=found.url, game_id=game_id)
        return HTMLResponse(pages.analysis_page(data))

    def atlas_page(request: Request) -> Response:
        """An atlas run's own page (its atlas.html, self-contained), as ``azul atlas`` wrote it."""
        path = request.path_params["path"]
        found = served.found(path)
        if found is None or found.rating_list:
            return missing(path) if found is None else not_found()
        try:
            store = RunStore(found.store if found.store is not None else found.folder)
            if not store.exists(ATLAS_HTML):
                return not_found("no atlas page in this run (azul atlas writes one)")
            return HTMLResponse(store.read_text(ATLAS_HTML))
        except Exception as exc:  # noqa: BLE001 - a store that cannot be read: said, never a 500
            return HTMLResponse(pages.plain_page("unreadable", failed(exc), error=True), 503)

    return [Route("/", index), Route("/api/index", api_index), Route("/atlas/{path:path}", atlas_page),
            Route("/run/{path:path}/game/{game_id}/analyze", analyze),
            Route("/run/{path:path}/game/{game_id}", replay),
            Route("/api/run/{path:path}", api_run), Route("/run/{path:path}", run_page)]


def analysis(game, step: int, iterations: int) -> dict:
    """``azul analyze``'s rows (present/analyze.py) for the position after ``step`` (1-based):
    the top ten, and ``visits``, all the root's visits over every move (the share's denominator,
    as ``azul analyze`` has it)."""
    from engine import GameState
    from present.analyze import run_analysis

    position = game.steps[step - 1].position
    data = {"step": step, "steps": len(game.steps), "round": position.get("round"), "phase": position.get("phase"),
            "to_move": position.get("to_move"), "bot": ANALYZE_BOT, "iterations": iterations, "seed": 1,
            "played": game.steps[step].move if step < len(game.steps) else None, "rows": [], "visits": 0}
    try:
        rows = run_analysis(GameState.from_json(position), ANALYZE_BOT, iterations, 1)
        data["rows"] = rows[:10]
        data["visits"] = sum(r["visits"] for r in rows)  # the root's, every move's: what a share is of
    except ValueError as exc:  # the game is over at that step: nothing to choose
        data["error"] = str(exc)
    return data
