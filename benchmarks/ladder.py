"""The levels of the shipped bots: each level against the one below, the "Levels" tables of docs/benchmark.md.

    python benchmarks/ladder.py                                    # every shipped bot, seed 0 (2,000 matches a
                                                                   # pairing with 2 players, 400 with 4)
    python benchmarks/ladder.py --bots seven_up pitch --matches 200 --seed 1
    python benchmarks/ladder.py --check                            # exit 1 if a level does not beat the one below
    python benchmarks/ladder.py --bots yorkshire --json            # the figures as JSON

A level (``bot:<name>:level=1`` to ``5``, ``allfours.agents.spec.levels``) plays a uniformly random legal move
instead of its network's on a share of its moves, the top level none. For each bot of ``--bots`` (default every
shipped bot, ``allfours.agents.spec.bots.BOTS``), level k plays level k-1 for k = 2..5, each pairing over
``--matches`` duplicate matches (default by the bot's player count, ``DEFAULT_MATCHES``) of run seed ``--seed``
(``allfours.agents.evaluation.evaluate_pairings`` on ``--workers`` processes; a pairing's figures are those
``allfours eval --agents bot:<name>:level=k bot:<name>:level=k-1`` prints for the same matches and seed). Each
table gives a level's win rate against the level below with its Wilson 95% interval, its points a hand and the
other's, and a rating: level 1 is 0, and each level's the one below plus the Elo difference of its win rate p
against it, 400 log10(p / (1 - p)).

A level whose interval's lower end is at or below an even match's win rate (0.5 with two sides, 1/n with n each for
themselves) does not beat the one below: the table and a line under it say so, and ``--check`` then exits 1.
"""

from __future__ import annotations

import json
import math
import sys
import time

from allfours.agents.evaluation import EvaluationInterrupted, deal_group, eval_command, evaluate_pairings
from allfours.agents.spec.bots import BOTS
from allfours.agents.spec.levels import TOP, WORDS
from allfours.arguments import Parser, fail, positive_int, seed
from allfours_env import make_rules

PROG = "ladder.py"
# Matches a pairing by default, by the bot's player count: two-player matches are short and luck-heavy (Seven Up's
# steps are 35 to 45 Elo, a win rate of about 0.55), so they take more; four-player steps are wider and slower.
DEFAULT_MATCHES = {2: 2000, 3: 600, 4: 400}


def build_parser() -> Parser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--bots", nargs="+", choices=list(BOTS), default=list(BOTS), metavar="BOT",
                   help=f"shipped bots to climb: {', '.join(BOTS)} (default all)")
    p.add_argument("--matches", type=positive_int, default=None,
                   help="duplicate matches per pairing, a multiple of the seatings of a deal (default by the bot's "
                        f"players: {', '.join(f'{n} players {m}' for n, m in DEFAULT_MATCHES.items())})")
    p.add_argument("--seed", type=seed, default=0, help="run seed (default 0)")
    p.add_argument("--workers", type=positive_int, default=2, help="worker processes (default 2)")
    p.add_argument("--check", action="store_true", help="exit 1 if a level does not beat the one below")
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of markdown tables")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def spec(name: str, level: int) -> str:
    return f"bot:{name}:level={level}"


def game(name: str) -> tuple[str, dict]:
    """(preset, rule options) of a bot's game: ``players`` and ``partnerships`` only where not the preset's own."""
    return BOTS[name].preset, BOTS[name].options()


def elo(p: float) -> float | None:
    """The Elo difference of win rate ``p`` against an opponent, 400 log10(p / (1 - p)); None at 0 or 1."""
    return 400 * math.log10(p / (1 - p)) if 0 < p < 1 else None


def ratings(win_rates: list[float]) -> list[float | None]:
    """Each level's rating, level 1 = 0 and ``win_rates[i]`` level i+2's against level i+1; None from a level that
    won or lost every match on (no finite Elo difference)."""
    out: list[float | None] = [0.0]
    for p in win_rates:
        step = elo(p)
        out.append(None if out[-1] is None or step is None else out[-1] + step)
    return out


def matches_of(name: str, matches: int | None) -> int:
    """``--matches``, or the default for the bot's player count."""
    return DEFAULT_MATCHES[BOTS[name].players] if matches is None else matches


def check_matches(name: str, matches: int) -> None:
    preset, options = game(name)
    group = deal_group(make_rules(preset, **options))
    if matches % group:
        words = "even (each deal is played in both seatings)" if group == 2 else \
            f"a multiple of {group} for bot {name} (each deal is played in {group} seatings)"
        raise ValueError(f"argument --matches: must be {words}, got {matches}")


def climb(name: str, matches: int, seed_: int, workers: int, progress: bool) -> dict:
    """Level k of bot ``name`` against level k-1 for k = 2..TOP: the rows, ratings and the command."""
    preset, options = game(name)
    rules = make_rules(preset, **options)
    even = 1 / rules.sides
    pairs = [(spec(name, k), spec(name, k - 1)) for k in range(2, TOP + 1)]
    out = evaluate_pairings(pairs, preset=preset, options=options, matches=matches, seed=seed_, workers=workers,
                            progress=progress, both_ways=False, rules=rules)
    first = {(r["agent"], r["opponent"]): r for r in out["results"]}
    results = [first[p] for p in pairs]
    rated = ratings([r["win_rate"] for r in results]) if rules.sides == 2 else [None] * TOP
    levels = []
    for k, r in zip(range(2, TOP + 1), results):
        levels.append({"level": k, "word": WORDS[k], "opponent": k - 1, "matches": r["matches"], "wins": r["wins"],
                       "win_rate": r["win_rate"], "ci95": r["ci95"], "points_per_hand": r["points_per_hand"],
                       "points_per_hand_ci95": r["points_per_hand_ci95"],
                       "opponent_points_per_hand": r["opponent_points_per_hand"],
                       "elo": elo(r["win_rate"]) if rules.sides == 2 else None, "rating": rated[k - 1],
                       "beats": r["ci95"][0] > even,
                       "eval": eval_command([spec(name, k), spec(name, k - 1)], preset, options, matches, seed_)})
    return {"bot": name, "preset": preset, "players": rules.players, "matches": matches, "seed": seed_,
            "even": even, "rating_1": rated[0], "levels": levels, "command": command(name, matches, seed_)}


def command(name: str, matches: int, seed_: int) -> str:
    return f"python benchmarks/ladder.py --bots {name} --matches {matches} --seed {seed_}"


def short(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def deals(board: dict) -> str:
    """How the matches are dealt: each deal in both seatings, or, each for themselves, the level in each seat."""
    group = deal_group(make_rules(board["preset"], **game(board["bot"])[1]))
    return (f"{board['matches'] // 2} deals, each in both seatings" if group == 2 else
            f"{board['matches'] // group} deals, each with the level in each of the {group} seats and the level "
            f"below in the others")


def table(board: dict) -> str:
    """A bot's ladder as markdown: heading, table, what the rating is, who does not beat the level below, and
    the command."""
    name, matches = board["bot"], board["matches"]
    sides = " in partnerships" if BOTS[name].partnerships else ""  # the second bot at one count: pitch_partners
    lines = [f"### bot:{name} ({board['preset']}, {board['players']} players{sides})", "",
             f"{matches} matches per pairing ({deals(board)}), seed {board['seed']}.", "",
             "| level | word | win rate against the level below | Wilson 95% | points/hand | opponent points/hand "
             "| rating (Elo) | beats the level below |",
             "| ---: | --- | ---: | --- | ---: | ---: | ---: | --- |",
             f"| 1 | {WORDS[1]} | | | | | {short(board['rating_1'])} | |"]
    for r in board["levels"]:
        lo, hi = r["ci95"]
        lines.append(f"| {r['level']} | {r['word']} | {r['win_rate']:.3f} | {lo:.3f} - {hi:.3f} | "
                     f"{r['points_per_hand']:.3f} | {r['opponent_points_per_hand']:.3f} | {short(r['rating'])} | "
                     f"{'yes' if r['beats'] else '**no**'} |")
    rating = ("Rating: level 1 = 0; each level's is the one below plus the Elo difference of its win rate p against "
              "it, 400 log10(p / (1 - p))." if board["rating_1"] is not None else
              f"Rating: none each for themselves (an Elo step needs two sides); the level plays one seat against the "
              f"level below in the other {board['players'] - 1}, so an even share is {board['even']:.3f}, and a "
              "stronger level below in more seats lowers the win rate up the ladder.")
    lines += ["", rating, ""]
    for r in board["levels"]:
        if not r["beats"]:
            lines += [f"**Level {r['level']} ({r['word']}) does not beat level {r['opponent']} "
                      f"({WORDS[r['opponent']]})**: its interval's lower end {r['ci95'][0]:.3f} is at or below "
                      f"{board['even']:.3f}.", ""]
    lines += [f"The same figures: `{board['command']}`; one level's row alone: `{board['levels'][0]['eval']}` "
              "(and so on up the levels).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    bots = list(dict.fromkeys(args.bots))
    try:
        for name in bots:
            check_matches(name, matches_of(name, args.matches))
    except ValueError as e:
        return fail(PROG, e)
    return run(args, bots)  # (the evaluation's pool plays on one torch thread, in this process too)


def run(args, bots: list[str]) -> int:
    boards = []
    for name in bots:
        t0 = time.perf_counter()
        try:
            board = climb(name, matches_of(name, args.matches), args.seed, args.workers, not args.no_progress)
        except (EvaluationInterrupted, KeyboardInterrupt):
            return fail(PROG, "stopped: the bots reported above are done, the one being played is not", 130)
        except ValueError as e:  # a bot not shipped here
            return fail(PROG, e)
        boards.append(board)
        if not args.no_progress:
            print(f"{name}: {TOP - 1} pairings of {board['matches']} matches in {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
        if not args.json:
            print(table(board), flush=True)
    if args.json:
        print(json.dumps(boards, indent=1))
    losers = [(b["bot"], r) for b in boards for r in b["levels"] if not r["beats"]]
    for name, r in losers:
        print(f"{PROG}: bot:{name} level {r['level']} does not beat level {r['opponent']}: win rate "
              f"{r['win_rate']:.3f}, Wilson 95% {r['ci95'][0]:.3f} - {r['ci95'][1]:.3f}", file=sys.stderr)
    return 1 if args.check and losers else 0


if __name__ == "__main__":
    sys.exit(main())
