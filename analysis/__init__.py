"""Analysis of league records: read the Parquet tables of one or more runs, fit ratings.

Knows nothing of Ray, the tournament or the bots: it reads the folders a league leaves
(docs/league.md) and nothing else. See docs/analysis.md.
"""
from .elo import EloFit, elo_table, fit_elo
from .records import TABLES, read_records, read_table

__all__ = ["TABLES", "EloFit", "elo_table", "fit_elo", "read_records", "read_table"]
