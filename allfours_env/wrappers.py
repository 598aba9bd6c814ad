"""PettingZoo's classic-env wrappers, with the AEC state read straight from the raw env.

``env()`` wraps like PettingZoo's classic environments (TerminateIllegal, AssertOutOfBounds,
OrderEnforcing). Their base class forwards every attribute read through each layer's
``__getattr__``; in a learner loop that is about 35 lookups a decision and a third of the time.
These subclasses behave the same but read ``agent_selection``, ``agents``, ``rewards`` and the
other AEC dicts from the raw env in one step, and a method called before ``reset()`` raises the
RuntimeError the raw env raises.
"""

from __future__ import annotations

from pettingzoo.utils import wrappers

_STATE = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _forward(name: str, guard: bool):
    def get(self):
        if guard and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)
    return property(get)


def _needs_reset(name: str):
    """``name`` as PettingZoo's OrderEnforcingWrapper has it, but before reset() one RuntimeError, as the
    raw env and the Gymnasium envs raise (PettingZoo's own is an AssertionError)."""
    base = getattr(wrappers.OrderEnforcingWrapper, name)

    def method(self, *args, **kwargs):
        if not self._has_reset:
            raise RuntimeError(f"call reset() before {name}(): no match is dealt yet")
        return base(self, *args, **kwargs)
    method.__name__ = name
    return method


def _fast(cls, guard: bool = False):
    ns = {name: _forward(name, guard) for name in _STATE}
    ns["num_agents"] = property(lambda self: len(self.agents))
    if guard:
        ns.update({name: _needs_reset(name) for name in ("observe", "last", "step", "render", "state", "agent_iter")})

    def __init__(self, env, *args, **kwargs):  # noqa: N807
        self._raw = env.unwrapped
        cls.__init__(self, env, *args, **kwargs)

    ns["__init__"] = __init__
    return type(cls.__name__, (cls,), ns)


TerminateIllegalWrapper = _fast(wrappers.TerminateIllegalWrapper)
AssertOutOfBoundsWrapper = _fast(wrappers.AssertOutOfBoundsWrapper)
OrderEnforcingWrapper = _fast(wrappers.OrderEnforcingWrapper, guard=True)
