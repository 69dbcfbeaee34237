"""The schema index: property domains and ranges, the class hierarchy and type compatibility."""

from saga_kgqa.schema.build import build_schema_index
from saga_kgqa.schema.compatibility import CompatibilityMode, ConstraintRelation, Decision, SchemaSource, Verdict
from saga_kgqa.schema.dialects import INDEXED_DIALECTS, build_dialect_index
from saga_kgqa.schema.freebase import build_freebase_index
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
from saga_kgqa.schema.wikidata_constraints import build_wikidata_constraint_index
from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index

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
