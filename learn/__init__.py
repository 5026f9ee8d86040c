"""Learning the MCTS bot's value of a round's end from game records (docs/train.md).

``learn.data`` turns recorded games into training positions (Parquet shards), ``learn.model``
trains a small value network on them in numpy and writes the file the compiled evaluator loads
(``mcts:evaluator=value``, bots/_evaluators.pyx). ``kinds.train``, a run kind above it, runs
``azul train``: generations of self-play through the league machinery, training on a window,
gating by SPRT. learn itself plays nothing: it reads records and fits models.
"""
