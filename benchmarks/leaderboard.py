"""The leaderboards of docs/benchmark.md: a duplicate round robin per preset of every shipped agent.

    python benchmarks/leaderboard.py                  # every board, every agent: rewrites docs/benchmark.md
    python benchmarks/leaderboard.py --presets yorkshire seven_up --agents random heuristic bot --matches 200
    python benchmarks/leaderboard.py --check          # exit 1 if this command would change the doc
    python benchmarks/leaderboard.py --ray-address auto   # the matches as Ray tasks on a cluster (docs/ray.md)

A board is a preset at a player count: yorkshire, seven_up, traditional (4 players), traditional_2p (traditional with
2), pitch, pitch_3p and pitch_4p (Auction Pitch with 2, 3 and 4, each for themselves), pitch_partners (Auction Pitch
with 4 in two partnerships) and setback. On each, ``round_robin`` of ``allfours.agents.evaluation`` plays every pair
of ``--agents`` on the same duplicate deals (``--matches`` per pairing, each deal in both seatings; each for
themselves, the row's agent in each seat in turn and the other in the rest, and the other way round too, run seed
``--seed``) and rates them by one Plackett-Luce maximum-likelihood fit over every match
(``allfours.agents.evaluation.rating``, in Elo with 95% intervals); the board's figures are those ``allfours eval``
prints for the command shown with its table. In ``--agents``, ``bot`` stands for the board's shipped bot
(``bot:yorkshire`` ...). The default agents are every agent the project ships, ``guided`` once the registry knows it.

Each board's tables sit between ``<!-- leaderboard:BOARD {...} -->`` and ``<!-- leaderboard:BOARD
end -->`` in the doc, the first marker holding the agents, matches and seed they were made with;
only the boards played are rewritten, each as soon as it is done, and nothing else in the doc.
``--check`` writes nothing: it replays each board with the agents, matches and seed its marker
records (or those given: a board made with others is reported without playing) and compares
the tables, figure for figure (results do not depend on ``--workers``, nor on ``--ray-address``,
which plays the matches as Ray tasks: ``auto``, ``local`` or ``HOST:PORT``); exit status 1 if
any differs.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
import time
from pathlib import Path

from allfours.agents.evaluation import deal_group, eval_command, round_robin
from allfours.agents.evaluation.ray_eval import RayEvalError, connect
from allfours.agents.registry import make_agent, plays
from allfours.arguments import Parser, fail, positive_int, seed
from allfours_env import make_rules

PROG = "leaderboard.py"
DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmark.md"
# board -> (preset, rule options)
BOARDS = {"yorkshire": ("yorkshire", {}), "seven_up": ("seven_up", {}), "traditional": ("traditional", {}),
          "traditional_2p": ("traditional", {"players": 2}), "pitch": ("pitch", {"players": 2}),
          "pitch_3p": ("pitch", {"players": 3}), "pitch_4p": ("pitch", {"players": 4}),
          "pitch_partners": ("pitch", {"players": 4, "partnerships": True}), "setback": ("setback", {})}
DEFAULT_AGENTS = ("random", "heuristic", "search", "bot", "guided")
OPTIONAL = ("guided",)  # in the defaults only once registered
DEFAULT_MATCHES = 400  # a pairing, or the next multiple of the seatings of a deal (402 with three players)
SECTION = re.compile(r"<!-- leaderboard:(\w+) (\{.*?\}) -->\n.*?<!-- leaderboard:\1 end -->\n?", re.S)


def build_parser() -> Parser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", nargs="+", choices=list(BOARDS), default=list(BOARDS), metavar="BOARD",
                   help=f"boards to play: {', '.join(BOARDS)} (default all)")
    p.add_argument("--agents", nargs="+", default=None, metavar="AGENT",
                   help=f"agent specs, 'bot' for the board's bot (default {' '.join(DEFAULT_AGENTS)})")
    p.add_argument("--matches", type=positive_int, default=None,
                   help=f"matches per pairing, a multiple of the seatings of a deal (default {DEFAULT_MATCHES}, "
                        "402 with three players)")
    p.add_argument("--seed", type=seed, default=None, help="run seed (default 0)")
    p.add_argument("--workers", type=positive_int, default=None, help="worker processes (default 2)")
    p.add_argument("--ray-address", metavar="ADDRESS", default=None,
                   help="play the matches as Ray tasks: 'auto' joins the running cluster, 'local' starts Ray on "
                        "this machine, or HOST:PORT (pip install '.[ray]'; docs/ray.md)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a board's tables are not what its recorded (or the given) "
                        "agents, matches and seed make today")
    p.add_argument("--doc", type=Path, default=DOC, help="the document (default docs/benchmark.md)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def board_agents(board: str, agents: list[str] | None) -> list[str]:
    """The specs of ``agents`` on ``board`` (``bot`` -> its bot); the defaults less an optional agent not
    yet registered."""
    preset, options = BOARDS[board]
    specs = []
    for spec in DEFAULT_AGENTS if agents is None else agents:
        spec = f"bot:{board}" if spec == "bot" else spec
        if agents is None and not plays(spec, preset):
            print(f"{PROG}: {spec!r} does not play {preset}: left out of the {board} board", file=sys.stderr)
            continue
        if agents is None and spec in OPTIONAL and not registered(spec, preset, options):
            print(f"{PROG}: {spec!r} is not a registered agent yet: left out of the {board} board", file=sys.stderr)
            continue
        specs.append(spec)
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"argument --agents: give at least two distinct agents, got {' '.join(specs)}")
    for spec in specs:
        try:
            make_agent(spec, preset=preset, players=options.get("players"))
        except ValueError as e:
            raise ValueError(f"argument --agents: {e}") from None
    return specs


def registered(spec: str, preset: str, options: dict) -> bool:
    try:
        make_agent(spec, preset=preset, players=options.get("players"))
    except ValueError as e:
        if str(e).startswith("unknown agent"):
            return False
        raise
    return True


def play(board: str, agents: list[str], matches: int, seed: int, workers: int = 2, progress: bool = True,
         ray_address: str | None = None) -> dict:
    """The round robin of ``agents`` on ``board`` (``round_robin``'s output), as Ray tasks with ``ray_address``."""
    preset, options = BOARDS[board]
    return round_robin(agents, preset=preset, options=options, matches=matches, seed=seed, workers=workers,
                       progress=progress, ray_address=ray_address)


def params(agents: list[str], matches: int, seed: int) -> dict:
    return {"agents": agents, "matches": matches, "seed": seed}


def section(board: str, out: dict, agents: list[str], matches: int, seed: int) -> str:
    """The board's markdown, markers included: ratings, win rates row against column, each pairing's figures."""
    preset, options = BOARDS[board]
    rating = out["ratings"]
    order = sorted(agents, key=lambda a: (-rating[a]["rating"], agents.index(a)))
    rows = {(r["agent"], r["opponent"]): r for r in out["results"]}
    lines = [f"<!-- leaderboard:{board} {json.dumps(params(agents, matches, seed))} -->",
             f"{matches} matches per pairing ({deals(board, matches)}), seed {seed}; the same "
             f"figures: `{eval_command(agents, preset, options, matches, seed)}`.", "",
             "| rank | agent | rating (Elo) | 95% CI |", "| ---: | --- | ---: | --- |"]
    for i, a in enumerate(order, 1):
        r = rating[a]
        lines.append(f"| {i} | {a} | {r['rating']:.1f} | {r['ci95'][0]:.1f} - {r['ci95'][1]:.1f} |")
    n = group(board)
    head = "win rate (Wilson 95%), row against column" + (f" (row in one seat, column in {n - 1}: even 1/{n})"
                                                          if n > 2 else "")
    lines += ["", f"| {head} | " + " | ".join(order) + " |",
              "| --- |" + " --- |" * len(order)]
    for a in order:
        cells = [cell(rows[(a, b)]) if a != b else "" for b in order]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", "| agent | opponent | matches | wins | win rate | Wilson 95% | points/hand | t 95% "
              "| opponent points/hand |", "| --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: |"]
    both = n > 2  # each for themselves: B alone against A is a pairing of its own, not the complement
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            for r in ([rows[(a, b)], rows[(b, a)]] if both else [rows[(a, b)]]):
                lines.append(row(r))
    lines.append(f"<!-- leaderboard:{board} end -->")
    return "\n".join(lines) + "\n"


def row(r: dict) -> str:
    pci = r["points_per_hand_ci95"]
    return (f"| {r['agent']} | {r['opponent']} | {r['matches']} | {r['wins']} | {r['win_rate']:.3f} | "
            f"{span(r['ci95'])} | {r['points_per_hand']:.3f} | {span(pci) if pci else 'n/a'} | "
            f"{r['opponent_points_per_hand']:.3f} |")


def group(board: str) -> int:
    """The seatings of one deal on ``board``: 2 with two sides, else one a seat."""
    preset, options = BOARDS[board]
    return deal_group(make_rules(preset, **options))


def deals(board: str, matches: int) -> str:
    n = group(board)
    return (f"{matches // 2} deals, each in both seatings" if n == 2 else
            f"{matches // n} deals, each with the row's agent in each of the {n} seats and the column's in the others")


def default_matches(board: str) -> int:
    n = group(board)
    return -(-DEFAULT_MATCHES // n) * n


def cell(r: dict) -> str:
    return f"{r['win_rate']:.3f} ({span(r['ci95'])})"


def span(ci) -> str:
    return f"{ci[0]:.3f} - {ci[1]:.3f}"


def sections(text: str) -> dict[str, tuple[dict, str]]:
    """board -> (the parameters in its marker, its text) for every board section of ``text``."""
    out = {}
    for m in SECTION.finditer(text):
        try:
            out[m.group(1)] = (json.loads(m.group(2)), m.group(0))
        except json.JSONDecodeError:
            raise ValueError(f"the marker of board {m.group(1)!r} holds no valid JSON: {m.group(2)}") from None
    return out


def replace_section(text: str, board: str, new: str) -> str:
    found = sections(text)
    if board not in found:
        raise ValueError(f"no section for board {board!r} (markers <!-- leaderboard:{board} {{...}} --> and "
                         f"<!-- leaderboard:{board} end -->)")
    return text.replace(found[board][1], new, 1)


def check_board(text: str, board: str, agents: list[str], matches: int, seed: int, workers: int,
                progress: bool, ray_address: str | None = None) -> str | None:
    """None if the board's section is what these agents, matches and seed make, else why not."""
    found = sections(text)
    made = found[board][0] if board in found else {}
    if not made:
        return "no table yet"
    want = params(agents, matches, seed)
    if made != want:
        diff = ", ".join(f"{k} {made.get(k)} (this command: {v})" for k, v in want.items() if made.get(k) != v)
        return f"made with {diff}"
    new = section(board, play(board, agents, matches, seed, workers, progress, ray_address), agents, matches, seed)
    if new == found[board][1]:
        return None
    diff = [d for d in difflib.unified_diff(found[board][1].splitlines(), new.splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and d[:3] not in ("+++", "---")]
    return "figures differ (- doc, + now):\n  " + "\n  ".join(diff[:6])


def resolve(args, board: str, recorded: dict) -> tuple[list[str], int, int]:
    """(agents, matches, seed) to play ``board`` with: as given, else for ``--check`` as the doc
    records them, else the defaults."""
    made = recorded if args.check else {}
    agents = board_agents(board, args.agents if args.agents is not None else made.get("agents"))
    matches = args.matches if args.matches is not None else made.get("matches", default_matches(board))
    seed = args.seed if args.seed is not None else made.get("seed", 0)
    n = group(board)
    if not isinstance(matches, int) or matches < n or matches % n:
        words = "even (each deal is played in both seatings)" if n == 2 else \
            f"a multiple of {n} on board {board} (each deal is played in {n} seatings)"
        raise ValueError(f"argument --matches: must be {words}, got {matches}")
    return agents, matches, seed


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        if not args.doc.is_file():
            raise ValueError(f"argument --doc: file {str(args.doc)!r} does not exist")
        found = sections(args.doc.read_text())
        boards = list(dict.fromkeys(args.presets))
        for board in boards:
            if board not in found:
                raise ValueError(f"{args.doc}: no section for board {board!r} (markers <!-- leaderboard:{board} "
                                 f"{{...}} --> and <!-- leaderboard:{board} end -->)")
        runs = {board: resolve(args, board, found[board][0]) for board in boards}
        if args.ray_address is not None:
            if args.workers is not None:
                raise ValueError("argument --workers: sets the worker processes on this machine; with --ray-address "
                                 "every CPU of the Ray cluster plays matches: leave out --workers")
            try:  # start or join Ray before the first match: an address that does not answer is one line
                connect(args.ray_address)
            except (ImportError, ConnectionError, ValueError) as e:
                raise ValueError(f"argument --ray-address: {e}") from None
    except ValueError as e:
        return fail(PROG, e)
    return run(args, runs)  # (the evaluation's pool plays on one thread a process, --workers 1 included)


def run(args, runs: dict) -> int:
    stale = 0
    progress = not args.no_progress
    workers, address = args.workers or 2, args.ray_address
    try:
        for board, (agents, matches, seed) in runs.items():
            if args.check:
                why = check_board(args.doc.read_text(), board, agents, matches, seed, workers, progress, address)
                stale += why is not None
                print(f"{board}: {'current' if why is None else 'NOT current: ' + why}")
                continue
            t0 = time.perf_counter()
            out = play(board, agents, matches, seed, workers, progress, address)
            new = section(board, out, agents, matches, seed)
            # read again: keep edits made to the doc meanwhile
            args.doc.write_text(replace_section(args.doc.read_text(), board, new))
            print(f"{board}: {len(out['results']) // 2} pairings of {matches} matches in "
                  f"{time.perf_counter() - t0:.0f} s, written to {args.doc}")
    except KeyboardInterrupt:
        return fail(PROG, "stopped: the boards reported above are written, the one being played is not", 130)
    except ValueError as e:  # an agent a Ray node cannot load
        return fail(PROG, e)
    except RayEvalError as e:  # matches Ray lost more often than it retries them
        return fail(PROG, e, 1)
    if stale:
        print(f"{stale} board(s) not current: run the command without --check to rewrite them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
