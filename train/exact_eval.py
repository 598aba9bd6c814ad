"""A mini preset's exact NashConv while it trains (config ``exact_every_minutes``): the learning curve that
matters on the mini presets, measured by the same numbers as ``allfours exploit --method exact``
(``allfours.agents.exploitability.exact.NetworkProbe``), and the lowest one's weights kept as best.pt."""

from __future__ import annotations

import math

from allfours.agents.exploitability.exact import NetworkProbe


class ExactEvaluation:
    def __init__(self, preset: str, every_minutes: float):
        self.probe = NetworkProbe(preset)
        self.interval = 60 * every_minutes
        self.next_seconds = self.interval
        self.lowest = math.inf
        self.curve: list[dict] = []  # {"steps", "train_seconds", "nash_conv"} per measurement

    def due(self, train_seconds: float) -> bool:
        return train_seconds >= self.next_seconds

    def measure(self, net, steps: int, train_seconds: float) -> tuple[float, bool]:
        """(NashConv of ``net`` now, whether it is the lowest yet); schedules the next measurement."""
        nash_conv = self.probe.measure(net)
        self.curve.append({"steps": steps, "train_seconds": round(train_seconds, 2), "nash_conv": nash_conv})
        self.next_seconds = (train_seconds // self.interval + 1) * self.interval
        lowest = nash_conv < self.lowest
        self.lowest = min(self.lowest, nash_conv)
        return nash_conv, lowest

    def state_dict(self) -> dict:
        return {"next_seconds": self.next_seconds, "lowest": self.lowest, "curve": list(self.curve)}

    def load_state_dict(self, state: dict | None) -> None:
        if state:
            self.next_seconds, self.lowest, self.curve = state["next_seconds"], state["lowest"], list(state["curve"])
