"""``python tests/train/slow_save.py SECONDS ARGS...``: the ``allfours ARGS`` command in which every checkpoint
save after the first stop signal waits SECONDS first, so that a test can send a further signal while the
stop's save is under way (test_train_signals.py). Test code only: it wraps ``RunStop.request`` and
``Trainer.save`` in this process before the command starts."""

from __future__ import annotations

import sys
import time

from allfours.cli import main
from allfours.train.stopping import RunStop
from allfours.train.trainer import Trainer


def slow_saves_after_a_stop(seconds: float) -> None:
    request, save = RunStop.request, Trainer.save
    stopping = []

    def noting_request(self, *args, **kwargs):
        stopping.append(True)
        return request(self, *args, **kwargs)

    def slow_save(self, *args, **kwargs):
        if stopping:  # the save runs with RunStop.saving set: a signal now comes during it
            time.sleep(seconds)
        return save(self, *args, **kwargs)

    RunStop.request = noting_request
    Trainer.save = slow_save


if __name__ == "__main__":
    slow_saves_after_a_stop(float(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
