"""``allfours play`` end to end, driven with scripted input through a real subprocess."""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys

import pytest

from allfours.agents.base import Agent
from allfours.agents.players.human import parse_entry
from allfours.agents.registry import make_agent
from allfours.cli.play import hand_summary, play_match
from allfours.cli.play_hint import Hinter, rule_words
from allfours_env import GameState, action_name, make_rules, seat_view
from allfours_env.cards import BEG, BIDS, PASS, SMUDGE, STAND


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


def test_the_bot_of_a_game_is_its_shipped_bot_for_the_player_count_and_sides_where_there_is_one():
    from allfours.agents.registry import make_agent
    from allfours.cli.play import default_bot
    from allfours_env.rules import make_rules
    # every count Pitch is played with, and four in partnerships: bot:pitch_4p learnt each for themselves
    for options, name in [({"players": 2}, "pitch"), ({"players": 3}, "pitch_3p"), ({"players": 4}, "pitch_4p"),
                          ({"players": 4, "partnerships": True}, "pitch_partners")]:
        rules = make_rules("pitch", **options)
        assert default_bot(rules) == f"bot:{name}", options
        assert make_agent(default_bot(rules), preset="pitch", players=rules.players).name == f"bot:{name}"
    assert default_bot(make_rules("setback")) == "bot:setback"
    assert default_bot(make_rules("yorkshire")) == "bot:yorkshire"
    assert default_bot(make_rules("traditional", players=3)) == "search"  # no bot is shipped for three
    assert default_bot(make_rules("setback", players=4, partnerships=True)) == "bot:setback"  # setback's own sides


def test_the_hint_and_the_level_name_a_table_without_a_bot():
    from allfours.agents.spec import AgentSpec
    from allfours.agents.spec.bots import table_words
    from allfours.cli.play import at_level
    from allfours.cli.play_hint import Hinter, hint_bot
    from allfours_env.rules import make_rules
    three, together, alone = (make_rules("traditional", players=3), make_rules("pitch", players=4, partnerships=True),
                              make_rules("pitch", players=4))
    assert hint_bot(alone) == "bot:pitch_4p" and hint_bot(together) == "bot:pitch_partners"
    assert hint_bot(three) is None
    assert table_words(together) == "pitch with 4 players in partnerships"
    assert table_words(alone) == "pitch with 4 players"
    assert Hinter(three).line(None, 0) == ("No hint here: no shipped bot plays traditional with 3 players "
                                           "(docs/agents.md).")
    with pytest.raises(ValueError, match=r"^no shipped bot plays traditional with 3 players, so the bots "
                                         r"are 'search', which has no levels: leave --level out$"):
        at_level(AgentSpec.parse("search"), 2, "bot", three)


# An entry every prompt takes in the end: "pass" in the bidding, where it is refused a stuck dealer bids 2, and
# in play (where "pass" and "bid 2" are refused with a line) the first card.
AUCTION_SCRIPT = "pass\nbid 2\n1\n" * 1500


@pytest.mark.parametrize("preset, extra", [("pitch", ["--players", "2"]), ("setback", [])])
@pytest.mark.subprocess
def test_a_person_plays_an_auction_preset(preset, extra):
    """docs/rules.md section 8 at the terminal: "Each player in turn either passes (PASS) or bids more than the
    highest bid so far": the bids in words, by their value; the contract, the set-back or the bid made; the
    trump by its name."""
    proc = run_play(["--preset", preset, "--bot", "heuristic", "--seed", "3", *extra], AUCTION_SCRIPT)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in out + proc.stderr and "wins the match" in out
    assert "One round of bidding" in out.split("\n--- hand 1")[0]
    # the menu lists each bid by its value, the calls are said in words, and no engine code is shown
    assert re.search(r"\n {4}pass  no bid\n {7}2  bid 2: make 2 points or lose 2", out)
    assert re.search(r"player_\d \(heuristic\) (passes|bids [2-4])\n", out) and "You pass\n" in out
    assert re.search(r"Bids: player_\d (passes|bids \d)", out) and re.search(r"Pitcher: player_\d for \d", out)
    assert not re.search(r"\b(PASS|BID_\d|SMUDGE)\b", out), re.search(r".*\b(PASS|BID_\d|SMUDGE)\b.*", out)[0]
    assert "You may not pass: the auction is over" in out  # "pass" during play: one line saying why
    assert re.search(r"Contract: player_\d bid \d: (made|set back \d)", out)
    summaries = out.split("=== hand over ===\n")[1:]
    assert summaries and all(re.match(r"Trump: (clubs|diamonds|hearts|spades)\n", x) for x in summaries), summaries[0]
    assert "Trick: Trick" not in out


class Caller(Agent):
    """A scripted seat: in the bidding its call (``bid`` points when legal, else it passes), then the first
    legal card."""

    name = "scripted"

    def __init__(self, bid: int = 0):
        super().__init__()
        self.bid = BIDS[bid - 1] if bid else PASS

    def act(self, state, seat):
        legal = state.legal_actions()
        if legal[0] >= PASS:
            return self.bid if self.bid in legal else PASS
        return legal[0]


def play_hand_one(preset: str, entries: str, human: str, bids: dict[str, int], seed: int = 0) -> str:
    """The terminal game in process, read through its input: the person at the seat ``human`` names ("dealer",
    "eldest") types ``entries`` then quits; the scripted seats named in ``bids`` bid (the others pass)."""
    rules = make_rules(preset)
    first = GameState.new(rules, seed=seed)
    seats = {"dealer": first.dealer, "eldest": (first.dealer + 1) % rules.players,
             "second": (first.dealer + 2) % rules.players}
    me = seats[human]
    bots = {s: Caller(next((b for k, b in bids.items() if seats[k] == s), 0)) for s in range(rules.players) if s != me}
    out = io.StringIO()
    assert play_match(rules, me, bots, seed, stdin=io.StringIO(entries + "quit\n"), stdout=out) == 0
    return out.getvalue().replace(f"player_{me} ", "player_ME ")


def test_the_number_typed_in_the_bidding_is_the_bid():
    """docs/rules.md section 8: "Each player in turn either passes (PASS) or bids more than the highest bid so
    far, from the lowest bid (min_bid, 2; 1 the older rule) to 4": typing 3, "bid 3" or "BID_3" bids three,
    "pass" passes, and a bid too low or out of range is refused with one line saying why."""
    for typed in ("3", "bid 3", "BID_3", "Bid3"):
        out = play_hand_one("setback", f"{typed}\n", "eldest", {})
        assert "You bid 3\n" in out and "Bids: player_ME bids 3, " in out, (typed, out)
    out = play_hand_one("setback", "pass\n", "eldest", {"second": 2})
    assert "You pass\n" in out and re.search(r"Bids: player_ME passes, player_\d bids 2", out), out
    out = play_hand_one("setback", "1\nbid 9\n0\n4\n", "eldest", {})
    assert "You may not bid 1: the lowest bid is 2.\n" in out
    assert "Bad entry 'bid 9': type a bid from 2 to 4 or 'pass'.\n" in out
    assert "Bad entry '0': type a bid from 2 to 4 or 'pass'.\n" in out and "You bid 4\n" in out
    # Auction Pitch, the dealer stuck (all_pass "stuck": "the dealer may not pass and must bid at least the
    # lowest bid"): the menu offers no pass, and "pass" is refused in the engine's words
    out = play_hand_one("pitch", "pass\n2\n", "dealer", {})
    assert "Your call: type a bid from 2 to 4.\n" in out and "    pass  no bid" not in out.split("You bid 2")[0]
    assert "You may not pass: every other player passed: the dealer is stuck and must bid.\n" in out
    assert "You bid 2\n" in out


def test_the_dealer_taking_the_bid_under_the_privilege_is_said():
    """docs/rules.md section 8, setback's dealer_privilege "match": "the dealer may take the high bid at its
    value". The menu shows each bid by its value (the dealer's 2 marked as the privilege), typing 3 outbids,
    typing 2 takes the bid at 2, and the table is told so in one line."""
    out = play_hand_one("setback", "3\n", "dealer", {"eldest": 2})
    assert re.search(r"player_\d \(scripted\) bids 2\n", out) and "player_ME bids 3" in out
    assert "You bid 3\n" in out and "privilege (docs" not in out
    out = play_hand_one("setback", "2\n", "dealer", {"eldest": 2})
    menu = out.split("Your call: ")[1].split("Your move:")[0]
    assert menu.splitlines()[1:] == [
        "    pass  no bid",
        "       2  bid 2: make 2 points or lose 2 (as dealer, take the bid at its value: the dealer's privilege)",
        "       3  bid 3: make 3 points or lose 3",
        "       4  bid 4: make 4 points or lose 4"], menu
    assert ("You bid 2\nThe dealer takes the bid at its value (2) under the dealer's privilege "
            "(docs/rules.md section 8).\n") in out
    assert re.search(r"Bids: player_\d bids 2, player_\d passes, player_\d passes, player_ME bids 2 "
                     r"  Pitcher: player_ME for 2\n", out), out
    # a bot dealer taking the bid is said the same way
    out = play_hand_one("setback", "pass\n", "eldest", {"dealer": 2, "second": 2})
    assert re.search(r"player_\d \(scripted\) bids 2\nThe dealer takes the bid at its value \(2\) under the "
                     r"dealer's privilege", out), out


def test_the_hand_summary_names_the_trump_suit():
    """The summary says the trump as the rest of the game does ("diamonds", not "D")."""
    result = {"trump": "D", "high": None, "low": None, "jack": None, "jack_points": 0, "game": None,
              "game_totals": [0, 0], "points": [1, 0]}
    assert hand_summary(result, [1, 0], 0).splitlines()[1] == "Trump: diamonds"


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
    calls = [PASS, *BIDS[1:], SMUDGE]  # in the bidding a number is the bid's value, not its place in the menu
    assert parse_entry("3", calls) == parse_entry("bid 3", calls) == parse_entry("BID_3", calls) == BIDS[2]
    assert parse_entry("pass", calls) == parse_entry("p", calls) == PASS and parse_entry("smudge", calls) == SMUDGE
    assert parse_entry("1", calls).startswith("You may not bid 1;")
    assert parse_entry("5", calls) == "Bad entry '5': type a bid from 2 to 4, 'pass' or 'smudge'."


@pytest.mark.subprocess
def test_the_bots_play_at_the_level_asked_and_a_hint_names_the_shipped_bots_move():
    """``--level 2``: the shipped bot plays at level 2 (docs/agents.md, "Levels"); ``hint`` at the move prompt
    names the shipped bot's move with its probability and the rule behind the decision (rules.json's words)."""
    proc = run_play(["--preset", "seven_up", "--level", "2", "--seed", "3"], "hint\n" + "1\n" * 2000)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in out + proc.stderr and "wins the match" in out
    assert re.search(r"player_1 \(bot:seven_up:level=2\): ", out)
    assert "Type 'help' for help, 'hint' for the bot's move." in out
    # the first position: the eldest stands or begs; the hint comes before the move, and the prompt again
    hint = re.search(r"Your move: (Hint: .*)\nYour move: You play (\w+)\n", out)
    assert hint, out[:2000]
    assert re.fullmatch(r"Hint: bot:seven_up would play (STAND|BEG) \(probability \d+%\)\. The eldest chooses STAND "
                        r"\(the turn-up's suit is trump; play starts\) or BEG\.", hint[1]), hint[1]


@pytest.mark.subprocess
def test_a_bad_level_or_a_level_for_a_bot_without_levels_is_one_usage_line():
    for args, msg in [(["--level", "7"], "argument --level: must be a level from 1 to 5 (1 Beginner, 2 Casual, 3 Club, "
                                         "4 Strong, 5 Expert), got '7'"),
                      (["--level", "two"], "argument --level: must be a level from 1 to 5"),
                      (["--level", "2", "--bot", "heuristic"], "argument --level: only a network bot (bot:<name> or a "
                       "checkpoint) plays at a level, and 'heuristic' is none: leave --level out, or give --bot bot"),
                      (["--level", "2", "--preset", "traditional", "--players", "3"],
                       "argument --level: no shipped bot plays traditional with 3 players, so the bots are 'search', "
                       "which has no levels: leave --level out"),
                      (["--level", "2", "--preset", "seven_up", "--bot", "bot:seven_up:level=3"], "argument --level: "
                       "--bot 'bot:seven_up:level=3' names its level already: give the level once")]:
        proc = run_play(args, "")
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert msg in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, (args, proc.stderr)


def test_every_hint_is_the_shipped_bots_move_from_the_seats_view():
    """The terminal's hint, position by position through the start of a Seven Up match: the shipped bot's own move
    (asked about the real game) with the network's probability of it, in (0, 1]; the line names it, with the rule."""
    rules = make_rules("seven_up")
    hinter, shipped = Hinter(rules), make_agent("bot:seven_up", preset="seven_up", players=2)
    state, rng, hints = GameState.new(rules, seed=7), random.Random(7), 0
    while not state.done and hints < 12:  # the first hand and more: decisions, leads and follows
        seat = state.current_player
        if seat == 0:
            action, p = hinter.hint(state, 0)
            assert action in state.legal_actions() and action == shipped(state, 0) and 0 < p <= 1
            words = rule_words(seat_view(state, 0), action_name(action))
            assert words and hinter.line(state, 0) == (f"Hint: bot:seven_up would play {action_name(action)} "
                                                       f"(probability {p:.0%}). {' '.join(words)}")
            hints += 1
        state.apply(rng.choice(state.legal_actions()))
    assert hints == 12


def test_a_table_without_a_shipped_bot_has_no_hint():
    rules = make_rules("traditional", players=3)
    state = GameState.new(rules, seed=1)
    assert Hinter(rules).line(state, state.current_player) == ("No hint here: no shipped bot plays traditional with "
                                                               "3 players (docs/agents.md).")


def test_hint_typed_at_the_prompt_is_answered_and_the_prompt_comes_again():
    rules = make_rules("traditional", players=3)
    bots = {1: Caller(), 2: Caller()}
    out = io.StringIO()
    assert play_match(rules, 0, bots, 4, stdin=io.StringIO("hint\nquit\n"), stdout=out) == 0
    assert "Your move: No hint here: no shipped bot plays traditional with 3 players (docs/agents.md).\nYour move: " \
           "\n" \
           "Game abandoned (quit)." in out.getvalue()
