"""The play page's rules (allfours/serve/static/rules.json: the explanation of each decision and the Rules panel)
are docs/rules.md's own words: every sentence the page shows is found there, so the page invents no rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = json.loads((ROOT / "allfours" / "serve" / "static" / "rules.json").read_text())


def normal(text: str) -> str:
    """Without Markdown's code marks, with single spaces."""
    return " ".join(text.replace("`", "").split())


DOC = normal((ROOT / "docs" / "rules.md").read_text())


def sentences(x, where=""):
    if isinstance(x, str):
        yield where, x
    elif isinstance(x, list):
        for k, v in enumerate(x):
            yield from sentences(v, f"{where}[{k}]")
    elif isinstance(x, dict):
        for k, v in x.items():
            if k not in ("title", "source"):
                yield from sentences(v, f"{where}.{k}")


SENTENCES = list(sentences(RULES))


@pytest.mark.parametrize("where,text", SENTENCES, ids=[w for w, _ in SENTENCES])
def test_every_sentence_is_in_the_rules(where, text):
    assert normal(text).rstrip(".") in DOC, f"{where}: not in docs/rules.md: {text!r}"


def test_every_decision_and_preset_is_explained():
    assert set(RULES["decisions"]) >= {"stand_or_beg", "give_or_run", "throw_in", "trump_led", "suit_led", "pitch",
                                       "lead", "suit_led_must_follow", "bid"}
    assert set(RULES["presets"]) == {"yorkshire", "traditional", "seven_up", "pitch", "setback"}
    for preset in RULES["presets"].values():
        assert preset["about"] and preset["trump"] and preset["jack"]


def test_the_page_uses_every_decisions_words():
    js = (ROOT / "allfours" / "serve" / "static" / "play.js").read_text()
    for key in RULES["decisions"]:
        assert f'"{key}"' in js, key
