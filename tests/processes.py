"""Processes a test starts end with the test, also when it fails or times out.

Each runs in its own session (a process group of its own), and the whole group is killed when the test is done with
it: subprocess.run's timeout kills the child only, so torchrun's workers or a Node server an app started would live
on. conftest.py marks every process the suite starts (SUITE_MARK in its environment, which children inherit) and
fails the run when one of them is still alive at the end (suite_processes).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUITE_MARK = "AE_TEST_SUITE"  # = the pytest process's id, in the environment of every process the suite starts


@contextmanager
def started(cmd: list[str], **kwargs) -> Iterator[subprocess.Popen]:
    """subprocess.Popen in a session of its own; on leaving, its whole process group is killed and the child reaped."""
    proc = subprocess.Popen(cmd, start_new_session=True, **kwargs)
    with proc:  # closes its pipes and waits for it
        try:
            yield proc
        finally:
            kill_group(proc.pid)


def run(cmd: list[str], *, timeout: float, input: str | bytes | None = None, capture_output: bool = False,
        **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run (the arguments the tests use), the whole process group killed afterwards, on a timeout too."""
    if capture_output:
        kwargs |= dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with started(cmd, **kwargs) as proc:
        out, err = proc.communicate(input, timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group has ended already
        pass


def _stat(pid: str) -> tuple[str, int]:
    """(state, parent id) from /proc/<pid>/stat (the command name may hold spaces and parentheses)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    state, ppid = text[text.rindex(")") + 2:].split()[:2]
    return state, int(ppid)


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip() or "?"


def suite_processes(root: int | None = None) -> dict[int, str]:
    """{pid: command line} of every live process started under ``root`` (this process by default): its
    descendants, and any process whose environment carries ``SUITE_MARK=<root>`` (which finds those reparented to
    init after their parent ended, and those started in a session of their own). Zombies are dead and left out."""
    root = os.getpid() if root is None else root
    mark = f"{SUITE_MARK}={root}".encode()
    parent, marked = {}, set()
    if not os.path.isdir("/proc"):  # not Linux: nothing to check with
        return {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == root:
            continue
        try:
            state, ppid = _stat(entry)
            if state in "ZX":
                continue
            parent[int(entry)] = ppid
            if mark in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                marked.add(int(entry))
        except (OSError, ValueError):  # it ended while we looked, or is not ours to read
            continue
    found, frontier = set(marked), {root} | marked
    while frontier:  # and their descendants, level by level
        frontier = {pid for pid, ppid in parent.items() if ppid in frontier} - found
        found |= frontier
    return {pid: command_line(pid) for pid in sorted(found)}
