"""The players: random, the rule-based ``heuristic`` (and its batched twin ``heuristic_batch``), determinized
``search`` (its internals are ``allfours.agents.search``) with the networks' playouts (``playout``), the networks
(``neural``, ``batched``), ``guided``, OpenSpiel's ``ismcts``, the terminal ``human``, the best response ``br``
(``best_response``, its deterministic target's moves in ``target``) and ``solved`` (a mini preset's equilibrium,
its tree in ``allfours.agents.mini``). Build one by spec with ``allfours.agents.make_agent``
(``allfours.agents.registry``, above them)."""
