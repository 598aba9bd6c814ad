"""``allfours play`` end to end, driven with scripted input through a real subprocess."""

from __future__ import annotations

import subprocess
import sys

import pytest

from allfours.agents.human import parse_entry
from allfours_env.cards import BEG, STAND


def run_play(args, stdin_text, timeout=120):
    return subprocess.run([sys.executable, "-m", "allfours", "play", *args], input=stdin_text,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("preset,extra", [("yorkshire", []), ("traditional", ["--players", "2"]), ("seven_up", [])])
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


def test_yorkshire_partner_is_a_bot_and_the_previous_trick_can_be_shown():
    proc = run_play(["--preset", "yorkshire", "--bot", "heuristic", "--seed", "5", "--seat", "1"],
                    "1\n1\nlast\n" + "1\n" * 2000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "partnered with player_3" in proc.stdout
    assert "Previous trick:" in proc.stdout or "No trick has been completed" in proc.stdout
    assert "player_3 (heuristic):" in proc.stdout


def test_input_ending_early_leaves_cleanly_and_bad_options_are_one_line_errors():
    proc = run_play(["--preset", "seven_up", "--bot", "random", "--seed", "1"], "1\n")
    assert proc.returncode == 1 and "Game abandoned" in proc.stdout and "Traceback" not in proc.stderr
    proc = run_play(["--preset", "euchre", "--bot", "random"], "")
    assert proc.returncode == 2 and "unknown preset 'euchre'" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_play(["--preset", "seven_up", "--seat", "5", "--bot", "random"], "")
    assert proc.returncode == 2 and "--seat must be from 0 to 1" in proc.stderr


def test_parse_entry_accepts_numbers_codes_and_words_and_explains_bad_ones():
    legal = [STAND, BEG]
    assert parse_entry("2", legal) == BEG
    assert parse_entry("stand", legal) == STAND
    assert "not legal now" in parse_entry("TH", legal)
    assert "choose a number from 1 to 2" in parse_entry("3", legal)
    assert "Please enter a move" in parse_entry("", legal)
