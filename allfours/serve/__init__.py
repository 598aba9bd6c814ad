"""Serving the bots to other programs: an HTTP API (``allfours serve``) and JSON lines (``allfours bot``).

Both take one seat's view of a hand in progress, check it by replaying it on the engine
(``allfours_env.replay``), and answer with the bot's action. See ``docs/protocol.md``.
"""
