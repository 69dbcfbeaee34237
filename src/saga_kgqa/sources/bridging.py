"""Bridging: candidate joins between two sources, scored on evidence that generalises, with a two-step plan.

Three kinds: the *same IRIs* used in both sources, *shared identifier values* (a literal of
one source found, after normalisation, as a literal of the other: ``1`` = ``"1"`` = ``"001"``)
and *shared property IRIs* (the weakest: the same predicate may mean different things).
Candidates are ordered by a score whose parts are shown (:mod:`saga_kgqa.sources.bridge_score`):
containment, distinctness, name similarity, datatype compatibility and second-batch
agreement, never by raw shared counts. Evidence is sampled and bounded. A candidate is a
hypothesis: the agent runs the plan (``join`` binds step 1's keys into step 2) and inspects
the rows before it trusts it (SERVICE stays forbidden).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from saga_kgqa.errors import ToolInputError
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri, result_term
from saga_kgqa.schema.queries import batched, path_alternative
from saga_kgqa.sources.bridge_score import ScoreParts, agreement, containment, hash_half
from saga_kgqa.sources.key_match import Normalisation, expression, normalisation
from saga_kgqa.sources.session import OpenSource, SourceSet
from saga_kgqa.sources.summary import RESULT_CHARS
from saga_kgqa.sources.value_bridges import ValueMatch, match_values, sample_literals
from saga_kgqa.text_safety import cap_block, graph_text
from saga_kgqa.tools.render import compact_iri, iri_text, term_text

BridgeKind = Literal["same_iri", "shared_value", "shared_property"]
_STRENGTH: dict[BridgeKind, int] = {"same_iri": 3, "shared_value": 2, "shared_property": 1}
_KEYS_PER_GROUP = 50
_BATCH = 400
_ROWS_PER_BATCH = 5000
_CANDIDATES = 8


class PlanStep(BaseModel):
    """One query of a bridge plan, run on one source."""

    model_config = ConfigDict(frozen=True)

    source: str
    sparql: str
    note: str


class BridgeCandidate(BaseModel):
    """A possible join between the left and the right source.

    Attributes:
        kind: ``same_iri``, ``shared_value`` or ``shared_property``.
        left_class: The left class whose instances (or their values) are the key.
        left_property: The left property holding the key (``None``: the instances themselves).
        right_class: The right class of the matching resources, when typed.
        right_property: The right property holding the key (``None``: the key is a right subject).
        evidence: Sampled left keys found in the right source.
        sampled: Left keys sampled.
        examples: A few shared keys, as pasteable SPARQL terms (``left = right`` when they differ).
        plan: Step 1 on the left source, step 2 on the right one.
        score: The weighted sum of ``parts``; candidates are ordered by it.
        parts: The score's parts (containment, distinct, names, datatypes, second batch).
        normalisation: The transformation that joined the keys: ``exact`` or its steps (``datatype``,
            ``trim``, ``numeric``, ``zero-padding``, ``local-name``, ``prefix``, ``case``, joined by ``+``).
        transformation: The transformation as a rule on the two properties (``a:code = lower(b:usedIn)``).
        datatypes: The key's datatype on the left and on the right (``""``: an IRI or a plain string).
    """

    model_config = ConfigDict(frozen=True)

    kind: BridgeKind
    left_class: str | None = None
    left_property: str | None = None
    right_class: str | None = None
    right_property: str | None = None
    evidence: int
    sampled: int
    examples: tuple[str, ...] = ()
    plan: tuple[PlanStep, ...] = ()
    score: float = 0.0
    parts: ScoreParts = ScoreParts()
    normalisation: Normalisation = "exact"
    transformation: str = ""
    datatypes: tuple[str, str] = ("", "")


class BridgeResult(BaseModel):
    """Join candidates between two sources, best first."""

    model_config = ConfigDict(frozen=True)

    left: str
    right: str
    candidates: tuple[BridgeCandidate, ...] = ()
    notes: tuple[str, ...] = ()
    text: str = ""


_Group = tuple[str, str | None]  # (left class, left property or None for the instances)


def bridge_sources(sources: SourceSet, left: str, right: str) -> BridgeResult:
    """Find candidate joins from ``left`` to ``right``, with evidence counts and two-step plans.

    Args:
        sources: The operator's sources.
        left: The source the question starts from.
        right: The source holding the rest of the answer.

    Raises:
        UnknownName: A source name is not configured.
        ToolInputError: ``left`` and ``right`` name the same source (every face refuses it here, alike).
        BackendError: A source failed (a failed sampling query is noted, not raised).
    """
    same = sources.catalog.source(left).name
    if same == sources.catalog.source(right).name:
        # A source bridged with itself gives every class as a same-IRI join: nothing a join can use.
        raise ToolInputError(f"left and right name the same source ({same}); pass two different source names")
    a, b = sources.get(left), sources.get(right)
    notes: list[str] = []
    iri_keys = _left_keys(a, notes)
    values = match_values(sample_literals(a, notes), sample_literals(b, notes))
    prefixes = a.prefixes
    candidates = [
        *_matches(a, b, iri_keys, "same_iri", notes),
        *(_value_candidate(a, b, match, prefixes) for match in values),
        *_shared_properties(a, b),
    ]
    candidates.sort(
        key=lambda c: (-c.score, -_STRENGTH[c.kind], -c.evidence, c.left_class or "", c.right_property or "")
    )
    result = BridgeResult(left=a.name, right=b.name, candidates=tuple(candidates[:_CANDIDATES]), notes=tuple(notes))
    return result.model_copy(update={"text": render_bridge(result, a.prefixes)})


def _left_keys(a: OpenSource, notes: list[str]) -> dict[_Group, list[Term]]:
    """Sample IRI keys of the left source: instances and IRI values per class."""
    survey = a.survey()
    reads = a.reads()
    type_path = path_alternative(a.schema().type_predicates)
    iri_keys: dict[_Group, list[Term]] = {}
    for cls in survey.classes:
        members = f"?s {type_path} {iri(cls.iri)} FILTER(isIRI(?s))"
        rows = reads.select(f"SELECT DISTINCT ?s WHERE {{ {members} }}", limit=_KEYS_PER_GROUP).rows
        iri_keys[(cls.iri, None)] = [row["s"] for row in rows]
        for prop in cls.properties:
            if not any(k.kind == "iri" for k in prop.object_kinds):
                continue
            rows = reads.select(
                f"SELECT DISTINCT ?v WHERE {{ {members} ?s {iri(prop.iri)} ?v FILTER(isIRI(?v)) }}",
                limit=_KEYS_PER_GROUP,
            ).rows
            iri_keys[(cls.iri, prop.iri)] = [row["v"] for row in rows]
    notes.extend(reads.notes)
    return iri_keys


def _value_candidate(a: OpenSource, b: OpenSource, match: ValueMatch, prefixes: Mapping[str, str]) -> BridgeCandidate:
    """A shared-value candidate from a scored match; examples are pasteable terms."""
    examples = tuple(
        term_text(left, prefixes) + ("" if left == right else " = " + term_text(right, prefixes))
        for left, right in match.examples
    )
    first_left, first_right = max(match.examples, key=lambda pair: len(normalisation(*pair)))
    rule = expression(
        match.normalisation,
        first_left,
        first_right,
        f"{a.name} {compact_iri(match.left[1], prefixes)}",
        f"{b.name} {compact_iri(match.right[1], prefixes)}",
    )
    candidate = BridgeCandidate(
        kind="shared_value",
        left_class=match.left[0],
        left_property=match.left[1],
        right_class=match.right[0],
        right_property=match.right[1],
        evidence=len(match.shared),
        sampled=match.left_keys,
        examples=examples,
        score=match.parts.score,
        parts=match.parts,
        normalisation=match.normalisation,
        transformation=rule,
        datatypes=(first_left.datatype or "", first_right.datatype or ""),
    )
    return candidate.model_copy(update={"plan": _plan(a, b, candidate)})


def _matches(
    a: OpenSource, b: OpenSource, keys: Mapping[_Group, list[Term]], kind: BridgeKind, notes: list[str]
) -> list[BridgeCandidate]:
    """Look the sampled keys up in the right source; one candidate per (left group, right use)."""
    owners: dict[str, set[_Group]] = {}
    terms: dict[str, Term] = {}
    for group, found in keys.items():
        for term in found:
            if term.kind in ("uri", "literal"):
                owners.setdefault(result_term(term), set()).add(group)
                terms[result_term(term)] = term
    if not terms:
        return []
    reads = b.reads()
    type_path = path_alternative(b.schema().type_predicates)
    hits: dict[tuple[_Group, str | None, str | None], set[str]] = {}
    for batch in batched(sorted(terms), _BATCH):
        values = "VALUES ?k { " + " ".join(batch) + " }"
        # Where the key occurs on the right: as a typed subject, or as some property's value.
        body = (
            f"SELECT ?k ?q ?c WHERE {{ {values} "
            + (f"{{ ?k {type_path} ?c }} UNION " if kind == "same_iri" else "")
            + f"{{ ?y ?q ?k OPTIONAL {{ ?y {type_path} ?c }} }} }}"
        )
        rows = reads.select(body, limit=_ROWS_PER_BATCH, what=f"{kind} keys in {b.name}").rows
        for row in rows:
            key = result_term(row["k"])
            right_property = row["q"].value if "q" in row else None
            right_class = row["c"].value if "c" in row else None
            for group in owners.get(key, ()):
                hits.setdefault((group, right_class, right_property), set()).add(key)
    notes.extend(reads.notes)
    candidates = []
    for (group, right_class, right_property), shared in hits.items():
        left_class, left_property = group
        if right_property in b.schema().type_predicates:
            continue
        sampled = {result_term(term) for term in keys[group]}
        halves = [{k for k in sampled if hash_half(k) == h} for h in (0, 1)]
        # The same IRI names the same thing: the names and datatypes parts hold by construction.
        parts = ScoreParts(
            containment=containment(len(shared), len(sampled), len(sampled)),
            distinct=1.0,
            names=1.0,
            datatypes=1.0,
            second_batch=agreement(*(len(h & shared) / len(h) if h else 1.0 for h in halves)),
        )
        candidate = BridgeCandidate(
            kind=kind,
            left_class=left_class,
            left_property=left_property,
            right_class=right_class,
            right_property=right_property,
            evidence=len(shared),
            sampled=len(keys[group]),
            examples=tuple(sorted(shared)[:3]),
            score=parts.score,
            parts=parts,
        )
        candidates.append(candidate.model_copy(update={"plan": _plan(a, b, candidate)}))
    return candidates


def _shared_properties(a: OpenSource, b: OpenSource) -> list[BridgeCandidate]:
    """Predicates both surveys saw; the evidence is the smaller of their sampled uses."""

    def uses(source: OpenSource) -> dict[str, tuple[str, int]]:
        found: dict[str, tuple[str, int]] = {}
        for cls in source.survey().classes:
            for prop in cls.properties:
                if prop.iri not in found or found[prop.iri][1] < prop.instances_using:
                    found[prop.iri] = (cls.iri, prop.instances_using)
        return found

    left, right = uses(a), uses(b)
    candidates = []
    for prop in sorted(set(left) & set(right)):
        candidate = BridgeCandidate(
            kind="shared_property",
            left_class=left[prop][0],
            left_property=prop,
            right_class=right[prop][0],
            right_property=prop,
            evidence=min(left[prop][1], right[prop][1]),
            sampled=max(left[prop][1], right[prop][1]),
            # Only the name is shared: no value was seen on both sides.
            parts=ScoreParts(names=1.0),
            score=ScoreParts(names=1.0).score,
        )
        candidates.append(candidate.model_copy(update={"plan": _plan(a, b, candidate)}))
    return candidates


def _plan(a: OpenSource, b: OpenSource, c: BridgeCandidate) -> tuple[PlanStep, PlanStep]:
    """Step 1 reads the keys on the left; step 2 looks them up on the right (VALUES from step 1)."""
    type_a = iri(a.schema().type_predicates[0])
    type_b = iri(b.schema().type_predicates[0])
    subject = f"?x {type_a} {iri(c.left_class)}" if c.left_class else "?x ?anyProperty ?anyValue"
    if c.left_property is None:
        first = f"SELECT DISTINCT ?x ?key WHERE {{ {subject} BIND(?x AS ?key) }} LIMIT 100"
    else:
        first = f"SELECT DISTINCT ?x ?key WHERE {{ {subject} ; {iri(c.left_property)} ?key }} LIMIT 100"
    typed = f" ?y {type_b} {iri(c.right_class)} ." if c.right_class else ""
    if c.right_property is None:
        second = f"SELECT ?key WHERE {{ ?key {type_b} {iri(c.right_class or '')} }}"
    else:
        second = f"SELECT ?y ?key WHERE {{{typed} ?y {iri(c.right_property)} ?key }}"
    fill = f"run both with join({a.name}: step 1 ==> {b.name}: step 2): step 1's ?key values are bound into step 2" + (
        "" if c.normalisation == "exact" else f" in the right side's stored form ({c.normalisation} normalisation)"
    )
    return (
        PlanStep(source=a.name, sparql=first, note="the keys on the left"),
        PlanStep(source=b.name, sparql=second, note=fill),
    )


def render_bridge(result: BridgeResult, prefixes: Mapping[str, str], max_chars: int = RESULT_CHARS) -> str:
    """The model's view: candidates best first with their evidence and plan."""
    lines = [f"join candidates from {result.left} to {result.right} (run and inspect before use):"]
    if not result.candidates:
        lines.append("  none found in the sampled keys; the sources may still be joinable by values not sampled")
    for n, c in enumerate(result.candidates, 1):
        left = _ids([c.left_class, c.left_property], prefixes)
        right = _ids([c.right_class, c.right_property], prefixes)
        lines.append(
            f"{n}. {c.kind}: {result.left} {left} = {result.right} {right}: score {c.score:.2f} "
            f"({c.parts.text()}); {c.evidence}/{c.sampled} sampled keys shared"
        )
        if c.kind == "shared_value":
            kinds = " = ".join(iri_text(d, prefixes) if d else "plain string" for d in c.datatypes)
            lines.append(f"   matched by {c.normalisation} normalisation: {c.transformation} ({kinds})")
        if c.examples:
            lines.append(f"   shared keys e.g. {'; '.join(c.examples)}")
        for step, plan in enumerate(c.plan, 1):
            lines.append(f"   step {step} on {plan.source}: {plan.sparql}")
    lines.extend(f"note: {graph_text(note)}" for note in result.notes[:3])
    return cap_block("\n".join(lines), max_chars)


def _ids(iris: Iterable[str | None], prefixes: Mapping[str, str]) -> str:
    return " ".join(compact_iri(value, prefixes) for value in iris if value) or "(any)"
