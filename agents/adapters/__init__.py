"""The environment and the agents for other libraries: Gymnasium (``gym_env``, ``gym_vector``: the ids
``allfours/Yorkshire-v0``, ``Traditional-v0``, ``SevenUp-v0``, ``Pitch-v0``, ``Setback-v0``), Stable-Baselines3
(``sb3_vec_env``, and ``sb3_agent`` for ``sb3:<model.zip>`` players), RLlib (``rllib_env``, the extra
``allfours[ray]``) and ONNX (``export_onnx``: a policy network exported with its model card). PettingZoo and
OpenSpiel are in ``allfours_env``."""
