"""The work of ``allfours eval`` (``allfours.cli.eval``, its arguments and help): the agents built and checked,
the duplicate matches played, the tables printed and written. ``allfours.cli.eval`` loads this module once the
arguments parse, so that a bad one is refused before torch and the agents are imported."""

from __future__ import annotations

import json
import sys
import time

from allfours.agents import evaluation
from allfours.agents.evaluation import EvaluationInterrupted, eval_command, evaluate_pairings, round_robin, seatings
from allfours.agents.evaluation.ray_eval import RayEvalError, connect
from allfours.agents.spec import AgentSpec

from .common import Stopped, UsageError, exit_status, fail, signal_name, stop_signals
from .eval import PROG

REPORT_KEYS = ("preset", "players", "seed", "matches_per_pairing", "results", "ratings")


def run(args, parser, game: tuple | None) -> int:
    """``allfours eval`` with its parsed ``args`` and ``game`` (the rules and the rule options given; None with
    ``--report``): the exit status."""
    with stop_signals() as signals:  # the first signal stops the matches; none stops the writing
        try:
            if args.report is not None:
                return _report(args, parser)
            specs = check(args, *game)
            return _play(args, specs, *game, signals)
        except (UsageError, ValueError) as e:
            return fail(PROG, e)
        except RayEvalError as e:  # matches Ray lost more often than it retries them
            return fail(PROG, e, 1)
        except Stopped as e:  # while checking the agents (loading checkpoints)
            print(f"{PROG}: stopped by {signal_name(e.signum)} before the first match: nothing to report",
                  file=sys.stderr)
            return exit_status(e.signum)


def check(args, rules, options: dict) -> list[AgentSpec]:
    """Every other argument before any match, for the game ``rules``: the agents' specs, or ``UsageError`` naming
    the argument. Each agent is built here once, for the matches this process plays."""
    group = len(seatings(rules.players, rules.partnerships))
    if args.matches % group:
        raise UsageError(f"must be a positive multiple of {group} for {args.preset!r} with {rules.players} players "
                         f"(each deal is played {group} times), got {args.matches}", "--matches")
    if len(args.agents) < 2:
        raise UsageError("give at least two agents", "--agents")
    try:
        specs = [AgentSpec.parse(text) for text in args.agents]
    except ValueError as e:
        raise UsageError(str(e), "--agents") from None
    if len(set(specs)) != len(specs):
        raise UsageError(f"agent specs must be distinct, got {' '.join(args.agents)}", "--agents")
    if args.ray_address is not None and args.workers is not None:
        raise UsageError("sets the worker processes on this machine; with --ray-address every CPU of the Ray "
                         "cluster plays matches: leave out --workers", "--workers")
    for spec in specs:  # loads checkpoints: last, after the cheap checks
        try:
            evaluation.build_agent(spec, rules)
        except ValueError as e:
            raise UsageError(str(e), "--agents") from None
    if args.ray_address is not None:  # start or join Ray now: an address that does not answer is a usage error
        try:
            connect(args.ray_address)
        except (ImportError, ConnectionError, ValueError) as e:
            raise UsageError(str(e), "--ray-address") from None
    return specs


def _play(args, specs: list[AgentSpec], rules, options: dict, signals: stop_signals) -> int:
    t0 = time.perf_counter()
    kw = dict(preset=args.preset, matches=args.matches, seed=args.seed, workers=args.workers or 2, options=options,
              progress=not args.no_progress, ray_address=args.ray_address, rules=rules)
    out, stopped = None, None
    try:
        if len(specs) == 2:
            out = evaluate_pairings([(specs[0], specs[1])], **kw)
        else:
            out = round_robin(specs, **kw)
        signals.disarm()
    except EvaluationInterrupted as e:
        out, stopped = e.report, e.signum
    except Stopped:
        if out is None:  # before the matches
            raise
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["command"] = eval_command(args.agents, args.preset, options, args.matches, args.seed)
    if stopped is not None:
        out["stopped_by"] = signal_name(stopped)
    print(format_report(out))
    if args.json:
        try:
            args.json.write_text(json.dumps(out, indent=2) + "\n")
        except OSError as e:  # checked at the start, but the disk or folder may have changed since
            return fail(PROG, f"cannot write {str(args.json)!r}: {e.strerror} (the results are printed above)", 1)
    if stopped is None:
        if args.json:
            print(f"wrote {args.json}")
        return 0
    where = (f"; written to {args.json} (allfours eval --report {args.json})" if args.json
             else " (give --json FILE to keep them)")
    print(f"{PROG}: stopped by {signal_name(stopped)} after {out['matches_finished']} of {out['matches_planned']} "
          f"matches: the results of the {out['matches_played']} in whole duplicate groups are above{where}",
          file=sys.stderr)
    return exit_status(stopped)


def _report(args, parser) -> int:
    others = [a.option_strings[0] for a in parser._actions
              if a.dest not in ("help", "report", "no_progress") and getattr(args, a.dest) != a.default]
    if others:
        raise UsageError(f"prints a results file and plays nothing: leave out {', '.join(others)}", "--report")
    try:
        out = json.loads(args.report.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"{str(args.report)!r} is not a JSON file ({e})", "--report") from None
    missing = [k for k in REPORT_KEYS if k not in out] if isinstance(out, dict) else list(REPORT_KEYS)
    try:
        if missing:
            raise KeyError(missing[0])
        text = format_report(out)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise UsageError(f"{str(args.report)!r} is not a results file of allfours eval (bad or missing {e})",
                         "--report") from None
    print(text)
    return 0


def format_report(out: dict) -> str:
    """Markdown tables: per pairing, and the ratings."""
    head = (f"preset {out['preset']} ({out['players']} players), {out['matches_per_pairing']} matches per pairing, "
            f"seed {out['seed']}" + (f", {out['seconds']} s" if "seconds" in out else ""))
    if out.get("partial"):
        head = (f"PARTIAL (stopped{' by ' + out['stopped_by'] if out.get('stopped_by') else ''}): "
                f"{out['matches_played']} of {out['matches_planned']} planned matches, whole duplicate groups only; "
                + head)
    lines = [head, "",
             "| agent | opponent | matches | wins | win rate | 95% CI (Wilson) | points/hand | 95% CI "
             "| opp. points/hand |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: |"]
    for r in out["results"]:
        ci = r["ci95"]
        pci = r["points_per_hand_ci95"]
        pci_s = f"{pci[0]:.3f} - {pci[1]:.3f}" if pci else "n/a"
        lines.append(f"| {r['agent']} | {r['opponent']} | {r['matches']} | {r['wins']} | {r['win_rate']:.3f} | "
                     f"{ci[0]:.3f} - {ci[1]:.3f} | {r['points_per_hand']:.3f} | {pci_s} | "
                     f"{r['opponent_points_per_hand']:.3f} |")
    return "\n".join(lines + [""] + rating_table(out["ratings"]))


def rating_table(ratings: dict) -> list[str]:
    """The ratings, best first; a report written before 2026-12-02 holds OpenSkill's instead, shown as they are."""
    if all("ordinal" in r for r in ratings.values()):
        lines = ["| agent | OpenSkill mu | sigma | ordinal |", "| --- | ---: | ---: | ---: |"]
        for name, r in sorted(ratings.items(), key=lambda kv: -kv[1]["ordinal"]):
            lines.append(f"| {name} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |")
        return lines
    lines = ["| agent | rating (Elo, Plackett-Luce fit) | 95% CI |", "| --- | ---: | --- |"]
    for name, r in sorted(ratings.items(), key=lambda kv: -kv[1]["rating"]):
        lines.append(f"| {name} | {r['rating']:.1f} | {r['ci95'][0]:.1f} - {r['ci95'][1]:.1f} |")
    return lines

