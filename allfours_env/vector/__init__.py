"""All Fours as N games on NumPy arrays: a batched self-play engine for learners that bring their own.

| Import             | `from allfours_env.vector import VectorEnv`                        |
|--------------------|--------------------------------------------------------------------|
| Construct          | `VectorEnv(preset, num_envs, observations=True, **options)`       |
| Actions            | int array (N,), the same 63 ids as `env()` (docs/rules.md section 6) |
| Observation        | float32 (N, OBS_SIZE): exactly `observation.encode` of the seat to move |
| Action mask        | bool (N, 63): the legal actions of the seat to move                |
| Rewards            | float32 (N, players): what `env()` gives each seat on that step    |
| Spaces             | `single_observation_space` Box, `single_action_space` Discrete(63) |

Presets and options as `env()`: every preset (docs/rules.md sections 1 and 8: the All Fours presets,
the mini ones, `pitch` and `setback`) with the options it takes (`players`, `target`, `reward`
("match" or "points"), `episode` ("match" or "hand"), ...).

    vec = VectorEnv("seven_up", 4096)
    obs, mask, seat = vec.reset(seed=0)
    obs, mask, seat, rewards, terminated, info = vec.step(actions)

Every game always has a seat to move: a finished match is replaced at once (same-step
autoreset), so the `obs`, `mask` and `seat` that `step` returns for a game with
`terminated[i]` belong to its next match, while `rewards[i]`, `info["scores"][i]` and
`info["hand_results"]` describe the one that ended. `observations=False` skips the
observations (`obs` is None) for speed; `obs_out=` and `mask_out=` on `reset`/`step` write
them into the caller's arrays, else into buffers the next call overwrites. `observe(seats)`
encodes any seat's view, for a critic or an opponent, and with `suit_order=` (N, 4) in a
relabelling of the suits (a learner's canonical form, trump first, in the same pass); `legal_mask`
gives the masks, relabelled alike; `random_actions(rng)` draws a uniformly
random legal action in every game. `step(actions, hold=waiting)` leaves the games where
`waiting` (bool, N) is True exactly as they are (a single-agent learner's games wait so while the
other seats move in the rest). A bad action array (wrong length, not integers, out of
range, or illegal in any game: `IllegalActionError`) raises one ValueError and changes nothing.

### Rewards
As `env()`: "match" gives +1 to each seat of the side that reaches the target and -1 to every
other (-0.5 each with three players) on the step the match ends; "points" gives, on each step
that ends a hand, a seat's side's points minus the mean of the other sides'. With
`episode="hand"` an episode (and `terminated`) ends with each hand.

### Infos
`step` returns `info` with arrays over the games: `scores` (N, sides), the match score after
the action; `winner` (N,), the side that won the match or -1; `hands_ended` (N,), how many
hands the action ended (0, 1, or 2 when the last card of a hand is followed by a turn-up of
the next deal that wins the match); `hand_results`, a dict of arrays with a second axis of 2
(the hands in the order they ended): `trump`, `high`, `low`, `jack`, `game` (suit or side,
-1 for None), `jack_points`, and `game_totals` and `points` (N, 2, sides).
`hand_results(info, i)` turns game i's into the dicts `env()` puts in `infos["hand_results"]`.
`new_deal` (N,) is True where the game has a new deal after the step (the next hand, a redeal,
or the next match): `deal(i)` gives it. `games` is the engine's own arrays (per seat: `hands`, `played`, `voids`,
`trick`, ...; per game: `phase`, `current`, `trump`, `led`, `scores`, ...), read-only, for batched
players such as `allfours.agents.players.heuristic_batch`.

### Seeds and deals
`reset(seed)` takes an int (per-game seeds drawn from `numpy.random.SeedSequence(seed)`), a
sequence of N per-game seeds, or None. Match m of game i is dealt from (seed i, m) alone,
by SplitMix64 counters, so a game replays whatever N is and whatever the other games do
(`shuffled_deal`, `first_dealers`). `reset(options={"deals": [...], "scores": [...]})` takes
one entry per game (None: seeded) in `env()`'s reset format, and starts that game's first
hand from exactly that deal and score; later hands and a redeal come from the seed.
`options={"matches": [...]}` starts game i at match number m of its seed (0 by default): a
collector that saved `games.matches` resumes each game's sequence of matches where it was.
`deal(i)` gives game i's current deal in that format. A new match that its first turn-up
wins before any decision (a target of 3 or less, or given scores near it) is skipped for the
next match of its seed; an explicit deal that does so is a ValueError.

All games share one set of rules. The scalar `GameState` stays the reference (the tests play
both side by side) and the tool for search; both read the rules from `Rules` and `cards`.

### The package
One module per concern; `GameState` (`allfours_env.engine`) and `observation.encode` stay the
references that the batched twins are tested against (`tests/env/test_vector.py`).

- `allfours_env.vector.env`: `VectorEnv`, the API above, and `hand_results`.
- `allfours_env.vector.games`: `Games`, the rules as array operations (the twin of `GameState`), and
  `points_rewards`.
- `allfours_env.vector.encode`: `Encoder`, `observation.encode` for N games, placing every feature by
  the layout that `allfours_env.observation` publishes.
- `allfours_env.vector.deal`: the per-game dealing streams (`deck_orders`, `shuffled_deal`,
  `first_dealers`) and `twin_state`, the scalar `GameState` dealt by them.
- `allfours_env.vector.bits`: uint64 card masks (`shl`, `relabel_cards`).
"""

from .bits import relabel_cards
from .deal import mix64, twin_state
from .env import VectorEnv, hand_results
from .games import points_rewards

__all__ = ["VectorEnv", "hand_results", "mix64", "points_rewards", "relabel_cards", "twin_state"]
