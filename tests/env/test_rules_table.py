"""The presets' and options' table of allfours_env/rules.py (docs/rules.md sections 1-8): each row agrees with the
presets' rules, and what is generated from it (the checks of ``make_rules``, ``Rules.to_dict``, the server's
options schema) follows the rows."""

from __future__ import annotations

from dataclasses import fields

import jsonschema
import pytest

from allfours.serve.models import match_options_schema
from allfours_env.rules import (
    ALL_PRESETS,
    ALLOWED_PLAYERS,
    FAMILIES,
    OPTIONS,
    PLAYED_PRESETS,
    PRESET_TABLE,
    Rules,
    check_rule_option,
    fixed_options,
    make_rules,
    options_of,
    presets,
)


def test_every_option_is_a_field_of_the_rules_and_every_preset_is_in_the_table():
    assert set(OPTIONS) <= {f.name for f in fields(Rules)}
    assert set(ALL_PRESETS) == set(PRESET_TABLE) == {*presets("all_fours"), *presets("auction")}
    assert set(presets(played=False)) == {"mini2", "mini3", "mini3x3"}  # docs/rules.md section 7: the solvable tiers
    assert {ALL_PRESETS[p].family for p in presets("auction")} == {"auction"} and set(FAMILIES) == {"all_fours",
                                                                                                     "auction"}


@pytest.mark.parametrize("preset", list(ALL_PRESETS))
def test_each_preset_takes_its_own_values_and_refuses_its_familys_strangers(preset):
    """docs/rules.md section 8: "There is no turn-up, no begging, no running the pack and no throwing in" in the
    auction presets; their own options belong to them only."""
    rules = ALL_PRESETS[preset]
    assert rules.players in ALLOWED_PLAYERS[preset]
    for name in options_of(preset):
        check_rule_option(name, getattr(rules, name), preset)  # the preset's own value of each option it takes
    for name, (value, _) in fixed_options(preset).items():
        assert getattr(rules, name) == value
    for name in set(OPTIONS) - set(options_of(preset)):
        with pytest.raises(ValueError, match=f"^option {name} (belongs to|does not apply to)") as e:
            make_rules(preset, **{name: getattr(rules, name)})
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("preset", PLAYED_PRESETS)
def test_the_schema_of_each_option_follows_its_row(preset):
    schema = match_options_schema(preset)
    assert set(schema["properties"]) == {"preset", *options_of(preset, pack=False)}
    validator = jsonschema.Draft202012Validator(schema)
    for name in options_of(preset, pack=False):
        opt = OPTIONS[name]
        edges = [opt.bounds[0], opt.bounds[1] + 1] if opt.bounds else []
        tried = [*opt.choices, True, False, 0, 3, 1001, "x", *edges]
        for value in tried:
            try:
                make_rules(preset, **{name: value})
                made = True
            except ValueError:
                made = False
            # an option on its own: the schema's cross-option rules (if/then) hold with the defaults
            assert validator.is_valid({name: value}) == made, (preset, name, value)


def test_to_dict_writes_the_options_of_the_presets_family_and_a_later_one_only_when_on():
    for preset, rules in ALL_PRESETS.items():
        written = set(rules.to_dict()) - {"preset"}
        pack = {n for n in options_of(preset) if OPTIONS[n].pack}
        later = {n for n in options_of(preset) if OPTIONS[n].later}
        assert written == set(options_of(preset)) - later - (pack if rules.full_deck and rules.hand_cards == 6 else
                                                              set()), preset
    assert make_rules("pitch", players=2, floor=True).to_dict()["floor"] is True
