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
# The raw results are JSON reports of these kinds, and nothing else: allfours eval's (--json), allfours exploit's,
# and {"note", "runs": [eval reports]} (runs on the same deals). Their fields, and those of an eval report's rows:
EVAL_FIELDS = {"command", "preset", "players", "seed", "matches_per_pairing", "options", "results", "ratings"}
ROW_FIELDS = {"agent", "opponent", "preset", "players", "matches", "wins", "win_rate", "ci95", "points_per_hand",
              "points_per_hand_ci95", "opponent_points_per_hand", "hands"}
EXPLOIT_FIELDS = {"command", "bot", "exploiter", "preset", "players", "seed", "matches", "matches_planned", "partial",
                  "wins", "win_rate", "ci95", "points_per_hand", "bot_points_per_hand", "hands"}
RUNS_FIELDS = {"note", "runs"}
# allfours exploit --method search (a best response's matches: the win rate's fields and the per-hand figures),
# --method exact (NashConv and the points against the equilibrium on a mini preset), and the mini learners' table
# of benchmarks/mini_learners.py ({"note", "rows"}: a row per agent or learner and budget, each measured exactly).
SEARCH_FIELDS = {"command", "target", "responder", "method", "preset", "players", "seed", "matches", "matches_planned",
                 "partial", "wins", "win_rate", "ci95", "equity_per_hand", "margin_per_hand", "by_type"}
EXACT_FIELDS = {"method", "preset", "nash_conv", "exploitability", "best_response", "vs_equilibrium", "equilibrium"}
LEARNER_FIELDS = {"preset", "row", "agent", "budget", "nash_conv", "vs_equilibrium", "command"}
ROWS_FIELDS = {"note", "rows"}
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


def _has(report: dict, fields: set[str], what: str) -> None:
    missing = sorted(fields - set(report))
    assert not missing, f"{what} lacks {missing}"


def _check_figures(row: dict, what: str) -> None:
    """Wins of matches, the win rate they make, inside its 95% interval."""
    assert isinstance(row["matches"], int) and 0 <= row["wins"] <= row["matches"] and row["matches"] > 0, what
    assert row["win_rate"] == pytest.approx(row["wins"] / row["matches"]), what
    low, high = row["ci95"]
    assert 0 <= low <= row["win_rate"] <= high <= 1, what


def check_eval_report(report: dict, what: str) -> None:
    """``allfours eval --json``: a row for each agent against each opponent, each with its figures."""
    _has(report, EVAL_FIELDS, what)
    assert report["command"].startswith("allfours eval "), what
    assert report["results"], f"{what}: no results"
    for row in report["results"]:
        _has(row, ROW_FIELDS, f"{what}: a result row")
        _check_figures(row, f"{what}: {row['agent']} vs {row['opponent']}")
        assert row["preset"] == report["preset"] and row["players"] == report["players"], what
        if not report.get("partial"):
            assert row["matches"] == report["matches_per_pairing"], what
    named = {row["agent"] for row in report["results"]} | {row["opponent"] for row in report["results"]}
    assert set(report["ratings"]) == named, f"{what}: ratings of {sorted(report['ratings'])}, agents {sorted(named)}"


def check_exploit_report(report: dict, what: str) -> None:
    """``allfours exploit --json``: the exploiter trained against the bot, then its matches against it."""
    _has(report, EXPLOIT_FIELDS, what)
    assert report["command"].startswith("allfours eval "), what
    _check_figures(report, what)
    assert report["matches"] == report["matches_planned"] or report["partial"], what


def check_search_report(report: dict, what: str) -> None:
    """``allfours exploit --method search --json``: the responder's duplicate matches against its target."""
    _has(report, SEARCH_FIELDS, what)
    assert report["command"].startswith("allfours eval "), what
    assert report["responder"].startswith("br:target="), what
    _check_figures(report, what)
    assert report["matches"] == report["matches_planned"] or report["partial"], what


def _check_exact(figures: dict, what: str) -> None:
    """NashConv is at least 0, and the points against the equilibrium at least minus half of it."""
    assert figures["nash_conv"] >= -1e-9, what
    v = figures["vs_equilibrium"]
    assert v["mean"] == pytest.approx((v["as_eldest"] + v["as_dealer"]) / 2), what
    assert v["mean"] >= -figures["nash_conv"] / 2 - 1e-6, what


def check_exact_report(report: dict, what: str) -> None:
    """``allfours exploit --method exact --json``: a player's exact figures on a mini preset."""
    _has(report, EXACT_FIELDS, what)
    assert report["exploitability"] == pytest.approx(report["nash_conv"] / 2), what
    _check_exact(report, what)


def check_rows_report(report: dict, what: str) -> None:
    """benchmarks/mini_learners.py's table: rows measured exactly, each with the command behind it."""
    assert isinstance(report["note"], str) and report["note"] and report["rows"], what
    for row in report["rows"]:
        _has(row, LEARNER_FIELDS, f"{what}: a row")
        _check_exact(row, f"{what}: {row['row']} at {row['budget']}")
        assert row["command"].startswith(("python benchmarks/", "allfours ")), what


def check_recipes_report(report: dict, what: str) -> None:
    """benchmarks/mini_recipes.py's runs: each recipe's exact NashConv curve, its last point its figure."""
    assert report["command"].startswith("python benchmarks/mini_recipes.py"), what
    for row in report["rows"]:
        curve = [p["nash_conv"] for p in row["curve"]]
        assert row["command"].startswith("allfours train --config ") and curve, f"{what}: {row['recipe']}"
        assert all(0 <= v < 10 for v in curve), f"{what}: {row['recipe']}"
        assert row["nash_conv"] == curve[-1] and row["lowest"] == min(curve), f"{what}: {row['recipe']}"
        steps = [p["steps"] for p in row["curve"]]
        assert steps == sorted(steps) and steps[-1] == row["decisions"], f"{what}: {row['recipe']}"
    if report["cfr"] is not None:
        assert [p["nash_conv"] for p in report["cfr"]["curve"]], what


def check_report(report, what: str) -> None:
    """One of the JSON reports kept as raw results (EVAL_FIELDS and the rest above), checked as its kind."""
    assert isinstance(report, dict), f"{what}: a JSON {type(report).__name__}, not a report"
    if set(report) == RUNS_FIELDS:
        assert isinstance(report["note"], str) and report["note"] and report["runs"], what
        for i, run in enumerate(report["runs"]):
            check_eval_report(run, f"{what}, run {i}")
    elif set(report) == ROWS_FIELDS:
        check_rows_report(report, what)
    elif {"rows", "cfr", "minutes"} <= set(report):
        check_recipes_report(report, what)
    elif "exploiter" in report:
        check_exploit_report(report, what)
    elif "responder" in report:
        check_search_report(report, what)
    elif report.get("method") == "exact":
        check_exact_report(report, what)
    elif "results" in report:
        check_eval_report(report, what)
    else:
        pytest.fail(f"{what} is no report kept as raw results (allfours eval's, allfours exploit's, "
                    f"{{note, runs}} or {{note, rows}}): its keys are {sorted(report)}")


def test_the_report_checks_refuse_what_they_should():
    row = {"agent": "a", "opponent": "b", "preset": "seven_up", "players": 2, "matches": 10, "wins": 6, "win_rate": 0.6,
           "ci95": [0.3, 0.85], "points_per_hand": 1.5, "points_per_hand_ci95": [1.4, 1.6],
           "opponent_points_per_hand": 1.4, "hands": 30}
    report = {"command": "allfours eval --preset seven_up --agents a b", "preset": "seven_up", "players": 2,
              "seed": 0, "matches_per_pairing": 10, "options": {}, "results": [row, {**row, "agent": "b",
              "opponent": "a", "wins": 4, "win_rate": 0.4, "ci95": [0.15, 0.7]}], "ratings": {"a": {}, "b": {}}}
    check_report(report, "good")
    check_report({"note": "two runs", "runs": [report, report]}, "good runs")
    for bad in ({**report, "results": [{**row, "win_rate": 0.7}]},  # not wins / matches
                {**report, "results": [{**row, "ci95": [0.65, 0.9]}]},  # the rate outside its interval
                {k: v for k, v in report.items() if k != "ratings"},  # a field missing
                {**report, "results": []}, {"note": "none", "runs": [{"seed": 1}]},
                {"win_rate": 0.5}, [report]):  # no kind of report
        with pytest.raises((AssertionError, pytest.fail.Exception)):
            check_report(bad, "bad")


def test_the_exact_and_search_report_checks_refuse_what_they_should():
    v = {"as_eldest": -0.1, "as_dealer": -0.3, "mean": -0.2}
    exact = {"method": "exact", "preset": "mini2", "nash_conv": 0.5, "exploitability": 0.25,
             "best_response": [0.3, 0.2], "vs_equilibrium": v, "equilibrium": {"nash_conv": 1e-6, "value": 0.03}}
    row = {"preset": "mini2", "row": "ppo", "agent": "runs/x/latest.pt", "budget": "1M decisions", "nash_conv": 0.5,
           "vs_equilibrium": v, "command": "python benchmarks/mini_learners.py ppo"}
    search = {"command": "allfours eval --preset seven_up --agents br:target=heuristic heuristic",
              "target": "heuristic", "responder": "br:target=heuristic,worlds=32", "method": "LBR",
              "preset": "seven_up", "players": 2, "seed": 0, "matches": 10, "matches_planned": 10, "partial": False,
              "wins": 6, "win_rate": 0.6, "ci95": [0.3, 0.85], "equity_per_hand": 10.0, "margin_per_hand": 0.1,
              "by_type": []}
    check_report(exact, "good exact")
    check_report({"note": "the table", "rows": [row]}, "good rows")
    check_report(search, "good search")
    for bad in ({**exact, "exploitability": 0.5},  # not half the NashConv
                {**exact, "vs_equilibrium": {**v, "mean": -0.3, "as_eldest": -0.3}},  # below -NashConv/2
                {"note": "the table", "rows": [{**row, "nash_conv": -0.1}]},
                {"note": "the table", "rows": [{k: x for k, x in row.items() if k != "command"}]},
                {**search, "win_rate": 0.7}, {**search, "matches": 8}):
        with pytest.raises((AssertionError, pytest.fail.Exception)):
            check_report(bad, "bad")


@pytest.mark.parametrize("name", results_files())
def test_every_results_file_is_a_json_report(name):
    """Any other kind of file under docs/results/ is refused: pages (.md) and linked plots are the record's, and
    weights are not kept (test_no_weights_are_kept_under_docs)."""
    assert name.endswith(".json"), (f"docs/results/{name}: docs/results/ keeps JSON reports, its pages (.md) and "
                                    "the plots they link, and nothing else")
    check_report(json.loads((RESULTS / name).read_text()), f"docs/results/{name}")


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
