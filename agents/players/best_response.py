"""``br``: a local best response (LBR, Lisy and Bowling 2017) to a deterministic target.

The target is a player whose policy is known and fixed (``heuristic``, a shipped bot or a checkpoint
played greedily). At each of its decisions with a choice the responder:

1. draws ``worlds`` worlds consistent with what its seat has seen and with every move the target made
   this hand (``allfours.agents.search.consistent.ConsistentWorlds``: the target's policy replayed on candidate deals,
   at most ``candidates`` drawn);
2. values every legal action in each world: the action, then the rest of the hand with the target's
   exact policy for the target's seats and a fixed policy for its own side's later moves, the
   ``continuation`` (``target``: the target's policy from the responder's seat, the default; or
   ``heuristic``). With ``depth=2`` its next decision with a choice is searched too: in each group of
   worlds it cannot tell apart there (same public moves, same hand), the action of the highest total
   over the group (the continuation's move among equals), then the continuation;
3. plays the action of the highest total equity over the worlds; among equals the target's own move
   from its seat where that is one of them (a deviation must gain something: more than ``margin``
   a world, 0 by default), else the lowest action id. The values are integers, summed: no choice hangs
   on float rounding.

No strategy fusion: every later move of the responder is a function of its information set (the
continuation policy, or one argmax per group of indistinguishable worlds), never of the hidden cards
of one world. A world is valued by match equity for the responder's side (``allfours.agents.search.equity``, -1000 to
1000: its chance of winning the match from the scores the hand ends at; ``value=points``, and where no
table applies: its side's hand points minus the other's, and ``WIN_BONUS`` for a match won), and by
points (the margin) for the report. The responder is a legitimate player (it reads only
its seat's information and the target's known policy), so its results against the target are a lower
bound on the target's exploitability, whatever the quality of its worlds.

Each decision is logged (``record()``: its type, the action chosen, the target policy's action from
the same seat, both valued in the same worlds, the worlds found and the time) for the report of
``allfours.agents.exploitability.search_probe``; the log restarts when the agent is reseeded (at each match).

Partnerships (four players, two sides: ``yorkshire``, ``traditional``, ``setback``, ``pitch`` with
``partnerships``): one responder object sits in both seats of its side (``seatings(4, True)``) and each seat is
its own decision-maker. At a seat's decision the worlds are drawn from that seat's view only (its own hand and the
public moves; its partner's cards are hidden from it like the opponents') and filtered by the target's policy at
every past move of both target seats; the partner's past moves filter only by the rules (a card it played was in
its hand, a suit it showed void stays void), not by a policy: the partner is a responder seat, whose moves are
``br``'s own search and not the continuation's, so filtering by the continuation would refuse the real deal. In
the lookahead the target's policy plays the two target seats and the continuation plays the partner's seat and
the seat's own later moves. Each seat draws from its own random stream (made once per match from the agent's
seed and the seat), so nothing of one seat's decisions, not even how many it had, reaches the other's. With two
players every step is the two-player one, call for call: the same moves from the same seed.

Spec: ``br:target=<spec>,worlds=32,candidates=2048,continuation=target,depth=1,value=match,seed=...``; games of two
sides only (``check_game``: two players, or four in partnerships). ``nearest`` and ``margin`` are for play against
opponents other than the target (``experimental:sparta``): worlds that contradict the fewest of the
target's moves when none contradicts none, and a deviation's least gain.
"""

from __future__ import annotations

import random
import time

from allfours_env import GameState, make_rules
from allfours_env.engine import BID, GIVE_OR_RUN, STAND_OR_BEG
from allfours_env.rules import ALL_PRESETS

from ..base import Agent
from ..search.consistent import DEFAULT_CANDIDATES, ConsistentWorlds
from ..search.equity import MatchEquity, equity_for_rules
from ..search.solver import final_value
from .heuristic import HeuristicAgent
from .target import TargetPolicy

DEFAULT_WORLDS = 32
CONTINUATIONS = ("target", "heuristic")
PRESETS = ("two players: seven_up, the mini presets, traditional or pitch with 2; or four in partnerships: yorkshire, "
           "traditional, setback, pitch with partnerships")


def decision_type(state: GameState) -> str:
    """``stand/beg``, ``give/run``, ``bid`` (a call of the auction presets), ``first lead`` (the hand's first card)
    or ``trick k`` (any other play)."""
    if state.phase == BID:
        return "bid"
    if state.phase == STAND_OR_BEG:
        return "stand/beg"
    if state.phase == GIVE_OR_RUN:
        return "give/run"
    if not state.tricks and not state.trick:
        return "first lead"
    return f"trick {len(state.tricks) + 1}"


def check_game(players: int | None, preset: str | None = None, partnerships: bool | None = None) -> None:
    """ValueError unless the game has two sides: two players, or four in partnerships (``partnerships``: None,
    the preset's own)."""
    if players is None or players == 2:
        return
    if partnerships is None:
        partnerships = ALL_PRESETS[preset].partnerships if preset in ALL_PRESETS else True
    if players == 4 and partnerships:
        return
    alone = " each for themselves" if players == 4 else ""
    raise ValueError(f"br plays games of two sides ({PRESETS}); this game{f' ({preset})' if preset else ''} "
                     f"has {players} players{alone}")


class BestResponseAgent(Agent):
    """LBR against ``target`` (see module doc); ``target`` is the agent object, ``target_label`` its spec."""

    name = "br"

    def __init__(self, target: Agent, worlds: int = DEFAULT_WORLDS, candidates: int = DEFAULT_CANDIDATES,
                 continuation: str = "target", depth: int = 1, value: str = "match", seed: int | None = None, *,
                 target_label: str | None = None, preset: str | None = None, players: int | None = None,
                 nearest: bool = False, margin: int = 0):
        super().__init__(seed)
        if not isinstance(target, Agent):
            raise ValueError(f"br target must be an agent, got {target!r}")
        if not isinstance(worlds, int) or isinstance(worlds, bool) or worlds < 1:
            raise ValueError(f"br worlds must be a positive int (consistent worlds valued per move), got {worlds!r}")
        if continuation not in CONTINUATIONS:
            raise ValueError(f"br continuation must be target (the target's policy plays the responder's later moves) "
                             f"or heuristic, got {continuation!r}")
        if value not in ("match", "points"):
            raise ValueError(f"br value must be match (match equity) or points (the hand's points margin), "
                             f"got {value!r}")
        if depth not in (1, 2):
            raise ValueError(f"br depth must be 1 (LBR: one move searched) or 2 (its next decision too), got {depth!r}")
        if not isinstance(margin, int) or isinstance(margin, bool) or margin < 0:
            raise ValueError(f"margin must be an int >= 0 (equity a world a deviation must gain), got {margin!r}")
        self.target = TargetPolicy(target, target_label)
        self.sampler = ConsistentWorlds(self.target, candidates, nearest=nearest)
        self.margin = margin
        self.worlds, self.depth, self.continuation, self.value = worlds, depth, continuation, value
        self.own = self.target if continuation == "target" else TargetPolicy(HeuristicAgent(), "heuristic")
        if preset is not None:
            self._check(preset, players)
        self._log: list[dict] = []
        self._game: GameState | None = None
        self._seat = 0
        self._streams: dict[int, random.Random] = {}  # four players: each responder seat's own (module doc)
        self._stream_base: int | None = None

    def _check(self, preset: str, players: int | None) -> None:
        if players is None:
            players = make_rules(preset).players
        check_game(players, preset)
        if self.value == "match":
            try:
                equity_for_rules(make_rules(preset, players=players))
            except ValueError as e:
                raise ValueError(f"br value=match: {e}; or give value=points") from None
        trained = self.target.preset
        if trained is not None and trained != preset:
            raise ValueError(f"br target {self.target.label!r} is a network for {trained}; this game is {preset}")

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self._log, self._game = [], None
        self._streams, self._stream_base = {}, None

    def _stream(self, state: GameState, seat: int) -> random.Random:
        """The random stream of ``seat``'s decisions: the agent's own with two players (as ever); with four, one a
        seat, made from one draw of the agent's stream, the first thing it gives after ``seed``."""
        if state.n == 2:
            return self.rng
        if self._stream_base is None:
            self._stream_base = self.rng.getrandbits(64)
        stream = self._streams.get(seat)
        if stream is None:
            stream = self._streams[seat] = random.Random(f"{self._stream_base}:{seat}")
        return stream

    # ------------------------------------------------------------------ playing
    def act(self, state: GameState, seat: int) -> int:
        self._game, self._seat = state, seat
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.rules.sides != 2:
            check_game(state.n, state.rules.preset, state.rules.partnerships)
        if self.target.preset not in (None, state.rules.preset):
            self._check(state.rules.preset, state.n)
        start = time.perf_counter()
        rng = random.Random(self._stream(state, seat).getrandbits(64))
        worlds, stats = self.sampler.sample(state, seat, rng, self.worlds)
        values = self.action_values(state, seat, legal, worlds)
        best = max(v[0] for v in values.values())
        base = self.target.agent.act(state, seat)  # the target's own move from this seat
        n = len(worlds)
        if values[base][0] >= best - self.margin * n:
            action = base
        else:
            action = min(a for a, v in values.items() if v[0] == best)
        self._log.append({"type": decision_type(state), "action": action, "target_action": base,
                          "equity_gain": (values[action][0] - values[base][0]) / n,
                          "points_gain": (values[action][1] - values[base][1]) / n,
                          "worlds": n, **stats, "seconds": time.perf_counter() - start})
        return action

    def action_values(self, state: GameState, seat: int, legal: list[int], worlds: list[GameState]
                      ) -> dict[int, tuple[int, int]]:
        """Per legal action, (value, points margin) summed over ``worlds`` (module doc)."""
        eq = equity_for_rules(state.rules) if self.value == "match" else None
        hand_no = state.hand_no
        games = []
        for w in worlds:
            for a in legal:
                g = w.clone()
                g.apply(a)
                games.append(g)
        if self.depth == 2:
            self._choose_next(games, seat, hand_no, eq)
        self._play_out(games, seat, hand_no)
        vals = [_values(g, seat, hand_no, eq) for g in games]
        k = len(legal)
        return {a: (sum(vals[j][0] for j in range(i, len(vals), k)), sum(vals[j][1] for j in range(i, len(vals), k)))
                for i, a in enumerate(legal)}

    def _choose_next(self, games: list[GameState], seat: int, hand_no: int, eq: MatchEquity | None) -> None:
        """Depth 2: move each game on to the responder's next decision with a choice, then play there, in
        every group of games it cannot tell apart, the action of the highest total value over the group
        (every group's tries played out in one batch)."""
        groups: dict[tuple, list[GameState]] = {}
        for g in self._advance(games, seat, hand_no):
            groups.setdefault(info_key(g, seat), []).append(g)
        tries, index = [], []
        for key, group in groups.items():
            legal = group[0].legal_actions()
            for g in group:
                for b in legal:
                    h = g.clone()
                    h.apply(b)
                    tries.append(h)
                    index.append((key, b))
        self._play_out(tries, seat, hand_no)
        totals: dict[tuple, dict[int, int]] = {}
        for (key, b), h in zip(index, tries):
            t = totals.setdefault(key, {})
            t[b] = t.get(b, 0) + _values(h, seat, hand_no, eq)[0]
        keys = list(groups)
        own = self.own.actions([groups[k][0] for k in keys])  # the continuation's move, one for each group
        for key, mine in zip(keys, own):
            t = totals[key]
            best = max(t.values())
            b = mine if t[mine] == best else min(a for a, v in t.items() if v == best)
            for g in groups[key]:
                g.apply(b)

    def _advance(self, games: list[GameState], seat: int, hand_no: int) -> list[GameState]:
        """Play each game on until the responder has a choice (its forced moves made) or the hand ends; the
        games waiting on the responder's choice."""
        waiting = []
        live = [g for g in games if not g.done and g.hand_no == hand_no]
        while live:
            self._step([g for g in live if g.current != seat], seat)
            for g in live:
                if g.current == seat and not g.done and g.hand_no == hand_no:
                    legal = g.legal_mask()
                    if legal.bit_count() == 1:
                        g.apply(legal.bit_length() - 1)
            nxt = []
            for g in live:
                if g.done or g.hand_no != hand_no:
                    continue
                (waiting if g.current == seat else nxt).append(g)
            live = nxt
        return waiting

    def _play_out(self, games: list[GameState], seat: int, hand_no: int) -> None:
        """Play every game to the end of its hand in step (``_step``)."""
        live = [g for g in games if not g.done and g.hand_no == hand_no]
        while live:
            self._step(live, seat)
            live = [g for g in live if not g.done and g.hand_no == hand_no]

    def _step(self, games: list[GameState], seat: int) -> None:
        """One move in each game: the target for the other side's seats, the continuation for the responder's
        side's (its own seat and, with four players, its partner's; one batch when both are the target's)."""
        if self.own is self.target:
            for g, a in zip(games, self.target.actions(games)):
                g.apply(a)
            return
        if not games:
            return
        side = games[0].side(seat)
        mine = [g for g in games if g.side(g.current) == side]
        theirs = [g for g in games if g.side(g.current) != side]
        for g, a in zip(mine, self.own.actions(mine)):
            g.apply(a)
        for g, a in zip(theirs, self.target.actions(theirs)):
            g.apply(a)

    # ------------------------------------------------------------------ the record
    def record(self) -> dict:
        """This match so far (since the last ``seed``): ``decisions`` (the log, module doc) and ``hands``, per
        finished hand of the game it last moved in, the responder side's change in match equity and its
        points margin (``hand_record``)."""
        hands = [] if self._game is None else hand_record(self._game, self._game.side(self._seat))
        return {"decisions": list(self._log), "hands": hands}


def info_key(g: GameState, seat: int) -> tuple:
    """What ``seat`` knows: the moves of the hand (all public, cards thrown in too), its hand (while it may look
    at it), the turn-ups."""
    return tuple(g.history), 0 if g.hidden_hand(seat) else g.hands[seat], tuple(g.turnups)


def _values(g: GameState, seat: int, hand_no: int, eq: MatchEquity | None) -> tuple[int, int]:
    """(equity, or points with ``WIN_BONUS`` without an equity table; points margin) of a played-out game."""
    value = final_value(g, seat, hand_no, eq)
    if len(g.hand_results) <= hand_no:
        return value, 0
    pts = g.hand_results[hand_no]["points"]
    my = g.side(seat)
    return value, pts[my] - pts[1 - my]


def hand_record(game: GameState, side: int) -> list[tuple[int, int]]:
    """Per finished hand of a two-side ``game``: (change in ``side``'s match equity, scaled -1000 to 1000
    (0 without an equity table), ``side``'s points minus the other's). The hands' dealers are counted
    back from the last (the deal passes one seat a hand)."""
    results = game.hand_results
    try:
        eq = equity_for_rules(game.rules)
    except ValueError:  # no table for this game (a mini preset): points only
        eq = None
    scores = [sc - sum(r["points"][s] for r in results) for s, sc in enumerate(game.scores)]
    last = len(results) - 1
    out = []
    for h, r in enumerate(results):
        dealer = (game.dealer - (last - h)) % game.n
        before = _equity(eq, scores, side, game.side(dealer) == side)
        scores = [sc + p for sc, p in zip(scores, r["points"])]
        if h == last and game.done:
            after = (eq.SCALE if game.winner == side else -eq.SCALE) if eq is not None else 0
        else:
            after = _equity(eq, scores, side, game.side((dealer + 1) % game.n) == side)
        out.append((after - before, r["points"][side] - r["points"][1 - side]))
    return out


def _equity(eq: MatchEquity | None, scores: list[int], side: int, my_deal: bool) -> int:
    return 0 if eq is None else eq.value(scores[side], scores[1 - side], my_deal)
