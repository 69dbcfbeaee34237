"""The bounded template queries the grounding tools send: types, neighbourhoods, labels, examples.

Every query here is built from IRIs escaped by :mod:`saga_kgqa.kg.guard.sparql_terms`, carries a
LIMIT, and goes through :meth:`KnowledgeGraph.run` as a checked template, never as free
text. A query that hits its LIMIT adds a note, so results can say they are partial.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.clock import Deadline
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.core.result import QueryForm, QueryResult, Row, Term
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.queries import batched, path_alternative, values_clause

_TEXT_BATCH = 100


@dataclass(frozen=True, slots=True)
class Texts:
    """The preferred label and description of one resource."""

    label: str | None = None
    description: str | None = None


@dataclass(slots=True)
class Reads:
    """Sends bounded template queries and remembers where a limit cut something short.

    Attributes:
        graph: The graph to read.
        deadline_s: Wall-clock budget of each query.
        language: Preferred language of labels and descriptions.
        fallback_language: Also read in this language (English: most graphs name their schema
            in it, so a German question still finds ``"BOM Part"@en``); preferred below ``language``.
        notes: Remarks on limits reached, for the tool result.
        until: A total deadline the reads share (a tool call's); each query gets at most
            what is left of it, and none is sent once it has passed.
    """

    graph: KnowledgeGraph
    deadline_s: float = 20.0
    language: str = "en"
    notes: list[str] = field(default_factory=list)
    until: Deadline | None = None
    fallback_language: str = "en"

    def query_deadline_s(self) -> float:
        """The budget of the next query: ``deadline_s``, or less when ``until`` is nearer.

        Raises:
            QueryTimeout: ``until`` has passed; nothing may be sent.
        """
        return self.deadline_s if self.until is None else self.until.cap(self.deadline_s)

    def select(self, body: str, *, limit: int, what: str | None = None, form: QueryForm = "SELECT") -> QueryResult:
        """Run ``body`` and return at most ``limit`` rows; note it under ``what`` when more existed.

        The query asks for one row more than it keeps, so ``truncated`` says for certain
        whether the limit cut something off.
        """
        query = from_template(f"{body}\nLIMIT {limit + 1}", form, limit=limit + 1)
        result = self.graph.run(query, ExecutionLimits(deadline_s=self.query_deadline_s(), max_rows=limit))
        if what is not None and result.truncated:
            self.notes.append(f"{what}: only the first {limit} were read")
        if not result.complete:
            self.notes.append(f"{what or 'a query'}: the endpoint reported a partial result")
        return result

    def text_filter(self, variable: str) -> str:
        """A FILTER condition keeping literals that are untagged, in the preferred or in the fallback language."""
        languages = dict.fromkeys(tag for tag in (self.language, self.fallback_language) if tag)
        matches = " || ".join(f"langMatches(lang(?{variable}), {string_literal(tag)})" for tag in languages)
        return f'isLiteral(?{variable}) && (lang(?{variable}) = "" || {matches})'

    def ask(self, body: str) -> bool:
        """Run an ASK query built from escaped terms."""
        query = from_template(f"ASK {{ {body} }}", "ASK")
        result = self.graph.run(query, ExecutionLimits(deadline_s=self.query_deadline_s(), max_rows=1))
        return bool(result.boolean)

    def types_of(self, entity: str, type_predicates: Sequence[str], *, limit: int) -> list[str]:
        """Return the classes an entity declares through the type predicates (IRIs only)."""
        rows = self.select(
            f"SELECT DISTINCT ?t WHERE {{ {iri(entity)} {path_alternative(type_predicates)} ?t FILTER(isIRI(?t)) }}",
            limit=limit,
            what="types",
        ).rows
        return sorted(row["t"].value for row in rows if "t" in row)

    def types_of_many(
        self, entities: Iterable[str], type_predicates: Sequence[str], *, per_entity: int
    ) -> dict[str, list[str]]:
        """Return the declared classes of several entities (a few per entity)."""
        found: dict[str, list[str]] = {}
        for batch in batched(sorted(set(entities)), _TEXT_BATCH):
            rows = self.select(
                f"SELECT DISTINCT ?x ?t WHERE {{ {values_clause('x', batch)} ?x {path_alternative(type_predicates)} ?t "
                "FILTER(isIRI(?t)) }",
                limit=len(batch) * per_entity * 4,
            ).rows
            for row in rows:
                types = found.setdefault(row["x"].value, [])
                if len(types) < per_entity and row["t"].value not in types:
                    types.append(row["t"].value)
        return {entity: sorted(types) for entity, types in found.items()}

    def property_counts(self, entity: str, *, limit: int) -> dict[str, int]:
        """Return each outgoing property of an entity with its number of values."""
        rows = self.select(
            f"SELECT ?p (COUNT(?o) AS ?n) WHERE {{ {iri(entity)} ?p ?o }} GROUP BY ?p",
            limit=limit,
            what="properties",
        ).rows
        return {row["p"].value: _int(row.get("n")) for row in rows if "p" in row}

    def outgoing(
        self, entity: str, properties: Sequence[str], *, per_property: int, limit: int
    ) -> dict[str, list[Term]]:
        """Return up to ``per_property`` values of each given property of an entity.

        One query reads at most ``limit`` triples; values beyond that stay unread, and
        the counts from :meth:`property_counts` say how many there are.
        """
        values: dict[str, list[Term]] = {}
        for batch in batched(sorted(properties), _TEXT_BATCH):
            rows = self.select(
                f"SELECT ?p ?o WHERE {{ {values_clause('p', batch)} {iri(entity)} ?p ?o }}", limit=limit
            ).rows
            for row in rows:
                kept = values.setdefault(row["p"].value, [])
                if len(kept) < per_property and row["o"] not in kept:
                    kept.append(row["o"])
        return values

    def incoming_properties(self, entity: str, *, limit: int) -> list[str]:
        """Return a few properties that point at the entity (used when it has no outgoing ones)."""
        rows = self.select(f"SELECT DISTINCT ?p WHERE {{ ?s ?p {iri(entity)} }}", limit=limit).rows
        return sorted(row["p"].value for row in rows if "p" in row)

    def texts(
        self, resources: Iterable[str], label_predicates: Sequence[str], description_predicates: Sequence[str]
    ) -> dict[str, Texts]:
        """Read the preferred label and description of many resources in batches.

        Only ``language`` and untagged text is read (a Wikidata item has labels in
        hundreds of languages); ``language`` is preferred, ties go to the shortest text,
        then alphabetical, so the choice is deterministic. A batch that times out is
        skipped with a note: texts only decorate a result.
        """
        wanted = sorted(set(resources))
        branches = []
        if label_predicates:
            branches.append(f'{{ ?x {path_alternative(label_predicates)} ?text BIND("label" AS ?kind) }}')
        if description_predicates:
            branches.append(f'{{ ?x {path_alternative(description_predicates)} ?text BIND("description" AS ?kind) }}')
        found: dict[str, Texts] = {}
        if not wanted or not branches:
            return found
        for batch in batched(wanted, _TEXT_BATCH):
            try:
                rows = self.select(
                    f"SELECT ?x ?kind ?text WHERE {{ {values_clause('x', batch)} {' UNION '.join(branches)} "
                    f"FILTER({self.text_filter('text')}) }}",
                    limit=len(batch) * 20,
                ).rows
            except QueryTimeout:
                self.notes.append(f"labels of {len(batch)} resources: timed out; shown without labels")
                continue
            found.update(best_texts(rows, self.language))
        return found

    def examples(self, prop: str, *, limit: int) -> list[Row]:
        """Return up to ``limit`` triples using a property (subject and object)."""
        return self.select(f"SELECT ?s ?o WHERE {{ ?s {iri(prop)} ?o }}", limit=limit).rows


def best_texts(rows: Iterable[Row], language: str) -> dict[str, Texts]:
    """Pick the preferred label and description per resource from ``?x ?kind ?text`` rows."""

    def rank(term: Term) -> tuple[int, int, str]:
        lang = (term.lang or "").lower().split("-")[0]
        tier = 0 if lang == language else 1 if not lang else 2
        return (tier, len(term.value), term.value)

    best: dict[tuple[str, str], Term] = {}
    for row in rows:
        key = (row["x"].value, row["kind"].value)
        text = row["text"]
        if key not in best or rank(text) < rank(best[key]):
            best[key] = text
    out: dict[str, Texts] = {}
    for resource in sorted({key[0] for key in best}):
        label = best.get((resource, "label"))
        description = best.get((resource, "description"))
        out[resource] = Texts(
            label=label.value if label else None, description=description.value if description else None
        )
    return out


def _int(term: Term | None) -> int:
    try:
        return int(term.value) if term is not None else 0
    except ValueError:
        return 0
