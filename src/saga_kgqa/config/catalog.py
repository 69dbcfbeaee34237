"""The operator's catalog: knowledge-graph sources and chat models, each known by a name.

A run's caller (an HTTP client of ``langgraph dev``, an MCP host, a TEXT2SPARQL campaign)
chooses infrastructure only by naming an entry of this catalog; the URLs, paths and key
variables stay on the operator's side. The CLI, whose caller *is* the operator, keeps its
``--data``/``--endpoint``/``--base-url`` flags as well.

The catalog is a TOML file (``$SAGA_CATALOG``, else ``~/.config/saga-kgqa/catalog.toml``
when it exists)::

    default_source = "ck25"
    default_model = "local"

    [sources.ck25]
    data = ["../shared/data/text2sparql_ck25/prod-inst.ttl"]   # relative to this file
    title = "TEXT2SPARQL'25 corporate knowledge graph"
    categories = ["enterprise"]

    [sources.wikidata]
    endpoint = "https://query.wikidata.org/sparql"
    profile = "wikidata"
    schema_index = "indexes/wikidata.json"

    [models.local]
    model = "openai/gpt-oss-120b"
    base_url = "http://localhost:8000/v1"
    api_key_env = "VLLM_API_KEY"     # the *name* of the variable holding the key

    [limits]                         # the most a caller may ask for
    max_steps = 30

Without a file, the catalog is built from the environment: the source ``default`` from
``SAGA_DATA``/``SAGA_ENDPOINT`` (with ``SAGA_PROFILE``, ``SAGA_DIALECT``,
``SAGA_SCHEMA_INDEX``, ``SAGA_ENTITY_SEARCH``) when either is set, and always ``example``,
the graph shipped with the package; no model records, so the environment's model
(``SAGA_MODEL``/``SAGA_BASE_URL``) is the only one.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from saga_kgqa.config.context import DialectName, SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.redaction import redact_text, redact_url

CATALOG_ENV = "SAGA_CATALOG"
DEFAULT_CATALOG_PATH = Path("~/.config/saga-kgqa/catalog.toml")
#: The name of the source built from ``SAGA_DATA``/``SAGA_ENDPOINT`` when no catalog file exists.
ENV_SOURCE = "default"
#: The name of the shipped example graph in a catalog built from the environment.
EXAMPLE_SOURCE = "example"
_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
RecordT = TypeVar("RecordT", bound=BaseModel)


class UnknownName(ConfigurationError):
    """A caller named a source or model that the operator did not configure."""


class SourceRecord(BaseModel):
    """One knowledge graph the operator configured.

    Exactly one of ``data``, ``store`` and ``endpoint`` says where the triples are.

    Attributes:
        name: The name callers use.
        data: RDF files loaded into a temporary embedded store.
        store: A persisted embedded store directory (``saga load``), opened read-only.
        endpoint: A SPARQL-protocol endpoint URL.
        profile: Endpoint profile (``generic``, ``wikidata``, ``virtuoso``, …); the backend's default when unset.
        dialect: The graph's dialect (``generic``, ``wikidata``, ``freebase``).
        schema_index: A schema index file from ``saga index build``.
        default_graphs: Graph IRIs that form the default graph of every query.
        named_graphs: Graph IRIs queries may name with ``GRAPH``.
        entity_search: Name search: ``off`` (the graph's own names) or ``wikidata-api``.
        title: A one-line title for catalogs.
        description: What the graph holds, for catalogs and prompts.
        categories: Free-form categories for catalog browsing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=_NAME_PATTERN)
    data: tuple[Path, ...] = ()
    store: Path | None = None
    endpoint: str | None = None
    profile: str | None = None
    dialect: DialectName = "generic"
    schema_index: Path | None = None
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    entity_search: Literal["off", "wikidata-api"] = "off"
    title: str = ""
    description: str = ""
    categories: tuple[str, ...] = ()

    @field_validator("endpoint")
    @classmethod
    def _http_only(cls, value: str | None) -> str | None:
        if value is not None and not value.lower().startswith(("http://", "https://")):
            raise ValueError(f"endpoint must be an http(s) URL, got {redact_url(value)!r}")
        return value

    @model_validator(mode="after")
    def _one_location(self) -> SourceRecord:
        given = [label for label in ("data", "store", "endpoint") if getattr(self, label)]
        if len(given) != 1:
            raise ValueError(f"give exactly one of data, store or endpoint (got {', '.join(given) or 'none'})")
        return self

    @property
    def location(self) -> str:
        """Where the triples are, for operator-facing messages (never shown to a caller)."""
        if self.endpoint:
            return self.endpoint
        if self.store is not None:
            return str(self.store)
        return ", ".join(str(path) for path in self.data)


class ModelRecord(BaseModel):
    """One chat model the operator configured.

    Attributes:
        name: The name callers use.
        model: The model's name as its server knows it.
        base_url: OpenAI-compatible API root; ``None`` means OpenAI itself.
        api_key_env: The name of the environment variable that holds the key (the key never
            appears in the catalog).
        factory: ``package.module:callable`` model factory used instead of ChatOpenAI.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=_NAME_PATTERN)
    model: str = ""
    base_url: str | None = None
    api_key_env: str | None = None
    factory: str | None = None

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The key, read from the variable the record names (``None`` when it names none).

        Raises:
            ConfigurationError: The named variable is not set.
        """
        if self.api_key_env is None:
            return None
        value = (os.environ if environ is None else environ).get(self.api_key_env, "").strip()
        if not value:
            raise ConfigurationError(f"model {self.name!r}: the variable {self.api_key_env} holding its key is not set")
        return value


class Limits(BaseModel):
    """The most a caller may ask for in one run (the operator's maxima over the run's budgets)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int = Field(default=50, ge=1)
    max_rows_shown: int = Field(default=200, ge=1)
    max_observation_bytes: int = Field(default=32_000, ge=1)
    answer_rows: int = Field(default=10_000, ge=1)
    evidence_rows: int = Field(default=100, ge=0)
    lookup_values: int = Field(default=10, ge=0)
    history_window: int = Field(default=50, ge=0)
    type_context_entries: int = Field(default=50, ge=0)
    knowledge_log_entries: int = Field(default=50, ge=0)
    mars_top_n: int = Field(default=100, ge=1)
    mars_hop_limit: int = Field(default=20, ge=0)

    @model_validator(mode="after")
    def _not_below_defaults(self) -> Limits:
        defaults = {item.name: item.default for item in dataclasses.fields(SagaContext)}
        for name in type(self).model_fields:
            if getattr(self, name) < defaults[name]:
                raise ValueError(
                    f"{name}={getattr(self, name)} is below the default of {defaults[name]}, "
                    "which would refuse every run that leaves it unset"
                )
        return self


class Catalog(BaseModel):
    """The operator's named sources and models, with the caller's limits.

    Attributes:
        sources: Sources by name.
        models: Models by name; empty means the environment's model is the only one.
        default_source: The source of a run that names none.
        default_model: The model of a run that names none (the environment's when ``None``).
        limits: The operator's maxima over a caller's budgets.
        path: The file the catalog was read from, if any.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    sources: dict[str, SourceRecord]
    models: dict[str, ModelRecord] = Field(default_factory=dict)
    default_source: str
    default_model: str | None = None
    limits: Limits = Field(default_factory=Limits)
    path: Path | None = None

    @model_validator(mode="after")
    def _defaults_exist(self) -> Catalog:
        if self.default_source not in self.sources:
            raise ValueError(f"default_source {self.default_source!r} is not among the sources")
        if self.default_model is not None and self.default_model not in self.models:
            raise ValueError(f"default_model {self.default_model!r} is not among the models")
        return self

    @classmethod
    def load(cls, path: Path) -> Catalog:
        """Read a catalog file; relative paths in it are relative to the file.

        Raises:
            ConfigurationError: The file is missing, is not TOML, or does not describe a catalog.
        """
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigurationError(f"cannot read the catalog {path}: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"the catalog {path} is not valid TOML: {redact_text(str(exc))}") from None
        except RecursionError:  # tomllib parses nested arrays and tables recursively
            raise ConfigurationError(f"the catalog {path} is nested too deeply to be a catalog") from None
        return cls.from_mapping(raw, base=path.parent, path=path)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], *, base: Path, path: Path | None = None) -> Catalog:
        """Build a catalog from its TOML structure (see the module docstring).

        Raises:
            ConfigurationError: The structure does not describe a catalog; the message names the entry.
        """
        sources = {name: _source(name, entry, base) for name, entry in dict(raw.get("sources") or {}).items()}
        if not sources:
            raise ConfigurationError(f"the catalog {path or ''} names no [sources.NAME] entry".replace("  ", " "))
        models = {name: _record(ModelRecord, "model", name, entry) for name, entry in (raw.get("models") or {}).items()}
        extra = sorted(set(raw) - {"sources", "models", "default_source", "default_model", "limits"})
        if extra:
            raise ConfigurationError(f"unknown catalog key(s): {', '.join(extra)}")
        try:
            return cls(
                sources=sources,
                models=models,
                default_source=raw.get("default_source") or next(iter(sources)),
                default_model=raw.get("default_model"),
                limits=Limits(**(raw.get("limits") or {})),
                path=path,
            )
        except ValidationError as exc:
            raise ConfigurationError(f"the catalog {path or ''} is not valid: {_first_error(exc)}") from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Catalog:
        """The operator's catalog: ``$SAGA_CATALOG``, else the default file, else one built from the environment.

        Raises:
            ConfigurationError: A named catalog file is unusable, or the environment's source is.
        """
        env = os.environ if environ is None else environ
        named = env.get(CATALOG_ENV, "").strip()
        if named:
            return cls.load(Path(named).expanduser())
        default = DEFAULT_CATALOG_PATH.expanduser()
        if default.is_file():
            return cls.load(default)
        sources = {EXAMPLE_SOURCE: SourceRecord(name=EXAMPLE_SOURCE, data=(example_graph_path(),), title="Example")}
        data, endpoint = env.get("SAGA_DATA", "").strip(), env.get("SAGA_ENDPOINT", "").strip()
        if data or endpoint:
            entry: dict[str, Any] = {"data": [p for p in data.split(",") if p.strip()]} if data else {}
            if endpoint:
                entry["endpoint"] = endpoint
            for key in ("profile", "dialect", "schema_index", "entity_search"):
                value = env.get(f"SAGA_{key.upper()}", "").strip()
                if value:
                    entry[key] = value
            sources[ENV_SOURCE] = _source(ENV_SOURCE, entry, Path.cwd())
        return cls(sources=sources, default_source=ENV_SOURCE if ENV_SOURCE in sources else EXAMPLE_SOURCE)

    def source(self, name: str | None) -> SourceRecord:
        """The source called ``name`` (the default source for ``None`` or ``""``).

        Raises:
            UnknownName: No source has that name; the message lists the names there are.
        """
        if not name:
            return self.sources[self.default_source]
        found = self.sources.get(name)
        if found is None:
            raise UnknownName(f"unknown source {name!r}; configured sources: {', '.join(sorted(self.sources))}")
        return found

    def model(self, name: str | None) -> ModelRecord | None:
        """The model called ``name``; ``None`` means the environment's model.

        A catalog without model records knows only the environment's model, which a caller
        selects by giving no name.

        Raises:
            UnknownName: No model has that name; the message lists the names there are.
        """
        if not name:
            return self.models[self.default_model] if self.default_model else None
        found = self.models.get(name)
        if found is None:
            known = ", ".join(sorted(self.models)) or "none (leave the model unset to use the operator's default)"
            raise UnknownName(f"unknown model {name!r}; configured models: {known}")
        return found


def _source(name: str, entry: Any, base: Path) -> SourceRecord:
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"source {name!r} must be a table of settings")
    resolved = dict(entry)
    if "data" in resolved:
        files = resolved["data"]
        resolved["data"] = [_path(base, item) for item in ([files] if isinstance(files, str) else files)]
    for key in ("store", "schema_index"):
        if isinstance(resolved.get(key), str):
            resolved[key] = _path(base, resolved[key])
    return _record(SourceRecord, "source", name, resolved)


def _path(base: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def _record(kind: type[RecordT], label: str, name: str, entry: Any) -> RecordT:
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{label} {name!r} must be a table of settings")
    try:
        return kind(name=name, **entry)
    except ValidationError as exc:
        raise ConfigurationError(f"{label} {name!r}: {_first_error(exc)}") from None
    except TypeError as exc:
        raise ConfigurationError(f"{label} {name!r}: {exc}") from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error.get("loc", ()))
    return f"{where}: {error['msg']}" if where else str(error["msg"])
