"""Strategy in a league run: seat advantage, openings, the centre marker. A marimo notebook.

    marimo edit analysis/notebooks/strategy.py -- --run-dir runs/quick
    python analysis/notebooks/strategy.py -- --run-dir runs/quick      # headless

The run folder comes from ``--run-dir``, else the ``AZUL_RUN_DIR`` environment variable, else
``runs/quick``; the text box at the top changes it; an ``s3://BUCKET/PREFIX/run`` URL opens a run on
object storage (through its local view). The folder needs all four tables (``games``,
``results``, ``moves``, ``rounds``). The last cell's ``summary`` frame gathers the headline numbers.
"""
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import polars as pl

    from analysis.marker import marker_effect, marker_summary, marker_timing
    from analysis.openings import opening_table
    from analysis.records import connect, notebook_open
    from analysis.stats import wilson_exprs
    from records.store import RunStore
    return (RunStore, connect, marker_effect, marker_summary, marker_timing, mo, notebook_open,
            opening_table, pl, plt, wilson_exprs)


@app.cell
def _(mo):
    from analysis.records import default_run_dir

    default_dir = default_run_dir(mo.cli_args())
    return (default_dir,)


@app.cell
def _(default_dir, mo):
    folder = mo.ui.text(value=default_dir, label="run folder", full_width=True)
    scope = mo.ui.dropdown(options=["game", "round"], value="game",
                           label="openings: first move of the game or of every round")
    mo.vstack([mo.md("# Strategy"), folder, scope])
    return folder, scope


@app.cell
def _(RunStore, folder, mo, notebook_open):
    _shown = folder.value.strip()
    run_dir, _error = notebook_open(_shown)  # a folder, or an s3:// run's local view
    mo.stop(_error is not None, mo.md(f"**{_shown}**: {_error}"))
    _missing = [t for t in ("games", "results", "moves", "rounds") if not RunStore(run_dir).part_files(t)]
    mo.stop(bool(_missing), mo.md(f"**{_shown}**: no `{'`, `'.join(_missing)}` records here."))
    return (run_dir,)


@app.cell
def _(connect, run_dir):
    con = connect(run_dir)  # DuckDB views games, results, moves, rounds over the Parquet parts
    return (con,)


@app.cell
def _(mo):
    mo.md("""
    ## Seat advantage
    Win rate of each seat over all bots (a shared first place counts half), with a Wilson 95%
    interval. Without a seat edge every seat would win 1 / players of its games.
    """)
    return


@app.cell
def _(con, pl, wilson_exprs):
    _points = con.sql("""
        SELECT g.num_players::BIGINT AS num_players, r.seat::BIGINT AS seat, count(*) AS games,
               sum(CASE WHEN r.rank <> 1 THEN 0 WHEN f.firsts = 1 THEN 1 ELSE 0.5 END)::DOUBLE AS points
        FROM results r
        JOIN games g USING (run_id, game_id)
        JOIN (SELECT run_id, game_id, count(*) FILTER (WHERE rank = 1) AS firsts
              FROM results GROUP BY ALL) f
             USING (run_id, game_id)
        GROUP BY ALL ORDER BY num_players, seat
    """).pl()
    seats = _points.with_columns(
        (pl.col("points") / pl.col("games")).alias("win_rate"), *wilson_exprs("points", "games"),
        (1.0 / pl.col("num_players")).alias("expected"))
    seats
    return (seats,)


@app.cell
def _(con, mo, opening_table, scope):
    openings = opening_table(con, scope=scope.value)
    mo.vstack([mo.md(f"""## Openings ({scope.value})
    Each seat's first move ({'of the game' if scope.value == 'game' else 'of every round'}):
    source, tiles taken, line (0 = floor); `opened`: the seat moved first. Win rate and final
    score by opening, per bot."""), openings])
    return (openings,)


@app.cell
def _(con, marker_summary, marker_timing, mo):
    marker = marker_summary(con)
    timing = marker_timing(con)
    mo.vstack([mo.md("""## The centre marker
    Who takes it (`take_rate` per round), at which draft ply of the round (`mean_ply`), the floor
    cost it brought, how often its holder then opens the next round and the wall points that
    round is worth to it over the other seats (`next_edge`)."""), marker])
    return marker, timing


@app.cell
def _(plt, timing):
    _fig, _ax = plt.subplots(figsize=(6, 2.5))
    for (_n,), _part in timing.group_by(["num_players"], maintain_order=True):
        _ax.bar(_part["ply_in_round"].to_list(), _part["share"].to_list(), alpha=0.6,
                label=f"{_n} players")
    _ax.set_xlabel("draft ply of the round when the marker is taken")
    _ax.set_ylabel("share of takes")
    _ax.legend()
    _fig.tight_layout()
    _fig
    return


@app.cell
def _(con, marker_effect, mo):
    try:
        effect = marker_effect(con)
        _note = mo.md("""The effect of taking the marker on winning: a logistic model that controls
        for bot, seat and round (`estimate` in log-odds, `marginal_effect` in win probability,
        intervals robust to the deal); `raw_diff` is the naive difference of win rates.""")
    except ValueError as _exc:
        effect = None
        _note = mo.md(f"The marker's effect could not be fitted: {_exc}")
    mo.vstack([_note, effect if effect is not None else mo.md("")])
    return (effect,)


@app.cell
def _(effect, openings, pl, seats):
    _rows = []
    for _r in seats.filter(pl.col("seat") == 0).iter_rows(named=True):
        _rows.append((f"seat 0 win rate, {_r['num_players']} players", _r["win_rate"],
                      _r["low"], _r["high"], _r["games"]))
    if openings.height:
        _top = openings.sort("n", descending=True).row(0, named=True)
        _rows.append((f"most played opening: {_top['bot']} {_top['source']} {_top['taken']} "
                      f"to line {_top['line']}", _top["win_rate"], _top["low"], _top["high"],
                      _top["n"]))
    if effect is not None:
        for _r in effect.iter_rows(named=True):
            _rows.append((f"marker effect on win probability, {_r['num_players']} players",
                          _r["marginal_effect"], _r["me_low"], _r["me_high"], _r["games"]))
    summary = pl.DataFrame(_rows, schema={"measure": pl.String, "value": pl.Float64,
                                          "low": pl.Float64, "high": pl.Float64,
                                          "games": pl.Int64}, orient="row")
    summary
    return (summary,)


if __name__ == "__main__":
    app.run()
