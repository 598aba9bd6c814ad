"""benchmarks/leaderboard.py: the tables it writes into docs/benchmark.md are the round robin's figures,
it rewrites only its sections, and ``--check`` tells a current doc from a stale one."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from allfours.agents.evaluation import round_robin

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("leaderboard", ROOT / "benchmarks" / "leaderboard.py")
leaderboard = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(leaderboard)

AGENTS = ["random", "heuristic", "search:worlds=1"]
RUN = ["--presets", "seven_up", "--agents", *AGENTS, "--matches", "20", "--seed", "3", "--workers", "1",
       "--no-progress"]
HEAD, MIDDLE, TAIL = "# Benchmark\n\nIntro text.\n\n", "\nBetween the boards.\n\n", "\nThe end.\n"


def doc_with_sections(tmp_path: Path) -> Path:
    doc = tmp_path / "benchmark.md"
    doc.write_text(HEAD + "<!-- leaderboard:seven_up {} -->\nold table\n<!-- leaderboard:seven_up end -->\n"
                   + MIDDLE + "<!-- leaderboard:yorkshire {} -->\nuntouched\n<!-- leaderboard:yorkshire end -->\n"
                   + TAIL)
    return doc


def table(text: str, header_start: str) -> list[list[str]]:
    """The body rows of the markdown table whose header starts with ``header_start``, split in cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    doc = doc_with_sections(tmp_path_factory.mktemp("lb"))
    assert leaderboard.main(["--doc", str(doc), *RUN]) == 0
    out = round_robin(AGENTS, preset="seven_up", matches=20, seed=3, workers=1, progress=False)
    return doc, out


def test_tables_hold_the_round_robins_figures(written):
    doc, out = written
    text = doc.read_text()
    rating = out["ratings"]
    ranked = table(text, "| rank |")
    assert [r[1] for r in ranked] == sorted(AGENTS, key=lambda a: (-rating[a]["rating"], AGENTS.index(a)))
    assert [r[0] for r in ranked] == ["1", "2", "3"]
    for _, name, value, ci in ranked:
        assert float(value) == rating[name]["rating"]
        assert [float(x) for x in ci.split(" - ")] == rating[name]["ci95"]
    rows = {(r["agent"], r["opponent"]): r for r in out["results"]}
    cross = table(text, "| win rate (Wilson 95%)")
    order = [r[0] for r in cross]
    assert order == [r[1] for r in ranked]
    for row in cross:
        for opponent, value in zip(order, row[1:]):
            if opponent == row[0]:
                assert value == ""
                continue
            r = rows[(row[0], opponent)]
            assert value == f"{r['win_rate']:.3f} ({r['ci95'][0]:.3f} - {r['ci95'][1]:.3f})"
    pairings = table(text, "| agent | opponent |")
    assert [(p[0], p[1]) for p in pairings] == [("random", "heuristic"), ("random", "search:worlds=1"),
                                                ("heuristic", "search:worlds=1")]
    for a, b, matches, wins, rate, ci, pph, pci, opp in pairings:
        r = rows[(a, b)]
        assert (int(matches), int(wins)) == (r["matches"], r["wins"]) == (20, r["wins"])
        assert float(rate) == pytest.approx(r["win_rate"], abs=5e-4)
        assert [float(x) for x in ci.split(" - ")] == pytest.approx(r["ci95"], abs=5e-4)
        assert float(pph) == pytest.approx(r["points_per_hand"], abs=5e-4)
        assert [float(x) for x in pci.split(" - ")] == pytest.approx(r["points_per_hand_ci95"], abs=5e-4)
        assert float(opp) == pytest.approx(r["opponent_points_per_hand"], abs=5e-4)
    assert "`allfours eval --preset seven_up --agents random heuristic search:worlds=1 --matches 20 --seed 3`" in text


def test_only_the_board_played_is_rewritten(written):
    doc, _ = written
    text = doc.read_text()
    assert text.startswith(HEAD) and text.endswith(TAIL)
    assert MIDDLE + "<!-- leaderboard:yorkshire {} -->\nuntouched\n<!-- leaderboard:yorkshire end -->\n" in text
    assert "old table" not in text
    made = leaderboard.sections(text)["seven_up"][0]
    assert made == {"agents": AGENTS, "matches": 20, "seed": 3}


def test_check_tells_current_from_stale(written, tmp_path, capsys):
    doc, out = written
    copy = tmp_path / "benchmark.md"
    copy.write_text(doc.read_text())
    quick = ["--doc", str(copy), "--presets", "seven_up", "--workers", "1", "--no-progress", "--check"]
    assert leaderboard.main(quick) == 0  # replays what the marker records
    assert "seven_up: current" in capsys.readouterr().out
    assert copy.read_text() == doc.read_text()  # --check writes nothing

    assert leaderboard.main([*quick, "--matches", "4"]) == 1
    assert "made with matches 20 (this command: 4)" in capsys.readouterr().out

    r = next(r for r in out["results"] if (r["agent"], r["opponent"]) == ("random", "heuristic"))
    row = f"| random | heuristic | 20 | {r['wins']} | {r['win_rate']:.3f} |"
    assert row in copy.read_text()
    copy.write_text(copy.read_text().replace(row, f"| random | heuristic | 20 | {r['wins']} | 0.999 |"))
    assert leaderboard.main(quick) == 1
    assert "figures differ" in capsys.readouterr().out


def test_bot_stands_for_the_boards_bot():
    assert leaderboard.board_agents("traditional_2p", ["random", "bot"]) == ["random", "bot:traditional_2p"]
    assert leaderboard.board_agents("yorkshire", ["bot", "heuristic"]) == ["bot:yorkshire", "heuristic"]


@pytest.mark.parametrize("argv,message", [
    (["--presets", "traditional"], "no section for board 'traditional'"),
    (["--matches", "5"], "argument --matches: must be even"),
    (["--agents", "random", "nobody"], "argument --agents: unknown agent 'nobody'"),
    (["--agents", "random", "random"], "argument --agents: give at least two distinct agents"),
    (["--presets", "nowhere"], "argument --presets: invalid choice: 'nowhere'"),
])
def test_bad_arguments_get_one_line(tmp_path, capsys, argv, message):
    doc = doc_with_sections(tmp_path)
    before = doc.read_text()
    assert leaderboard.main(["--doc", str(doc), "--presets", "seven_up", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and err.startswith("leaderboard.py: error:")
    assert doc.read_text() == before


def test_the_doc_has_every_board():
    found = leaderboard.sections((ROOT / "docs" / "benchmark.md").read_text())
    assert set(found) == set(leaderboard.BOARDS)
    for board, (made, _) in found.items():
        assert set(made) == {"agents", "matches", "seed"}, board
        assert f"bot:{board}" in made["agents"] and {"random", "heuristic"} <= set(made["agents"]), board


def test_a_board_each_for_themselves_lists_both_directions_of_a_pairing(tmp_path):
    """Three-handed Pitch: A alone against two B is not the complement of B alone against two A."""
    doc = tmp_path / "benchmark.md"
    doc.write_text("<!-- leaderboard:pitch_3p {} -->\nold\n<!-- leaderboard:pitch_3p end -->\n")
    agents = ["random", "heuristic"]
    assert leaderboard.main(["--doc", str(doc), "--presets", "pitch_3p", "--agents", *agents, "--matches", "6",
                             "--seed", "1", "--workers", "1", "--no-progress"]) == 0
    text = doc.read_text()
    out = round_robin(agents, preset="pitch", options={"players": 3}, matches=6, seed=1, workers=1, progress=False)
    rows = {(r["agent"], r["opponent"]): r for r in out["results"]}
    pairings = table(text, "| agent | opponent |")
    assert [(p[0], p[1]) for p in pairings] == [("random", "heuristic"), ("heuristic", "random")]
    for a, b, matches, wins, *_ in pairings:
        assert (int(matches), int(wins)) == (6, rows[(a, b)]["wins"])
    assert "6 matches per pairing (2 deals, each with the row's agent in each of the 3 seats" in text
    assert "| win rate (Wilson 95%), row against column (row in one seat, column in 2: even 1/3) |" in text


def test_the_default_matches_fill_whole_deals():
    boards = ("pitch", "pitch_3p", "pitch_4p", "pitch_partners", "setback")
    assert [leaderboard.default_matches(b) for b in boards] == [400, 402, 400, 400, 400]


def test_matches_that_split_a_deal_of_three_are_one_line(tmp_path, capsys):
    doc = tmp_path / "benchmark.md"
    doc.write_text("<!-- leaderboard:pitch_3p {} -->\nold\n<!-- leaderboard:pitch_3p end -->\n")
    assert leaderboard.main(["--doc", str(doc), "--presets", "pitch_3p", "--agents", "random", "heuristic",
                             "--matches", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("leaderboard.py: error: argument --matches: must be a multiple of 3 on board pitch_3p (each deal "
                   "is played in 3 seatings), got 4")
