"""The last part of a frame budget played at another action repeat.

With `final_action_repeat` and `final_frames`, a generation begun once
the search has played `max_frames - final_frames` frames, and every one
after it, decides every `final_action_repeat` frames instead of every
`action_repeat` (`EvolutionConfig.action_repeat_after`). The reason: a
policy deciding every other frame observes half as often, so most of a
search is cheaper at repeat 2, but the genome it gives can play deciding
every frame, where the moment it jumps is twice as fine; the last part
of the search adapts the genomes to that.

At the top of the first generation at the new repeat (`before`), every
score the run holds was played at the old one, so they are played again
on that generation's stages: the population and the hall of fame (put
back in order), the genome validation chose (its training fitness; its
validation result is played again at every validation anyway), and the
held-out report of the best genome is forgotten. Those episodes count in
the frames the search played. From then on validation, the held-out test
and best.json are at the new repeat, so a replay of best.json plays what
was scored.

Which repeat a generation plays follows from the frames played before it
alone, so a resumed run switches (or has switched) where an uninterrupted
one does, and plays it again the same way; the logbook's `action_repeat`
column says which one each generation played, and a resumed run goes on
from its last row's.
"""
from __future__ import annotations

from evolution.config import EvolutionConfig
from evolution.individual import refill_hall_of_fame
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.reporters import HeldOut
from evolution.loop.run_state import Reporter, RunState
from speednik.signals import signals_held


class FinalRepeat(Reporter):
    """Switches the run's evaluator to `final_action_repeat` when the
    budget's last `final_frames` frames begin; a reporter so that the
    logbook shows the repeat each generation played (`action_repeat`)."""

    def __init__(self, config: EvolutionConfig, evaluator: GenomeEvaluator,
                 held_out: HeldOut) -> None:
        self.config = config
        self.evaluator = evaluator
        self.held_out = held_out

    def active(self) -> bool:
        return self.config.final_action_repeat is not None

    def resume(self, last_row: dict) -> None:
        """A resumed run plays on at the repeat its last finished
        generation (the logbook's `last_row`) was scored at: the scores its
        checkpoint holds are of that repeat. The next generation switches
        if the budget (a new --max-frames) puts it at the other one."""
        if self.active() and last_row.get("action_repeat") not in (None, ""):
            self.evaluator.use_action_repeat(int(last_row["action_repeat"]))

    def before(self, run: RunState, gen: int) -> bool:
        """At the top of generation `gen` (its stages already drawn):
        switch the repeat if this generation is the first at the new one,
        scoring again what the run holds. Whether it switched."""
        repeat = self.config.action_repeat_after(run.evaluations.frames)
        if repeat == self.evaluator.action_repeat:
            return False
        # A Ctrl-C waits until everything is scored again. Stopped later in
        # this generation, the run checkpoints the one before, whose
        # population and hall of fame hold these scores already; resumed at
        # that row's repeat, it switches here again and scores them alike.
        with signals_held():
            self.evaluator.use_action_repeat(repeat)
            self.held_out.forget()
            run.forget_scores()
            hall = list(run.hall_of_fame)
            run.evaluations.assign(list(run.population) + hall, fresh=True)
            refill_hall_of_fame(run.hall_of_fame, sorted(
                hall, key=lambda ind: ind.fitness.values[0], reverse=True))
            if run.validation is not None and run.validation.chosen is not None:
                genome = run.validation.chosen[0]
                _, fitness, summary = run.scored(genome, gen, counted=True)
                run.validation.rescore(fitness, summary)
        return True

    def columns(self, run: RunState, gen: int) -> dict:
        if not self.active():
            return {}
        return {"action_repeat": self.evaluator.action_repeat}

