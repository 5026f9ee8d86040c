"""``azul serve``: a read-only web view of runs and a table where a person plays the bots (SPEC 10)."""
