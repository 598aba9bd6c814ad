"""``allfours`` command line: each subcommand lives in its own module with a ``main(argv)``."""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "train": ("train.cli", "train a self-play PPO bot (default: configs/yorkshire.yaml)"),
    "eval": ("agents.eval_cli", "play duplicate matches between agents and report win rates"),
    "play": ("agents.play_cli", "play a match in the terminal against the bots"),
    "bench": ("allfours_env.bench", "measure environment and engine speed"),
    "serve": ("agents.serve.serve_cmd", "serve the bots over HTTP (JSON API with an OpenAPI description)"),
    "bot": ("agents.serve.bot_cmd", "answer bot requests as JSON lines on stdin/stdout (for subprocess use)"),
    "export": ("agents.export_cmd", "export a trained policy to ONNX with a model card and golden test vectors"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: allfours COMMAND [options]\n\ncommands:")
        for name, (_, help_) in COMMANDS.items():
            print(f"  {name:<8} {help_}")
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"allfours: unknown command {cmd!r}; choose from {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[cmd][0])
    return module.main(rest) or 0


if __name__ == "__main__":
    sys.exit(main())
