"""Schema indexes built on the fly, kept per store content so later commands open them.

``saga lookup``, ``search`` and ``examples`` without ``--schema`` built the schema index in
every command: 4.1 to 4.9 s at 5M triples, 79 to 103 times the floor, growing with the graph. A graph
whose identity is its content (``embedded:files:<digest>``: a ``saga load`` store or cached
files) now gets its index built once and saved under ``schemas/`` in the survey cache
directory, keyed by that identity, the vocabulary and the builder's settings; every later
command opens it. Other graphs (an endpoint, whose content may change) still build each time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from pathlib import Path

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.cache_dir import default_survey_dir
from saga_kgqa.schema.model import SchemaIndex
from saga_kgqa.schema.vocab import SchemaVocabulary

#: Identities of graphs that name their content.
CONTENT_KEYED = "embedded:files:"
#: Bump when the builder's output for the same content changes.
CACHE_VERSION = "1"


def schema_path(endpoint_id: str, vocabulary: SchemaVocabulary, settings: dict[str, object]) -> Path | None:
    """Where the schema index of this content, vocabulary and settings is kept (``None``: not cacheable)."""
    if not endpoint_id.startswith(CONTENT_KEYED):
        return None
    material = json.dumps(
        [CACHE_VERSION, endpoint_id, dataclasses.asdict(vocabulary), settings], sort_keys=True, default=str
    )
    return default_survey_dir() / "schemas" / f"{hashlib.sha256(material.encode()).hexdigest()[:32]}.json"


def cached_schema(
    endpoint_id: str, vocabulary: SchemaVocabulary, *, settings: dict[str, object] | None = None
) -> SchemaIndex | None:
    """The schema index kept for this content, vocabulary and settings (``None``: not kept, or not cacheable).

    A cache file that cannot be read is as good as none: the caller builds the index again.
    """
    path = schema_path(endpoint_id, vocabulary, settings or {})
    if path is not None and path.is_file():
        try:
            return SchemaIndex.load(path)
        except ConfigurationError:
            pass  # unreadable or of another format: build it again
    return None


def keep_schema(
    endpoint_id: str, vocabulary: SchemaVocabulary, index: SchemaIndex, *, settings: dict[str, object] | None = None
) -> None:
    """Keep a freshly built index for the next command over the same content (nothing for other graphs)."""
    path = schema_path(endpoint_id, vocabulary, settings or {})
    if path is not None:
        # A read-only cache directory costs the next command a build, nothing else.
        with contextlib.suppress(OSError):
            index.save(path)
