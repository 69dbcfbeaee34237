"""Schema indexes of the two dialects the paper's benchmarks use, built from offline data or an endpoint."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.config.context import DialectName
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.backend import KGBackend
from saga_kgqa.schema.freebase import ONTOLOGY_DIR, build_freebase_index
from saga_kgqa.schema.merge import fill_missing
from saga_kgqa.schema.model import SchemaIndex
from saga_kgqa.schema.wikidata_constraints import build_wikidata_constraint_index
from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index

#: The dialects with a schema index of their own (built from their published schema, not induced).
INDEXED_DIALECTS: tuple[DialectName, ...] = ("wikidata", "freebase")


def build_dialect_index(dialect: str, *, data_dir: Path | None = None, backend: KGBackend | None = None) -> SchemaIndex:
    """Build the schema index of a dialect.

    Wikidata from an endpoint reads the P2302 type constraints
    (:func:`~saga_kgqa.schema.wikidata_constraints.build_wikidata_constraint_index`); Wikidata
    offline combines property metadata, curated schemas and CoDEx induction
    (:func:`~saga_kgqa.schema.wikidata_offline.build_wikidata_offline_index`); with both, the
    offline index fills the sides the constraints leave open (the paper's formal-then-induced
    rule, :func:`~saga_kgqa.schema.merge.fill_missing`). Freebase reads GrailQA's ontology
    files (:func:`~saga_kgqa.schema.freebase.build_freebase_index`).

    Args:
        dialect: ``wikidata`` or ``freebase``.
        data_dir: The third-party data directory (offline sources).
        backend: A Wikidata endpoint to read constraints from (Wikidata only).

    Raises:
        ConfigurationError: Unknown dialect, a missing source, or a combination that makes no sense.
        BackendError: The endpoint failed.
    """
    if dialect not in INDEXED_DIALECTS:
        raise ConfigurationError(f"unknown dialect {dialect!r}; known dialects: {', '.join(INDEXED_DIALECTS)}")
    if backend is not None and dialect != "wikidata":
        raise ConfigurationError("only the wikidata dialect reads its schema from an endpoint")
    if data_dir is None:
        if backend is None:
            raise ConfigurationError(f"the {dialect} schema index needs --data-dir (or an endpoint for wikidata)")
        return build_wikidata_constraint_index(backend)
    if not data_dir.is_dir():
        raise ConfigurationError(f"data directory {data_dir} does not exist")
    if dialect == "freebase":
        return build_freebase_index(data_dir / ONTOLOGY_DIR)
    offline = build_wikidata_offline_index(data_dir)
    if backend is None:
        return offline
    return fill_missing(build_wikidata_constraint_index(backend), offline)
