"""``allfours export``: a trained policy to ONNX with its model card (see ``agents.export_onnx``)."""

from .export_onnx import export_main as main

__all__ = ["main"]
