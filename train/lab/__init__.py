"""EXPERIMENTAL: research training tools, not part of the stable API: distillation of search into a network
(``distill``). No stable module imports the lab (tests/test_layers.py)."""
