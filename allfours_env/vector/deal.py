"""The batched engine's deals (``allfours_env.vector.deal``): counter-based streams, one per game.

Match m of a game seeded s is dealt from (s, m) alone, by SplitMix64 counters keyed by (seed, match,
deal number), so a game replays whatever the number of games and whatever the others do.
``deck_orders`` shuffles a pack, ``shuffled_deal`` deals it as ``GameState`` deals a shuffled pack,
``first_dealers`` picks each match's first dealer by the preset's procedure (docs/rules.md section 2).
``twin_state`` is the scalar ``GameState`` dealt by these very streams: the tests play it beside
``allfours_env.vector.VectorEnv`` move for move, and the Gymnasium env deals with it."""

from __future__ import annotations

import numpy as np

from ..cards import JACK, NUM_CARDS
from ..engine import GameState
from ..rules import Rules
from .bits import ONE, U64

_GOLDEN = 0x9E3779B97F4A7C15
_STEPS = (np.arange(1, NUM_CARDS + 1, dtype=U64) * U64(_GOLDEN))
_FIRST_DEALER = 1 << 40  # deal index of the streams that choose a match's first dealer


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64), elementwise: the dealing streams' mixer, which the
    Gymnasium envs' seat and agent seeds use too (``allfours.agents.adapters.gym_env``)."""
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


def _stream(seeds, matches, deals, count: int) -> np.ndarray:
    """``count`` pseudo-random uint64 per game, a SplitMix64 sequence keyed by (seed, match, deal)."""
    key = mix64(mix64(mix64(np.asarray(seeds, U64)) + np.asarray(matches, U64)) + np.asarray(deals, U64))
    return mix64(key[:, None] + _STEPS[:count])


def deck_orders(seeds, matches, deals, rules: Rules | None = None) -> np.ndarray:
    """A shuffled pack (R, 52) of card ids per game: deal number ``deals`` of match ``matches``; with
    ``rules``, of its pack (R, pack size; docs/rules.md section 7)."""
    if rules is None or rules.full_deck:
        return np.argsort(_stream(seeds, matches, deals, NUM_CARDS), axis=1)
    pack = np.array(rules.cards)
    return pack[np.argsort(_stream(seeds, matches, deals, len(pack)), axis=1)]


def shuffled_deal(rules: Rules | int, seeds, matches, deals, eldest) -> tuple[np.ndarray, np.ndarray]:
    """The vector engine's deal: (hands (R, players) uint64 masks by seat, stock (R, 52 - 6 players)).

    Six cards (``hand_cards``) each from the eldest round, the rest in order as the stock, as ``GameState``
    deals a shuffled pack; exposed so a scalar ``GameState`` can be dealt the very same cards. ``rules``: the
    rules, or a player count on the full pack."""
    full = not isinstance(rules, Rules)
    n, k = (rules, 6) if full else (rules.players, rules.hand_cards)
    deck = deck_orders(seeds, matches, deals, None if full else rules)
    r = len(deck)
    by_order = np.bitwise_or.reduce(ONE << deck[:, :k * n].astype(U64).reshape(r, n, k), axis=2)
    hands = np.empty((r, n), U64)
    hands[np.arange(r)[:, None], (np.asarray(eldest)[:, None] + np.arange(n)) % n] = by_order
    return hands, deck[:, k * n:]


def first_dealers(rules: Rules, seeds, matches) -> np.ndarray:
    """The first dealer of each match by the preset's procedure (docs/rules.md section 2), from the seed's stream."""
    n = rules.players
    seeds, matches = np.asarray(seeds, U64), np.asarray(matches, U64)
    if rules.first_dealer == "jack":  # deal face up from seat 0 until a jack: its recipient pitches
        deck = deck_orders(seeds, matches, np.full(len(seeds), _FIRST_DEALER), rules)
        return np.argmax(deck % 13 == JACK, axis=1) % n
    if rules.first_dealer == "cut":  # each cuts a card; highest (or lowest) deals; ties cut again
        out = np.empty(len(seeds), np.int64)
        todo, attempt = np.arange(len(seeds)), 0
        while todo.size:
            ranks = deck_orders(seeds[todo], matches[todo], np.full(todo.size, _FIRST_DEALER + 1 + attempt),
                                rules)[:, :n] % 13
            best = (ranks.min(1) if rules.low_cut_deals else ranks.max(1))[:, None]
            alone = (ranks == best).sum(1) == 1
            out[todo[alone]] = np.argmax(ranks == best, axis=1)[alone]
            todo, attempt = todo[~alone], attempt + 1
        return out
    return (_stream(seeds, matches, np.full(len(seeds), _FIRST_DEALER), 1)[:, 0] % U64(n)).astype(np.int64)


class _VectorDealt(GameState):
    """A ``GameState`` dealt by the batched engine's generator: game ``vmatch`` of seed ``vseed``
    (class attributes of a subclass made per match by ``twin_state``, so that ``clone`` keeps them)."""

    __slots__ = ()
    vseed, vmatch = 0, 0

    def _first_dealer(self) -> int:
        return int(first_dealers(self.rules, [self.vseed], [self.vmatch])[0])

    def _deal_random(self) -> None:
        hands, stock = shuffled_deal(self.rules, [self.vseed], [self.vmatch], [self.deals], [self.eldest])
        self._deal_cards([int(m) for m in hands[0]], [int(c) for c in stock[0]])


def twin_state(rules: Rules, seed: int, match: int = 0, deal=None, scores=None) -> GameState:
    """The ``GameState`` of match ``match`` of a ``VectorEnv`` game seeded ``seed``: the same first
    dealer and every deal of that match, as ``reset``/``step`` deal it (``deal``/``scores`` as in
    ``reset(options=...)``). A match the vector engine skips (won by its first turn-up) is returned
    as it is: ``done``."""
    cls = type("VectorDealt", (_VectorDealt,), {"__slots__": (), "vseed": int(seed), "vmatch": int(match)})
    return cls.new(rules, seed=0, deal=deal, scores=scores)
