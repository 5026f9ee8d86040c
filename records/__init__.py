"""The record format of a league (SPEC section 5), below both its writers (``tournament``, the
synthetic runs of ``analysis``) and its readers (``analysis``): imports only pyarrow and numpy.

- ``records.columns``: the column table (name, Arrow type, table, who fills it, dictionary or not)
  and the schemas derived from it.
- ``records.tables``: ``build_table``, the one way a writer turns per-column values into a table;
  ``coded`` (dictionary columns from lookups); ``RecordBuffer`` (rows appended one at a time).
- ``records.parts``: the part files and their commit protocol (temporary name, rename, ``games``
  last); ``PartWriter`` (a task's part ids carry its driver's token: ``reserve_for_task``).
- ``records.writer``: ``BufferedWriter`` (parts written on a thread of their own) and
  ``Committed`` (the receipt of a part a task wrote itself).
- ``records.folder``: the run's id (``run.json``) and the quarantine.
- ``records.checks``: the checks every reader makes first (``check_run_dir``, ``DamagedRecords``),
  and ``naming_damage`` around its reads (damage inside a part's pages, found by a full read).
- ``records.read``: one table of one run folder read back (committed parts only).
- ``records.interface``: ``RunStore``, the abstract base of a run's bytes, parts, lock and side tables.
- ``records.store``: ``open_store`` (the factory, the one place a URL is told from a path: a
  ``FolderStore``, or for ``s3://BUCKET/PREFIX`` a ``records.s3store.S3RunStore``, its lock
  ``records.s3lock``, its requests ``records.objects``, its URL ``records.urls``; boto3 there only)
  and ``open_root`` (a ``RunsRoot``: an ``--out`` or a served root, which holds runs).
- ``records.side``: the tables beside the games (``names.SIDE_TABLES``: ``reviews/``) in a folder.

See docs/league.md, Records.
"""
