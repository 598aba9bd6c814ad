"""Docstrings and docs name modules one way, by import path, and every name they give exists.

A module moved or renamed leaves its old name behind in prose that no import checks: here every dotted
``allfours...``/``allfours_env...`` name in the source and the user's docs must import (or be an attribute of
what imports), and no product module names another by its file path (``agents/players/search.py``).
``docs/results`` is the dated record: it keeps the names of its day.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"\b(allfours(?:_env)?(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
FILE_PATH = re.compile(r"(?<![\w/])(agents|train|allfours_env|allfours)/[A-Za-z_/]+\.py\b")
NOT_MODULES = {"allfours.match"}  # the play page's localStorage key
WILDCARDS = ("_",)  # ``symmetry.SYM_*``: a family of names


def _files(*suffixes: str) -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs the git checkout")
    # the files of the working tree, a move not yet committed included
    return [ROOT / f for f in listed.split()
            if f.endswith(suffixes) and not f.startswith("docs/results/") and (ROOT / f).exists()]


def _exists(name: str) -> bool:
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError as e:
            if e.name and not e.name.startswith("allfours"):
                return True  # an optional dependency (ray, onnx) is missing: the module is there
            continue
        except ImportError as e:  # Ray without its extras raises a plain ImportError, named or not
            if not (e.name or "").startswith("allfours") and importlib.util.find_spec(".".join(parts[:k])):
                return True
            continue
        for i, attr in enumerate(parts[k:], start=k):
            if not hasattr(obj, attr):  # a family of names (``SYM_*``) may end the name
                return i == len(parts) - 1 and attr.endswith(WILDCARDS)
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.slow  # imports every module it finds: about 5 s
def test_every_module_name_in_the_source_and_docs_exists():
    names = {}
    for path in _files(".py", ".md"):
        for m in NAME.finditer(path.read_text(errors="replace")):
            name = m.group(1)
            if "__main__" not in name and name not in NOT_MODULES:
                names.setdefault(name, path.relative_to(ROOT))
    bad = [f"{where}: {name}" for name, where in sorted(names.items()) if not _exists(name)]
    assert not bad, "names that do not import (a module moved? name it by its import path):\n" + "\n".join(bad)


def test_product_modules_name_modules_by_import_path():
    bad = []
    for path in _files(".py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in ("agents", "train", "allfours", "allfours_env"):
            continue
        bad += [f"{rel}: {m.group(0)}" for m in FILE_PATH.finditer(path.read_text())]
    assert not bad, "name modules by import path (allfours.agents.players.search), not file path:\n" + "\n".join(bad)
