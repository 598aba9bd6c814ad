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

from allfours.agents.serve.app import create_app

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
PAIRS = re.findall(r"<!-- example -->\n```json\n(.*?)\n```.*?```json\n(.*?)\n```", DOC.read_text(), re.S)


def test_the_doc_has_an_example_for_every_preset():
    presets = {json.loads(req)["preset"] for req, _ in PAIRS}
    assert presets == {"yorkshire", "traditional", "seven_up"} and len(PAIRS) >= 6


@pytest.mark.parametrize("req,answer", PAIRS, ids=[json.loads(r)["id"] for r, _ in PAIRS])
def test_documented_example(req, answer):
    with TestClient(create_app(["heuristic", "random", "search"])) as c:
        got = c.post("/v1/act", json=json.loads(req)).json()
    want = json.loads(answer)
    got["bot"].pop("version"), want["bot"].pop("version")
    assert got == want
