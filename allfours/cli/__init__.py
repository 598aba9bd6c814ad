"""The ``allfours`` command: each subcommand lives in its own module of this package with a ``main(argv)``.

This is the top layer: it may import everything (``allfours_env`` <- ``allfours.agents`` <-
``allfours.train`` <- here); nothing imports it. ``eval``, ``train``, ``exploit`` and ``export`` read and
check their arguments in their own module, which imports neither torch nor the agents, and then load their
work (``eval_run``, ``train_run``, ``exploit_run``, ``export_run``) by name: a bad argument is refused in a
fraction of a second.
"""

from __future__ import annotations

import importlib
import sys

from allfours import __version__

COMMANDS = {
    "train": ("train", "train a self-play PPO bot (default: the yorkshire config)"),
    "eval": ("eval", "play duplicate matches between agents and report win rates"),
    "exploit": ("exploit", "train a fresh exploiter against a frozen bot and report how often it wins"),
    "play": ("play", "play a match in the terminal against the bots"),
    "bench": ("bench", "measure environment and engine speed"),
    "serve": ("serve", "serve the bots over HTTP (JSON API with an OpenAPI description)"),
    "bot": ("bot", "answer bot requests as JSON lines on stdin/stdout (for subprocess use)"),
    "export": ("export", "export a trained policy to ONNX with a model card and golden test vectors"),
}

SERVER_COMMANDS = ("serve", "bot")  # the [serve] extra's commands
SERVER_PACKAGES = ("fastapi", "starlette", "uvicorn", "pydantic", "swagger_ui_bundle")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-V", "--version"):
        print(f"allfours {__version__}")
        return 0
    if not argv:
        print(f"allfours: error: a command is required: choose one of {', '.join(COMMANDS)} (see allfours --help)",
              file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print("usage: allfours COMMAND [options]   (allfours COMMAND --help for its options)\n\ncommands:")
        for name, (_, help_) in COMMANDS.items():
            print(f"  {name:<8} {help_}")
        print("\n  --version  print the version")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"allfours: error: unknown command {cmd!r}: choose one of {', '.join(COMMANDS)} (see allfours --help)",
              file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(f"{__name__}.{COMMANDS[cmd][0]}")
    except ModuleNotFoundError as e:
        if cmd not in SERVER_COMMANDS or (e.name or "").split(".")[0] not in SERVER_PACKAGES:
            raise
        print(f"allfours {cmd}: error: the server's packages are not installed ({e.name}): pip install "
              "'allfours[serve]' (from a checkout: pip install '.[serve]')", file=sys.stderr)
        return 2
    return module.main(rest) or 0


if __name__ == "__main__":
    sys.exit(main())
