"""explorer/serving/exports.py: exports leave nothing behind, even when no further export comes, and never pile up."""

import time

import pytest

from explorer.serving import exports, limits


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    # (a sweep still pending from an earlier test's export, 61 s long, would stand for this test's own: one at a time)
    for timer in exports._TIMER:
        timer.cancel()
    exports._TIMER.clear()
    return exports.folder()


def test_exports_are_deleted_after_their_time_without_another_export(folder, monkeypatch):
    """72 exports once left 224 MB for good: they were swept only when the next export came."""
    monkeypatch.setattr(limits, "EXPORT_TTL_S", 0.3)
    paths = [exports.write(b"x" * 1000, "analysis", ".npz") for _ in range(3)]
    assert all(open(p, "rb").read() == b"x" * 1000 for p in paths)  # there to download at once
    deadline = time.time() + 10
    while any(folder.iterdir()) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(folder.iterdir())


def test_all_exports_together_stay_under_the_byte_bound_newest_kept(folder, monkeypatch):
    monkeypatch.setattr(limits, "EXPORT_TTL_S", 60.0)
    monkeypatch.setattr(limits, "EXPORT_MAX_BYTES", 2500)
    paths = [exports.write(bytes([i]) * 1000, f"e{i}", ".npz") for i in range(5)]
    assert exports.size_on_disk() <= 2500
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == sorted(p.rsplit("/", 1)[-1] for p in paths[-2:])  # the two newest
