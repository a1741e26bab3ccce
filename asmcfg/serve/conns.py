"""The connections `asmcfg serve` holds. Anyone on the machine can open one without the cookie and send nothing, so:
each is closed after IDLE seconds without a request; at most CONNECTIONS are held (fewer when the process may open
few files), and a new one past that closes the one that has waited longest for a request, never one whose request
is being answered; new connections queue in a backlog the kernel does not drop them from. Connections held open
so never keep a browser out, nor do they cost a thread each without bound."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import OrderedDict

CONNECTIONS = 64
"""Connections held at most (a browser opens six per host)."""
IDLE = 30.0
"""Seconds a connection may wait for its next request."""
BACKLOG = 1024
"""Connections the kernel queues before they are accepted (the default, 5, drops the rest under a burst, and a
dropped browser waits seconds to retry)."""


class Connections:
    """The connections open: those waiting for a request, the one waiting longest first, and those being answered."""

    def __init__(self, bound: int | None = None) -> None:
        self._bound = bound if bound is not None else _bound()
        self._waiting: OrderedDict[socket.socket, None] = OrderedDict()
        self._answered: set[socket.socket] = set()
        self._lock = threading.Lock()

    def opened(self, connection: socket.socket) -> bool:
        """Count a new connection, closing the one waiting longest when the bound is reached; False (the new one is
        to be closed) when every connection is being answered."""
        with self._lock:
            if len(self._waiting) + len(self._answered) >= self._bound:
                if not self._waiting:
                    return False
                oldest, _ = self._waiting.popitem(last=False)
                _hang_up(oldest)
            self._waiting[connection] = None
            return True

    def busy(self, connection: socket.socket) -> bool:
        """A request came: the connection is not closed to make room while it is answered. False when it was."""
        with self._lock:
            if connection in self._waiting:
                del self._waiting[connection]
            elif connection not in self._answered:
                return False
            self._answered.add(connection)
            return True

    def idle(self, connection: socket.socket) -> None:
        """The request is answered: the connection waits for the next one, the newest to wait."""
        with self._lock:
            if connection in self._answered:
                self._answered.discard(connection)
                self._waiting[connection] = None

    def closed(self, connection: socket.socket) -> None:
        """The connection ended."""
        with self._lock:
            self._waiting.pop(connection, None)
            self._answered.discard(connection)


def _hang_up(connection: socket.socket) -> None:
    """End a connection another thread is reading: its read returns at once, and that thread closes it."""
    with contextlib.suppress(OSError):  # it ended already
        connection.shutdown(socket.SHUT_RDWR)


def _bound() -> int:
    """CONNECTIONS, or a quarter of the files this process may open when that is fewer."""
    try:
        import resource

        files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError):
        return CONNECTIONS
    return CONNECTIONS if files == resource.RLIM_INFINITY else max(8, min(CONNECTIONS, files // 4))
