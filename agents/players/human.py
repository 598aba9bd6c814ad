"""``HumanAgent``: a person at the terminal, through the same Agent interface as the bots."""

from __future__ import annotations

import sys
from typing import TextIO

from allfours_env import GameState, action_name, parse_action
from allfours_env.cards import SUITS
from allfours_env.view import seat_view

from ..base import Agent

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", None: "not set"}
HELP = ("Enter the number of a move, a card code (e.g. TH) or a decision word (STAND, BEG, GIVE_ONE,\n"
        "RUN_PACK, THROW_IN; in pitch and setback PASS, BID_2 ... BID_4, SMUDGE). 'last' shows the previous\n"
        "trick, 'help' this text, 'quit' leaves.")


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
            action = parse_entry(entry, legal)
            if isinstance(action, str):
                self.say(action)
                continue
            return action


def parse_entry(entry: str, legal: list[int]) -> int | str:
    """The chosen action, or a message saying what is wrong with the entry."""
    if not entry:
        return f"Please enter a move: a number from 1 to {len(legal)}, or 'help'."
    if entry.isdigit():
        k = int(entry)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"Bad entry {entry!r}: choose a number from 1 to {len(legal)}."
    try:
        action = parse_action(entry.upper())
    except ValueError:
        return f"Bad entry {entry!r}: not a move number, card code (like TH) or decision word. Type 'help'."
    if action not in legal:
        return f"{action_name(action)} is not legal now; legal: {', '.join(action_name(a) for a in legal)}."
    return action


def action_label(action: int) -> str:
    labels = {"STAND": "STAND (accept the turned-up suit as trump)", "BEG": "BEG (refuse it)",
              "GIVE_ONE": "GIVE_ONE (give the eldest one point; trump stands)",
              "RUN_PACK": "RUN_PACK (deal three more each and turn up again)",
              "THROW_IN": "THROW_IN (throw your whole hand into this trick)",
              "PASS": "PASS (no bid)", "SMUDGE": "SMUDGE (bid to take all six tricks)",
              **{f"BID_{k}": f"BID_{k} (bid {k}: make {k} points or lose {k})" for k in range(1, 5)}}
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
        calls = ", ".join(f"player_{c['seat']} {c['action']}" for c in auction["calls"]) or "none yet"
        contract = (f"   Pitcher: player_{auction['bidder']} for {auction['bid']}"
                    if view["phase"] != "bid" and auction["bidder"] is not None else "")
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
