"""closing.py: a context close that hangs is ended, and the module's browser comes back for the next test."""

import os
import signal
import time

import pytest
from closing import browsers, close_within, renderers
from test_browser import Chromium, pw


def test_a_hung_close_is_ended_and_the_browser_launched_again():
    with pw.sync_playwright() as p:
        chromium = Chromium(p)
        ctx = chromium.new_context()
        ctx.new_page().set_content("<p>one</p>")
        assert renderers(), "no renderer found among this process's descendants"
        stopped = browsers()
        assert stopped, "no browser process found among this process's descendants"
        for pid in stopped:  # (a browser that answers nothing: its context's close waits for ever)
            os.kill(pid, signal.SIGSTOP)
        began = time.monotonic()
        with pytest.warns(UserWarning, match="hung for 2 s"):
            close_within(ctx, limit=2)
        assert time.monotonic() - began < 15
        page = chromium.new_context().new_page()  # a new browser, not the killed one
        page.set_content("<p>two</p>")
        assert page.inner_text("p") == "two"
        chromium.close()
