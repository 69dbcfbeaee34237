"""Named sources and models: the operator's catalog, from which callers choose by name only."""

from saga_kgqa.config.catalog import Catalog, Limits, ModelRecord, SourceRecord, UnknownName

__all__ = ["Catalog", "Limits", "ModelRecord", "SourceRecord", "UnknownName"]
