"""Shared fixtures.

The markers (pyproject.toml) sort out the tests a maintainer may leave out of a quick run: ``slow``
(a few seconds or more each), ``ray`` (a local Ray cluster), ``browser`` (Chromium) and ``subprocess``
(the ``allfours`` command or a server as a child process). The fast set:
``python -m pytest -m "not slow and not ray and not browser and not subprocess"``.
"""

from __future__ import annotations

import pytest


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
