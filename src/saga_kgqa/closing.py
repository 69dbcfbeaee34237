"""One way to use a resource with ``with``: entering gives the resource back, leaving closes it."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A resource whose ``with`` block closes it; a subclass says how in :meth:`close`."""

    __slots__ = ()

    def close(self) -> None:
        """Release what the resource holds."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
