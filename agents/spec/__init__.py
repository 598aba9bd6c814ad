"""The agent spec language: the grammar (``grammar``: ``AgentSpec.parse`` and the nested specs) and the shipped
bots' names (``bots``), below the players; the registry that builds an agent from a parsed spec is
``allfours.agents.registry`` (``make_agent``), above them.
The package re-exports the grammar's public names: ``from allfours.agents.spec import AgentSpec``."""

from .grammar import (
    EXPERIMENTAL,
    NAMES,
    OPTIONS,
    AgentSpec,
    check_seats,
    expect_spec,
    parse_network,
    parse_playout,
    parse_target,
)

__all__ = ["EXPERIMENTAL", "NAMES", "OPTIONS", "AgentSpec", "check_seats", "expect_spec", "parse_network",
           "parse_playout", "parse_target"]
