"""Half the way: budgets and a degraded result, but no guards and the plain executor."""
from reference.loops.guarded import guarded_loop
from reference.loops.hooks import Parts
from reference.parts.budget import RunBudget
from reference.parts.degrade import Degrader


def loop(episode, max_steps=8):
    budget = RunBudget.for_episode(episode, final_answer_share=0.25)
    return guarded_loop(episode, max_steps, Parts(budget=budget, degrade=Degrader(budget=budget)))
