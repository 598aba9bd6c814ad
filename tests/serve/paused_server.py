"""``allfours serve`` that sleeps at one point of each write of actions, to be killed there (test_restart.py).

    python tests/serve/paused_server.py WHERE SECONDS MARKER -- ARGS...

``WHERE`` is ``in_commit`` (the rows written, not committed) or ``after_commit`` (committed, before the answer);
``MARKER`` is a file written first, so the test knows when to kill. The rest are ``allfours serve``'s arguments.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from allfours.cli import serve


def pause_at(where: str, seconds: float, marker: str):
    def on_commit(point: str) -> None:
        if point == where:
            Path(marker).write_text(point)
            time.sleep(seconds)

    return on_commit


if __name__ == "__main__":
    where, seconds, marker, sep, *args = sys.argv[1:]
    assert where in ("in_commit", "after_commit") and sep == "--", sys.argv
    sys.exit(serve.main(args, on_commit=pause_at(where, float(seconds), marker)))
