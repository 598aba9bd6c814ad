"""Network plumbing: the policy network (``model``), checkpoints (``checkpoint``), the suit-relabelling
symmetry (``symmetry``), model cards (``model_card``); the ONNX export is
``allfours.agents.adapters.export_onnx``. The package
re-exports the model's public names: ``from allfours.agents.network import PolicyNet``."""

from .model import MASK_VALUE, TIE_TOLERANCE, PolicyNet, bf16_supported, greedy_actions, masked_stats

__all__ = ["MASK_VALUE", "TIE_TOLERANCE", "PolicyNet", "bf16_supported", "greedy_actions", "masked_stats"]
