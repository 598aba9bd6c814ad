"""README.md and docs/*.md: the README's Python runs as printed, its set-up commands are there, and
every relative link points at a file of the repository (and none at a spec outside it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "checkpoints").glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# Inline links and images, [text](target "title"), and reference definitions, [label]: target.
INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
EXTERNAL = ("http://", "https://", "mailto:", "#")
# The rules text outside the repository, by path or as "SPEC section 6" ("--bot SPEC" is a metavar, not a citation).
CITATION = re.compile(r"\.\./shared|/shared/|SPEC\.md|\bSPEC (?:sections?|\d)")


def blocks(lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(README.read_text()) if kind == lang]


def links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())  # a link inside a code block is code, not a link
    return INLINE.findall(text) + REFDEF.findall(text)


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; at most 150 (results go to docs/)"


def test_readme_has_an_environment_loop():
    loops = [b for b in blocks("python") if "agent_iter()" in b and "action_mask" in b]
    assert loops, "README.md needs a python block with a PettingZoo AEC loop over agent_iter() using action_mask"


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_readme_python_block_runs(index, tmp_path):
    code = blocks("python")[index]
    # In a fresh folder, so it relies on the installed package and not on files of the checkout.
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"README python block {index + 1} failed:\n{code}\n--- stderr:\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"README python block {index + 1} printed nothing:\n{code}"


def test_readme_has_both_set_up_commands():
    shell = blocks("bash")
    train = [b for b in shell if "python3 -m venv" in b and "allfours train" in b]
    tests = [b for b in shell if "python3 -m venv" in b and 'pip install -e ".[test,ray]"' in b
             and "python -m pytest" in b]
    assert train, "README.md needs one bash block: a fresh venv, the install and `allfours train`"
    assert tests, 'README.md needs one bash block: a fresh venv, pip install -e ".[test,ray]" and python -m pytest'
    for b in train + tests:
        assert "download.pytorch.org/whl/cpu" in b, f"install torch from the CPU wheel index first:\n{b}"
    assert "pip install torch==2.13.0" in README.read_text(), "the CI's torch line must stay visible"


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """Relative link targets of ``path`` that are no file under ``root``."""
    broken = []
    for target in links(path):
        if target.startswith(EXTERNAL):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        if not file.is_relative_to(root) or not file.exists():
            broken.append(target)
    return broken


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_repository_files(path):
    broken = broken_links(path)
    assert not broken, f"{path.relative_to(ROOT)} links to files not in the repository: {broken}"


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_citation_outside_the_repository(path):
    found = sorted({m.group(0) for m in CITATION.finditer(path.read_text())})
    assert not found, f"{path.relative_to(ROOT)} cites {found}: the rules live in docs/rules.md"


def test_the_checks_catch_what_they_look_for(tmp_path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (tmp_path / "outside.md").write_text("")
    (root / "docs" / "pic.png").write_bytes(b"")
    page = root / "docs" / "page.md"
    page.write_text("[ok](page.md) [gone](missing.md#top) ![img](<pic.png>) [up](../../outside.md)\n"
                    "[web](https://example.org) [here](#anchor)\n[ref]: other.md\n"
                    "```\n[code](not-a-link.md)\n```\n")
    assert broken_links(page, root) == ["missing.md#top", "../../outside.md", "other.md"]
    text = "see ../shared/SPEC.md and SPEC section 6; allfours serve --bot SPEC ..."
    assert [m.group(0) for m in CITATION.finditer(text)] == ["../shared", "SPEC.md", "SPEC section"]
