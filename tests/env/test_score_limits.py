"""The scores a request may hold are those the engine can produce (docs/rules.md sections 6 and 8): a real seat's
view from a match below -1000 is a valid request for ``POST /v1/act``'s model and for ``state_from_request``, and
a score the engine cannot reach under the rules given is refused in one line."""

from __future__ import annotations

import json
import random

import pytest

from allfours.serve.core import BotPool, RequestError, answer
from allfours.serve.models import ActRequest
from allfours_env import GameState, make_rules, seat_view
from allfours_env.replay import ViewError, state_from_request


def deep_view(rules, start: list[int], below: int) -> dict:
    """A seat's view, as a client sends it, from a real match of random players started at ``start`` once side 0 is
    below ``below`` (the engine set it back there)."""
    for seed in range(50):
        s, rng = GameState.new(rules, seed=seed, scores=start), random.Random(seed)
        for _ in range(2000):
            if s.done:
                break
            if s.scores[0] < below:
                return json.loads(json.dumps(seat_view(s, s.current_player)))
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no random match went that low")


def test_a_real_view_below_minus_1000_is_a_request():
    """docs/rules.md section 8: "Scores may go below zero, without end unless `floor` is on" (random Setback reached
    -1003): the view is accepted by the request model, rebuilt by the replay, and answered."""
    view = deep_view(make_rules("setback"), [-998, 3], -1000)
    assert view["scores"][0] < -1000
    ActRequest.model_validate(view)
    state, seat = state_from_request(view)
    assert state.scores == view["scores"] and seat == view["to_move"]
    out = answer({**view, "bot": "random"}, BotPool(["random"]))
    assert out["action"] in view["legal_actions"]


def test_the_floor_is_the_lowest_score_of_a_request():
    """docs/rules.md section 8: "a side at minus the target or below loses the match": a view from a floored match
    one above minus the target is a request; one at minus the target is refused in one line (the match is over)."""
    rules = make_rules("setback", floor=True)
    view = deep_view(rules, [-8, 0], -9)
    assert -11 < view["scores"][0] < -8
    assert state_from_request(view)[0].scores == view["scores"]
    answer({**view, "bot": "random"}, BotPool(["random"]))
    with pytest.raises(ViewError, match=r"scores\[0\] is -11: at minus the target \(-11\) or below"):
        state_from_request({**view, "scores": [-11, view["scores"][1]], "hand_points": None})
    with pytest.raises(RequestError) as e:
        answer({**view, "scores": [-11, view["scores"][1]], "bot": "random"}, BotPool(["random"]))
    assert e.value.status == 422 and e.value.type == "invalid_view" and "\n" not in e.value.message


def test_a_request_holds_every_option_a_view_writes():
    """docs/rules.md section 8: "A seat's view (`seat_view`) names every option in `options`": with every option on,
    the view's options fit the request model."""
    rules = make_rules("setback", floor=True, smudge=True, smudge_points=True, all_pass="next_dealer")
    view = json.loads(json.dumps(seat_view(GameState.new(rules, seed=2), GameState.new(rules, seed=2).current)))
    assert len(view["options"]) == 17
    ActRequest.model_validate(view)
    assert state_from_request(view)[0].rules == rules
