"""The mini presets solved exactly, below the players (``solved`` plays their equilibria): the whole game tree
(``tree``), CFR+ and the stored equilibria (``cfr``), best response and NashConv on the tree (``response``)."""
