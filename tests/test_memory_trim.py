"""explorer/serving/memory.trim: at most one heap walk a second, and none lost: a call inside that second leaves one
trim due at its end (the siege's last attributions ended inside the second and their pages stayed, +98 MB)."""

import time

from explorer.serving import memory


class FakeLibc:
    def __init__(self) -> None:
        self.trims: list[float] = []

    def malloc_trim(self, pad: int) -> int:
        self.trims.append(time.monotonic())
        return 1


def test_a_burst_is_trimmed_once_at_once_and_once_at_the_end_of_its_second(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(memory, "_libc", libc)
    monkeypatch.setattr(memory, "_last", 0.0)
    monkeypatch.setattr(memory, "_due", None)
    start = time.monotonic()
    for _ in range(5):  # five requests ending within 0.3 s
        memory.trim(0.3)
    assert len(libc.trims) == 1  # the first at once, the rest wait for the second to end
    time.sleep(0.6)
    assert len(libc.trims) == 2, libc.trims  # one more, not four, and not none
    assert libc.trims[1] - start >= 0.29  # at the end of the second, not before
    time.sleep(0.4)
    assert len(libc.trims) == 2  # nothing left due


def test_a_call_after_the_second_trims_at_once(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(memory, "_libc", libc)
    monkeypatch.setattr(memory, "_last", 0.0)
    monkeypatch.setattr(memory, "_due", None)
    memory.trim(0.1)
    time.sleep(0.15)
    memory.trim(0.1)
    assert len(libc.trims) == 2
