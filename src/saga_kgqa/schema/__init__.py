"""The schema index: property domains and ranges, the class hierarchy and type compatibility."""

from typing import TYPE_CHECKING

from saga_kgqa.lazy_names import lazy_names

if TYPE_CHECKING:
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

#: Every name is imported from its module on first use. The dialects' index builders read
#: rdflib-parsed offline sources, so a command that only opens a saved index does not pay ~0.4 s of
#: rdflib at start-up (issue 27); the builder, induction and merge modules are left out the same way,
#: so a module that only needs the vocabulary (``saga_kgqa.schema.vocab``) or the saved index's model
#: does not pay for the builders when Python imports this package first (issue 39: ~0.1 s of
#: ``saga search``'s start).
_LAZY = {
    "build_schema_index": "saga_kgqa.schema.build",
    "CompatibilityMode": "saga_kgqa.schema.compatibility",
    "ConstraintRelation": "saga_kgqa.schema.compatibility",
    "Decision": "saga_kgqa.schema.compatibility",
    "SchemaSource": "saga_kgqa.schema.compatibility",
    "Verdict": "saga_kgqa.schema.compatibility",
    "ClassHierarchy": "saga_kgqa.schema.hierarchy",
    "fill_missing": "saga_kgqa.schema.merge",
    "FORMAT_VERSION": "saga_kgqa.schema.model",
    "ClassInfo": "saga_kgqa.schema.model",
    "PropertySchema": "saga_kgqa.schema.model",
    "SchemaIndex": "saga_kgqa.schema.model",
    "SchemaIndexVersionError": "saga_kgqa.schema.model",
    "SideEvidence": "saga_kgqa.schema.model",
    "TypeCount": "saga_kgqa.schema.model",
    "SchemaVocabulary": "saga_kgqa.schema.vocab",
    "INDEXED_DIALECTS": "saga_kgqa.schema.dialects",
    "build_dialect_index": "saga_kgqa.schema.dialects",
    "build_freebase_index": "saga_kgqa.schema.freebase",
    "build_wikidata_constraint_index": "saga_kgqa.schema.wikidata_constraints",
    "build_wikidata_offline_index": "saga_kgqa.schema.wikidata_offline",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


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
