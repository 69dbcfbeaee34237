"""Wait until a SPARQL server started by a test answers ``ASK {}``."""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request


def answers_ask(url: str, process: subprocess.Popen[bytes], *, within_s: float, poll_s: float) -> bool:
    """Poll ``url`` with ``ASK {}`` until it answers 200 (``True``), the process dies or time runs out (``False``)."""
    ask = url + "?query=" + urllib.parse.quote("ASK {}")
    ends = time.monotonic() + within_s
    while time.monotonic() < ends:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(ask, timeout=max(1.0, poll_s * 10)) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            time.sleep(poll_s)
    return False
