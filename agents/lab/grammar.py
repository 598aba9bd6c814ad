"""The research players' spec grammar (``experimental:<name>``): each one's options and shorthands. The stable
parser (``allfours.agents.spec``) loads it by name when it meets an experimental spec; the builders are in
``allfours.agents.lab.experimental``."""

from __future__ import annotations

from typing import Any

from ..spec.grammar import SEARCH_OPTIONS, TARGET

_SEARCH_ONLY = {k: t for k, t in SEARCH_OPTIONS.items() if k not in ("worlds", "time")}
EXPERIMENTAL_OPTIONS: dict[str, dict[str, Any]] = {
    "pitch": {**SEARCH_OPTIONS, "tries": int},
    "infer": {**SEARCH_OPTIONS, "k": int, "eps": float},
    "prefer": {**SEARCH_OPTIONS, "margin": float},
    "nested": {**SEARCH_OPTIONS, "inner": int},
    "model": {**SEARCH_OPTIONS, "opponent": str},
    "search-play": {"worlds": int, "seed": int},
    "sparta": {"blueprint": TARGET, "worlds": int, "candidates": int, "beliefs": str, "margin": int, "value": str,
               "seed": int},
    "clairvoyant": _SEARCH_ONLY,
    "partner": SEARCH_OPTIONS,
    "partner-play": SEARCH_OPTIONS,
    "oracle": {"exact": int, "seed": int},
}

def parse_nested(text: str) -> dict:
    """``"24x8"`` -> ``{"worlds": 24, "inner": 8}``: the shorthand of ``experimental:nested:OxI``."""
    outer, _, inner = text.strip().partition("x")
    if not (outer.isdigit() and inner.isdigit() and int(outer) > 0 and int(inner) > 0):
        raise ValueError(f"nested spec must be experimental:nested:OxI with positive world counts, got {text!r}")
    return {"worlds": int(outer), "inner": int(inner)}


SHORTHANDS = {"nested": parse_nested}
