"""``HumanAgent``: a person at the terminal, through the same Agent interface as the bots."""

from __future__ import annotations

import re
import sys
from typing import TextIO

from allfours_env import GameState, action_name, parse_action
from allfours_env.cards import BID_VALUE, BIDS, PASS, SMUDGE, SUITS
from allfours_env.view import seat_view

from ..base import Agent

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", None: "not set"}
HELP = ("Enter the number of a move, a card code (e.g. TH) or a decision word (STAND, BEG, GIVE_ONE,\n"
        "RUN_PACK, THROW_IN). In the bidding (pitch and setback) type the bid itself: '3' or 'bid 3' bids three,\n"
        "'pass' passes, 'smudge' smudges. 'last' shows the previous trick, 'help' this text, 'quit' leaves.")
BID_ENTRY = re.compile(r"(?:bid[\s_]*)?(\d+)")  # "3", "bid 3", "BID_3": a bid by its value


def call_words(action: int, you: bool = False) -> str:
    """An auction call in words (docs/rules.md section 8): "passes", "bids 3", "smudges" (``you``: "pass", ...)."""
    if action == PASS:
        return "pass" if you else "passes"
    if action == SMUDGE:
        return "smudge" if you else "smudges"
    return f"bid{'' if you else 's'} {BID_VALUE[action]}"


def bid_words(bid: int) -> str:
    """A contract's value in words: "3", or "the smudge" (a bid of 5)."""
    return "the smudge" if bid == BID_VALUE[SMUDGE] else str(bid)


def is_bidding(legal: list[int]) -> bool:
    """True when the choices are the auction's calls: then a number typed is the bid's value."""
    return bool(legal) and all(a >= PASS for a in legal)


class QuitGame(Exception):
    """The person asked to leave (or input ended)."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, seed: int | None = None):
        super().__init__(seed)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def act(self, state: GameState, seat: int) -> int:
        view = seat_view(state, seat)
        self.say(describe(view))
        legal = state.legal_actions()
        if is_bidding(legal):  # each bid by its value, so the number typed is the bid
            self.say(f"Your call: type {bid_choices(legal)}.")
            for a in legal:
                self.say(f"  {bid_key(a):>6}  {bid_label(a, state, seat)}")
        else:
            for i, a in enumerate(legal, 1):
                self.say(f"  {i:>2}. {action_label(a)}")
        while True:
            self.stdout.write("Your move: ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise QuitGame("input ended")
            entry = line.strip()
            if entry.lower() in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if entry.lower() in ("h", "help", "?"):
                self.say(HELP)
                continue
            if entry.lower() in ("l", "last", "t", "trick"):
                self.say(last_trick(view))
                continue
            action = parse_entry(entry, legal, state.why_illegal)
            if isinstance(action, str):
                self.say(action)
                continue
            return action


def parse_entry(entry: str, legal: list[int], why=None) -> int | str:
    """The chosen action, or a message saying what is wrong with the entry. In the bidding a number is the bid
    ("3" and "bid 3" bid three); elsewhere it is the move's place in the menu. ``why(action)``, where given (the
    engine's ``why_illegal``), says why a move is not legal now."""
    bidding = is_bidding(legal)
    if not entry:
        return (f"Please enter a call: {bid_choices(legal)}; or 'help'." if bidding
                else f"Please enter a move: a number from 1 to {len(legal)}, or 'help'.")
    words = entry.lower()
    number = BID_ENTRY.fullmatch(words)
    if bidding or (number and not entry.isdigit()):  # "bid 3" is a bid in any phase (and refused out of it)
        if number and not 1 <= int(number[1]) <= len(BIDS):
            return f"Bad entry {entry!r}: " + (f"type {bid_choices(legal)}." if bidding
                                               else f"a bid is a number from 1 to {len(BIDS)}.")
        if number:
            words = action_name(BIDS[int(number[1]) - 1])
    elif entry.isdigit():
        k = int(entry)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"Bad entry {entry!r}: choose a number from 1 to {len(legal)}."
    try:
        action = parse_action({"p": "PASS"}.get(words, words).upper())
    except ValueError:
        if bidding:
            return f"Bad entry {entry!r}: type {bid_choices(legal)}."
        return f"Bad entry {entry!r}: not a move number, card code (like TH) or decision word. Type 'help'."
    if action not in legal:
        reason = why(action) if why else None
        if action >= PASS and (reason or bidding):
            return f"You may not {call_words(action, you=True)}" + (
                f": {reason}." if reason else f"; type {bid_choices(legal)}.")
        if reason:
            return f"{action_name(action)} is not legal now: {reason}."
        return f"{action_name(action)} is not legal now; legal: {', '.join(action_name(a) for a in legal)}."
    return action


def bid_choices(legal: list[int]) -> str:
    """The calls open now, as typed: "a bid from 2 to 4, 'pass' or 'smudge'" (only those legal)."""
    values = [BID_VALUE[a] for a in legal if a in BIDS]
    words = [f"'{bid_key(a)}'" for a in legal if a not in BIDS]
    bids = (f"a bid from {values[0]} to {values[-1]}" if len(values) > 1 else f"the bid {values[0]}") if values else ""
    parts = [bids] * bool(bids) + words
    return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]


def bid_key(action: int) -> str:
    """What to type for a call in the bidding menu: the bid's value, 'pass' or 'smudge'."""
    return {PASS: "pass", SMUDGE: "smudge"}.get(action) or str(BID_VALUE[action])


def bid_label(action: int, state: GameState, seat: int) -> str:
    """A call of the bidding menu in words; the dealer's privilege said where a bid takes the high bid."""
    if action == PASS:
        return "no bid"
    if action == SMUDGE:
        return "the smudge: bid to take all six tricks (worth 5)"
    k = BID_VALUE[action]
    privilege = seat == state.dealer and k == state.bid
    return f"bid {k}: make {k} points or lose {k}" + (
        " (as dealer, take the bid at its value: the dealer's privilege)" if privilege else "")


def action_label(action: int) -> str:
    labels = {"STAND": "STAND (accept the turned-up suit as trump)", "BEG": "BEG (refuse it)",
              "GIVE_ONE": "GIVE_ONE (give the eldest one point; trump stands)",
              "RUN_PACK": "RUN_PACK (deal three more each and turn up again)",
              "THROW_IN": "THROW_IN (throw your whole hand into this trick)"}  # the bids: ``bid_label``
    name = action_name(action)
    return labels.get(name, name)


def describe(view: dict) -> str:
    """What the seat sees, as lines of text."""
    lines = [f"--- hand {view['hand_no'] + 1} - you are player_{view['seat']} (side {view['side']}) ---",
             "Scores: " + "  ".join(f"side {s}: {v}" for s, v in enumerate(view["scores"]))
             + f"   (target {view['target']})",
             f"Dealer: player_{view['dealer']}   Trump: {SUIT_NAMES[view['trump']]}"
             + (f"   Turn-up: {view['turnup']}" if view["turnup"] else "")]
    if view["decisions"]:
        lines.append("Decisions: " + ", ".join(f"player_{d['seat']} {d['action']}" for d in view["decisions"]))
    auction = view.get("auction")
    if auction:
        calls = ", ".join(f"player_{c['seat']} {call_words(parse_action(c['action']))}"
                          for c in auction["calls"]) or "none yet"
        contract = ""
        if view["phase"] != "bid" and auction["bidder"] is not None:
            contract = f"   Pitcher: player_{auction['bidder']} for {bid_words(auction['bid'])}"
        lines.append(f"Bids: {calls}{contract}")
    trick = view["current_trick"]["plays"]
    lines.append("Trick: " + (" ".join(f"player_{p['seat']}:{p['card']}" for p in trick) if trick else "(you lead)"
                              if view["phase"] == "play" else "-"))
    hand = sorted(view["hand"], key=lambda c: (SUITS.index(c[1]), "23456789TJQKA".index(c[0])))
    lines.append("Your hand: " + (" ".join(hand) if hand else "(not yet seen)"))
    return "\n".join(lines)


def last_trick(view: dict) -> str:
    if not view["tricks"]:
        return "No trick has been completed in this hand yet."
    t = view["tricks"][-1]
    plays = " ".join(f"player_{p['seat']}:{p['card']}" for p in t["plays"])
    thrown = "".join(f" (player_{x['seat']} threw in {' '.join(x['cards'])})" for x in t["thrown_in"])
    return f"Previous trick: {plays}{thrown} - won by player_{t['winner']}"
