"""The Gymnasium ids, registered when ``allfours`` is imported (``gymnasium.make("allfours:allfours/SevenUp-v0")``
imports it first). Entry points are strings: nothing of ``allfours.agents`` is imported until an env is made.

    allfours/Yorkshire-v0      four players in partnerships, to 11
    allfours/Traditional-v0    players=2 (default 4), 3 or 4, to 14
    allfours/SevenUp-v0        two players, to 7
    allfours/Pitch-v0          Auction Pitch: players=2, 3 or 4 (default 4, each for themselves), to 7
    allfours/Setback-v0        Setback: four players in partnerships, to 11
"""

from __future__ import annotations

import gymnasium

from allfours_env.rules import PLAYED_PRESETS

# one id a played preset, its name in CamelCase: seven_up -> allfours/SevenUp-v0
IDS = {f"allfours/{''.join(w.capitalize() for w in p.split('_'))}-v0": p for p in PLAYED_PRESETS}


def register() -> None:
    for env_id, preset in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="allfours.agents.adapters.gym_env:AllFoursGymEnv",
                               vector_entry_point="allfours.agents.adapters.gym_vector:AllFoursVectorEnv",
                               kwargs={"preset": preset}, disable_env_checker=False)


register()
