"""docs/protocol.md: every documented request gets the documented answer from a live app."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from allfours.serve.app import create_app
from allfours_env import __version__

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
PAIRS = re.findall(r"<!-- example -->\n```json\n(.*?)\n```.*?```json\n(.*?)\n```", DOC.read_text(), re.S)
# Every "version" the doc shows (answers, /v1/health, /v1/bots, JSON lines), with its line number.
VERSIONS = [(DOC.read_text().count("\n", 0, m.start()) + 1, m.group(1))
            for m in re.finditer(r'"version"\s*:\s*"([^"]*)"', DOC.read_text())]
# A neural bot answers with its checkpoint's code version: the package version it was trained with,
# the commit and the date (agents/network/checkpoint.py), e.g. "0.1.0+1a2b3c4 (2025-01-01T12:00:00+0000)".
CHECKPOINT_VERSION = re.compile(r"\d+\.\d+\.\d+\+[0-9a-f]{7,40}(?:\.dirty)? \([^)]+\)")


def test_the_doc_has_an_example_for_every_preset():
    presets = {json.loads(req)["preset"] for req, _ in PAIRS}
    assert presets == {"yorkshire", "traditional", "seven_up", "pitch", "setback"} and len(PAIRS) >= 8


@pytest.mark.parametrize("req,answer", PAIRS, ids=[json.loads(r)["id"] for r, _ in PAIRS])
def test_documented_example(req, answer):
    with TestClient(create_app(["heuristic", "random", "search"]), base_url="http://127.0.0.1") as c:
        got = c.post("/v1/act", json=json.loads(req)).json()
    want = json.loads(answer)
    assert want["bot"]["version"] == got["bot"]["version"] == __version__
    assert got == want


def test_the_versions_shown_are_the_packages():
    """The doc shows the version the server says: the package's, or a checkpoint's code version for a neural bot."""
    assert len(VERSIONS) >= 10
    wrong = [(line, v) for line, v in VERSIONS if v != __version__ and not CHECKPOINT_VERSION.fullmatch(v)]
    assert not wrong, f"docs/protocol.md shows versions other than the package's {__version__!r}: {wrong}"
    with TestClient(create_app(["heuristic"]), base_url="http://127.0.0.1") as c:
        assert c.get("/v1/health").json()["version"] == __version__
        assert c.get("/v1/bots").json()["bots"][0]["version"] == __version__
