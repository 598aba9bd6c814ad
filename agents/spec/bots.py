"""The shipped bots by name (torch-free, so the server can list them without loading a network)."""

from __future__ import annotations

from allfours_env.rules import ALL_PRESETS

# Shipped bot names -> (preset, players): one bot per config in configs/.
BOTS = {"yorkshire": ("yorkshire", 4), "traditional": ("traditional", 4), "traditional_2p": ("traditional", 2),
        "seven_up": ("seven_up", 2), "pitch": ("pitch", 2), "pitch_3p": ("pitch", 3), "pitch_4p": ("pitch", 4),
        "setback": ("setback", 4)}


def bot_name(name: str, players: int | None = None, game: str | None = None) -> str:
    """The shipped bot for a preset (or bot name) at a player count: ``("traditional", 2)`` -> ``traditional_2p``.
    ``game``, the preset of the table, only words the error when there is none."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}: choose one of {sorted(BOTS)}")
    if players is None or BOTS[name][1] == players:
        return name
    for other, (preset, n) in BOTS.items():
        if preset == BOTS[name][0] and n == players:
            return other
    shipped = ", ".join(f"{k} ({p}, {n} players)" for k, (p, n) in BOTS.items())
    trained, n = BOTS[name]
    if game is not None and game != trained:
        raise ValueError(f"bot:{name} is a network for {trained} with {n} players, not {game} with {players} "
                         f"players (shipped: {shipped})")
    raise ValueError(f"no bot is shipped for {trained} with {players} players (shipped: {shipped})")


def bot_for(rules) -> str | None:
    """The shipped bot of a table's ``rules``: the one trained at its preset and player count, and with four players
    on the preset's own sides (Auction Pitch in partnerships has none: ``pitch_4p`` learnt each for themselves);
    None where none is. The defaults (``allfours play --bot bot``, the hints) seat only this bot; naming a bot
    seats it at any table of its game."""
    if rules.players == 4 and rules.partnerships != ALL_PRESETS[rules.preset].partnerships:
        return None
    return next((name for name, table in BOTS.items() if table == (rules.preset, rules.players)), None)


def table_words(rules) -> str:
    """A table in words, for the lines that say no bot plays it: ``pitch with 4 players in partnerships``."""
    sides = ""
    if rules.players == 4 and rules.partnerships != ALL_PRESETS[rules.preset].partnerships:
        sides = " in partnerships" if rules.partnerships else " each for themselves"
    return f"{rules.preset} with {rules.players} players{sides}"
