"""A strategy study (``azul study``): paired effects, what pairing saves, what a league shows.
A marimo notebook.

    marimo edit analysis/notebooks/studies.py -- --run-dir runs/marker-greedy-2p
    python analysis/notebooks/studies.py -- --run-dir runs/marker-greedy-2p      # headless

The run folder comes from ``--run-dir``, else ``AZUL_RUN_DIR``, else ``runs/quick`` (which is a
league, not a study: the notebook then says so); an ``s3://BUCKET/PREFIX/run`` URL opens a study run on
object storage (through its local view). ``effects`` is the table of
``analysis.studies.study_effects``; ``pairs`` the paired rows behind it. docs/studies.md explains
how to read them.
"""
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import polars as pl

    from analysis.records import connect, default_run_dir, notebook_open
    from analysis.studies import is_study, read_study, study_effects, study_pairs
    from records.store import RunStore
    return (RunStore, connect, default_run_dir, is_study, mo, notebook_open, pl, plt, read_study,
            study_effects, study_pairs)


@app.cell
def _(default_run_dir, mo):
    folder = mo.ui.text(value=default_run_dir(mo.cli_args()), label="study run folder", full_width=True)
    mo.vstack([mo.md("# Strategy study"), folder])
    return (folder,)


@app.cell
def _(RunStore, connect, folder, is_study, mo, notebook_open, read_study, study_effects, study_pairs):
    _shown = folder.value.strip()
    run_dir, _error = notebook_open(_shown)  # a folder, or an s3:// run's local view
    mo.stop(_error is not None, mo.md(f"**{_shown}**: {_error}"))
    mo.stop(not RunStore(run_dir).committed(), mo.md(f"**{_shown}**: no game records here."))
    with connect(run_dir) as _con:
        mo.stop(not is_study(_con), mo.md(f"**{_shown}** is a league, not a study: run `azul study`."))
        pairs = study_pairs(_con)
        effects = study_effects(_con, read_study(run_dir))
    mo.vstack([mo.md("""Effect = treatment minus control, per studied seat and game, on the same deals
    and bot seeds; 95% bootstrap over deals. `unpaired_*`: the interval had the games not been
    paired; `width_ratio`: how much wider it is. `obs_*`: the same choice as the control games show
    it, the way a league would."""), effects])
    return effects, pairs


@app.cell
def _(effects, pl, plt):
    _points = effects.filter(pl.col("metric") == "points")
    _fig, _ax = plt.subplots(figsize=(7, 0.6 + 0.5 * _points.height))
    _y = range(_points.height)
    _ax.errorbar(_points["effect"], _y, xerr=[_points["effect"] - _points["low"], _points["high"] - _points["effect"]],
                 fmt="o", label="paired (study)")
    _ax.scatter(_points["obs_effect"], [y + 0.2 for y in _y], marker="x", label="observed (league)")
    _ax.axvline(0, color="grey", lw=0.8)
    _ax.set_yticks(list(_y), _points["intervention"].to_list())
    _ax.set_xlabel("final points: treatment - control")
    _ax.legend(loc="best")
    _fig.tight_layout()
    _fig
    return


if __name__ == "__main__":
    app.run()
