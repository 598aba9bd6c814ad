"""README.md, ARCHITECTURE.md and docs/**/*.md: the README's Python runs as printed, its set-up commands are there, and
every relative link points at a file of the repository; and no file of the repository cites a rules
text outside it (the rules a user has are docs/rules.md, cited by its section numbers)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = (sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "results").glob("*.md"))
        + sorted((ROOT / "checkpoints").glob("*.md")) + [ROOT / "ARCHITECTURE.md"])
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# Inline links and images, [text](target "title"), and reference definitions, [label]: target.
INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
EXTERNAL = ("http://", "https://", "mailto:", "#")
# A rules text outside the repository, cited by its folder ("../shared", "/shared/"), a file's name ("SPEC.md",
# a rule text's "000_abc7a9a23a003b27.txt") or the word SPEC in any form: "SPEC section 6", "SPEC sections 1-5",
# "section 6 of SPEC", "SPEC §6", "SPEC 2-5", "SPEC 1/4", "SPEC:", "the SPEC" (and "Spec section 6", "spec §6").
CITATION = re.compile(r"(?i:\bspec(?:ification)?\s*(?:§\s*\d*|sections?\s*\d+)"
                      r"|\bsections?\s+\d[\d\s,\-–and]*\bof\s+(?:the\s+)?spec(?:ification)?\b|\bspec(?:ification)?\.md\b)"
                      r"|\.\./shared|/shared/|\b\d{3}_[0-9a-f]{16}\.txt\b|\bSPEC\b(?: ?\d+)?")
# The word SPEC where it cites nothing: a Python name (SPEC = ..., SPEC.loader, f(SPEC)). Command-line
# metavars say AGENT, so that no help text or doc shows a bare SPEC.
NOT_CITATION = re.compile(r'\bSPEC\s*=(?!=)|\bSPEC\.(?!md\b)\w|\w\(SPEC\)')
# The files of the repository a user clones that can hold a citation (this file names the forms on purpose).
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".toml", ".yaml", ".yml", ".sh", ".txt", ".cfg", ".ini", ".json"}
NOT_IN_A_CLONE = {".git", ".venv", "venv", "runs", "build", "dist", "node_modules", "__pycache__", ".pytest_cache",
                  ".ruff_cache"}


def citations(text: str) -> list[tuple[int, str]]:
    """(line, text) of each citation of a rules text outside the repository in ``text``."""
    allowed = [m.span() for m in NOT_CITATION.finditer(text)]
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in CITATION.finditer(text)
            if not any(a <= m.start() < b for a, b in allowed)]


def repository_files(root: Path = ROOT) -> list[Path]:
    """The text files of a clone: git's tracked and untracked-but-not-ignored files, else a walk of ``root``."""
    git = shutil.which("git")
    proc = subprocess.run([git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                          capture_output=True, text=True, timeout=60) if git else None
    if proc is not None and proc.returncode == 0 and proc.stdout:
        paths = [root / name for name in proc.stdout.split("\0") if name]
    else:
        paths = [p for p in root.rglob("*") if not NOT_IN_A_CLONE.intersection(p.relative_to(root).parts)
                 and not any(part.endswith(".egg-info") for part in p.relative_to(root).parts)]
    return sorted(p for p in paths if p.is_file() and (p.suffix in TEXT_SUFFIXES or p.parent.name == ".ci"))


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
@pytest.mark.subprocess
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
    found = citations(path.read_text())
    assert not found, f"{path.relative_to(ROOT)} cites (line, text) {found}: the rules live in docs/rules.md"


def test_no_file_of_the_repository_cites_a_rules_text_outside_it():
    """Code, tests, docs and pages cite docs/rules.md by section ("docs/rules.md section 6"), never a SPEC."""
    files = [p for p in repository_files() if p != Path(__file__).resolve()]
    assert any(p.name == "engine.py" for p in files), "the repository's files were not found"
    found = [f"{p.relative_to(ROOT)}:{line}: {text}" for p in files
             for line, text in citations(p.read_text(errors="replace"))]
    if found:  # pytest.fail, not assert: the list once, one citation a line
        pytest.fail(f"{len(found)} citations of a rules text outside the repository (cite docs/rules.md section N;"
                    " its sections 1-6 are the ones cited):\n" + "\n".join(found), pytrace=False)


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
    forms = ["../shared", "SPEC.md", "/shared/", "003_10a6efb2abdaf8d2.txt", "SPEC section 6", "SPEC sections 1",
             "section 6 of SPEC", "sections 2-5 of the SPEC", "SPEC §6", "SPEC § 6", "SPEC 2", "SPEC 1", "SPEC",
             "SPEC", "Spec section 4", "spec §5", "SPEC"]
    text = ("see ../shared/SPEC.md, /work/shared/seeds/003_10a6efb2abdaf8d2.txt, SPEC section 6, SPEC sections 1-5,\n"
            "section 6 of SPEC, sections 2-5 of the SPEC, SPEC §6, SPEC § 6, (SPEC 2-5), SPEC 1/4, SPEC: suits,\n"
            "as the SPEC says, Spec section 4, spec §5, (SPEC)")
    assert [t for _, t in citations(text)] == forms
    assert [line for line, _ in citations(text)][-1] == 3
    assert [t for _, t in citations('allfours serve --bot SPEC ... metavar="SPEC"')] == ["SPEC", "SPEC"]
    not_citations = ('allfours serve --bot AGENT ...; SPEC = spec_from(x)\n'
                     "module_from_spec(SPEC); SPEC.loader.exec_module(m); an agent spec, specs; SPECIAL, SPEC_X;"
                     " docs/rules.md section 6")
    assert citations(not_citations) == []
