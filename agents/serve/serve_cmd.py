"""``allfours serve``: the HTTP bot server (see ``agents.serve.app``)."""

from .cli import serve_main as main

__all__ = ["main"]
