"""The per-thread opener: reused within a thread, rebuilt when the proxy settings change, never shared."""

from __future__ import annotations

import threading

import pytest

from saga_kgqa.kg.remote.http_opener import SocketRecorder, opener_for


def test_a_thread_reuses_its_opener_with_the_new_recorder() -> None:
    first, second = SocketRecorder(), SocketRecorder()
    opener = opener_for(first)
    assert opener_for(second) is opener
    handlers = [h for h in opener.handlers if hasattr(h, "recorder")]
    assert len(handlers) == 2 and all(h.recorder is second for h in handlers)  # type: ignore[attr-defined]


def test_a_changed_proxy_setting_builds_a_new_opener(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("http_proxy", raising=False)
    before = opener_for(SocketRecorder())
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:3128")
    after = opener_for(SocketRecorder())
    assert after is not before
    proxies = next(h for h in after.handlers if hasattr(h, "proxies"))
    assert proxies.proxies.get("http") == "http://127.0.0.1:3128"  # type: ignore[attr-defined]


def test_threads_never_share_an_opener() -> None:
    mine = opener_for(SocketRecorder())
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.append(opener_for(SocketRecorder())))
    worker.start()
    worker.join()
    assert theirs and theirs[0] is not mine
