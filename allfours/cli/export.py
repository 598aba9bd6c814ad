"""``allfours export``: a trained policy to ONNX with its model card (``allfours.agents.adapters.export_onnx``)."""

from __future__ import annotations

import importlib
import importlib.util

from .common import Parser, any_preset, fail, nonnegative_int, output_file, seed

PROG = "allfours export"
RUN = "allfours.cli.export_run"  # the export: torch and the network, loaded once the arguments parse


def main(argv: list[str] | None = None) -> int:
    prog = PROG
    p = Parser(prog=prog, description="Export a trained policy to ONNX with a model "
                                "card (encoding version, action ids, golden test vectors).")
    p.add_argument("policy", help="bot:<name> (a shipped bot) or a training checkpoint (.pt or run folder)")
    p.add_argument("-o", "--output", type=output_file,
                   help="ONNX file to write (default: <name>.onnx in the current folder)")
    p.add_argument("--preset", type=any_preset, help="the game of the golden vectors: the network's own, which is "
                   "the default (another game is refused)")
    p.add_argument("--vectors", type=nonnegative_int, default=16, help="golden test vectors in the card (default 16)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--dynamo", action="store_true", help="use the torch.export-based exporter (opset 18)")
    p.add_argument("--no-check", action="store_true", help="skip the onnxruntime check on the golden vectors")
    args = p.parse_args(argv)
    if importlib.util.find_spec("onnx") is None:  # torch's exporter needs it; say so before loading anything
        return fail(prog, "exporting needs the onnx package: pip install 'allfours[onnx]'", status=1)
    return importlib.import_module(RUN).run(args)
