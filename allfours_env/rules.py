"""Presets (one per rule text) and the options a user may override (docs/rules.md sections 1-5).

``make_rules(preset, **options)`` validates everything and returns a frozen ``Rules``; every
other module reads the rules from it and never hard-codes a preset.
"""

from __future__ import annotations

import difflib
import numbers
from dataclasses import dataclass, field, replace

from .cards import ACE, JACK, RANKS, SIX

HAND_SIZE = 6  # cards dealt to each seat (docs/rules.md section 2)
RUN_SIZE = 3  # cards more to each seat per run of the pack (docs/rules.md section 3)


def side_of(seat: int, players: int, partnerships: bool = True) -> int:
    """The side a seat plays for: with four players in partnerships ``seat % 2``, else the seat itself."""
    return seat % 2 if players == 4 and partnerships else seat


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
    # The pack (docs/rules.md section 7): suits 0..suits-1 (C D H S) of the ranks in ``ranks``, and the cards
    # dealt to each seat; ``run_out``: "redeal" when the stock cannot give a run of the pack, or "void".
    suits: int = 4
    ranks: str = RANKS
    hand_cards: int = HAND_SIZE
    run_out: str = "redeal"
    # Four players play as two partnerships (False: each for themselves, Auction Pitch's default).
    partnerships: bool = True
    # The auction presets (docs/rules.md section 8): trump is won in one round of bidding, and the pitcher's
    # first lead names it. ``min_bid`` the lowest bid; ``dealer_privilege`` "none", "match" (the dealer may take
    # the high bid at its value) or "four" (only a bid of four); ``all_pass`` "stuck" (the dealer must bid),
    # "redeal" (the same dealer deals again), "eldest" (the eldest pitches, no contract) or "next_dealer" (the deal
    # passes on); ``low_to`` "holder" or "capturer"; ``going_out`` "bidder" (the bidder's side counts first) or
    # "order" (points count in the order High, Low, Jack, Game); ``smudge``: a bid to take all six tricks
    # (``smudge_points``: to win all four points instead); ``floor``: a side at or below minus the target loses.
    auction: bool = False
    min_bid: int = 2
    dealer_privilege: str = "none"
    all_pass: str = "stuck"
    low_to: str = "holder"
    going_out: str = "bidder"
    smudge: bool = False
    smudge_points: bool = False
    floor: bool = False
    deck: int = field(init=False, repr=False, compare=False)  # the pack as a card mask
    cards: tuple = field(init=False, repr=False, compare=False)  # the pack's card ids, ascending

    def __post_init__(self):
        cards = tuple(13 * s + RANKS.index(r) for s in range(self.suits) for r in self.ranks)
        object.__setattr__(self, "cards", tuple(sorted(cards)))
        object.__setattr__(self, "deck", sum(1 << c for c in cards))

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 and self.partnerships else self.players

    def side(self, seat: int) -> int:
        return side_of(seat, self.players, self.partnerships)

    @property
    def family(self) -> str:
        """``"auction"`` for the auction presets (docs/rules.md section 8), else ``"all_fours"``: which options the
        preset takes (``OPTIONS``) and which players play it."""
        return "auction" if self.auction else "all_fours"

    @property
    def rule_text(self) -> str:
        """The rule text the preset follows (a mini preset is seven_up on a small pack): the observation's slot."""
        return MINI_BASE if self.preset in MINI_PRESETS else self.preset

    @property
    def lowest_score(self) -> int | None:
        """The lowest score a side can hold while its match goes on (docs/rules.md sections 6 and 8): 0 in All
        Fours' presets (scores only grow); with ``floor``, one above minus the target (there the side has lost);
        None in the auction presets without it, where a side set back hand after hand has no lowest score."""
        if not self.auction:
            return 0
        return 1 - self.target if self.floor else None

    @property
    def full_deck(self) -> bool:
        return self.suits == 4 and self.ranks == RANKS

    @property
    def run_size(self) -> int:
        """Cards more to each seat per run of the pack: half a hand (three with six), at least one."""
        return max(1, self.hand_cards // 2)

    def hand_size(self, runs: int = 0) -> int:
        """Cards each seat is dealt in a hand: six (``hand_cards``), plus three (``run_size``) per run of the
        pack (docs/rules.md sections 2-3)."""
        return self.hand_cards + self.run_size * runs

    @property
    def stock_size(self) -> int:
        """Cards left in the stock after the deal (the first turn-up is its top card)."""
        return len(self.cards) - self.hand_cards * self.players

    @property
    def max_runs(self) -> int:
        """The most times the pack can be run in one deal: after the first turn-up each run takes three
        cards a seat and a turn-up; when the stock cannot give a whole run, the deal is redone (section 3)."""
        return max(0, (self.stock_size - 1) // (self.run_size * self.players + 1))

    def to_dict(self) -> dict:
        """The preset and its options (``OPTIONS``): the pack's only where it is not the full one of six cards each,
        an option added later (``Option.later``) only when on, so that rules written before read the same."""
        standard = self.full_deck and self.hand_cards == HAND_SIZE and self.run_out == "redeal"
        return {"preset": self.preset, **{n: getattr(self, n) for n in options_of(self)
                                          if not (OPTIONS[n].pack and standard)
                                          and not (OPTIONS[n].later and not getattr(self, n))}}


@dataclass(frozen=True)
class Preset:
    """One row of the presets' table: a preset's rules and what a user may change of them."""

    rules: Rules
    players: tuple  # the player counts it allows
    played: bool = True  # a whole game for people and bots (False: a solvable tier, docs/rules.md section 7)
    fixed: dict = field(default_factory=dict)  # option -> (the one value the preset takes, why)

    @property
    def family(self) -> str:
        return self.rules.family


@dataclass(frozen=True)
class Option:
    """One row of the options' table (docs/rules.md sections 1-8): what ``make_rules`` takes, and what the server's
    schema, the command line's ``--rule``, OpenSpiel's parameters and the replay of a view are generated from."""

    kind: type  # bool, int or str
    families: tuple = ("all_fours", "auction")  # the families of presets that take it
    choices: tuple = ()  # the values it may take (none: any of its kind, within ``bounds``)
    bounds: tuple = ()  # (lowest, highest) of an int
    note: str = ""  # said after the bounds in an error
    pack: bool = False  # the pack (section 7): not offered at hosted tables
    later: bool = False  # added after bots were trained and views stored: ``to_dict`` writes it only when on


FAMILIES = {  # the families of presets (``Rules.family``), and what an option that is not theirs says
    "all_fours": "All Fours' presets",  # docs/rules.md sections 1-7
    "auction": "the auction presets",  # section 8: the whole pack, six cards each, no throwing in
}
_AUCTION_ONLY = ("auction",)
_PACK = dict(families=("all_fours",), pack=True)
OPTIONS = {
    "players": Option(int),  # the counts allowed: the preset's ``players``
    "target": Option(int, bounds=(1, 1000)),
    "must_follow_suit": Option(bool),
    "throw_in": Option(bool),
    "reward": Option(str, choices=("match", "points")),
    "episode": Option(str, choices=("match", "hand")),
    "low_cut_deals": Option(bool),  # seven_up: the Whist rule "lowest card deals"
    "suits": Option(int, bounds=(2, 4), note=" (the first suits of C D H S)", **_PACK),
    "ranks": Option(str, **_PACK),  # read by ``rank_string``
    "hand_cards": Option(int, bounds=(1, 12), **_PACK),
    "run_out": Option(str, choices=("redeal", "void"), **_PACK),
    "min_bid": Option(int, _AUCTION_ONLY, choices=(1, 2)),
    "dealer_privilege": Option(str, _AUCTION_ONLY, choices=("none", "match", "four")),
    "all_pass": Option(str, _AUCTION_ONLY, choices=("stuck", "redeal", "eldest", "next_dealer")),
    "low_to": Option(str, _AUCTION_ONLY, choices=("holder", "capturer")),
    "going_out": Option(str, _AUCTION_ONLY, choices=("bidder", "order")),
    "smudge": Option(bool, _AUCTION_ONLY),
    "partnerships": Option(bool, _AUCTION_ONLY),
    "smudge_points": Option(bool, _AUCTION_ONLY, later=True),
    "floor": Option(bool, _AUCTION_ONLY, later=True),
}
RULE_OPTIONS = tuple(OPTIONS)

_YORKSHIRE = Rules(preset="yorkshire", players=4, target=11, turnup=False, kicks={}, jack_rule="capture",
                   game_tie_to_elder=False, first_dealer="jack", low_cut_deals=False, hidden_partner=True,
                   must_follow_suit=False, throw_in=True, reward="match", episode="match")
_TRADITIONAL = Rules(preset="traditional", players=4, target=14, turnup=True, kicks={ACE: 1, SIX: 2, JACK: 3},
                     jack_rule="hang", game_tie_to_elder=False, first_dealer="random", low_cut_deals=False,
                     hidden_partner=False, must_follow_suit=False, throw_in=False, reward="match", episode="match")
_SEVEN_UP = Rules(preset="seven_up", players=2, target=7, turnup=True, kicks={JACK: 1}, jack_rule="capture",
                  game_tie_to_elder=True, first_dealer="cut", low_cut_deals=False, hidden_partner=False,
                  must_follow_suit=False, throw_in=False, reward="match", episode="match")
# The solvable tiers (docs/rules.md section 7): two-player Seven Up on a small pack, one hand, the points
# difference as payoff; when the stock cannot give a run of the pack the hand is void (a redeal would make
# one hand endless).
MINI_BASE = "seven_up"
_MINI = dict(episode="hand", reward="points", run_out="void")
# All Fours' descendants with an auction (docs/rules.md section 8).
_AUCTION = dict(turnup=False, kicks={}, jack_rule="capture", game_tie_to_elder=False, first_dealer="cut",
                low_cut_deals=False, hidden_partner=False, must_follow_suit=False, throw_in=False, reward="match",
                episode="match", auction=True)
PRESET_TABLE = {
    "yorkshire": Preset(_YORKSHIRE, players=(4,)),
    "traditional": Preset(_TRADITIONAL, players=(2, 3, 4)),
    "seven_up": Preset(_SEVEN_UP, players=(2,)),
    "mini2": Preset(replace(_SEVEN_UP, preset="mini2", suits=2, ranks="TJA", hand_cards=2, **_MINI), players=(2,),
                    played=False),
    "mini3": Preset(replace(_SEVEN_UP, preset="mini3", suits=3, ranks="2JA", hand_cards=2, **_MINI), players=(2,),
                    played=False),
    "mini3x3": Preset(replace(_SEVEN_UP, preset="mini3x3", suits=3, ranks="2JA", hand_cards=3, **_MINI),
                      players=(2,), played=False),
    "pitch": Preset(Rules(preset="pitch", players=4, target=7, partnerships=False, min_bid=2, dealer_privilege="none",
                          all_pass="stuck", low_to="holder", going_out="bidder", smudge=False, **_AUCTION),
                    players=(2, 3, 4)),
    "setback": Preset(Rules(preset="setback", players=4, target=11, partnerships=True, min_bid=2,
                            dealer_privilege="match", all_pass="redeal", low_to="capturer", going_out="bidder",
                            smudge=False, **_AUCTION),
                      players=(4,),
                      fixed={"partnerships": (True, "setback is played in fixed partnerships: partnerships must stay "
                                                    "true")}),
}


def presets(family: str | None = None, played: bool | None = None) -> tuple:
    """The names of the presets of ``family`` (None: every family), those ``played`` or not (None: both)."""
    return tuple(n for n, p in PRESET_TABLE.items()
                 if (family is None or p.family == family) and (played is None or p.played == played))


ALL_PRESETS = {n: p.rules for n, p in PRESET_TABLE.items()}  # every preset's rules
PRESETS = {n: ALL_PRESETS[n] for n in presets("all_fours", played=True)}  # All Fours' three rule texts
MINI_PRESETS = {n: ALL_PRESETS[n] for n in presets(played=False)}
AUCTION_PRESETS = {n: ALL_PRESETS[n] for n in presets("auction")}
# The full games a person or a bot plays: All Fours' three presets and the auction ones (no mini preset).
PLAYED_PRESETS = presets(played=True)
ALLOWED_PLAYERS = {n: p.players for n, p in PRESET_TABLE.items()}


def options_of(preset: str | Rules, pack: bool = True) -> tuple:
    """The names of the options ``preset`` takes, in the table's order (``pack=False``: without the pack's)."""
    family = preset.family if isinstance(preset, Rules) else PRESET_TABLE[preset].family
    return tuple(n for n, o in OPTIONS.items() if family in o.families and (pack or not o.pack))


def fixed_options(preset: str | Rules) -> dict:
    """The options ``preset`` takes at one value only: name -> (that value, why). The auction presets never throw
    in (docs/rules.md section 8), a preset that does not cut for deal has no lowest-card cut, and the table's own."""
    rules = preset if isinstance(preset, Rules) else ALL_PRESETS[preset]
    fixed = {}
    if rules.auction:
        fixed["throw_in"] = (False, f"option throw_in does not apply to {rules.preset!r} (the whole pack, six cards "
                                    "each, no throwing in)")
    if rules.first_dealer != "cut":
        cut = ", ".join(n for n in PLAYED_PRESETS if ALL_PRESETS[n].first_dealer == "cut")
        fixed["low_cut_deals"] = (False, f"option low_cut_deals only applies to a preset that cuts for deal ({cut})")
    row = PRESET_TABLE.get(rules.preset)
    return {**fixed, **(row.fixed if row is not None else {})}


AUCTION_MAX_MOVES = 3000
"""The auction presets' default move cap of an env's match (``check_max_moves``): about ten times a long match
between sensible players; players who overbid at random are set back hand after hand, and a match need never end."""


def check_max_moves(max_moves, rules: Rules) -> int | None:
    """The move cap of an env's match under ``rules`` (None: none; the default: none in All Fours' presets, which
    always end, ``AUCTION_MAX_MOVES`` in the auction presets), or one ValueError naming a bad ``max_moves``."""
    if max_moves is None:
        return AUCTION_MAX_MOVES if rules.auction else None
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves must be None or an int of at least 1, got {max_moves!r}")
    return max_moves


def make_rules(preset: str = "yorkshire", **options) -> Rules:
    """The rules of ``preset`` with ``options`` applied; ValueError on anything unknown or invalid."""
    if isinstance(preset, Rules):
        base = preset
    elif preset not in ALL_PRESETS:
        raise ValueError(f"unknown preset {preset!r}: choose one of {sorted(ALL_PRESETS)}")
    else:
        base = ALL_PRESETS[preset]
    unknown = sorted(set(options) - set(RULE_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}: valid options are {list(RULE_OPTIONS)}")
    o = dict(options)
    for name in RULE_OPTIONS:
        if name in o:
            check_rule_option(name, o[name], base)
    if "ranks" in o:
        o["ranks"] = rank_string(o["ranks"])
    # A one-hand episode scores per hand: points reward unless the user asks otherwise.
    if o.get("episode") == "hand" and "reward" not in o:
        o["reward"] = "points"
    rules = replace(base, **o)
    _check_pack(rules)
    _check_auction(rules, o)
    return rules


def rank_string(value) -> str:
    """The ranks in play as ``Rules.ranks`` holds them (rank characters, low to high) from "2,J,A", "2JA",
    "10 J A" or a list of rank names; one ValueError for anything else."""
    if isinstance(value, str):
        names = value.replace(",", " ").split()
        if len(names) == 1:  # "2JA" or "10JA": one character a rank
            names = list(names[0].replace("10", "T"))
    elif isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
        names = list(value)
    else:
        raise ValueError(f"ranks must be rank names such as '2,J,A' (of {RANKS}), got {value!r}")
    names = ["T" if x.strip() == "10" else x.strip().upper() for x in names]
    bad = [x for x in names if len(x) != 1 or x not in RANKS]
    if bad or not names or len(set(names)) != len(names):
        raise ValueError(f"ranks must be distinct rank names of {RANKS} (10 or T for the ten), such as '2,J,A'; "
                         f"got {value!r}")
    return "".join(sorted(names, key=RANKS.index))


def _check_pack(rules: Rules) -> None:
    """One ValueError for a pack that cannot play the rules: too few cards for a deal, or no jack to find the
    first dealer by."""
    need = rules.hand_cards * rules.players + (1 if rules.turnup else 0)
    if len(rules.cards) < need:
        raise ValueError(f"a pack of {len(rules.cards)} cards ({rules.suits} suits x ranks {rules.ranks}) is too small:"
                         f" {rules.players} players x {rules.hand_cards} cards{' and a turn-up' * rules.turnup} need "
                         f"{need}")
    if rules.first_dealer == "jack" and "J" not in rules.ranks:
        raise ValueError(f"preset {rules.preset!r} finds its first dealer by the first jack dealt: ranks must "
                         f"include J, got {rules.ranks!r}")


def _check_auction(rules: Rules, options: dict) -> None:
    """One ValueError for options that do not fit an auction preset together (``check_rule_option`` has refused
    an auction option given to another preset)."""
    if options.get("partnerships") and rules.players != 4:
        raise ValueError(f"option partnerships needs 4 players, got {rules.players}")
    if rules.floor and rules.sides != 2:  # with three or four sides no text says who wins when one sinks
        raise ValueError(f"option floor needs two sides (setback, or pitch with 2 players or in partnerships), got "
                         f"{rules.sides}")
    if rules.smudge_points and not rules.smudge:
        raise ValueError("option smudge_points needs smudge=True: it says how a smudge is made")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


SEED_LIMIT = 1 << 64  # seeds are 0 .. 2**64 - 1: the batched engine's uint64 counters hold no more


def check_seed(seed, what: str = "seed", none: bool = True) -> int | None:
    """``seed`` as an int (None stays None, where ``none``); one ValueError naming it unless it is an int
    from 0 to 2**64 - 1 (numpy's too; not a bool). Every env and ``GameState.new`` read user seeds through
    this: Python's ``random`` would fold a negative seed onto its absolute value (-1 deals as 1), and the
    batched engine's uint64 counters would overflow past 2**64 - 1."""
    if seed is None and none:
        return None
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"{what} must be an int from 0 to 2**64 - 1{', or None' if none else ''}; got {seed!r}")
    return int(seed)


_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False, "1": True, "0": False}


def _either(values) -> str:
    words = [repr(v) if isinstance(v, str) else str(v) for v in values]
    return f"{words[0]} or {words[1]}" if len(words) == 2 else f"one of {', '.join(words)}"


def check_rule_option(name: str, value, preset: str | Rules | None = None) -> None:
    """ValueError unless ``value`` is a valid value of rule option ``name`` (``OPTIONS``); for ``preset``, where
    given, also one it takes (its family's options, its player counts, its fixed options)."""
    base = preset if isinstance(preset, Rules) else ALL_PRESETS.get(preset) if preset is not None else None
    if name not in OPTIONS:
        raise ValueError(f"unknown option(s) {[name]}: valid options are {list(RULE_OPTIONS)}")
    opt = OPTIONS[name]
    if name == "players" and base is not None and (not _is_int(value) or value not in ALLOWED_PLAYERS[base.preset]):
        raise ValueError(f"preset {base.preset!r} allows players in {ALLOWED_PLAYERS[base.preset]}, got {value!r}")
    if name == "players" and (not _is_int(value) or value < 1):
        raise ValueError(f"players must be a whole number of 1 or more, got {value!r}")
    if opt.kind is bool and not isinstance(value, bool):
        raise ValueError(f"option {name} must be True or False, got {value!r}")
    if opt.bounds and (not _is_int(value) or not opt.bounds[0] <= value <= opt.bounds[1]):
        raise ValueError(f"{name} must be an int from {opt.bounds[0]} to {opt.bounds[1]}{opt.note}, got {value!r}")
    if name == "ranks":
        rank_string(value)
    if base is not None and base.family not in opt.families:
        if opt.pack:  # (the auction presets play the whole pack)
            raise ValueError(f"option {name} does not apply to {base.preset!r} (the whole pack, six cards each)")
        raise ValueError(f"option {name} belongs to {' and '.join(FAMILIES[f] for f in opt.families)} "
                         f"({', '.join(n for f in opt.families for n in presets(f, played=True))}), not to "
                         f"{base.preset!r}")
    fixed = fixed_options(base) if base is not None else {}
    if name in fixed and value != fixed[name][0]:
        raise ValueError(fixed[name][1])
    if opt.choices and (isinstance(value, bool) or value not in opt.choices):
        raise ValueError(f"{name} must be {_either(opt.choices)}, got {value!r}")


def parse_rule_options(items, preset: str | Rules | None = None) -> dict:
    """Rule options from ``KEY=VALUE`` text, each value typed by its option and checked (for ``preset``
    where given): ``parse_rule_options(["target=7", "throw_in=true"])`` -> ``{"target": 7, "throw_in": True}``.
    Booleans are true/false (yes/no, on/off, 1/0). The first bad item is a ValueError, one line,
    naming it: not KEY=VALUE, an unknown option (with the close ones), a key given twice, a bad value.
    What the options are together (``make_rules``) is the caller's to check."""
    out: dict = {}
    for item in items:
        key, eq, text = (x.strip() for x in str(item).partition("="))
        if not eq or not key:
            raise ValueError(f"{item!r} must look like KEY=VALUE (e.g. throw_in=false)")
        if key not in RULE_OPTIONS:
            close = difflib.get_close_matches(key, RULE_OPTIONS, n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise ValueError(f"unknown option {key!r}: valid options are {', '.join(RULE_OPTIONS)}{hint}")
        if key in out:
            raise ValueError(f"rule option {key!r} is given twice")
        kind = OPTIONS[key].kind
        if kind is bool:
            if text.lower() not in _BOOL_WORDS:
                raise ValueError(f"option {key} must be true or false, got {text!r}")
            value = _BOOL_WORDS[text.lower()]
        elif kind is int:
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"option {key} must be a whole number, got {text!r}") from None
        else:
            value = text
        check_rule_option(key, value, preset)
        out[key] = value
    return out
