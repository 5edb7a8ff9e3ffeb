"""The training step both of Attest's cross-encoders take, and how it is reported."""
from __future__ import annotations

import time

import torch


class Steps:
    """Steps the optimiser on each loss, gradients clipped to norm 1, and logs the running mean loss every 100 steps."""

    def __init__(self, model, optimizer, schedule, epoch: int):
        self.model, self.optimizer, self.schedule, self.epoch = model, optimizer, schedule, epoch
        self.total, self.count, self.last_loss = 0.0, 0, 0.0

    def take(self, loss: torch.Tensor) -> None:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.schedule.step()
        self.optimizer.zero_grad()
        self.last_loss = loss.item()
        self.total += self.last_loss
        self.count += 1
        if self.count % 100 == 0:
            log(f"  epoch {self.epoch} step {self.count}: loss {self.mean_loss:.4f}")

    @property
    def mean_loss(self) -> float:
        return self.total / max(self.count, 1)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)
