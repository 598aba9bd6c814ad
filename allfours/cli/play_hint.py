"""``allfours play``'s hint: typing ``hint`` at the move prompt shows what the table's shipped bot would play in
the person's position, the network's probability of that move, and the rule behind the decision in the play
page's words (``allfours/serve/static/rules.json``, sentences of docs/rules.md).

The bot is asked about the seat's view alone (``seat_view``, rebuilt on the engine by ``state_from_request`` as
the server's ``GET /v1/matches/{id}/hint`` does), so a hint knows nothing the person does not.
"""

from __future__ import annotations

import json
from importlib.resources import files

from allfours.agents.players.human import HumanAgent
from allfours.agents.registry import make_agent
from allfours.agents.spec.bots import bot_for, table_words
from allfours_env import GameState, action_name, seat_view
from allfours_env.replay import state_from_request

HINT_WORDS = ("hint",)
RULES_JSON = files("allfours.serve").joinpath("static", "rules.json")


def hint_bot(rules) -> str | None:
    """The spec of the shipped bot of the table (``bot:<name>``, ``bot_for`` its rules), or None."""
    name = bot_for(rules)
    return None if name is None else f"bot:{name}"


def rule_key(view: dict, action: str | None = None) -> str | None:
    """The key in rules.json of the rule behind the decision the seat faces: the twin of ``explanations`` in
    allfours/serve/static/play.js (throwing in has its own words), held equal by tests/serve/test_browser.py."""
    if action == "THROW_IN":
        return "throw_in"
    if view["done"] or view["to_move"] != view["seat"]:
        return None
    if view["phase"] in ("stand_or_beg", "give_or_run", "bid"):
        return view["phase"]
    plays = view["current_trick"]["plays"]
    if not plays:
        return "lead" if view["trump"] else "pitch"
    if plays[0]["card"][1] == view["trump"]:
        return "trump_led"
    return "suit_led_must_follow" if (view.get("options") or {}).get("must_follow_suit") else "suit_led"


def rule_words(view: dict, action: str | None = None) -> list[str]:
    """The sentences of the rule behind the seat's decision (``rule_key``), as the play page shows them."""
    key = rule_key(view, action)
    return json.loads(RULES_JSON.read_text(encoding="utf-8"))["decisions"].get(key, []) if key else []


class Hinter:
    """The table's hint bot, loaded at the first hint (a network: torch)."""

    def __init__(self, rules):
        self.rules, self.spec, self.agent = rules, hint_bot(rules), None

    def hint(self, state: GameState, seat: int) -> tuple[int, float]:
        """(the bot's move, the network's probability of it) for ``seat`` to move, from its view only."""
        if self.agent is None:
            self.agent = make_agent(self.spec, preset=self.rules.preset, players=self.rules.players)
        view_state, _ = state_from_request(seat_view(state, seat))
        action, probs = self.agent.act_with_policy(view_state, seat)
        return action, probs[action]

    def line(self, state: GameState, seat: int) -> str:
        if self.spec is None:
            return (f"No hint here: no shipped bot plays {table_words(self.rules)} (docs/agents.md).")
        try:
            action, p = self.hint(state, seat)
        except ValueError as e:  # the bot is not installed
            return f"No hint here: {e}"
        name = action_name(action)
        rule = " ".join(rule_words(seat_view(state, seat), name))
        return f"Hint: {self.spec} would play {name} (probability {p:.0%}).{f' {rule}' if rule else ''}"


class _HintingInput:
    """The person's input, with a ``hint`` line answered at once and the prompt asked again."""

    def __init__(self, person: HintingHuman, stdin):
        self.person, self.stdin = person, stdin

    def readline(self) -> str:
        while True:
            line = self.stdin.readline()
            if line.strip().lower() not in HINT_WORDS or self.person.position is None:
                return line
            self.person.say(self.person.hinter.line(*self.person.position))
            self.person.stdout.write("Your move: ")
            self.person.stdout.flush()


class HintingHuman(HumanAgent):
    """The person at the terminal, who may type ``hint`` at the move prompt."""

    def __init__(self, hinter: Hinter, stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        self.hinter, self.position = hinter, None
        self.stdin = _HintingInput(self, self.stdin)

    def act(self, state: GameState, seat: int) -> int:
        self.position = (state, seat)
        try:
            return super().act(state, seat)
        finally:
            self.position = None
