"""Per-run configuration of the SAGA controller: the LangGraph context schema.

Every switch of docs/design.md lives here, including the paper's Table 5 ablations
(``type_filter``, ``persistent_type_state``, ``answer_type_prior``) and the prune fallback.
Precedence is explicit value > environment (``SAGA_<FIELD>``) > default:
:meth:`SagaContext.from_env` applies it, while the plain constructor takes explicit values
and defaults only, so a value a caller passed is never replaced by the environment.
"""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from saga_kgqa.errors import ConfigurationError

#: A graph dialect's name: the one spelling of it (the dialect itself, its vocabulary and reads, is
#: :class:`saga_kgqa.dialects.Dialect`; the registry of them is :data:`saga_kgqa.dialects.DIALECTS`).
DialectName = Literal["generic", "wikidata", "freebase"]
#: The dialect names, in the order ``--help`` and error messages list them.
DIALECT_NAMES: tuple[DialectName, ...] = get_args(DialectName)
#: Other spellings of a dialect name, accepted wherever one is read (``rdf`` was plain RDF's old name).
DIALECT_ALIASES: dict[str, DialectName] = {"rdf": "generic"}
ToolCalling = Literal["native", "text"]
#: Asking back: ask the caller which entity an ambiguous name means, or never (benchmarks).
Clarify = Literal["ask", "never"]
Matching = Literal["subclass", "exact"]
EntitySearch = Literal["off", "wikidata-api"]
#: Grounding tools of SAGA's controller: lookup only (the paper), patterns only, or both.
GroundingTools = Literal["lookup", "patterns", "both"]
#: Source tools (catalog, summary, resolve, expand, bridge, execute_on): auto = several sources or an undocumented one.
SourceTools = Literal["auto", "on", "off"]
#: Which graph answers: SAGA's controller, or the MARS pattern pipeline.
Method = Literal["saga", "mars"]
PatternRanking = Literal["embedding", "bm25", "degree", "random"]
EmbeddingRuntimeName = Literal["minilm", "e5", "openai"]
#: Which attempt ``finalize`` answers with (issue 37): SAGA's last executed query, or (benchmarks) the last with rows.
FinalQueryPolicy = Literal["last_executed", "last_answering"]

#: Fields never read from the environment: a caller sets them explicitly or not at all (the benchmark
#: policy of the final query exists only as `saga eval run --final-query`, recorded in the run's configuration).
EXPLICIT_ONLY = frozenset({"final_query"})

#: Endpoint profiles that serve Wikidata; without an explicit dialect they imply ``wikidata``.
WIKIDATA_PROFILES = frozenset({"wikidata", "qlever"})

ENV_PREFIX = "SAGA_"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _describe(text: str) -> dict[str, str]:
    # LangGraph Studio shows this metadata next to each field.
    return {"description": text}


@dataclass(kw_only=True, frozen=True)
class SagaContext:
    """Switches, budgets and caps of one run (passed as ``context=`` to the graph)."""

    model: str = field(
        default="",
        metadata=_describe("Chat model: its name on the server (CLI) or a model name from the operator's catalog."),
    )
    source: str | None = field(
        default=None,
        metadata=_describe("A knowledge graph by name, from the operator's catalog (`saga source list`)."),
    )
    base_url: str | None = field(
        default=None, metadata=_describe("Base URL of an OpenAI-compatible server, for the model factory.")
    )
    data: str | None = field(
        default=None, metadata=_describe("RDF files or a store directory (comma-separated); example graph if unset.")
    )
    endpoint: str | None = field(default=None, metadata=_describe("URL of a remote SPARQL endpoint."))
    profile: str | None = field(default=None, metadata=_describe("Endpoint profile name (embedded, wikidata, ...)."))
    type_filter: bool = field(
        default=True, metadata=_describe("Hide properties whose domain conflicts with the entity's types (Table 5).")
    )
    persistent_type_state: bool = field(
        default=True, metadata=_describe("Keep Θ across steps and show it to the controller (Table 5).")
    )
    answer_type_prior: bool = field(
        default=True, metadata=_describe("Predict the expected answer type before the first step (Table 5).")
    )
    prune_fallback: bool = field(
        default=True, metadata=_describe("Prune an untyped entity's neighbourhood with the model.")
    )
    check_answer_type: bool = field(
        default=True,
        metadata=_describe("Answer check before stop: the result's values against the expected answer type."),
    )
    check_question_form: bool = field(
        default=True,
        metadata=_describe("Answer check before stop: yes/no, negation, how-many and superlative forms."),
    )
    check_know_before_use: bool = field(
        default=True,
        metadata=_describe("Answer check before stop: IRIs no observation showed and the graph does not hold."),
    )
    check_consistency: bool = field(
        default=True,
        metadata=_describe("Answer check before stop: a final query sharing nothing with the run's observations."),
    )
    schema_coverage: float = field(
        default=1.0, metadata=_describe("Fraction of formal domain constraints kept (robustness ablation).")
    )
    coverage_seed: int = field(default=0, metadata=_describe("Seed choosing which domains schema_coverage keeps."))
    matching: Matching = field(
        default="subclass", metadata=_describe("Type compatibility: subclass-aware, or the paper's exact intersection.")
    )
    max_steps: int = field(default=20, metadata=_describe("Controller steps before the run is finalized."))
    max_rows_shown: int = field(default=20, metadata=_describe("Result rows shown to the model per query."))
    max_observation_bytes: int = field(default=8000, metadata=_describe("UTF-8 bytes of one tool observation."))
    lookup_values: int = field(
        default=2,
        metadata=_describe("Sample values per property in a lookup; 0 gives the paper's entries with counts only."),
    )
    answer_rows: int = field(default=1000, metadata=_describe("Rows kept in the final answer."))
    clarify: Clarify = field(
        default="ask",
        metadata=_describe(
            "When a searched name matches several entities equally well: ask the caller which one (a LangGraph "
            "interrupt; the run ends needs_clarification until it is resumed), or never (benchmarks)."
        ),
    )
    clarify_margin: float = field(
        default=0.0,
        metadata=_describe("Entities whose search score is within this of the best one's are equally good (0..1)."),
    )
    evidence_rows: int = field(
        default=20, metadata=_describe("Answer rows whose supporting triples are read and shown (0: no evidence).")
    )
    history_window: int = field(default=5, metadata=_describe("Recent steps shown to the controller."))
    type_context_entries: int = field(default=5, metadata=_describe("Θ entries shown to the controller."))
    knowledge_log_entries: int = field(default=6, metadata=_describe("Knowledge-log lines shown to the controller."))
    dialect: DialectName = field(
        default="generic",
        metadata=_describe(
            "Graph dialect: the grounding tools' vocabulary (Wikidata P31/P279, Freebase type.object.type), "
            "properties, qualifiers and CVT nodes, the dialect's schema index, and the prompt wording "
            "(QID/PID, MID). A wikidata/qlever profile implies wikidata when unset."
        ),
    )
    schema_index: str | None = field(
        default=None,
        metadata=_describe("Schema index file from `saga index build` (else built from the graph with induction)."),
    )
    entity_search: EntitySearch = field(
        default="off",
        metadata=_describe("Name search: off (the graph's own names) or wikidata-api (MediaWiki wbsearchentities)."),
    )
    tool_calling: ToolCalling = field(
        default="native", metadata=_describe("native tool calls, or text actions parsed by a second model call.")
    )
    language: str = field(default="en", metadata=_describe("Preferred language of labels."))
    grounding_tools: GroundingTools = field(
        default="lookup",
        metadata=_describe("SAGA's grounding tools: lookup (the paper), patterns (ranked MARS patterns), or both."),
    )
    # Live grounding over the operator's named sources (AutoSchema's A.3 policy, issue 14).
    source_tools: SourceTools = field(
        default="auto",
        metadata=_describe(
            "Source tools (find_sources, summary, resolve, expand, bridge, execute_on) and the A.3 policy: "
            "auto (on when the catalog has several sources, or one without a declared schema), on, or off."
        ),
    )
    single_shot: bool = field(
        default=False,
        metadata=_describe("At most one call per source grounding tool per question (the AutoSchema ablation)."),
    )
    # MARS (pattern retrieval) switches: the paper's ablations, and how patterns are ranked.
    mars_top_n: int = field(default=20, metadata=_describe("MARS: patterns shown per hop (top-N)."))
    mars_hop_limit: int = field(default=5, metadata=_describe("MARS: pattern expansions before the run ends."))
    mars_examples: bool = field(default=True, metadata=_describe("MARS: show a few instances per pattern."))
    mars_typology: bool = field(default=True, metadata=_describe("MARS: show each pattern's domain and range."))
    mars_verification: bool = field(default=True, metadata=_describe("MARS: verify the executed query once."))
    mars_augmented_question: bool = field(
        default=False, metadata=_describe("MARS: the model names the expected entity types; ranking sees them.")
    )
    pattern_ranking: PatternRanking = field(
        default="embedding", metadata=_describe("How patterns are ranked: embedding, bm25, degree or random.")
    )
    embedding_runtime: EmbeddingRuntimeName = field(
        default="minilm",
        metadata=_describe("Embedding model: minilm or e5 in-process, or openai (an /v1/embeddings server)."),
    )
    embedding_base_url: str | None = field(
        default=None, metadata=_describe("Base URL of the OpenAI-compatible embeddings server (operator setting).")
    )
    embedding_model: str = field(default="", metadata=_describe("Model name the embeddings server expects."))
    # Worked examples (issue 25): off unless an examples file is given, so the paper's runs and ablations are unchanged.
    examples_file: str | None = field(
        default=None,
        metadata=_describe("Question-query examples (JSONL from `saga index examples`): top-k go into the prompt."),
    )
    examples_k: int = field(default=3, metadata=_describe("Examples shown in the controller prompt (0: none)."))
    # Its own setting, so MARS's pattern ranking and the paper's ablations keep `embedding_runtime`'s MiniLM; e5
    # was chosen for examples on the train folds (docs/examples-and-answer-shape.md, eighth round).
    examples_embedding_runtime: EmbeddingRuntimeName = field(
        default="e5",
        metadata=_describe(
            "Embedding model of the worked-examples index: e5 (multilingual) or minilm in-process, or openai"
            " (the embeddings server); BM25 when it is not available here."
        ),
    )
    examples_tool: bool = field(
        default=True,
        metadata=_describe("Offer the worked_examples tool to the controller when an examples file is configured."),
    )
    # Answer shape (issue 25): off by default, so the paper's runs and ablations score the model's own query.
    answer_shape: bool = field(
        default=False,
        metadata=_describe(
            "Finalize returns the scored query: display-only label columns dropped (the model's query stays in "
            "the summary)."
        ),
    )
    # Issue 37: the final query is the last one the controller executed (SAGA's stop()); the other
    # policy exists for benchmark comparisons only (`saga eval run --final-query last_answering`).
    final_query: FinalQueryPolicy = field(
        default="last_executed",
        metadata=_describe(
            "Which attempt finalize answers with: the last one executed (SAGA's stop(), the default), or, for "
            "benchmark comparisons only, the last one that returned rows."
        ),
    )

    def __post_init__(self) -> None:
        """Check every value; a bad one raises :class:`ConfigurationError` naming the field."""
        hints = _field_hints(type(self))
        for item in dataclasses.fields(self):
            _check_value(item.name, hints[item.name], getattr(self, item.name))
        if not 0.0 <= self.clarify_margin <= 1.0:
            raise ConfigurationError(f"clarify_margin must be within [0, 1], got {self.clarify_margin}")
        if not 0.0 <= self.schema_coverage <= 1.0:
            raise ConfigurationError(f"schema_coverage must be within [0, 1], got {self.schema_coverage}")
        for name in ("max_steps", "max_rows_shown", "max_observation_bytes", "answer_rows"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in (
            "history_window",
            "type_context_entries",
            "knowledge_log_entries",
            "lookup_values",
            "examples_k",
            "evidence_rows",
        ):
            if getattr(self, name) < 0:
                raise ConfigurationError(f"{name} must not be negative, got {getattr(self, name)}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **explicit: Any) -> SagaContext:
        """Build a context: explicit keyword values, else ``SAGA_<FIELD>`` variables, else defaults.

        ``dialect`` given neither way follows the profile: a Wikidata profile
        (:data:`WIKIDATA_PROFILES`) implies ``wikidata``.

        Args:
            environ: The environment to read (``os.environ`` by default).
            **explicit: Values given by the caller; they always win.

        Raises:
            ConfigurationError: An unknown field, or a value (explicit or from the environment)
                that does not fit its field.
        """
        environ = os.environ if environ is None else environ
        hints = _field_hints(cls)
        names = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(set(explicit) - names)
        if unknown:
            raise ConfigurationError(f"unknown context field(s): {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name in names:
            variable = ENV_PREFIX + name.upper()
            if name in explicit:
                values[name] = explicit[name]
            elif variable in environ and name not in EXPLICIT_ONLY:
                values[name] = _parse(variable, hints[name], environ[variable])
        if "dialect" not in values and values.get("profile") in WIKIDATA_PROFILES:
            values["dialect"] = "wikidata"
        return cls(**values)


#: Resolved annotations by context class (a subclass has its own).
_HINTS: dict[type[SagaContext], dict[str, Any]] = {}


def _field_hints(cls: type[SagaContext]) -> dict[str, Any]:
    """The resolved annotations of a context class, read once: resolving them is most of a context's construction.

    Two threads may both resolve them on first use; they store the same mapping.
    """
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def resolve_context(value: SagaContext | Mapping[str, Any] | None) -> SagaContext:
    """The context a node should use: as given, built from a mapping (explicit > env), or from the env alone.

    LangGraph hands nodes ``None`` when a caller passed no context, and a server may pass a
    plain mapping; both get the environment and the defaults.
    """
    if isinstance(value, SagaContext):
        return value
    return SagaContext.from_env(**dict(value or {}))


def _parse(variable: str, hint: Any, raw: str) -> Any:
    """Convert an environment string to a field's type."""
    text = raw.strip()
    if hint is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ConfigurationError(f"{variable}={raw!r} is not a boolean (use true/false)")
    try:
        if hint is int:
            return int(text)
        if hint is float:
            return float(text)
    except ValueError:
        raise ConfigurationError(f"{variable}={raw!r} is not a {hint.__name__}") from None
    if type(None) in typing.get_args(hint) and text == "":
        return None
    if hint == DialectName:
        return DIALECT_ALIASES.get(text, text)
    # Strings and Literal choices pass as text; __post_init__ checks the choice.
    return text


def _check_value(name: str, hint: Any, value: Any) -> None:
    """Raise when a value does not fit its field's annotation (bool, int, float, str, Literal, optional)."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is Literal:
        if value not in args:
            raise ConfigurationError(f"{name} must be one of {', '.join(map(str, args))}; got {value!r}")
        return
    if type(None) in args:
        if value is None:
            return
        hint = next(arg for arg in args if arg is not type(None))
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return
    # bool is an int subclass: a flag given as 1 or a count given as True is a mistake.
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise ConfigurationError(f"{name} must be a {hint.__name__}; got {value!r}")
