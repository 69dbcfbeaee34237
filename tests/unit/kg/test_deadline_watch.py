"""The shared deadline watchdog: fires when a deadline passes, never after its block ends, earliest first."""

from __future__ import annotations

import threading
import time

from saga_kgqa.kg.remote.deadline_watch import watch


def test_a_passed_deadline_fires_the_callback_on_another_thread() -> None:
    fired = threading.Event()
    threads: list[str] = []

    def callback() -> None:
        threads.append(threading.current_thread().name)
        fired.set()

    with watch(0.05, callback):
        assert fired.wait(5.0)
    assert threads == ["saga-deadline-watchdog"]


def test_a_block_that_ends_in_time_is_never_fired() -> None:
    fired = threading.Event()
    with watch(0.2, fired.set):
        pass
    assert not fired.wait(0.5)


def test_an_earlier_deadline_added_later_fires_first_and_one_thread_serves_all() -> None:
    order: list[str] = []
    done = threading.Event()
    before = threading.active_count()

    def late() -> None:
        order.append("late")
        done.set()

    with watch(0.6, late), watch(0.05, lambda: order.append("early")):
        assert done.wait(5.0)
    assert order == ["early", "late"]
    assert threading.active_count() <= max(before, 1) + 1  # at most the watchdog itself was started


def test_a_failing_callback_does_not_stop_the_watchdog() -> None:
    def broken() -> None:
        raise RuntimeError("boom")

    with watch(0.01, broken):
        time.sleep(0.1)
    fired = threading.Event()
    with watch(0.01, fired.set):
        assert fired.wait(5.0)


def test_a_forked_child_gets_its_own_watchdog() -> None:
    import os

    with watch(30.0, lambda: None):  # the parent's thread exists and has a pending deadline
        pid = os.fork()
        if pid == 0:  # the child: exit 0 only if its own deadline fires
            fired = threading.Event()
            with watch(0.05, fired.set):
                os._exit(0 if fired.wait(5.0) else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_deadline_behind_cancelled_ones_still_fires() -> None:
    for _ in range(3):  # cancelled entries stay in the heap; the thread sleeps until the first of them
        with watch(0.1, lambda: None):
            pass
    fired = threading.Event()
    with watch(0.3, fired.set):
        assert fired.wait(5.0)
