"""EXPERIMENTAL: research players and tools, not part of the stable API (they may change or go). The
``experimental:<name>`` players (``experimental``, their grammar in ``grammar``) and the sampler of the
match-equity tables (``equity_sample``). No stable module imports the lab (tests/test_layers.py)."""
