"""The environment and the agents for other libraries: Gymnasium (``gym_env``, ``gym_vector``: the ids
``AllFours-*``), Stable-Baselines3 (``sb3_vec_env``, and ``sb3_agent`` for ``sb3:<model.zip>`` players) and
RLlib (``rllib_env``, the extra ``allfours[ray]``). PettingZoo and OpenSpiel are in ``allfours_env``."""
