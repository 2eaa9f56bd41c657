"""Closing a Playwright browser context without hanging the run.

Chromium's context close hung once in CI (the whole test's 480 s, after its assertions; 17 s it takes otherwise) and
Playwright's sync API gives ``close()`` no timeout. ``close_within`` closes the context and, if it has not returned
within ``limit`` seconds, looks at the browser's renderer processes (this process's descendants, from /proc) and kills
them, which lets the close finish. A renderer still burning CPU then is the page's own script in an endless loop: the
test fails with that. A renderer at rest is Chromium's own hang: a warning says so and the run goes on.
"""

import os
import signal
import sys
import threading
import warnings
from pathlib import Path

from processes import suite_processes

HOT = 0.75  # a renderer using more than this share of one core while the close hangs is the page's script looping


def _chromium() -> dict[int, str]:
    """{pid: command line} of the Chromium processes this process started (processes.suite_processes)."""
    return {pid: cmd for pid, cmd in suite_processes(os.getpid()).items() if "chrom" in cmd.split(" ", 1)[0]}


def renderers() -> dict[int, float]:
    """The CPU seconds (user + system) of each Chromium renderer this process started."""
    out = {}
    for pid, cmd in _chromium().items():
        if "--type=renderer" not in cmd:
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (stat's 14, 15)
    return out


def browsers() -> list[int]:
    """The Chromium browser processes this process started (a Chromium process without a ``--type``)."""
    return [pid for pid, cmd in _chromium().items() if "--type=" not in cmd]


def _kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def close_within(ctx, limit: float = 60.0) -> None:
    """``ctx.close()``, with the renderers killed if it takes longer than ``limit`` seconds, and the browser itself
    ``limit`` seconds later (see the module; the ``browser`` fixture of test_browser.py launches it again)."""
    seen: dict = {}
    done = threading.Event()

    def rescue():
        before = renderers()
        if done.wait(2.0):
            return
        after = renderers()
        seen["hot"] = {pid: round((after[pid] - cpu) / 2.0, 2) for pid, cpu in before.items()
                       if pid in after and after[pid] - cpu > HOT * 2.0}
        seen["all"] = sorted(after)
        print(f"closing.py: context close still running after {limit:.0f} s; renderers {seen['all']}, "
              f"busy (share of a core) {seen['hot']}; killing them", file=sys.__stderr__, flush=True)
        _kill(after)
        if not done.wait(limit):
            seen["browser"] = browsers()
            print(f"closing.py: still running; killing the browser {seen['browser']}", file=sys.__stderr__, flush=True)
            _kill(seen["browser"])

    timer = threading.Timer(limit, rescue)
    timer.daemon = True
    timer.start()
    try:
        ctx.close()
    except Exception as e:  # (playwright's Error: the browser was killed under it)
        if "browser" not in seen:
            raise
        seen["error"] = str(e).splitlines()[0]
    finally:
        done.set()
        timer.cancel()
    if seen.get("hot"):
        raise AssertionError(f"a page's script was still running when its context closed (renderer CPU share per "
                             f"pid: {seen['hot']}): an endless loop in the page")
    if seen:
        warnings.warn(f"Chromium's context close hung for {limit:.0f} s with its renderers at rest {seen['all']}; "
                      f"they were killed{' and then the browser' if 'browser' in seen else ''} and the run went on",
                      stacklevel=2)
