"""Agent specs: the text that names a player on the command line, in a config or a request, read once.

    AgentSpec.parse("search:worlds=64,playout=bot:yorkshire")
        -> name "search", options {"worlds": 64, "playout": AgentSpec("bot:yorkshire")}
    str(AgentSpec.parse("search:worlds=64, time=1"))   -> "search:worlds=64,time=1" (canonical)

The grammar (docs/agents.md):

    random | heuristic | search | guided | ismcts | br   [":" key=value ("," key=value)*]
    bot:<name>                   [":sym=0" | ":sym=1"]     a shipped bot (allfours.agents.players.neural.load_bot)
    <checkpoint>                 [":sym=0" | ":sym=1"]     a file ending in .pt, any existing file, or a run
                                                           folder holding best.pt or latest.pt
    sb3:<model.zip>                                        a Stable-Baselines3 model (adapters.sb3_agent)
    solved:<mini preset>         [":seed=N"]               a mini preset's stored equilibrium (players.solved)
    experimental:<name>          [":" key=value,... | ":" shorthand]   a research player (agents.lab)

Names are case-insensitive; spaces around keys and values go. A checkpoint path may hold colons
(``runs/a:b/best.pt:sym=0``): the last ``:`` starts the options only where what is before it is a
checkpoint. Values are typed by option (int, float, text) when parsed, so a bad one is refused
before anything is built. Three options hold specs themselves:

* ``playout=`` (``search``, ``guided``): the playout policy, ``heuristic``, ``bot:<name>`` or a
  checkpoint (``:sym=1`` for the averaged network; raw by default). ``seats=`` says whom a network
  playout plays: ``side``, the searching side (the heuristic the others; search's default), or
  ``all``, every seat (guided's default).
* ``bot=`` (``guided``): the network that guides, a shipped bot's name (``yorkshire`` or
  ``bot:yorkshire``) or a checkpoint.
* ``target=`` (``br``): the deterministic player a best response answers, ``heuristic``,
  ``bot:<name>`` or a checkpoint (``allfours.agents.players.best_response``).

Every error is one ``ValueError`` line naming what is wrong (an unknown agent or option with the
close matches, a value of the wrong type). A spec is a value: hashable, equal to another with the
same name, target and options (in any order), picklable, so evaluation workers get it as it is.
Which class plays each name is ``allfours.agents.registry``'s business; this module imports no agent.
"""

from __future__ import annotations

import difflib
import importlib
import os
from dataclasses import dataclass, field
from typing import Any

from allfours_env.rules import MINI_PRESETS

from .bots import BOTS
from .levels import TOP, check_level

# Option kinds besides int, float and str.
PLAYOUT = "playout"  # a nested spec: heuristic or a network
NETWORK = "network"  # a nested network spec: a shipped bot's bare name, bot:<name> or a checkpoint
TARGET = "target"  # a nested spec of a deterministic player: heuristic or a network (br's target)
SYM = "sym"  # 0 or 1

SEATS = ("side", "all")  # whom a network playout plays: the searching side, or every seat

# The search options every search-based player takes (the experimental ones too).
SEARCH_OPTIONS = {"worlds": int, "time": float, "exact": int, "bid": int, "value": str, "seed": int}

# name -> {option: kind}, in the order the canonical text lists them
OPTIONS: dict[str, dict[str, Any]] = {
    "random": {"seed": int},
    "heuristic": {"seed": int},
    "search": {"worlds": int, "time": float, "exact": int, "bid": int, "value": str, "playout": PLAYOUT,
               "seats": str, "seed": int},
    "guided": {"bot": NETWORK, "worlds": int, "time": float, "candidates": int, "floor": float, "exact": int,
               "infer": int, "playout": PLAYOUT, "seats": str, "seed": int},
    "ismcts": {"simulations": int, "uct": float, "episode": str, "seed": int},
    "solved": {"seed": int},  # solved:<mini preset>[:seed=N]
    "br": {"target": TARGET, "worlds": int, "candidates": int, "continuation": str, "depth": int, "value": str,
           "seed": int},
}
LEVEL = "level"  # 1 to 5 (levels.WORDS)
NETWORK_OPTIONS = {"sym": SYM, "level": LEVEL}  # of bot:<name> and a checkpoint

# The research players (allfours.agents.lab): their grammar (lab.grammar: name -> {option: kind}, shorthands) and
# builders stay in the lab, loaded by name only when an experimental spec is parsed or built.
LAB_GRAMMAR = "allfours.agents.lab.grammar"
EXPERIMENTAL = "experimental:"

# br last: a player against one named target, not one to pick from a list
NAMES = (*(n for n in OPTIONS if n not in ("br", "solved")), "bot:<name>", "<checkpoint path or *.pt>",
         "sb3:<model.zip>", "solved:<mini preset>", f"{EXPERIMENTAL}<name>", "br:target=<spec>")
_PREFIXES = (*OPTIONS, "bot", "sb3", "experimental")
_TYPE_WORDS = {int: "int", float: "float", str: "str"}


def lab_grammar():
    """``allfours.agents.lab.grammar`` (``EXPERIMENTAL_OPTIONS``, ``SHORTHANDS``), imported when first needed."""
    return importlib.import_module(LAB_GRAMMAR)


@dataclass(frozen=True, eq=False)
class AgentSpec:
    """One agent spec, parsed: ``name`` (``random``, ``heuristic``, ``search``, ``guided``, ``ismcts``,
    ``bot``, ``checkpoint``, ``sb3``, ``solved`` or ``experimental:<name>``), ``target`` (the bot's name, the
    checkpoint's or model's path, the solved preset; else None) and ``options`` (typed values; nested specs as
    ``AgentSpec``). ``text`` is the text it was parsed from; ``str(spec)`` the canonical text."""

    name: str
    target: str | None = None
    items: tuple[tuple[str, Any], ...] = ()
    text: str = field(default="", compare=False)

    # ------------------------------------------------------------------ reading
    @classmethod
    def parse(cls, text: str | AgentSpec) -> AgentSpec:
        """The spec ``text`` names; an ``AgentSpec`` is returned as it is. ValueError, one line, if it names none."""
        if isinstance(text, AgentSpec):
            return text
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"agent spec must be a non-empty string, got {text!r}")
        text = text.strip()
        head, _, rest = text.partition(":")
        word = head.strip().lower()
        if word == "bot":
            name, _, tail = rest.partition(":")
            name = name.strip()
            if not name:
                raise ValueError(f"agent spec {text!r} names no bot: give bot:<name>, one of {', '.join(BOTS)}")
            return cls("bot", name, _network_options(text, f"bot:{name}", tail), text)
        if word == "sb3":
            if not rest.strip():
                raise ValueError(f"agent spec {text!r} names no model: give sb3:<model.zip>")
            return cls("sb3", rest.strip(), (), text)
        if word == "experimental":
            return cls._experimental(text, rest)
        if word == "solved":
            preset, _, tail = rest.partition(":")
            preset = preset.strip().lower()
            if preset not in MINI_PRESETS:
                raise ValueError(f"agent spec {text!r} names no mini preset: give solved:<preset>, one of "
                                 f"{', '.join(MINI_PRESETS)} (docs/rules.md section 7){_hint(preset, MINI_PRESETS)}")
            return cls("solved", preset, _options(text, "solved", tail, OPTIONS["solved"]), text)
        if word in OPTIONS:
            return cls(word, None, _options(text, word, rest, OPTIONS[word]), text)
        path = _checkpoint_split(text)
        if path is not None:
            return cls("checkpoint", path[0], _network_options(text, path[0], path[1]), text)
        raise ValueError(f"unknown agent {head.strip()!r}: choose one of {', '.join(NAMES)}{_hint(word, _PREFIXES)}")

    @classmethod
    def _experimental(cls, text: str, rest: str) -> AgentSpec:
        name, _, tail = rest.partition(":")
        name = name.strip().lower()
        lab = lab_grammar()
        if name not in lab.EXPERIMENTAL_OPTIONS:
            raise ValueError(f"unknown experimental agent {name!r}: choose one of "
                             f"{', '.join(lab.EXPERIMENTAL_OPTIONS)}{_hint(name, lab.EXPERIMENTAL_OPTIONS)}")
        if name in lab.SHORTHANDS and tail.strip() and "=" not in tail:
            items = tuple(lab.SHORTHANDS[name](tail).items())
        else:
            items = _options(text, name, tail, lab.EXPERIMENTAL_OPTIONS[name])
        return cls(EXPERIMENTAL + name, None, items, text)

    # ------------------------------------------------------------------ the value
    @property
    def options(self) -> dict:
        """The options as a new dict (typed values; nested specs as ``AgentSpec``)."""
        return dict(self.items)

    def get(self, key: str, default=None):
        return self.options.get(key, default)

    @property
    def is_network(self) -> bool:
        """A trained policy network: ``bot:<name>`` or a checkpoint."""
        return self.name in ("bot", "checkpoint")

    @property
    def label(self) -> str:
        """The text as given (what reports show), else the canonical text."""
        return self.text or str(self)

    def kinds(self) -> dict[str, Any]:
        """{option: kind} this spec's name takes."""
        if self.is_network:
            return NETWORK_OPTIONS
        if self.name.startswith(EXPERIMENTAL):
            return lab_grammar().EXPERIMENTAL_OPTIONS[self.name[len(EXPERIMENTAL):]]
        return OPTIONS.get(self.name, {})

    def __eq__(self, other) -> bool:
        if not isinstance(other, AgentSpec):
            return NotImplemented
        return (self.name, self.target, frozenset(self.items)) == (other.name, other.target, frozenset(other.items))

    def __hash__(self) -> int:
        return hash((self.name, self.target, frozenset(self.items)))

    def __str__(self) -> str:
        kinds = self.kinds()
        opts = ",".join(f"{k}={_format(kinds.get(k), v)}" for k, v in self.items)
        if self.name == "sb3":
            return f"sb3:{self.target}"
        if self.name in ("bot", "solved"):
            head = f"{self.name}:{self.target}"
        elif self.name == "checkpoint":
            head = self.target
            if head.partition(":")[0].strip().lower() in _PREFIXES:  # a file named like an agent
                head = os.path.join(".", head)
        elif self.name == EXPERIMENTAL + "nested" and [k for k, _ in self.items] == ["worlds", "inner"]:
            return f"{self.name}:{self.options['worlds']}x{self.options['inner']}"
        else:
            head = self.name
        return f"{head}:{opts}" if opts else head

    def __repr__(self) -> str:
        return f"AgentSpec({str(self)!r})"


def expect_spec(spec, what: str) -> AgentSpec:
    """``spec`` if it is a parsed ``AgentSpec``, else TypeError: builders take specs parsed once, at the boundary
    (``AgentSpec.parse``, ``make_agent``), and never parse text again."""
    if not isinstance(spec, AgentSpec):
        raise TypeError(f"{what} takes a parsed AgentSpec (AgentSpec.parse(text) or make_agent(text)), got {spec!r}")
    return spec


def _nested(text: str | AgentSpec, what: str, expected: str) -> AgentSpec:
    """The agent spec given as an option of another (``what``: e.g. "search playout"), parsed once; one
    ValueError naming ``what`` if it is empty or not a spec."""
    if isinstance(text, AgentSpec):
        return text
    text = text.strip() if isinstance(text, str) else text
    if not text:
        raise ValueError(f"{what} must be {expected}, got {text!r}")
    try:
        return AgentSpec.parse(text)
    except ValueError as e:
        raise ValueError(f"{what} {text!r}: {e}") from None


def parse_playout(text: str | AgentSpec, agent: str = "search") -> AgentSpec:
    """The playout policy of ``<agent>:playout=<text>``: ``heuristic`` or a network (``bot:<name>``, a checkpoint)."""
    if agent == "guided" and isinstance(text, str) and text.strip() in ("network", "side"):
        raise ValueError(f"guided playout {text.strip()!r} is not a policy: playout= is the playout's agent spec "
                         "(heuristic, bot:<name> or a checkpoint; default the guiding network) and seats= whom a "
                         "network plays there (all, the default, or side: the searching side only)")
    spec = _nested(text, f"{agent} playout", "'heuristic', bot:<name> or a checkpoint path")
    if spec.name != "heuristic" and not spec.is_network:
        raise ValueError(f"{agent} playout {spec.label!r} is not a network: give 'heuristic', bot:<name> or a "
                         "checkpoint")
    if spec.get("level") is not None:  # the batched playout plays the network's moves: a level would be ignored
        raise ValueError(f"{agent} playout {spec.label!r} takes no level: a playout plays the network itself "
                         "(bot:<name>, or bot:<name>:sym=1 averaged); a level is a seated bot's")
    return spec


def parse_network(text: str | AgentSpec, agent: str = "guided") -> AgentSpec:
    """The guiding network of ``<agent>:bot=<text>``: a shipped bot's name (``yorkshire`` or
    ``bot:yorkshire``) or a checkpoint, without options (the guide is the raw network)."""
    if isinstance(text, AgentSpec):
        spec = text
    else:
        text = text.strip() if isinstance(text, str) else text
        if not text or not isinstance(text, str):
            raise ValueError(f"{agent} bot must be a shipped bot's name or a checkpoint path, got {text!r}")
        if ":" not in text and "/" not in text and _checkpoint_split(text) is None:
            return AgentSpec("bot", text, (), text)  # a bare bot name
        spec = AgentSpec.parse(text)
    if not spec.is_network:
        raise ValueError(f"{agent} bot {spec.label!r} is not a network: give a shipped bot's name (e.g. yorkshire), "
                         "bot:<name> or a checkpoint path")
    if spec.items:
        raise ValueError(f"{agent} bot {spec.label!r} takes no options: the guide is the raw network (give "
                         "playout=bot:<name>:sym=1 for averaged playouts)")
    return spec


def parse_target(text: str | AgentSpec, agent: str = "br") -> AgentSpec:
    """The target of ``br:target=<text>``: a deterministic player, ``heuristic`` or a network (played greedily)."""
    spec = _nested(text, f"{agent} target", "heuristic, bot:<name> or a checkpoint path")
    if spec.name == "random":
        raise ValueError(f"{agent} target {spec.label!r} is stochastic (it draws its moves at random): a best response "
                         "needs a deterministic target: heuristic, bot:<name> or a checkpoint")
    if spec.name != "heuristic" and not spec.is_network:
        raise ValueError(f"{agent} target {spec.label!r} is not a fixed policy (its moves depend on its own random "
                         "draws or a search): give heuristic, bot:<name> or a checkpoint")
    return spec


def check_seats(seats, agent: str) -> str:
    """``seats`` if it is one of ``SEATS``, else ValueError."""
    if seats not in SEATS:
        raise ValueError(f"{agent} seats must be side (a network playout plays the searching side, the heuristic the "
                         f"others) or all (it plays every seat), got {seats!r}")
    return seats


# ---------------------------------------------------------------------- helpers
def _hint(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _options(text: str, name: str, rest: str, kinds: dict) -> tuple:
    """The typed ``key=value,...`` options ``rest`` of agent ``name`` in spec ``text``."""
    items: list[tuple[str, Any]] = []
    if not rest.strip():
        return ()
    for item in rest.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise ValueError(f"bad parameter {item.strip()!r} in agent spec {text!r}: expected key=value")
        if key not in kinds:
            nested = [k for k, v in items if isinstance(v, AgentSpec)]
            if nested and key in NETWORK_OPTIONS:  # read as the nested spec's second option
                raise ValueError(f"unknown parameter {key!r} for agent {name!r}: its {nested[-1]}= plays the network "
                                 "itself and takes one option, sym= (a level is a seated bot's)")
            raise ValueError(f"unknown parameter {key!r} for agent {name!r}: valid are {', '.join(kinds)}"
                             f"{_hint(key, kinds)}")
        if any(k == key for k, _ in items):
            raise ValueError(f"parameter {key!r} is given twice in agent spec {text!r}")
        items.append((key, _typed(kinds[key], value, name, key)))
    return tuple(items)


def _typed(kind, value: str, name: str, key: str):
    if kind is PLAYOUT:
        return parse_playout(value, name)
    if kind is NETWORK:
        return parse_network(value, name)
    if kind is TARGET:
        return parse_target(value, name)
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"parameter {key!r} of agent {name!r} must be {_TYPE_WORDS.get(kind, kind)}, "
                         f"got {value!r}") from None


def _format(kind, value) -> str:
    if isinstance(value, AgentSpec):
        if kind is NETWORK and value.name == "bot" and not value.items:
            return value.target
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _network_options(text: str, head: str, tail: str) -> tuple:
    """The ``sym=0``/``sym=1`` and ``level=1..5`` suffix of a bot or checkpoint spec, in that order."""
    given = {}
    if not tail.strip():
        return ()
    for item in tail.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if key not in NETWORK_OPTIONS or not eq:
            raise ValueError(f"bad option {item.strip()!r} in {text!r}: a bot or checkpoint takes only sym=0 or sym=1 "
                             f"and level=1 to {TOP}")
        if key in given:
            raise ValueError(f"option {key} is given twice in {text!r}")
        if key == "sym" and value not in ("0", "1"):
            raise ValueError(f"option sym of {head!r} must be 0 or 1, got {value!r}")
        if key == "level":
            check_level(int(value) if value.isascii() and value.isdigit() else value, f"option level of {head!r}")
        given[key] = int(value)
    return tuple((k, given[k]) for k in NETWORK_OPTIONS if k in given)


def _is_checkpoint(path: str) -> bool:
    """A checkpoint path: a name ending in .pt, any existing file, or a run folder holding a checkpoint."""
    if not path:
        return False
    if path.endswith(".pt") or os.path.isfile(path):
        return True
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in ("best.pt", "latest.pt"))


def _checkpoint_split(text: str) -> tuple[str, str] | None:
    """(path, options text) of a checkpoint spec, or None if ``text`` names no checkpoint."""
    if _is_checkpoint(text):
        return text, ""
    head, sep, tail = text.rpartition(":")
    if sep and _is_checkpoint(head.strip()):
        return head.strip(), tail
    return None
