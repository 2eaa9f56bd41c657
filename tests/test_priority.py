"""explorer/serving/priority.py: views that only redraw wait for running translations, and never longer than their limit."""

import threading
import time

from explorer.serving import priority


def test_a_view_waits_until_the_translation_is_done():
    started, release = threading.Event(), threading.Event()

    def translate():
        with priority.translating():
            started.set()
            release.wait(5)

    t = threading.Thread(target=translate)
    t.start()
    started.wait(5)
    assert priority.running() == 1
    assert priority.after_translations(max_wait=0.2) is False  # still translating: the wait ran out
    done_at = []
    waiter = threading.Thread(target=lambda: (priority.after_translations(max_wait=5), done_at.append(time.monotonic())))
    waiter.start()
    time.sleep(0.3)
    assert not done_at  # the view is still waiting
    released = time.monotonic()
    release.set()
    waiter.join(5)
    t.join(5)
    assert done_at and done_at[0] >= released and priority.running() == 0
    assert priority.after_translations(max_wait=0.01) is True  # nothing running: no wait


def test_the_page_runs_redraw_only_views_in_their_own_group():
    import app

    demo = app.build()
    groups: dict = {}
    for fn in demo.fns.values():
        groups.setdefault(str(fn.api_name).rstrip("_0123456789"), set()).add(fn.concurrency_id)
    assert groups["inside_tab"] == {"views"} and groups["inside_view"] == {"views"}
    # the page's Translate and Example clicks, and the public /translate: many at once, so their decodes batch
    assert groups["translate"] == {"translate"}
    assert groups["ablate"] == {"model"} and groups["beam"] == {"model"}
