"""``allfours play``: a person plays a whole match in the terminal against the bots."""

from __future__ import annotations

import argparse
import sys

from allfours.agents.human import HumanAgent, QuitGame
from allfours.agents.registry import make_agent
from allfours_env import GameState, action_name, make_rules


def hand_summary(result: dict, scores: list[int], side_of_human: int) -> str:
    def who(side):
        if side is None:
            return "nobody"
        return f"side {side}" + (" (you)" if side == side_of_human else "")
    lines = ["=== hand over ===", f"Trump: {result['trump'] or 'not settled'}"]
    if result["high"] is None and result["game"] is None:
        lines.append("The hand ended before play (a turn-up or take-one reached the target).")
    else:
        lines += [f"High: {who(result['high'])}", f"Low:  {who(result['low'])}",
                  f"Jack: {who(result['jack'])}" + (f" ({result['jack_points']})" if result["jack"] is not None else
                                                     " (trump jack not dealt)"),
                  f"Game: {who(result['game'])}  card points {result['game_totals']}"]
    lines.append("Points this hand: " + "  ".join(f"side {s}: {p}" for s, p in enumerate(result["points"])))
    lines.append("Match score:      " + "  ".join(f"side {s}: {p}" for s, p in enumerate(scores)))
    return "\n".join(lines)


def play_match(rules, human_seat: int, bot_spec: str, seed: int | None, stdin=None, stdout=None) -> int:

    out = stdout or sys.stdout
    human = HumanAgent(stdin=stdin, stdout=out)
    agents = {s: (human if s == human_seat else make_agent(bot_spec, preset=rules.preset, players=rules.players,
                                                          seed=None if seed is None else seed + s))
              for s in range(rules.players)}
    state = GameState.new(rules, seed=seed)
    side = state.side(human_seat)
    partner = [s for s in range(rules.players) if s != human_seat and state.side(s) == side]
    with_partner = f", partnered with player_{partner[0]}." if partner else "."
    human.say(f"All Fours, {rules.preset}, {rules.players} players, first to {rules.target}. "
              f"You are player_{human_seat}{with_partner} Type 'help' for help.")
    hands_seen = state.hand_no
    try:
        while not state.done:
            seat = state.current_player
            action = agents[seat](state, seat)
            if seat != human_seat:
                human.say(f"player_{seat} ({agents[seat].name}): {action_name(action)}")
            before = len(state.tricks)
            state.apply(action)
            if state.hand_no != hands_seen:
                hands_seen = state.hand_no
                human.say(hand_summary(state.hand_result, state.scores, side))
            elif len(state.tricks) > before:
                plays, _thrown, winner = state.tricks[-1]
                human.say(f"Trick won by player_{winner}" + (" (you)" if winner == human_seat else ""))
    except QuitGame as e:
        human.say(f"\nGame abandoned ({e}).")
        return 1
    human.say(f"Side {state.winner} wins the match {state.scores}."
              + (" Well played!" if state.winner == side else " Better luck next time."))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="allfours play", description="Play All Fours in the terminal against bots.")
    p.add_argument("--preset", default="yorkshire", help="yorkshire, traditional or seven_up")
    p.add_argument("--players", type=int, default=None, help="traditional: 2, 3 or 4")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first in play order)")
    p.add_argument("--bot", default="bot", help="opponents and partner: 'bot' (the shipped bot for the preset), "
                   "'search', 'heuristic', 'random' or any agent spec")
    p.add_argument("--seed", type=int, default=None, help="seed for a reproducible match")
    p.add_argument("--target", type=int, default=None, help="points to win (default: the preset's)")
    args = p.parse_args(argv)
    options = {k: v for k, v in (("players", args.players), ("target", args.target)) if v is not None}
    try:
        rules = make_rules(args.preset, **options)
        if not 0 <= args.seat < rules.players:
            raise ValueError(f"--seat must be from 0 to {rules.players - 1}")
        spec = f"bot:{rules.preset}" if args.bot == "bot" else args.bot
        return play_match(rules, args.seat, spec, args.seed)
    except ValueError as e:
        print(f"allfours play: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nGame abandoned.")
        return 1
