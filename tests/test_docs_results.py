"""docs/results/ (the record: dated pages, their plots and raw results) and the figures under docs/:
every raw results file is cited by its path in a doc (README.md, docs/*.md, docs/results/*.md,
checkpoints/*.md: the doc that gives its figures and the command they came from), every docs/results/
path a doc cites is a file there (named in full: no wildcard or placeholder; weights, which are not
kept, excepted), no weights are kept under docs/, and every image under docs/ is linked from a doc."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(RESULTS.glob("*.md")),
        *sorted((ROOT / "checkpoints").glob("*.md"))]
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"}
# Not raw results: the record's pages (in DOCS) and plots (linked, checked below), and weights, which a
# command remakes (the doc citing them gives it) and which are not kept (docs/results/.gitignore).
NOT_RESULTS = {".md", ".pt", *IMAGE_SUFFIXES}
# A cited path: docs/results/ and a name, up to the backtick, quote, bracket, comma or space after it.
# Wildcards and placeholders (*, <preset>, {a,b}) are taken in, so that the test can refuse them.
CITED = re.compile(r"docs/results/([^\s`'\"(),;\]|]*[^\s`'\"(),;\]|.:])")
# Markdown links and images, [text](target) and ![alt](<target> "title"), and reference definitions.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)


def cited_results(text: str) -> list[str]:
    """The names under docs/results/ that ``text`` cites by path (code blocks included: a command's
    ``--json docs/results/x.json`` cites its output)."""
    return CITED.findall(text)


def citations() -> dict[str, set[str]]:
    """Each cited name under docs/results/ and the docs that cite it."""
    found: dict[str, set[str]] = {}
    for doc in DOCS:
        for name in cited_results(doc.read_text()):
            found.setdefault(name, set()).add(str(doc.relative_to(ROOT)))
    return found


def results_files() -> list[str]:
    """The raw results under docs/results/ (dotfiles such as its .gitignore left out)."""
    return sorted(str(p.relative_to(RESULTS)) for p in RESULTS.rglob("*")
                  if p.is_file() and p.suffix.lower() not in NOT_RESULTS and not p.name.startswith("."))


def linked_files(doc: Path) -> set[Path]:
    """The files of the repository ``doc`` links to (relative targets, anchors dropped)."""
    text = doc.read_text()
    targets = LINK.findall(text) + REFDEF.findall(text)
    return {(doc.parent / t.split("#", 1)[0]).resolve() for t in targets
            if not t.startswith(("http://", "https://", "mailto:", "#"))}


def test_the_results_folder_is_there():
    assert results_files(), "docs/results/ holds no files"


@pytest.mark.parametrize("name", results_files())
def test_every_results_file_is_cited_by_a_doc(name):
    citing = citations().get(name)
    assert citing, (f"docs/results/{name} is cited by no doc: cite it as `docs/results/{name}` where its figures "
                    "and their command are given (README.md, docs/*.md or checkpoints/*.md), or delete it if a "
                    "later file supersedes it")


@pytest.mark.parametrize("name", results_files())
def test_every_results_file_is_json(name):
    if name.endswith(".json"):
        json.loads((RESULTS / name).read_text())


def test_every_cited_results_path_is_a_file():
    # or a folder of them, as a command's --out names it (its files are cited one by one above)
    # weights (.pt) are remade by the command the citing doc gives, not kept
    wrong = {name: sorted(docs) for name, docs in citations().items() if not name.endswith(".pt")
             and not ((RESULTS / name).is_file() or (RESULTS / name).is_dir() and any((RESULTS / name).iterdir()))}
    assert not wrong, ("docs cite paths under docs/results/ that are no file there (name each file in full; "
                       f"a command whose output is not kept writes elsewhere): {wrong}")


def test_no_weights_are_kept_under_docs():
    """Checkpoints a command remakes are not committed (the learning curve's are remade by
    benchmarks/learning_curve.py, docs/results/learning_curve_seven_up.md); the shipped bots live in checkpoints/."""
    git = shutil.which("git")
    proc = (subprocess.run([git, "ls-files", "docs"], cwd=ROOT, capture_output=True, text=True, timeout=60)
            if git else None)
    if proc is None or proc.returncode != 0:
        pytest.skip("not a git checkout")
    weights = [name for name in proc.stdout.splitlines() if name.endswith((".pt", ".pth", ".onnx", ".zip"))]
    assert not weights, f"weights committed under docs/ (remake them by the command their doc gives): {weights}"


def test_every_image_under_docs_is_linked_from_a_doc():
    images = sorted(p.resolve() for p in (ROOT / "docs").rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    assert images, "no image under docs/"
    linked = set().union(*(linked_files(doc) for doc in DOCS))
    unlinked = [str(p.relative_to(ROOT)) for p in images if p not in linked]
    assert not unlinked, f"images under docs/ that no doc links to ([caption](file.png) where it is read): {unlinked}"


def test_the_checks_catch_what_they_look_for():
    text = ("raw output `docs/results/a.json`, `docs/results/b_*.json`; see docs/results/<preset>.json.\n"
            "```sh\nallfours eval ... --json docs/results/c.json\n```\n"
            "(`git log -p docs/results/`) and docs/results/d.json.")
    assert cited_results(text) == ["a.json", "b_*.json", "<preset>.json", "c.json", "d.json"]
    assert LINK.findall("![a plot](learning.png) [page](other.md#part) [web](https://x.org)") == [
        "learning.png", "other.md#part", "https://x.org"]
