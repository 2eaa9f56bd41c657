"""A finger's swipe in Chromium, as a phone's touch screen sends it (DevTools' Input.dispatchTouchEvent)."""


def swipe_up(pg, x: float, y: float, steps: int = 10, step_px: float = 20) -> None:
    """Touch at (x, y), move up ``steps`` x ``step_px`` px a frame at a time, lift the finger, let the page settle."""
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y - step_px * i}]})
        pg.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    pg.wait_for_timeout(500)
