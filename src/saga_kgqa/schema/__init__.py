"""The schema index: property domains and ranges, the class hierarchy and type compatibility."""

from typing import TYPE_CHECKING, Any

from saga_kgqa.schema.build import build_schema_index
from saga_kgqa.schema.compatibility import CompatibilityMode, ConstraintRelation, Decision, SchemaSource, Verdict
from saga_kgqa.schema.hierarchy import ClassHierarchy
from saga_kgqa.schema.merge import fill_missing
from saga_kgqa.schema.model import (
    FORMAT_VERSION,
    ClassInfo,
    PropertySchema,
    SchemaIndex,
    SchemaIndexVersionError,
    SideEvidence,
    TypeCount,
)
from saga_kgqa.schema.vocab import SchemaVocabulary

if TYPE_CHECKING:
    from saga_kgqa.schema.dialects import INDEXED_DIALECTS, build_dialect_index
    from saga_kgqa.schema.freebase import build_freebase_index
    from saga_kgqa.schema.wikidata_constraints import build_wikidata_constraint_index
    from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index

#: The dialects' index builders read rdflib-parsed offline sources: imported on first use, so a
#: command that only opens a saved index does not pay ~0.4 s of rdflib at start-up (issue 27).
_LAZY = {
    "INDEXED_DIALECTS": "saga_kgqa.schema.dialects",
    "build_dialect_index": "saga_kgqa.schema.dialects",
    "build_freebase_index": "saga_kgqa.schema.freebase",
    "build_wikidata_constraint_index": "saga_kgqa.schema.wikidata_constraints",
    "build_wikidata_offline_index": "saga_kgqa.schema.wikidata_offline",
}


def __getattr__(name: str) -> Any:
    """Import the dialect builders on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "FORMAT_VERSION",
    "INDEXED_DIALECTS",
    "ClassHierarchy",
    "ClassInfo",
    "CompatibilityMode",
    "ConstraintRelation",
    "Decision",
    "PropertySchema",
    "SchemaIndex",
    "SchemaIndexVersionError",
    "SchemaSource",
    "SchemaVocabulary",
    "SideEvidence",
    "TypeCount",
    "Verdict",
    "build_dialect_index",
    "build_freebase_index",
    "build_schema_index",
    "build_wikidata_constraint_index",
    "build_wikidata_offline_index",
    "fill_missing",
]
