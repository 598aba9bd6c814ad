"""Shared fixtures.

The markers (pyproject.toml) sort out the tests a maintainer may leave out of a quick run: ``slow``
(over about 2 s each), ``ray`` (a local Ray cluster), ``browser`` (Chromium) and ``subprocess``
(the ``allfours`` command or a server as a child process). The fast set:
``python -m pytest -m "not slow and not ray and not browser and not subprocess"``.

An unmarked test must stay fast: ``pytest_runtest_call`` below fails one whose call phase takes over
``ALLFOURS_FAST_LIMIT`` seconds (5 unless set; 0 turns the check off), naming the marker to add. The time
measured is the smaller of the wall time and this process's CPU time: other processes on a loaded machine
stretch the wall time but not the CPU time, and torch's threads add CPU time but not wall time, so only a
test that does more than the limit's worth of work fails, not one that ran beside a busy neighbour. (A test
that mostly waits, on a server's timeout say, spends little CPU and is not caught: mark it by hand.)
"""

from __future__ import annotations

import os
import time

import pytest

SORTING_MARKERS = ("slow", "ray", "browser", "subprocess")
FAST_LIMIT_S = 5.0


def pytest_configure(config):
    global FAST_LIMIT_S
    raw = os.environ.get("ALLFOURS_FAST_LIMIT", "5")
    try:
        FAST_LIMIT_S = float(raw)
    except ValueError:
        raise pytest.UsageError(f"ALLFOURS_FAST_LIMIT must be a number of seconds, got {raw!r}") from None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Fail an unmarked test whose call phase runs over the fast limit (see the module docstring)."""
    limit = FAST_LIMIT_S
    if limit <= 0 or any(item.get_closest_marker(m) for m in SORTING_MARKERS):
        yield
        return
    wall, cpu = time.perf_counter(), time.process_time()
    outcome = yield
    took = min(time.perf_counter() - wall, time.process_time() - cpu)
    if took > limit and outcome.excinfo is None:
        outcome.force_exception(pytest.fail.Exception(
            f"unmarked test took {took:.1f} s (over {limit:g} s, ALLFOURS_FAST_LIMIT): mark it "
            "@pytest.mark.slow (or ray/browser/subprocess), or make it faster", pytrace=False))


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items):
    """Every test that asks for ``local_ray`` is a ``ray`` test, marked or not."""
    for item in items:
        if "local_ray" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)


@pytest.fixture(scope="module")
def local_ray():
    """A private Ray on this machine with 2 CPUs, started as ``allfours eval`` and ``allfours train`` start
    one (``ray_eval.connect("local")``: the process's signal handlers are put back), and shut down after the
    module. Module scope, not session: a Ray left running would sit through the rest of the suite on a
    2-core machine, and the tests that need no Ray started in this process (test_ray_eval.py) would then
    depend on the order of the files."""
    ray = pytest.importorskip("ray", reason="Ray not installed: pip install '.[ray]'")
    from allfours.agents.evaluation import ray_eval

    if ray.is_initialized():
        ray.shutdown()
    ray_eval.connect("local", num_cpus=2)
    yield ray
    ray.shutdown()
