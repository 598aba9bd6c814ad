"""Duplicate-deal evaluation of agents: matches, pairings, round robins, ratings.

A match is fully determined by its ``GameState`` seed (first dealer and every shuffle derive
from it) and by the agents' own seeds. A *duplicate* pairing plays each deal sequence (one game
seed) once per seating:

* two sides (yorkshire, traditional with 2 or 4 players, seven_up): agent A on side 0 and B on
  side 1, then the same seed with the sides swapped;
* three players (traditional ``players=3``): A is rotated through seats 0, 1, 2 with B in the
  other two seats (A plays alone against two copies of B; an even match is won 1/3 of the time).

Every pairing of a run uses the same game seeds, so all agents meet the same deals. Each match's
seeds derive from the run seed, the game and the deal only, and ``play_match`` seeds each agent
from them and its seat: a match of A and B is the same whatever the other pairings of the run,
the order its agents are listed in or the number of worker processes, so a pairing's figures are
the same on every board that holds it and in a lone ``allfours eval``.

An agent that exists only in memory (the network under training) plays the same schedule through
``agents={name: agent}`` or ``evaluate_agent``: its row is the one ``allfours eval`` prints for the
agent saved to a file, on the same seed and options.

Agents are named by specs (text or ``allfours.agents.spec.AgentSpec``), parsed once; a task carries the
parsed values and the game's ``Rules`` to the process that plays it, and each process builds an
agent once per spec and game (``build_agent``): the checks before the first match build the
agents that this process then plays, and a worker process builds each on its first match.

    from allfours.agents.evaluation import evaluate_agent, evaluate_pairing, round_robin
    res = round_robin(["search", "heuristic", "random"], preset="yorkshire", matches=400, seed=0)
    row = evaluate_agent(my_agent, "heuristic", preset="yorkshire", matches=400, seed=0)

Stopped by Ctrl-C (or any ``KeyboardInterrupt``, such as the one ``allfours eval`` raises for
SIGTERM), ``run_tasks`` and ``evaluate_pairings`` raise ``EvaluationInterrupted`` carrying the
finished matches; ``evaluate_pairings`` adds ``report``, the results of the duplicate groups
played in full (``"partial": true``). Worker processes ignore Ctrl-C from their start: it reaches
every process of a terminal's group, and only the parent acts on it (it ends the pool).

``ray_address`` (``"local"``, ``"auto"``, ``HOST:PORT``) plays the same schedule as Ray tasks on
a cluster instead of local processes (``allfours.agents.evaluation.ray_eval``), with the same results, the
same progress bar and the same partial report when stopped.
"""

from .matches import Task, build_agent, deal_group, derive_seed, make_tasks, play_match, run_task, seatings, task_agent
from .pairings import eval_command, evaluate_agent, evaluate_pairing, evaluate_pairings, round_robin, whole_groups
from .pool import EvaluationInterrupted, children_ignore, init_worker, run_tasks
from .stats import MIN_UNITS, PairingResult, ratio_interval, summarize, t_interval, wilson

__all__ = ["MIN_UNITS", "EvaluationInterrupted", "PairingResult", "Task", "build_agent", "children_ignore",
           "deal_group", "derive_seed", "eval_command", "evaluate_agent", "evaluate_pairing", "evaluate_pairings",
           "init_worker", "make_tasks", "play_match", "ratio_interval", "round_robin", "run_task", "run_tasks",
           "seatings", "summarize", "t_interval", "task_agent", "whole_groups", "wilson"]
