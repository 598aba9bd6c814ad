"""The hosted server speaks for the rules (issue 31): a seat's answer carries the engine's words for every
card of its hand it may not play now, an illegal move's error carries them alone, and the play page
judges no move itself."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest

from allfours.serve.app import create_app
from allfours.serve.hosted import Limits
from allfours.serve.models import MatchEvent
from allfours_env import parse_action
from allfours_env.events import EVENT_TYPES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
NO_LIMITS = Limits(client_rate=0, token_rate=0, max_matches=100_000, max_matches_per_client=0)


@pytest.mark.slow
def test_refusals_are_the_engines_words_for_the_seats_own_cards():
    """docs/rules.md section 4: 'Another suit led: play that suit or a trump (trumping is always allowed); only
    a player void in the suit led may play a third suit.' The answer names a refused card with that rule."""
    app = create_app(["heuristic"], limits=NO_LIMITS)
    kinds = set()
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for seed in range(12):
            made = c.post("/v1/matches", json={"preset": "traditional", "options": {"players": 2},
                                               "seats": ["human", "human"], "seed": seed}).json()
            mid = made["match_id"]
            tokens = {t["seat"]: {"Authorization": f"Bearer {t['token']}"} for t in made["tokens"]}
            rng = random.Random(seed)
            for _ in range(60):
                answers = {s: c.get(f"/v1/matches/{mid}", headers=h).json() for s, h in tokens.items()}
                to_move = answers[0]["view"]["to_move"]
                if to_move is None:
                    break
                state = app.state.matches._matches[mid].state
                for seat, body in answers.items():
                    view, refusals = body["view"], body["refusals"]
                    assert set(refusals) == set(view["hand"]) - set(view["legal_actions"])  # its own cards only
                    for code, why in refusals.items():
                        assert why == state.why_illegal(parse_action(code), seat)
                    if seat != to_move:
                        assert set(refusals.values()) <= {f"it is seat {to_move}'s turn, not seat {seat}'s"}
                    kinds |= {why.split(":")[0].split(" ")[-2] for why in refusals.values() if "were led" in why}
                mine = answers[to_move]
                if mine["refusals"]:  # a refused card's error says the same, alone in "reason"
                    code, why = next(iter(mine["refusals"].items()))
                    r = c.post(f"/v1/matches/{mid}/moves", json={"action": code}, headers=tokens[to_move])
                    err = r.json()["error"]
                    assert r.status_code == 422 and err["reason"] == why and why in err["message"]
                action = rng.choice(mine["view"]["legal_actions"])
                assert c.post(f"/v1/matches/{mid}/moves", json={"action": action},
                              headers=tokens[to_move]).status_code == 200
    assert kinds  # some "... were led" refusals were seen


def test_the_play_page_judges_no_move():
    """The page raises the legal cards (the view's legal_actions) and shows the server's words: no rule of
    following in play.js."""
    js = (ROOT / "allfours" / "serve" / "static" / "play.js").read_text()
    for words in ("were led", "must follow", "follow suit", "follow with a trump", "throw in only", "whyNot"):
        assert words not in js, words
    assert "refusals" in js and "legal_actions" in js and "reason" in js


def test_the_event_types_are_the_engines():
    literal = MatchEvent.model_fields["type"].annotation
    assert set(re.findall(r"'(\w+)'", str(literal))) == set(EVENT_TYPES)
