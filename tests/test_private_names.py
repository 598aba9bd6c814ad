"""Only the rules engine touches a GameState's private parts (issue 31: the engine owns deals, hidden
cards and events).

Outside ``allfours_env`` (agents/, train/, allfours/, benchmarks/, examples/), no module reads or
writes ``x._name`` where ``_name`` is a private attribute or method of ``GameState``: what another
module needs of a state is public engine API (``legal_from``, ``with_hands``, ``current_deal``,
``why_illegal``, ``apply_with_events``, ...). ``self._name`` is a class's own business and is not
counted. Every file is parsed with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "allfours_env" / "engine.py"
OUTSIDE = ("agents", "train", "allfours", "benchmarks", "examples")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def gamestate_private_names() -> set[str]:
    """The private names of ``GameState``: methods and attributes of its class body, the ``self._x`` it
    assigns, and the fields of ``FIELDS`` (its slots)."""
    tree = ast.parse(ENGINE.read_text(), str(ENGINE))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "FIELDS" for t in node.targets):
            names |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                      and _private(c.value)}
        if isinstance(node, ast.ClassDef) and node.name == "GameState":
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(item.name):
                    names.add(item.name)
                elif isinstance(item, ast.Assign):
                    names |= {t.id for t in item.targets if isinstance(t, ast.Name) and _private(t.id)}
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) and _private(sub.attr)
                        and isinstance(sub.value, ast.Name) and sub.value.id in ("self", "s", "c")):
                    names.add(sub.attr)
    return names


def uses(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every ``x._name`` in the file with ``_name`` in ``names`` and ``x`` not ``self``/``cls``."""
    tree = ast.parse(path.read_text(), str(path))
    return [(node.lineno, node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in names
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]


def test_the_private_names_are_found():
    names = gamestate_private_names()
    assert {"_legal", "_compute_legal", "_clear_deal", "_deal_cards", "_score_hand", "_award"} <= names
    assert not any(n.startswith("__") for n in names)


def test_the_check_catches_a_use(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(state, w):\n    state._legal = -1\n    return w._compute_legal()\n\n\n"
                      "class A:\n    def g(self):\n        return self._play()\n")
    assert uses(sample, gamestate_private_names()) == [(2, "_legal"), (3, "_compute_legal")]


def test_no_module_outside_the_engine_touches_a_gamestate_private_name():
    names = gamestate_private_names()
    files = [p for folder in OUTSIDE for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 50
    bad = [f"{p.relative_to(ROOT)}:{line} .{name}" for p in files for line, name in uses(p, names)]
    assert not bad, ("private GameState names used outside allfours_env (use or add public engine API):\n"
                     + "\n".join(bad))
