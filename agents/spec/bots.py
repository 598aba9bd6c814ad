"""The shipped bots by name (torch-free, so the server can list them without loading a network)."""

from __future__ import annotations

from typing import NamedTuple

from allfours_env.rules import ALL_PRESETS


class Table(NamedTuple):
    """The table a shipped bot was trained at: its preset, player count and, with four players, whether in two
    partnerships (None: the preset's own sides)."""
    preset: str
    players: int
    partnerships: bool | None = None

    def sides(self) -> bool:
        """Whether it plays in partnerships."""
        return ALL_PRESETS[self.preset].partnerships if self.partnerships is None else self.partnerships

    def options(self) -> dict:
        """Its rule options for ``make_rules``: ``players`` where not the preset's own count, ``partnerships`` where
        not the preset's own sides."""
        out = {} if ALL_PRESETS[self.preset].players == self.players else {"players": self.players}
        return out if self.partnerships is None else {**out, "partnerships": self.partnerships}


# Shipped bot names -> their Table: one bot per config in configs/. With two bots at one preset and count (pitch_4p
# and pitch_partners), the first is the one ``bot_name`` picks for that count.
BOTS = {"yorkshire": Table("yorkshire", 4), "traditional": Table("traditional", 4),
        "traditional_2p": Table("traditional", 2), "seven_up": Table("seven_up", 2), "pitch": Table("pitch", 2),
        "pitch_3p": Table("pitch", 3), "pitch_4p": Table("pitch", 4),
        "pitch_partners": Table("pitch", 4, partnerships=True), "setback": Table("setback", 4)}


def bot_name(name: str, players: int | None = None, game: str | None = None) -> str:
    """The shipped bot for a preset (or bot name) at a player count: ``("traditional", 2)`` -> ``traditional_2p``.
    ``game``, the preset of the table, only words the error when there is none."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}: choose one of {sorted(BOTS)}")
    if players is None or BOTS[name].players == players:
        return name
    for other, table in BOTS.items():
        if table.preset == BOTS[name].preset and table.players == players:
            return other
    shipped = ", ".join(f"{k} ({t.preset}, {t.players} players{' in partnerships' if t.partnerships else ''})"
                        for k, t in BOTS.items())
    trained, n = BOTS[name].preset, BOTS[name].players
    if game is not None and game != trained:
        raise ValueError(f"bot:{name} is a network for {trained} with {n} players, not {game} with {players} "
                         f"players (shipped: {shipped})")
    raise ValueError(f"no bot is shipped for {trained} with {players} players (shipped: {shipped})")


def bot_for(rules) -> str | None:
    """The shipped bot of a table's ``rules``: the one trained at its preset, player count and sides (Auction Pitch
    for four: ``pitch_4p`` each for themselves, ``pitch_partners`` in partnerships); None where none is. The
    defaults (``allfours play --bot bot``, the hints) seat only this bot; naming a bot seats it at any table of its
    game."""
    return next((name for name, table in BOTS.items() if (table.preset, table.players) == (rules.preset, rules.players)
                 and (rules.players != 4 or table.sides() == rules.partnerships)), None)


def table_words(rules) -> str:
    """A table in words, for the lines that say no bot plays it: ``pitch with 4 players in partnerships``."""
    sides = ""
    if rules.players == 4 and rules.partnerships != ALL_PRESETS[rules.preset].partnerships:
        sides = " in partnerships" if rules.partnerships else " each for themselves"
    return f"{rules.preset} with {rules.players} players{sides}"
