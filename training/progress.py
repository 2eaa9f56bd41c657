"""Progress lines with an estimate of the time left, for a run that may span several sittings."""

from __future__ import annotations

import time


def minutes(m: float) -> str:
    return f"{m:.0f} min" if m < 90 else f"{m / 60:.1f} h"


class Progress:
    """Elapsed time across sittings and the rate of this sitting: the estimate ignores earlier machines."""

    def __init__(self, elapsed_before_s: float, step_before: int, total_steps: int) -> None:
        self.t0, self.before, self.step0, self.total = time.time(), elapsed_before_s, step_before, total_steps

    def elapsed(self) -> float:
        return self.before + time.time() - self.t0

    def line(self, epoch: int, batch: int, batches: int, step: int, loss: float, lr: float) -> str:
        rate = (step - self.step0) / max(time.time() - self.t0, 1e-9)  # steps a second in this sitting
        left_epoch = (batches - batch) / rate / 60 if rate else float("nan")
        left_run = max(self.total - step, 0) / rate / 60 if rate else float("nan")
        return (f"epoch {epoch} batch {batch}/{batches} step {step} loss {loss:.3f} lr {lr:.2e} "
                f"{rate * 60:.0f} steps/min; epoch ends in {minutes(left_epoch)}, run in {minutes(left_run)} "
                f"(elapsed {minutes(self.elapsed() / 60)})")
