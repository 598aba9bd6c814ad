"""Presets (one per rule text) and the options a user may override (docs/rules.md sections 1-5).

``make_rules(preset, **options)`` validates everything and returns a frozen ``Rules``; every
other module reads the rules from it and never hard-codes a preset.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .cards import ACE, JACK, SIX


def side_of(seat: int, players: int) -> int:
    """The side a seat plays for: with four players the partnerships ``seat % 2``, else the seat itself."""
    return seat % 2 if players == 4 else seat


@dataclass(frozen=True)
class Rules:
    preset: str
    players: int
    target: int
    turnup: bool  # trump from a turned-up card with stand/beg (else: Yorkshire pitch)
    kicks: dict = field(hash=False)  # rank -> points to the dealer's side for a turned-up card
    jack_rule: str  # "capture": 1 to the capturer; "hang": 1 to the dealt side, 3 to a capturing opponent
    game_tie_to_elder: bool
    first_dealer: str  # "jack" (deal face up to the first jack), "cut", or "random"
    low_cut_deals: bool  # seven_up: the Whist rule "lowest card deals"
    hidden_partner: bool  # Yorkshire: the pitcher's partner sees nothing before the lead
    must_follow_suit: bool
    throw_in: bool
    reward: str  # "match" or "points"
    episode: str  # "match" or "hand"

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    def side(self, seat: int) -> int:
        return side_of(seat, self.players)

    def to_dict(self) -> dict:
        return {"preset": self.preset, "players": self.players, "target": self.target,
                "must_follow_suit": self.must_follow_suit, "throw_in": self.throw_in,
                "reward": self.reward, "episode": self.episode, "low_cut_deals": self.low_cut_deals}


PRESETS = {
    "yorkshire": Rules(preset="yorkshire", players=4, target=11, turnup=False, kicks={}, jack_rule="capture",
                       game_tie_to_elder=False, first_dealer="jack", low_cut_deals=False, hidden_partner=True,
                       must_follow_suit=False, throw_in=True, reward="match", episode="match"),
    "traditional": Rules(preset="traditional", players=4, target=14, turnup=True, kicks={ACE: 1, SIX: 2, JACK: 3},
                         jack_rule="hang", game_tie_to_elder=False, first_dealer="random", low_cut_deals=False,
                         hidden_partner=False, must_follow_suit=False, throw_in=False, reward="match",
                         episode="match"),
    "seven_up": Rules(preset="seven_up", players=2, target=7, turnup=True, kicks={JACK: 1}, jack_rule="capture",
                      game_tie_to_elder=True, first_dealer="cut", low_cut_deals=False, hidden_partner=False,
                      must_follow_suit=False, throw_in=False, reward="match", episode="match"),
}
ALLOWED_PLAYERS = {"yorkshire": (4,), "traditional": (2, 3, 4), "seven_up": (2,)}
OPTION_NAMES = ("players", "target", "must_follow_suit", "throw_in", "reward", "episode", "low_cut_deals")


def make_rules(preset: str = "yorkshire", **options) -> Rules:
    """The rules of ``preset`` with ``options`` applied; ValueError on anything unknown or invalid."""
    if isinstance(preset, Rules):
        base = preset
    elif preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}: choose one of {sorted(PRESETS)}")
    else:
        base = PRESETS[preset]
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}: valid options are {list(OPTION_NAMES)}")
    o = dict(options)
    if "players" in o:
        p = o["players"]
        if not _is_int(p) or p not in ALLOWED_PLAYERS[base.preset]:
            raise ValueError(f"preset {base.preset!r} allows players in {ALLOWED_PLAYERS[base.preset]}, got {p!r}")
    if "target" in o and (not _is_int(o["target"]) or not 1 <= o["target"] <= 1000):
        raise ValueError(f"target must be an int from 1 to 1000, got {o['target']!r}")
    for name in ("must_follow_suit", "throw_in", "low_cut_deals"):
        if name in o and not isinstance(o[name], bool):
            raise ValueError(f"option {name} must be True or False, got {o[name]!r}")
    if o.get("low_cut_deals") and base.first_dealer != "cut":
        raise ValueError("option low_cut_deals only applies to a preset that cuts for deal (seven_up)")
    if "reward" in o and o["reward"] not in ("match", "points"):
        raise ValueError(f"reward must be 'match' or 'points', got {o['reward']!r}")
    if "episode" in o and o["episode"] not in ("match", "hand"):
        raise ValueError(f"episode must be 'match' or 'hand', got {o['episode']!r}")
    # A one-hand episode scores per hand: points reward unless the user asks otherwise.
    if o.get("episode") == "hand" and "reward" not in o:
        o["reward"] = "points"
    return replace(base, **o)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)
