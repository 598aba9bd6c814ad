"""The game of a command from its arguments: ``--preset``, ``--players``, ``--target`` and
``--rule KEY=VALUE`` (repeatable), shared by ``allfours eval`` and ``allfours play``.

Each argument is checked on its own and a bad one named in the error (``UsageError``); the rule
options are read by ``allfours_env.rules.parse_rule_options``, as a training config's
``rules.KEY=VALUE`` overrides are, and the game is made once (``make_rules``).
"""

from __future__ import annotations

import argparse

from allfours_env.rules import (
    ALLOWED_PLAYERS,
    OPTIONS,
    PLAYED_PRESETS,
    PRESETS,
    Rules,
    check_rule_option,
    make_rules,
    parse_rule_options,
)

from .common import UsageError, played_preset, positive_int, preset

OTHERS = [n for n, o in OPTIONS.items() if not o.pack and n not in ("players", "target")]
# "traditional 2-4, pitch 2-4": the presets that take more than one player count
CHOOSE_PLAYERS = ", ".join(f"{n} {min(c)}-{max(c)}" for n, c in ALLOWED_PLAYERS.items() if n in PLAYED_PRESETS
                           and len(c) > 1)
RULE_HELP = (f"any other rule option, repeatable: {', '.join(OTHERS)} (true/false for the yes-or-no ones; as a "
             "training config's rules.KEY=VALUE)")


def add_rule_arguments(p: argparse.ArgumentParser, *, default_preset: str = "yorkshire", auction: bool = False) -> None:
    """``--preset``, ``--players``, ``--target`` and ``--rule`` on parser ``p``; with ``auction``, ``--preset``
    also takes the auction presets (pitch, setback)."""
    names = PLAYED_PRESETS if auction else list(PRESETS)
    p.add_argument("--preset", type=played_preset if auction else preset, default=default_preset,
                   help=f"one of {', '.join(names)} (default {default_preset})")
    p.add_argument("--players", type=positive_int, default=None,
                   help=f"players, where the preset allows ({CHOOSE_PLAYERS})")
    p.add_argument("--target", type=positive_int, default=None, help="points to win (default: the preset's)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help=RULE_HELP)


def rules_from_args(args) -> tuple[Rules, dict]:
    """(the game's rules, the options given) from ``args.preset``, ``.players``, ``.target`` and ``.rule``;
    ``UsageError`` naming the argument at fault."""
    options: dict = {}
    for name in ("players", "target"):
        value = getattr(args, name)
        if value is not None:
            try:
                check_rule_option(name, value, args.preset)
            except ValueError as e:
                raise UsageError(str(e), f"--{name}") from None
            options[name] = value
    try:
        given = parse_rule_options(args.rule, args.preset)
    except ValueError as e:
        raise UsageError(str(e), "--rule") from None
    twice = sorted(set(given) & set(options))
    if twice:
        raise UsageError(f"rule option {twice[0]!r} is given twice (also as --{twice[0]})", "--rule")
    options.update(given)
    try:
        rules = make_rules(args.preset, **options)
    except ValueError as e:  # the options together (each is checked above)
        raise UsageError(str(e), "--rule") from None
    return rules, options
