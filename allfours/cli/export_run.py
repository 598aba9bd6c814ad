"""The work of ``allfours export`` (``allfours.cli.export``, its arguments and help): the policy loaded, exported
to ONNX with its card and checked. ``allfours.cli.export`` loads this module once the arguments parse."""

from __future__ import annotations

from pathlib import Path

from allfours.agents.adapters.export_onnx import check, export, load_policy

from .common import fail
from .export import PROG


def run(args) -> int:
    """``allfours export`` with its parsed ``args``: the exit status."""
    prog = PROG
    try:
        agent = load_policy(args.policy, args.preset)
    except (ValueError, FileNotFoundError) as e:
        return fail(prog, f"argument policy: {e}")
    trained = getattr(agent, "preset", None)
    if args.preset and trained and args.preset != trained:  # the card would name a game the network never played
        players = (agent.meta.get("rules") or {}).get("players")
        return fail(prog, f"argument --preset: {args.policy!r} is a network for {trained}"
                          f"{f' with {players} players' if players else ''}, not {args.preset}: leave out --preset "
                          "(the golden vectors are made in the network's own game)")
    out = Path(args.output or (args.policy.replace(":", "_").replace("/", "_").removesuffix(".pt") + ".onnx"))
    try:
        card = export(agent, out, preset=args.preset, vectors=args.vectors, seed=args.seed, dynamo=args.dynamo)
    except OSError as e:  # a folder that exists but takes no files (/proc, a read-only mount)
        return fail(prog, f"argument -o/--output: cannot write {str(out)!r}: {e.strerror or e}")
    msg = f"wrote {out} and {out.with_name(out.stem + '.card.json')} ({len(card['golden'])} golden vectors)"
    if not args.no_check and card["golden"]:
        try:
            msg += f"; onnxruntime matches PyTorch within {check(out, card):.2g}"
        except ImportError:
            msg += "; onnxruntime not installed: not checked (pip install 'allfours[onnx]')"
        except ValueError as e:
            return fail(prog, e, status=1)
    print(msg)
    return 0
