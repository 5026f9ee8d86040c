"""A reader asks who holds a run's lock without taking it (records.folder.lock_holder): a driver
starting while a reader (azul serve's pages, league status) looks never fails with "another
driver" (issue 33). Before, the reader probed with a non-blocking exclusive lock of its own, held
for an instant, and a driver taking the lock in that instant was refused."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from records.folder import RunInUse, lock_holder, take_lock

READER = """
import sys, time
from records.folder import lock_holder
end = time.monotonic() + float(sys.argv[2])
seen = set()
while time.monotonic() < end:
    seen.add(lock_holder(sys.argv[1]))
print(len(seen))
"""


def test_a_reader_never_makes_a_starting_driver_fail(tmp_path):
    reader = subprocess.Popen([sys.executable, "-c", READER, str(tmp_path), "4"], stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)  # the reader is asking, as fast as it can
        refused = 0
        for _ in range(3000):
            try:
                os.close(take_lock(tmp_path))
            except RunInUse:
                refused += 1
        assert refused == 0, f"{refused} of 3000 starts refused while a reader looked"
    finally:
        out, _ = reader.communicate(timeout=30)
    assert reader.returncode == 0 and int(out) >= 1


def test_the_holder_is_seen_by_another_process_and_gone_when_released(tmp_path):
    assert lock_holder(tmp_path) is None
    fd = take_lock(tmp_path)
    ask = [sys.executable, "-c", f"from records.folder import lock_holder; print(lock_holder({str(tmp_path)!r}))"]
    assert subprocess.run(ask, capture_output=True, text=True, check=True).stdout.strip() == str(os.getpid())
    os.close(fd)
    assert subprocess.run(ask, capture_output=True, text=True, check=True).stdout.strip() == "None"
