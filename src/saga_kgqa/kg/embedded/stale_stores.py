"""Temporary stores left behind by hosts that died: found by name and deleted.

A temporary store (and a store the cache is still building) is a directory named
``saga-store-<host pid>-…``; :func:`sweep_stale_stores` deletes those whose process is gone.
It stands apart from :mod:`~saga_kgqa.kg.embedded.store` so that the store cache can sweep
its own root without importing the store that imports it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

#: The name every temporary store directory starts with (then the host's pid and a dash).
STORE_PREFIX = "saga-store-"
_STALE_STORE = re.compile(rf"{STORE_PREFIX}(\d+)-")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def sweep_stale_stores(root: Path | None = None) -> list[Path]:
    """Delete temporary stores left by hosts that died before their query worker could clean up.

    A temporary store is named ``saga-store-<host pid>-…``; it is stale when it is ours and
    that process is gone. (A host killed while its worker runs has the worker delete it.)

    Returns:
        The directories deleted.
    """
    folder = root or Path(tempfile.gettempdir())
    swept = []
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            match = _STALE_STORE.match(entry.name)
            if match is None or int(match.group(1)) == os.getpid() or _process_alive(int(match.group(1))):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir() and entry.stat().st_uid == os.getuid():
                    shutil.rmtree(entry)
                    swept.append(entry)
    return swept
