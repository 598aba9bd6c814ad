"""The whole game tree of one hand of a mini preset (docs/rules.md section 7), as flat NumPy arrays.

``build_tree("mini2")`` plays every deal and every line of play through the engine's public functions
(``GameState.new`` with a deal, ``legal_actions``, ``apply``, ``clone``, ``current_deal``) and keys each
information set by what the seat to move has seen (``info_key``): ``seat_view`` as JSON (its hand, every trick
in order, the decisions, the turn-ups) and the cards it took while the pack was run. Seat 1 deals and seat 0
is the eldest hand (the cut's other outcome is the same game with the seats swapped). Chance deals the two
hands and the turn-up at the root, each deal as likely as any other, and the stock below the turn-up when the
dealer runs the pack (RUN_PACK is the one move that reads it). A move that is the only legal one is played at
once and makes no node.

Nodes come level by level (``levels[d]`` to ``levels[d + 1]``), the root first; a node's level counts the
moves and chance events before it, forced moves too, so every node of an information set lies on the same
level (``build_tree`` checks it). The edges, each named by its child, are grouped by their parent's level
(``edges[edge_levels[d]:edge_levels[d + 1]]``), so a pass over the tree is a loop over a few dozen levels of
array operations (``exact_cfr``, ``exact_response``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from array import array
from dataclasses import dataclass
from math import perm

import numpy as np

from allfours_env import GameState
from allfours_env.cards import RUN_PACK, card_code
from allfours_env.rules import MINI_PRESETS, Rules, make_rules
from allfours_env.view import seat_view

CHANCE, TERMINAL = 2, 3  # node kinds beside the seat to move (0 or 1)
DEALER = 1  # the seat that deals in the solved hand


@dataclass
class GameTree:
    """One hand's tree. Per node (``parent`` -1 at the root): ``kind`` (seat to move, CHANCE or TERMINAL),
    ``payoff`` (seat 0's points minus seat 1's, at terminals), and the edge from its parent: ``edge_col`` (the
    column of a move, -1 after chance) and ``edge_prob`` (the chance of a chance outcome, else 1). Per
    information set: ``info_player``, its columns ``info_cols[i]`` to ``info_cols[i + 1]`` (one per legal action,
    ascending ``col_action``), ``info_keys`` (the seat's view as JSON) and ``info_states`` (a deal and the moves
    that reach one of its histories, for asking an agent)."""

    rules: Rules
    deals: int
    forced: int  # moves made at once because they were the only legal one
    parent: np.ndarray
    kind: np.ndarray
    payoff: np.ndarray
    edge_col: np.ndarray
    edge_prob: np.ndarray
    infoset: np.ndarray
    levels: np.ndarray
    edges: np.ndarray  # every node but the root, by its parent's level
    edge_levels: np.ndarray
    info_player: np.ndarray
    info_cols: np.ndarray
    info_node: np.ndarray  # one node of each information set
    col_action: np.ndarray
    col_info: np.ndarray
    info_keys: list
    info_states: list

    @property
    def num_nodes(self) -> int:
        return len(self.parent)

    @property
    def num_infosets(self) -> int:
        return len(self.info_player)

    def sizes(self) -> dict:
        """Deals, histories (terminal nodes), decision nodes, chance nodes, forced moves, information sets per seat."""
        kinds = np.bincount(self.kind, minlength=4)
        return {"deals": self.deals, "histories": int(kinds[TERMINAL]), "decision_nodes": int(kinds[0] + kinds[1]),
                "chance_nodes": int(kinds[CHANCE]), "forced_moves": self.forced,
                "infosets": [int(x) for x in np.bincount(self.info_player, minlength=2)],
                "columns": len(self.col_action)}

    def fingerprint(self) -> str:
        """A hash of the information sets and their actions, in order: a saved policy fits this tree only."""
        h = hashlib.sha256(self.rules.preset.encode())
        for key, lo, hi in zip(self.info_keys, self.info_cols[:-1], self.info_cols[1:]):
            h.update(key.encode())
            h.update(self.col_action[lo:hi].tobytes())
        return h.hexdigest()[:16]

    def state_of(self, info: int) -> GameState:
        """The engine's state at one history of information set ``info`` (the seat to move is its player)."""
        deal, moves = self.info_states[info]
        s = GameState.new(self.rules, seed=0, deal=deal)
        for a in moves:
            s.apply(a)
        return s


def info_key(state: GameState, seat: int) -> str:
    """What ``seat`` has seen, as text: its ``seat_view`` and the cards it took from the stock while the pack was
    run (the view shows its hand, not which of its cards came from the run; it remembers that)."""
    view = json.dumps(seat_view(state, seat), separators=(",", ":"))
    batch = state.stock_batches()[seat] if state.runs else ()
    return view + "|" + " ".join(card_code(c) for c in batch) if batch else view


def mini_rules(preset: str | Rules) -> Rules:
    """The rules of a preset the exact tools can solve: two players, one hand, a void hand when the pack runs out;
    one ValueError otherwise."""
    if not isinstance(preset, Rules) and preset not in MINI_PRESETS:
        raise ValueError(f"exact solving takes a mini preset ({', '.join(MINI_PRESETS)}), got {preset!r}")
    rules = make_rules(preset)
    if rules.players != 2 or rules.episode != "hand" or not rules.turnup or rules.run_out != "void":
        raise ValueError("exact solving needs two players, one-hand episodes, a turn-up and run_out='void'")
    return rules


def root_deals(rules: Rules):
    """Every deal as (eldest's cards, dealer's cards, stock with the turn-up on top), each equally likely."""
    cards, k = rules.cards, rules.hand_cards
    for eldest in itertools.combinations(cards, k):
        rest = [c for c in cards if c not in eldest]
        for dealer in itertools.combinations(rest, k):
            stock = [c for c in rest if c not in dealer]
            for up in stock:
                yield eldest, dealer, [up] + [c for c in stock if c != up]


def _deal(eldest, dealer, stock) -> dict:
    hands = [None, None]
    hands[1 - DEALER], hands[DEALER] = [card_code(c) for c in eldest], [card_code(c) for c in dealer]
    return {"dealer": DEALER, "hands": hands, "stock": [card_code(c) for c in stock]}


class _Builder:
    def __init__(self, rules: Rules):
        self.rules = rules
        self.run_cards = min(rules.max_runs * (rules.run_size * 2 + 1), rules.stock_size - 1)
        self.parent, self.depth, self.kind = array("i"), array("i"), array("b")
        self.payoff, self.edge_col, self.edge_prob, self.infoset = array("d"), array("i"), array("d"), array("i")
        self.keys: dict[str, int] = {}
        self.info_player, self.info_cols, self.info_node, self.col_action = [], [0], [], []
        self.info_states: list = []
        self.forced = 0

    def node(self, parent: int, depth: int, kind: int, col: int, prob: float, payoff: float = 0.0) -> int:
        i = len(self.parent)
        self.parent.append(parent)
        self.depth.append(depth)
        self.kind.append(kind)
        self.payoff.append(payoff)
        self.edge_col.append(col)
        self.edge_prob.append(prob)
        self.infoset.append(-1)
        return i

    def walk(self, s: GameState, parent: int, depth: int, col: int, prob: float) -> None:
        while not s.done:
            legal = s.legal_actions()
            if len(legal) > 1:
                break
            self.forced += 1
            depth += 1
            s.apply(legal[0])
        if s.done:
            self.node(parent, depth, TERMINAL, col, prob, float(s.scores[0] - s.scores[1]))
            return
        seat = s.current_player
        me = self.node(parent, depth, seat, col, prob)
        key = info_key(s, seat)
        info = self.keys.get(key)
        if info is None:
            info = self.keys[key] = len(self.info_player)
            self.info_player.append(seat)
            self.info_node.append(me)
            self.col_action.extend(legal)
            self.info_cols.append(len(self.col_action))
            self.info_states.append((s.current_deal(), [a for _, a in s.history]))
        elif self.col_action[self.info_cols[info]:self.info_cols[info + 1]] != legal:
            raise RuntimeError("one information set with two sets of legal actions")
        self.infoset[me] = info
        first = self.info_cols[info]
        for j, a in enumerate(legal):
            if a == RUN_PACK and self.run_cards:
                self.run_pack(s, me, depth + 1, first + j)
            else:
                child = s.clone()
                child.apply(a)
                self.walk(child, me, depth + 1, first + j, 1.0)

    def run_pack(self, s: GameState, parent: int, depth: int, col: int) -> None:
        """A chance node over the order of the stock's cards a run can use, then RUN_PACK on each."""
        me = self.node(parent, depth, CHANCE, col, 1.0)
        deal = s.current_deal()
        top, rest = deal["stock"][0], deal["stock"][1:]
        p = 1.0 / perm(len(rest), self.run_cards)
        for order in itertools.permutations(rest, self.run_cards):
            stock = [top, *order, *(c for c in rest if c not in order)]
            w = GameState.new(self.rules, seed=0, deal={**deal, "stock": stock})
            for _, a in s.history:
                w.apply(a)
            w.apply(RUN_PACK)
            self.walk(w, me, depth + 1, -1, p)


def build_tree(preset: str | Rules) -> GameTree:
    """Every deal and line of play of one hand of ``preset`` (a mini preset), as a ``GameTree``."""
    rules = mini_rules(preset)
    b = _Builder(rules)
    deals = list(root_deals(rules))
    root = b.node(-1, 0, CHANCE, -1, 1.0)
    for eldest, dealer, stock in deals:
        b.walk(GameState.new(rules, seed=0, deal=_deal(eldest, dealer, stock)), root, 1, -1, 1.0 / len(deals))
    depth = np.frombuffer(b.depth, np.int32)
    order = np.argsort(depth, kind="stable")  # level by level; a parent always comes before its children
    new = np.empty_like(order)
    new[order] = np.arange(len(order))
    parent = np.frombuffer(b.parent, np.int32)[order]
    parent = np.where(parent >= 0, new[np.maximum(parent, 0)], -1).astype(np.int32)
    infoset = np.frombuffer(b.infoset, np.int32)[order]
    info_node = new[np.array(b.info_node, np.int64)].astype(np.int32)
    levels = np.searchsorted(depth[order], np.arange(depth.max() + 2)).astype(np.int64)
    info_cols = np.array(b.info_cols, np.int64)
    parent_level = depth[order][np.maximum(parent, 0)]
    edges = np.argsort(parent_level[1:], kind="stable").astype(np.int64) + 1
    edge_levels = np.searchsorted(parent_level[edges], np.arange(depth.max() + 2)).astype(np.int64)
    tree = GameTree(rules=rules, deals=len(deals), forced=b.forced, parent=parent,
                    kind=np.frombuffer(b.kind, np.int8)[order].copy(), payoff=np.frombuffer(b.payoff)[order].copy(),
                    edge_col=np.frombuffer(b.edge_col, np.int32)[order].copy(),
                    edge_prob=np.frombuffer(b.edge_prob)[order].copy(), infoset=infoset.copy(), levels=levels,
                    edges=edges, edge_levels=edge_levels,
                    info_player=np.array(b.info_player, np.int8), info_cols=info_cols, info_node=info_node,
                    col_action=np.array(b.col_action, np.int16),
                    col_info=np.repeat(np.arange(len(b.info_player)), np.diff(info_cols)).astype(np.int32),
                    info_keys=list(b.keys), info_states=b.info_states)
    level_of = np.searchsorted(levels, np.arange(len(order)), side="right") - 1
    nodes = np.flatnonzero(infoset >= 0)
    if not (level_of[nodes] == level_of[info_node[infoset[nodes]]]).all():
        raise RuntimeError("an information set spans two levels of the tree")
    return tree
