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
- ``records.store``: ``RunStore`` (a run's bytes, parts and lock through one interface) and
  ``open_store`` (a folder, or ``s3://BUCKET/PREFIX``: ``records.s3store.S3RunStore``, its lock
  ``records.s3lock``, its requests ``records.objects``, its URL ``records.urls``; boto3 there only).

See docs/league.md, Records.
"""
