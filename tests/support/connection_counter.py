"""A loopback TCP listener that counts the connections it accepts (proof that nothing was contacted)."""

from __future__ import annotations

import socket
import threading
import time

HTTP_500 = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class ConnectionCounter:
    """A loopback listener on a free port that counts accepted connections and answers 500."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.05)
        self.port: int = self._server.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/sparql"
        self._accepted = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def accepted(self) -> int:
        with self._lock:
            return self._accepted

    def wait_for(self, count: int, within_s: float = 5.0) -> int:
        deadline = time.monotonic() + within_s
        while self.accepted < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.accepted

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            with self._lock:
                self._accepted += 1
            with connection:
                connection.settimeout(1.0)
                try:
                    connection.recv(65536)
                    connection.sendall(HTTP_500)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self._server.close()
