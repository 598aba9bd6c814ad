"""``allfours play`` end to end, driven with scripted input through a real subprocess."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from allfours.agents.players.human import parse_entry
from allfours_env.cards import BEG, STAND


def run_play(args, stdin_text, timeout=120):
    return subprocess.run([sys.executable, "-m", "allfours", "play", *args], input=stdin_text,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("preset,extra", [("yorkshire", []), ("traditional", ["--players", "2"]), ("seven_up", [])])
@pytest.mark.subprocess
def test_a_person_plays_a_whole_match_with_scripted_input(preset, extra):
    # Bad entries first (a number out of range, nonsense, an illegal card), then the first legal move forever.
    script = "99\nxyz\nlast\nhelp\n" + "1\n" * 2000
    proc = run_play(["--preset", preset, "--bot", "random", "--seed", "3", *extra], script)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in out + proc.stderr
    assert "Bad entry '99': choose a number from 1 to" in out
    assert "Bad entry 'xyz'" in out
    assert "Your hand:" in out and "Scores:" in out and "Dealer: player_" in out
    assert "=== hand over ===" in out and "High:" in out and "Game:" in out
    assert "wins the match" in out
    assert "You play " in out  # the card the person chose is echoed
    # the hand's last trick is announced before its summary, which names the High and Low cards
    before_summary = [chunk.rstrip().splitlines()[-1] for chunk in out.split("=== hand over ===")[:-1]]
    played_out = [line for line in before_summary if not line.startswith("player_") and "You play" not in line]
    assert all(line.startswith("Trick won by player_") for line in played_out), played_out
    assert re.search(r"High: side \d( \(you\))? with [2-9TJQKA][CDHS]", out)
    assert re.search(r"Low:  side \d( \(you\))? with [2-9TJQKA][CDHS]", out)
    how = "first card led" if preset == "yorkshire" else "STANDs"
    assert how in out.split("\n--- hand 1")[0]  # the newcomer is told how trump is chosen


def test_the_bot_of_an_auction_game_is_its_shipped_bot_where_there_is_one():
    from allfours.cli.play import default_bot
    from allfours_env.rules import make_rules
    assert default_bot(make_rules("pitch", players=2)) == "bot:pitch"
    assert default_bot(make_rules("setback")) == "bot:setback"
    assert default_bot(make_rules("pitch")) == default_bot(make_rules("pitch", players=3)) == "search"
    assert default_bot(make_rules("yorkshire")) == "bot:yorkshire"


@pytest.mark.parametrize("preset, extra", [("pitch", ["--players", "2"]), ("setback", [])])
@pytest.mark.subprocess
def test_a_person_plays_an_auction_preset(preset, extra):
    """docs/rules.md section 8 at the terminal: the bids in words, the contract, the set-back or the bid made."""
    proc = run_play(["--preset", preset, "--bot", "heuristic", "--seed", "3", *extra], "1\n" * 2000)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in out + proc.stderr and "wins the match" in out
    assert "One round of bidding" in out.split("\n--- hand 1")[0]
    assert "PASS (no bid)" in out and "BID_2 (bid 2: make 2 points or lose 2)" in out
    assert re.search(r"Bids: player_\d (PASS|BID_\d)", out) and re.search(r"Pitcher: player_\d for \d", out)
    assert re.search(r"Contract: player_\d bid \d: (made|set back \d)", out)
    assert "Trick: Trick" not in out


@pytest.mark.subprocess
def test_yorkshire_partner_is_a_bot_and_the_previous_trick_can_be_shown():
    proc = run_play(["--preset", "yorkshire", "--bot", "heuristic", "--seed", "5", "--seat", "1"],
                    "1\n1\nlast\n" + "1\n" * 2000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "partnered with player_3" in proc.stdout
    assert "Previous trick:" in proc.stdout or "No trick has been completed" in proc.stdout
    assert "player_3 (heuristic):" in proc.stdout


@pytest.mark.subprocess
def test_quit_exits_0_input_ending_early_exits_1_and_bad_options_are_one_line_errors():
    proc = run_play(["--preset", "seven_up", "--bot", "random", "--seed", "1"], "1\nquit\n")
    assert proc.returncode == 0 and "Game abandoned (quit)" in proc.stdout and "Traceback" not in proc.stderr
    proc = run_play(["--preset", "seven_up", "--bot", "random", "--seed", "1"], "1\n")
    assert proc.returncode == 1 and "Game abandoned (input ended)" in proc.stdout and "Traceback" not in proc.stderr
    for args, msg in [(["--preset", "euchre"], "argument --preset: unknown preset 'euchre'"),
                      (["--preset", "seven_up", "--seat", "5"], "argument --seat: must be a seat from 0 to 1"),
                      (["--preset", "seven_up", "--players", "3"], "argument --players: preset 'seven_up' allows"),
                      (["--bot", "nonsense"], "argument --bot: unknown agent 'nonsense'"),
                      (["--seed", "-1"], "argument --seed: must be a whole number from 0")]:
        proc = run_play(args if "--bot" in args else [*args, "--bot", "random"], "")
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert msg in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, (args, proc.stderr)


@pytest.mark.subprocess
def test_rule_options_set_the_game():
    """``--rule KEY=VALUE`` (repeatable) as ``allfours eval`` takes it: here a match to 2 points in which
    a seat may throw in its hand."""
    proc = run_play(["--preset", "seven_up", "--bot", "random", "--seed", "2", "--rule", "target=2", "--rule",
                     "throw_in=true"], "1\n" * 2000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "seven_up, 2 players, first to 2." in proc.stdout and "wins the match" in proc.stdout


def test_parse_entry_accepts_numbers_codes_and_words_and_explains_bad_ones():
    legal = [STAND, BEG]
    assert parse_entry("2", legal) == BEG
    assert parse_entry("stand", legal) == STAND
    assert "not legal now" in parse_entry("TH", legal)
    assert "choose a number from 1 to 2" in parse_entry("3", legal)
    assert "Please enter a move" in parse_entry("", legal)
