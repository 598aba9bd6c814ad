"""No branch on a preset's name outside the rules' table and the engine (ARCHITECTURE.md, "How to add a rule option
or a preset"): everything else asks the table (``allfours_env.rules``: ``Rules.family``, ``ALLOWED_PLAYERS``,
``options_of``, ``fixed_options``) or the rules it is given, so that adding a preset touches ``rules.py``, the
engine and its twin, and nothing that only lists names. As tests/test_layers.py does for imports, this reads the
product's source (Python and the play page's JavaScript) and names each offending line."""

from __future__ import annotations

import re
from pathlib import Path

from allfours_env.rules import ALL_PRESETS

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("allfours_env", "agents", "train", "allfours")
# the rules' table, and the engine with its batched twin (the rules themselves)
ALLOWED = ("allfours_env/rules.py", "allfours_env/engine.py", "allfours_env/vector/")

_NAME = "|".join(sorted(map(re.escape, ALL_PRESETS), key=len, reverse=True))
_LIT = rf"""["']({_NAME})["']"""
_CMP = r"(?:===|!==|==|!=|\bnot in\b|\bin\b)"
# preset == "pitch", "pitch" != preset, preset in ("traditional", "pitch"), preset === "yorkshire" (JavaScript)
BRANCH = re.compile(rf"{_CMP}\s*[(\[{{]?\s*(?:[\"'][\w]+[\"']\s*,\s*)*{_LIT}|{_LIT}\s*{_CMP}")


def branches(text: str) -> list[int]:
    """The numbers of the lines of ``text`` that compare something with a preset's name."""
    return [i for i, line in enumerate(text.splitlines(), 1) if BRANCH.search(line)]


def test_the_pattern_finds_each_kind_of_branch_and_not_a_mere_mention():
    found = ['if preset == "pitch":', "if 'setback' != rules.preset:", 'x = 1 if p in ("traditional", "pitch") else 2',
             'const alone = preset === "pitch";', 'if (state.view.preset !== "yorkshire") go();',
             'if preset not in ["mini2"]:']
    mentioned = ['DEFAULT_PRESET = "seven_up"', 'make_agent("solved:mini2", preset="mini2")',
                 'def new(cls, rules="yorkshire"):', '{"preset": "traditional", "options": {}}',
                 'if preset in AUCTION_PRESETS:', 'if name == "pitchfork":']
    assert branches("\n".join(found)) == list(range(1, len(found) + 1))
    assert branches("\n".join(mentioned)) == []


def test_no_branch_on_a_preset_name_outside_the_table_and_the_engine():
    offending = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".js") or rel.startswith(ALLOWED):
                continue
            text = path.read_text(encoding="utf-8")
            offending += [f"{rel}:{i}: {text.splitlines()[i - 1].strip()}" for i in branches(text)]
    assert not offending, "branches on a preset's name (ask the rules' table):\n" + "\n".join(offending)
