"""``allfours export``: a trained policy to ONNX with its model card (``allfours.agents.network.export_onnx``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from allfours.agents.network.export_onnx import check, export, load_policy

from .common import Parser, fail, nonnegative_int, output_file, preset, seed


def main(argv: list[str] | None = None) -> int:
    prog = "allfours export"
    p = Parser(prog=prog, description="Export a trained policy to ONNX with a model "
                                "card (encoding version, action ids, golden test vectors).")
    p.add_argument("policy", help="bot:<name> (a shipped bot) or a training checkpoint (.pt or run folder)")
    p.add_argument("-o", "--output", type=output_file,
                   help="ONNX file to write (default: <name>.onnx in the current folder)")
    p.add_argument("--preset", type=preset, help="preset of the golden vectors (default: the policy's)")
    p.add_argument("--vectors", type=nonnegative_int, default=16, help="golden test vectors in the card (default 16)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--dynamo", action="store_true", help="use the torch.export-based exporter (opset 18)")
    p.add_argument("--no-check", action="store_true", help="skip the onnxruntime check on the golden vectors")
    args = p.parse_args(argv)
    if importlib.util.find_spec("onnx") is None:  # torch's exporter needs it; say so before loading anything
        return fail(prog, "exporting needs the onnx package: pip install 'allfours[onnx]'", status=1)
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
