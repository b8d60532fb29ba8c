"""Half the way: budgets and a degraded result, but no guards and the plain executor.

Expert score: 80. Why: the bare loop right (60) plus budgets checked before each request and a degraded result at every limit; no guard, so repeats run to the step cap.
"""
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.parts.budget import RunBudget
from reference.parts.degrade import Degrader


def loop(episode, max_steps=8):
    budget = RunBudget.for_episode(episode, final_answer_share=0.25)
    return guarded_loop(episode, max_steps, Parts(budget=budget, degrade=Degrader(budget=budget)))
