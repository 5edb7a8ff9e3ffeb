"""
A training run that can be cut off at any moment and continued: every `every` steps and at the end it
saves the weights, the optimiser's and the schedule's state, the step, every random generator's state
and the caller's own record (history, best epoch) in one file, written beside the old one and renamed
over it, so a cut-off leaves the last whole checkpoint. Started again, the run continues from it and
ends with the weights an uninterrupted run ends with: the batch order of each epoch comes from the
seed and the epoch alone, and the steps already taken are skipped.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from .steps import Steps, log

CHECKPOINT = "checkpoint.pt"


@dataclass
class Progress:
    """What the caller keeps across a cut-off besides the weights: figures per epoch, the best so far."""

    step: int = 0
    record: dict = field(default_factory=dict)


def epoch_order(count: int, seed: int, epoch: int) -> list[int]:
    order = list(range(count))
    random.Random(seed + epoch).shuffle(order)
    return order


def rng_state() -> dict:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save(folder: Path, model, optimizer, schedule, progress: Progress) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / (CHECKPOINT + ".partial")
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "schedule": schedule.state_dict(),
        "step": progress.step,
        "record": progress.record,
        "rng": rng_state(),
    }
    torch.save(state, partial)
    partial.replace(folder / CHECKPOINT)


def load(folder: Path, model, optimizer, schedule) -> Progress | None:
    """The saved progress, with the model, optimiser, schedule and generators set to it; None when nothing was saved."""
    path = folder / CHECKPOINT
    if not path.exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    schedule.load_state_dict(state["schedule"])
    set_rng_state(state["rng"])
    return Progress(state["step"], state["record"])


@dataclass
class Run:
    """One stage: `epochs` passes over `count` examples in batches of `batch_size`, checkpointed in `folder`."""

    folder: Path
    count: int
    batch_size: int
    epochs: int
    seed: int
    every: int

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.count / self.batch_size)

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.epochs

    def train(
        self,
        model,
        optimizer,
        schedule,
        loss_of: Callable[[list[int]], torch.Tensor],
        after_step: Callable[[int, Progress], None] = lambda step, progress: None,
        after_epoch: Callable[[int, float, Progress], None] = lambda epoch, loss, progress: None,
        stop_after: int | None = None,
    ) -> Progress:
        """
        Takes the steps not yet taken: `loss_of(indices)` gives a batch's loss; `after_step(step)` and
        `after_epoch(epoch, mean loss)` may record into the progress, which the next checkpoint keeps. `stop_after`
        ends the run after that many steps in all without saving, as a cut-off would (a schedule stopped early, and tests).
        """
        progress = load(self.folder, model, optimizer, schedule) or Progress()
        if progress.step:
            log(f"resuming {self.folder} at step {progress.step} of {self.total_steps}")
        model.train()
        while progress.step < self.total_steps:
            epoch, within = divmod(progress.step, self.steps_per_epoch)
            order = epoch_order(self.count, self.seed, epoch + 1)
            steps = Steps(model, optimizer, schedule, epoch + 1)
            for start in range(within * self.batch_size, self.count, self.batch_size):
                if stop_after is not None and progress.step >= stop_after:
                    return progress
                steps.take(loss_of(order[start : start + self.batch_size]))
                progress.step += 1
                progress.record["loss_sum"] = progress.record.get("loss_sum", 0.0) + steps.last_loss
                after_step(progress.step, progress)
                if progress.step % self.steps_per_epoch == 0:
                    after_epoch(progress.step // self.steps_per_epoch, progress.record.pop("loss_sum") / self.steps_per_epoch, progress)
                    model.train()
                if progress.step % self.every == 0 or progress.step == self.total_steps:
                    save(self.folder, model, optimizer, schedule, progress)
        return progress
