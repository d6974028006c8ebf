"""A search's first point by imitating the planner (DAgger).

The planner (`speednik.engine.planner`) finishes every certified stage,
but it reads the whole game state, so it is a teacher, not a player: a
policy over an observation has to learn what it does. `imitate` fits
the run's policy to the planner's actions on the run's training stages
(or the stages given to imitate, `EvolutionConfig.imitation_stages`),
in rounds (`rounds.imitate`):

1. the planner plays each stage, and the policy is fitted to what it
   pressed at each decision (behaviour cloning);
2. then, each round, the last fit plays each stage itself; where it
   fails, the planner searches on from where it last gained ground and
   from a little before, its decisions along those plans join the
   examples (`labels.policy_labels`), and the
   policy is fitted again (Ross, Gordon and Bagnell's DAgger): a fit to
   the planner's own states alone has never seen the states its own
   mistakes lead to.

The fit (`fit.fit_policy`) is a cross-entropy fit of the policy's action
scores, by Adam, in numpy. The result is a genome file, which a search
with a mean (CMA-ES, OpenAI-ES) starts from instead of all zeros
(`EvolutionConfig.imitation`).

Nothing is imported here: the run's settings read `fit.IMITATION_FAMILIES`
without loading the planner.
"""
