"""``allfours bot``: the JSON-lines bot protocol over stdin/stdout (see ``agents.serve.stdio``)."""

from .cli import bot_main as main

__all__ = ["main"]
