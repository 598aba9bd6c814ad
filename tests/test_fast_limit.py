"""The conftest's limit on unmarked tests (tests/conftest.py): a test that does more than the limit's worth of
work without a sorting marker fails, naming the marker; a marked one, a quick one and one that only waits pass.
The limit is set to 0.05 s through ``ALLFOURS_FAST_LIMIT`` so that the dummy tests stay short."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")
DUMMY = """
import time

import pytest


def burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_busy_unmarked():
    burn(0.15)


@pytest.mark.slow
def test_busy_slow():
    burn(0.15)


@pytest.mark.ray
def test_busy_ray():
    burn(0.15)


def test_quick():
    burn(0.01)


def test_waits_without_working():
    time.sleep(0.15)  # wall time, next to no CPU: a loaded machine looks like this and must not fail


def test_busy_and_failing_reports_its_own_failure():
    burn(0.15)
    assert 1 == 2
"""


@pytest.fixture
def dummy(pytester):
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makeini("[pytest]\nmarkers =\n    slow: s\n    ray: r\n    browser: b\n    subprocess: p\n")
    pytester.makepyfile(test_dummy=DUMMY)
    return pytester


def test_an_unmarked_test_over_the_limit_fails_naming_the_marker(dummy, monkeypatch):
    monkeypatch.setenv("ALLFOURS_FAST_LIMIT", "0.05")
    result = dummy.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines([
        "*_ test_busy_unmarked _*",
        "unmarked test took * s (over 0.05 s, ALLFOURS_FAST_LIMIT): mark it @pytest.mark.slow*"])
    # a test that fails on its own keeps its own failure, not the limit's
    result.stdout.fnmatch_lines(["FAILED test_dummy.py::test_busy_and_failing_reports_its_own_failure - assert*"])


def test_the_limit_is_off_at_zero_and_a_bad_value_is_one_line(dummy, monkeypatch):
    monkeypatch.setenv("ALLFOURS_FAST_LIMIT", "0")
    dummy.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=5, failed=1)
    monkeypatch.setenv("ALLFOURS_FAST_LIMIT", "five")
    result = dummy.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ALLFOURS_FAST_LIMIT must be a number of seconds, got 'five'"])
    assert "Traceback" not in result.stderr.str()
