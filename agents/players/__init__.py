"""The players: random, the rule-based ``heuristic`` (and its batched twin ``heuristic_batch``), determinized
``search`` with its solver, playouts and world sampling, the networks (``neural``, ``batched``), ``guided``,
OpenSpiel's ``ismcts``, the terminal ``human`` and the best response ``br`` (``best_response``, with the
worlds consistent with a target's moves in ``consistent``); ``equity`` values a hand by the match equity.
Build one by spec with ``allfours.agents.make_agent``."""
