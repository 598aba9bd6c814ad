"""The hosted match's options schema says exactly what make_rules takes, the options' dependencies included
(docs/rules.md section 1: smudge_points needs the smudge, floor two sides, partnerships four players)."""

import itertools

import jsonschema
import pytest

from allfours.serve.models import match_options_schema
from allfours_env.rules import make_rules

CROSS = {"players": (None, 2, 3, 4), "partnerships": (None, True, False), "floor": (None, True, False),
         "smudge": (None, True, False), "smudge_points": (None, True, False)}


@pytest.mark.parametrize("preset", ["pitch", "setback"])
def test_the_schema_and_make_rules_agree_on_every_combination_of_the_dependent_options(preset):
    validator = jsonschema.Draft202012Validator(match_options_schema(preset))
    seen = {True: 0, False: 0}
    for combo in itertools.product(*CROSS.values()):
        options = {k: v for k, v in zip(CROSS, combo) if v is not None}
        try:
            make_rules(preset, **options)
            taken = True
        except ValueError:
            taken = False
        assert validator.is_valid({"preset": preset, **options}) == taken, options
        seen[taken] += 1
    assert seen[True] and seen[False]  # both kinds met
