"""Moved to :mod:`saga_kgqa.app.defaults` (the composition root); this old path keeps imports working."""

from __future__ import annotations

from saga_kgqa.app.defaults import sources_from_catalog_file, toolbox_from_context
from saga_kgqa.app.sources import toolbox_for_source
from saga_kgqa.app.toolboxes import open_toolbox

__all__ = ["open_toolbox", "sources_from_catalog_file", "toolbox_for_source", "toolbox_from_context"]
