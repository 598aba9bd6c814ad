"""The worlds consistent with a deterministic player's moves, for a best response.

A best response to a known policy (``allfours.agents.players.best_response``) knows what its target would play in
every information set, so the deals the target may hold are exactly those in which it would have
played every move it made this hand:

* the target (``allfours.agents.players.target.TargetPolicy``, or anything with its ``plays``) says
  whether it would make a move in many games at once;
* ``ConsistentWorlds`` draws candidate worlds as ``search`` does (``allfours_env.sampling.resample``:
  everything the responder's seat has seen, voids included), replays the hand from its deal
  (``allfours.agents.search.worlds.hand_start``) in lockstep over all candidates, asks the target at each of its
  past decisions with a choice what it would have played there, and keeps the worlds where it
  plays what it did. That is rejection sampling: the kept worlds are draws from the deals the
  responder cannot tell apart, conditioned on the target's policy (with two players ``resample``
  deals the hidden cards uniformly, so the kept worlds are uniform over the consistent deals).

With four players in partnerships the target holds both seats of the other side: a world is kept only where
its policy makes every move of both seats. The responder's partner's cards are hidden from the responder's
seat as the opponents' are (``resample`` deals them with the rest); its moves filter by the rules only (the
cards it played were in its hand, the suits it showed void stay void), never by a policy: it is not the
target (``allfours.agents.players.best_response``, "Partnerships").

A network target's ``plays`` allows for batching's rounding (``players.target``), so the real deal is never
refused for it.

Not filtered (the candidates kept as drawn, and said so in the stats): a hand after a redeal (the
replayed deal cannot hold the earlier deal's kicks; rare with two players), and a decision at which
none of the candidates is consistent (the best response is a lower bound whatever worlds it values).

``nearest=True`` (for a player whose opponent may not play the target's policy, as
``experimental:sparta``): a candidate is not refused for a move the target would not have made; the
worlds kept are those of the fewest such moves (draws stop once ``n`` worlds contradict none, so
against the target itself it keeps what the exact filter keeps), ties in the order drawn. A world
the moves made cannot have been played in (a card not held, a turn out of order) is refused still.
"""

from __future__ import annotations

import math
import random
from typing import Protocol

from allfours_env import GameState
from allfours_env.cards import mask_of
from allfours_env.sampling import resample

from .worlds import hand_start

DEFAULT_CANDIDATES = 2048
CHUNK = 256  # most candidates replayed together (one forward pass a past decision), drawn as the share kept asks


class Target(Protocol):
    """What the worlds ask of the target (``allfours.agents.players.target.TargetPolicy``)."""

    def plays(self, games: list[GameState], action: int) -> list[bool]: ...


class ConsistentWorlds:
    """Worlds the responder's seat cannot tell from the real one in which ``target`` played every seat
    of the other side as it did (see module doc; ``nearest``: as near to that as the draws allow); at
    most ``candidates`` drawn a decision."""

    def __init__(self, target: Target, candidates: int = DEFAULT_CANDIDATES, nearest: bool = False):
        if not isinstance(candidates, int) or isinstance(candidates, bool) or candidates < 1:
            raise ValueError(f"candidates must be a positive int (worlds drawn per decision), got {candidates!r}")
        self.target, self.candidates, self.nearest = target, candidates, nearest

    def sample(self, state: GameState, seat: int, rng: random.Random, n: int) -> tuple[list[GameState], dict]:
        """Up to ``n`` consistent worlds (fewer where ``candidates`` draws find fewer) and the stats
        ``{"drawn", "kept", "filtered"}`` (with ``nearest``, ``"exact"`` too: the worlds kept that
        contradict no move); ``filtered`` False: the worlds were not checked (module doc)."""
        if state.redeals:
            return [resample(state, seat, rng) for _ in range(n)], {"drawn": n, "kept": n, "filtered": False}
        kept: list[GameState] = []
        near: list[tuple[int, int, GameState]] = []  # (moves contradicted, order drawn, world): nearest only
        first: list[GameState] = []
        drawn = 0
        while len(kept) < n and drawn < self.candidates:
            need = n - len(kept)
            rate = (len(kept) + 1) / (drawn + 2)  # the share kept so far, kept off 0 (Laplace)
            size = min(CHUNK, self.candidates - drawn, max(need, math.ceil(1.25 * need / rate)))
            batch = [resample(state, seat, rng) for _ in range(size)]
            if not first:
                first = batch[:n]
            for i, (w, k) in enumerate(zip(batch, self.mismatches(state, seat, batch))):
                if k == 0:
                    kept.append(w)
                elif k is not None and self.nearest:
                    near.append((k, drawn + i, w))
            drawn += len(batch)
        if self.nearest:
            exact = min(len(kept), n)
            kept += [w for _, _, w in sorted(near, key=lambda t: t[:2])[:n - exact]]
            if kept:
                return kept[:n], {"drawn": drawn, "kept": len(kept[:n]), "filtered": True, "exact": exact}
        if not kept:
            return first, {"drawn": drawn, "kept": 0, "filtered": False}
        return kept[:n], {"drawn": drawn, "kept": min(len(kept), n), "filtered": True}

    def consistent(self, state: GameState, seat: int, worlds: list[GameState]) -> list[bool]:
        """Per world: would the target, on the other side from ``seat``, have made every move it made this
        hand? Each world's hand is replayed from its deal, all worlds in step."""
        return [k == 0 for k in self.mismatches(state, seat, worlds)]

    def mismatches(self, state: GameState, seat: int, worlds: list[GameState]) -> list[int | None]:
        """Per world: how many of the other side's moves this hand the target would not have made there
        (None: the moves cannot have been played in it). Without ``nearest`` a world is dropped at its
        first such move (counted 1)."""
        side = state.side(seat)
        games = starts(state, seat, worlds)
        count: list[int | None] = [0 if g is not None else None for g in games]
        for s, a in state.history:
            asked = []
            for i, g in enumerate(games):
                if g is None:
                    continue
                m = g.legal_mask()
                if g.current != s or not m >> a & 1:  # the world contradicts the move
                    games[i], count[i] = None, None
                elif state.side(s) != side and m.bit_count() > 1:
                    asked.append(i)
            if asked:
                for i, ok in zip(asked, self.target.plays([games[i] for i in asked], a)):
                    if not ok:
                        count[i] += 1
                        if not self.nearest:
                            games[i] = None
            for g in games:
                if g is not None:
                    g.apply(a)
        return count


def starts(state: GameState, seat: int, worlds: list[GameState]) -> list[GameState | None]:
    """Each world as it was dealt (``hand_start``; None where it cannot be). The real deal's start is made
    once and each world's start is it with the world's hidden cards (``with_hands``; ``seat``'s own too while
    it may not look at them, the Yorkshire pitcher's partner before the lead): the same state as
    ``hand_start(world)``, without reading a deal's card codes per world."""
    try:
        base = hand_start(state)
    except ValueError:
        base = None
    own_hidden = state.hidden_hand(seat)
    out: list[GameState | None] = []
    for w in worlds:
        if base is None:
            try:
                out.append(hand_start(w))
            except ValueError:
                out.append(None)
            continue
        batches = w.stock_batches()
        hands = {s: w.dealt[s] & ~mask_of(batches[s]) for s in range(w.n) if s != seat or own_hidden}
        out.append(base.with_hands(hands, list(w.stock), w.seed))
    return out
