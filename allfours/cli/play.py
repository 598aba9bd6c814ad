"""``allfours play``: a person plays a whole match in the terminal against the bots, at a level (``--level``) if
they are networks, and may ask for a hint (``hint`` at the move prompt: ``play_hint``)."""

from __future__ import annotations

import argparse
import os
import sys

from allfours.agents.players.human import SUIT_NAMES, QuitGame, bid_words, call_words
from allfours.agents.registry import make_agent
from allfours.agents.spec import AgentSpec
from allfours.agents.spec.bots import table_words
from allfours.agents.spec.levels import TOP, WORDS, check_level
from allfours_env import GameState, action_name
from allfours_env.cards import BID_NAMES, BID_VALUE, BIDS, JACK, SUITS, card_code
from allfours_env.scoring import high_low_jack

from .common import Parser, UsageError, fail, nonnegative_int, seed
from .play_hint import Hinter, HintingHuman, hint_bot
from .rule_args import add_rule_arguments, rules_from_args

TRUMP_HOW = {
    False: "Trump is the suit of the first card led: the eldest hand (left of the dealer) pitches it.",
    True: "A card is turned up: the eldest hand STANDs (its suit is trump) or BEGs; then the dealer GIVEs ONE "
          "point or RUNs the PACK (three more cards each and a new turn-up).",
}
# The auction's options in a newcomer's words (docs/rules.md section 8); a value not listed adds nothing.
PRIVILEGE_HOW = {"match": " As dealer you may take the high bid at its value (the dealer's privilege).",
                 "four": " As dealer you may take the high bid at its value when it is 4 (the dealer's privilege)."}
ALL_PASS_HOW = {"stuck": " If everyone before the dealer passes, the dealer must bid.",
                "redeal": " If everyone passes, the same dealer deals again.",
                "eldest": " If everyone passes, the eldest pitches with no contract.",
                "next_dealer": " If everyone passes, the deal passes to the left."}
NO_BOT_YET = "search"  # --bot bot where no shipped bot plays (traditional with 3 players)


def auction_how(rules) -> str:
    """How the auction goes under ``rules``, for the newcomer (docs/rules.md section 8)."""
    smudge = ", or smudge (bid to take all six tricks)" if rules.smudge else ""
    return (f"One round of bidding from the dealer's left: pass, or bid more than the highest bid so far, "
            f"{rules.min_bid} to 4 points{smudge}. The highest bidder pitches: the suit of the card it leads is "
            "trump. Short of its bid, its side loses the bid."
            + PRIVILEGE_HOW.get(rules.dealer_privilege, "") + ALL_PASS_HOW.get(rules.all_pass, ""))


def call_line(state, seat: int, action: int, name: str | None) -> str:
    """What the table hears of a move: a card or decision by its code, an auction call in words (``name``: the
    bot's; None for the person at the terminal); a second line when the dealer's privilege takes the high bid."""
    who = f"player_{seat} ({name})" if name else "You"
    if action not in BID_NAMES:
        return f"{who}: {action_name(action)}" if name else f"You play {action_name(action)}"
    line = f"{who} {call_words(action, you=not name)}"
    if action in BIDS and seat == state.dealer and BID_VALUE[action] == state.bid:  # only the privilege allows it
        line += (f"\nThe dealer takes the bid at its value ({state.bid}) under the dealer's privilege "
                 "(docs/rules.md section 8).")
    return line


def trump_cards(dealt: list[int], trump: int) -> tuple[str | None, str | None, str]:
    """(highest trump dealt, lowest trump dealt, the trump jack's code): the cards High, Low and Jack are
    (``scoring.high_low_jack``, as the engine scores them)."""
    high, low, _ = high_low_jack(dealt, trump)
    jack = card_code(trump * 13 + JACK)
    return (card_code(high[1]), card_code(low[1]), jack) if high else (None, None, jack)


def hand_summary(result: dict, scores: list[int], side_of_human: int, dealt: list[int] | None = None) -> str:
    """The hand's result as text; ``dealt`` (the hands as dealt) names the High, Low and Jack cards."""
    def who(side):
        if side is None:
            return "nobody"
        return f"side {side}" + (" (you)" if side == side_of_human else "")
    lines = ["=== hand over ===", f"Trump: {SUIT_NAMES[result['trump']] if result['trump'] else 'not settled'}"]
    no_contract = "bidder" in result and result["bidder"] is None  # every player passed (all_pass, section 8)
    if no_contract and result["trump"] is None:
        lines.append("Every player passed: the hand was not played.")
    elif result["high"] is None and result["game"] is None:
        lines.append("The hand ended before play (a turn-up or take-one reached the target).")
    else:
        high = low = jack = ""
        if dealt is not None:
            hi, lo, jk = trump_cards(dealt, SUITS.index(result["trump"]))
            high, low, jack = f" with {hi}", f" with {lo}", f" ({jk})"
        totals = "  ".join(f"side {s}: {v}" for s, v in enumerate(result["game_totals"]))
        lines += [f"High: {who(result['high'])}{high}", f"Low:  {who(result['low'])}{low}",
                  f"Jack: {who(result['jack'])}{jack}" + (f" {result['jack_points']} point(s)"
                                                          if result["jack"] is not None else " not dealt"),
                  f"Game: {who(result['game'])}   card points {totals}"]
    if "bidder" in result and not no_contract:  # the auction presets (docs/rules.md section 8)
        lines.append(f"Contract: player_{result['bidder']} bid {bid_words(result['bid'])}: "
                     + ("made" if result["made"] else f"set back {result['bid']}"))
    elif no_contract and result["trump"]:
        lines.append("Contract: none (every player passed and the eldest pitched)")
    lines.append("Points this hand: " + "  ".join(f"side {s}: {p}" for s, p in enumerate(result["points"])))
    lines.append("Match score:      " + "  ".join(f"side {s}: {p}" for s, p in enumerate(scores)))
    return "\n".join(lines)


def make_bots(rules, human_seat: int, spec: str | AgentSpec, seed: int | None) -> dict:
    """The bot of every other seat (``spec``, parsed once, for each; seeded per seat)."""
    spec = AgentSpec.parse(spec)
    return {s: make_agent(spec, preset=rules.preset, players=rules.players, seed=None if seed is None else seed + s)
            for s in range(rules.players) if s != human_seat}


def play_match(rules, human_seat: int, bots: dict, seed: int | None, stdin=None, stdout=None) -> int:
    """Play one match at the terminal; 0 when it was played out or the person quit, 1 if input ended."""
    out = stdout or sys.stdout
    human = HintingHuman(Hinter(rules), stdin=stdin, stdout=out)
    agents = {**bots, human_seat: human}
    state = GameState.new(rules, seed=seed)
    side = state.side(human_seat)
    partner = [s for s in range(rules.players) if s != human_seat and state.side(s) == side]
    with_partner = f", partnered with player_{partner[0]}." if partner else "."
    human.say(f"All Fours, {rules.preset}, {rules.players} players, first to {rules.target}. "
              f"You are player_{human_seat}{with_partner} Type 'help' for help, 'hint' for the bot's move.\n"
              f"{auction_how(rules) if rules.auction else TRUMP_HOW[rules.turnup]}")
    hands_seen = state.hand_no
    try:
        while not state.done:
            seat = state.current_player
            action = agents[seat](state, seat)
            human.say(call_line(state, seat, action, None if seat == human_seat else agents[seat].name))
            tricks, last, redeals = len(state.tricks), state.last_hand, state.redeals
            state.apply(action)
            if state.redeals > redeals and state.hand_no == hands_seen:
                why = "every player passed" if rules.auction else "the pack ran out"
                human.say(f"Redeal ({why}): player_{state.dealer} deals again.")
            played_out = state.last_hand is not last  # the hand's last trick (the next deal wiped state.tricks)
            if played_out or len(state.tricks) > tricks:
                winner = (state.last_hand["tricks"] if played_out else state.tricks)[-1][2]
                human.say(f"Trick won by player_{winner}" + (" (you)" if winner == human_seat else ""))
            if state.hand_no != hands_seen:
                for k, result in enumerate(state.hand_results[hands_seen:]):
                    # a played hand ends first; a second result is the next deal's match-winning turn-up
                    dealt = state.last_hand["dealt"] if played_out and k == 0 else None
                    human.say(hand_summary(result, state.scores, side, dealt))
                hands_seen = state.hand_no
    except QuitGame as e:
        human.say(f"\nGame abandoned ({e}).")
        return 0 if str(e) == "quit" else 1
    human.say(f"Side {state.winner} wins the match {state.scores}."
              + (" Well played!" if state.winner == side else " Better luck next time."))
    return 0


def default_bot(rules) -> str:
    """The spec ``--bot bot`` stands for: the table's hint bot (``hint_bot``: the shipped bot of its preset, player
    count and sides, ``bot:pitch_partners`` for Auction Pitch in partnerships), or ``NO_BOT_YET`` at a table that
    none plays (traditional with 3 players)."""
    return hint_bot(rules) or NO_BOT_YET


def level(text: str) -> int:
    """``--level``: a level from 1 to 5 (``allfours.agents.spec.levels``), else one line naming them."""
    try:
        return check_level(int(text) if text.strip().isdigit() else text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a level from 1 to {TOP} ("
                                         f"{', '.join(f'{k} {w}' for k, w in WORDS.items())}), got {text!r}") from None


def at_level(spec: AgentSpec, n: int | None, asked: str, rules) -> AgentSpec:
    """``spec`` played at level ``n`` (None: as it is); ValueError, one line, for a bot that has no levels (``asked``:
    the --bot given)."""
    if n is None:
        return spec
    if not spec.is_network and asked == "bot":
        raise ValueError(f"no shipped bot plays {table_words(rules)}, so the bots are "
                         f"{spec.label!r}, which has no levels: leave --level out")
    if not spec.is_network:
        raise ValueError(f"only a network bot (bot:<name> or a checkpoint) plays at a level, and {spec.label!r} "
                         "is none: leave --level out, or give --bot bot")
    if spec.get("level") is not None:
        raise ValueError(f"--bot {spec.label!r} names its level already: give the level once")
    return AgentSpec(spec.name, spec.target, (*spec.items, ("level", n)))


def main(argv: list[str] | None = None) -> int:
    prog = "allfours play"
    p = Parser(prog=prog, description="Play All Fours in the terminal against bots. At the move prompt, 'hint' "
               "shows the move the table's shipped bot would play, its probability and the rule behind the decision.")
    add_rule_arguments(p, auction=True)
    p.add_argument("--seat", type=nonnegative_int, default=0, help="your seat (0 = first in play order)")
    p.add_argument("--bot", default="bot", metavar="AGENT", help="opponents and partner: 'bot' (the shipped bot for "
                   f"the table; {NO_BOT_YET} where none is: traditional with 3 players), "
                   "'search', "
                   "'heuristic', "
                   "'random' or any agent spec (docs/agents.md)")
    p.add_argument("--level", type=level, default=None, metavar="N",
                   help=f"the bots' level, 1 to {TOP} ({', '.join(f'{k} {w}' for k, w in WORDS.items())}; {TOP} is "
                   "the full bot): network bots only, so a --bot that is no network ('search', 'heuristic', "
                   "'random', or 'bot' in traditional with 3 players) refuses it (docs/agents.md, \"Levels\")")
    p.add_argument("--seed", type=seed, default=None, help="seed for a reproducible match")
    args = p.parse_args(argv)
    try:  # each argument checked on its own, and named when it is wrong
        rules, _ = rules_from_args(args)
    except UsageError as e:
        return fail(prog, str(e))
    if not 0 <= args.seat < rules.players:
        return fail(prog, f"argument --seat: must be a seat from 0 to {rules.players - 1}, got {args.seat}")
    try:
        spec = AgentSpec.parse(default_bot(rules) if args.bot == "bot" else args.bot)
    except ValueError as e:
        return fail(prog, f"argument --bot: {e}")
    try:
        spec = at_level(spec, args.level, args.bot, rules)
    except ValueError as e:
        return fail(prog, f"argument --level: {e}")
    try:
        bots = make_bots(rules, args.seat, spec, args.seed)
    except ValueError as e:
        return fail(prog, f"argument --bot: {e}")
    try:
        return play_match(rules, args.seat, bots, args.seed)
    except KeyboardInterrupt:
        print("\nGame abandoned.")
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): nobody is left to tell
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (so the interpreter's final flush is quiet)
        return 1
