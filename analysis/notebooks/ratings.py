"""Ratings of a league run: a marimo notebook.

    marimo edit analysis/notebooks/ratings.py -- --run-dir runs/quick
    python analysis/notebooks/ratings.py -- --run-dir runs/quick      # headless

The run folder comes from ``--run-dir``, else the ``AZUL_RUN_DIR`` environment variable, else
``runs/quick``; the text box at the top changes it. An ``s3://BUCKET/PREFIX/run`` URL opens a run
on object storage (through its local view; the endpoint and credentials come from the AWS
environment). The last cell's ``ratings`` frame holds every player count's ratings with their 95%
intervals.
"""
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import polars as pl

    from analysis.ratings import rate_by_players
    from analysis.records import connect, notebook_open
    return connect, mo, notebook_open, pl, plt, rate_by_players


@app.cell
def _(mo):
    from analysis.records import default_run_dir

    default_dir = default_run_dir(mo.cli_args())
    return (default_dir,)


@app.cell
def _(default_dir, mo):
    folder = mo.ui.text(value=default_dir, label="run folder", full_width=True)
    bootstrap = mo.ui.number(start=0, stop=2000, step=50, value=200, label="bootstrap resamples")
    mo.vstack([mo.md("# Ratings"), folder, bootstrap])
    return bootstrap, folder


@app.cell
def _(connect, folder, mo, notebook_open):
    run_dir, _error = notebook_open(folder.value)  # a folder, or an s3:// run's local view
    try:  # the checked parts of each table, file by file
        con = connect(run_dir) if _error is None else None
    except ValueError as exc:
        con, run_dir, _error = None, None, str(exc)
    mo.stop(_error is not None, mo.md(f"**{folder.value.strip()}**: {_error}"))
    return con, run_dir


@app.cell
def _(con):
    games = con.sql("SELECT * FROM games").pl()
    results = con.sql("SELECT * FROM results").pl()  # the view keeps recorded games only
    return games, results


@app.cell
def _(con):
    by_bot = con.sql("""
        SELECT bot, num_players, count(*) AS games,
               count(*) FILTER (WHERE rank = 1) AS firsts,
               round(avg(score), 1) AS mean_score
        FROM results r
        JOIN games g USING (run_id, game_id)
        GROUP BY bot, num_players ORDER BY num_players, firsts DESC
    """).pl()
    by_bot
    return (by_bot,)


@app.cell
def _(bootstrap, games, rate_by_players, results):
    fits = rate_by_players(results, games, bootstrap=int(bootstrap.value), seed=0)
    return (fits,)


@app.cell
def _(fits, mo):
    _parts = []
    for _n, _fit in fits.items():
        _edge = ", ".join(f"{x:+.0f}" for x in _fit.first_move)
        _parts += [mo.md(f"## {_n} players\nfirst mover's edge (rating, low, high): {_edge}"),
                   _fit.table,
                   mo.md("Likelihood of superiority (row rated above column, share of resamples)"),
                   _fit.superiority]
        if _fit.unbounded:
            _parts.append(mo.md(f"won every game or none (rating only a bound): "
                                f"{', '.join(_fit.unbounded)}"))
    mo.vstack(_parts)
    return


@app.cell
def _(fits, plt):
    _fig, _axes = plt.subplots(len(fits), 1, figsize=(6, 1 + 2.2 * len(fits)), squeeze=False)
    for _ax, (_n, _fit) in zip(_axes[:, 0], fits.items()):
        _t = _fit.table.sort("rating")
        _y = range(_t.height)
        _lo = (_t["rating"] - _t["low"]).fill_nan(0).fill_null(0).to_list()
        _hi = (_t["high"] - _t["rating"]).fill_nan(0).fill_null(0).to_list()
        _ax.errorbar(_t["rating"].to_list(), list(_y), xerr=[_lo, _hi], fmt="o", capsize=3)
        _ax.set_yticks(list(_y), _t["bot"].to_list())
        _ax.set_title(f"{_n} players: rating and 95% interval")
        _ax.axvline(0, color="grey", lw=0.5)
    _fig.tight_layout()
    _fig
    return


@app.cell
def _(fits, pl):
    ratings = pl.concat([
        _fit.table.select(pl.lit(_n).alias("num_players"), "bot", "games", "rating", "low", "high")
        for _n, _fit in fits.items()])
    ratings
    return (ratings,)


if __name__ == "__main__":
    app.run()
