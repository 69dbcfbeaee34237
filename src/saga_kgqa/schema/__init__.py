"""The schema index: property domains and ranges, the class hierarchy and type compatibility."""

from saga_kgqa.schema.build import build_schema_index
from saga_kgqa.schema.compatibility import CompatibilityMode, Decision, SchemaSource, Verdict
from saga_kgqa.schema.hierarchy import ClassHierarchy
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

__all__ = [
    "FORMAT_VERSION",
    "ClassHierarchy",
    "ClassInfo",
    "CompatibilityMode",
    "Decision",
    "PropertySchema",
    "SchemaIndex",
    "SchemaIndexVersionError",
    "SchemaSource",
    "SchemaVocabulary",
    "SideEvidence",
    "TypeCount",
    "Verdict",
    "build_schema_index",
]
