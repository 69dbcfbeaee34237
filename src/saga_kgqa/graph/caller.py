"""Moved to :mod:`saga_kgqa.app.caller` (the composition root); this path keeps old imports working."""

from __future__ import annotations

from saga_kgqa.app.caller import CallerModelFactory, CallerSourcesFactory, CallerToolboxFactory

__all__ = ["CallerModelFactory", "CallerSourcesFactory", "CallerToolboxFactory"]
