"""Search's internals, below the players that search: the double-dummy solver and the playouts' values
(``solver``), the match equity a hand is valued by (``equity``) and a sampled world's hand as dealt (``worlds``).
The players built on them (``search``, ``guided``, ``br``) are in ``allfours.agents.players``."""
