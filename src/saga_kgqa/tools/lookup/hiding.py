"""Which of an entity's properties lookup may hide: only what the schema (or the data) can confirm.

The paper's filter hides a property whose domain conflicts with the entity's types. Real
schemas are incomplete in two ways: a property's domain may be unknown (the verdict is
then ``unknown`` and the property kept, as in the paper), and the *ancestry* of a type may
be unknown (CK25 never says Supplier ⊑ Agent; offline, few Wikidata types had a P279
edge). A conflict found through an incomplete hierarchy is not a conflict the schema
confirms, so the rules here, in order, are:

0. ``name_property``: a label or name predicate is never hidden (the entity's name is how the
   model recognises it, whatever a domain says);
   ``own_property``: on a sampled schema (``surveyed``, ``induced``) the domain is the classes the
   sample saw use the property; the entity looked up carries it, which is stronger evidence
   than a sample that never reached its class, so its own properties are never hidden there;
1. ``compatible``: the schema's verdict keeps the property (see
   :meth:`~saga_kgqa.schema.SchemaIndex.compatibility`);
   ``unconfirmed_source``: the conflicting domain comes from an outside, partial schema
   (curated), which cannot confirm a conflict (:attr:`HideSettings.confirming_sources`);
2. ``unknown_ancestry``: some known type has no recorded superclass, neither in the
   schema index nor in the graph (its subclass predicate is read on demand, bounded and
   cached), and the schema is not closed (:meth:`~saga_kgqa.schema.SchemaIndex.is_closed`):
   the type may still fall under the domain, so the property is kept;
3. ``observed_domain``: sampled instances of a known type use the property at least at
   the support threshold (:class:`HideSettings`): the data says the type is a domain member;
4. otherwise the property is hidden, with its rule: ``domain_conflict`` (every type's
   ancestry is recorded and none reaches the domain) or ``closed_schema`` (a flat, closed
   ontology, where a class without a superclass really has none).

``exact`` mode is the paper's set intersection of the declared types with the domain: no
ancestors, no reconciliation (the ablation's baseline).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from saga_kgqa.kg.core.counts import count_of
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema import CompatibilityMode, SchemaIndex, Verdict
from saga_kgqa.schema.compatibility import HideRule, SchemaSource
from saga_kgqa.schema.queries import batched, path_alternative, values_clause
from saga_kgqa.schema.vocab import SchemaVocabulary, local_name
from saga_kgqa.tools.graph_reads import Reads

_BATCH = 50


@dataclass(frozen=True, slots=True)
class HideSettings:
    """Bounds and the support threshold of the rules.

    Attributes:
        support: Share of a type's sampled instances that must use a property for the type
            to count as an observed domain member. Swept with ``bench/grounding.py --support``
            (CK25; ``--wikidata`` with and without P279): from 0.01 to 1.01 (never) no figure
            changes there, because the unknown-ancestry rule keeps those properties first; the
            rule decides where every ancestor is recorded and the declared domain is still too
            narrow (``tests/unit/tools/test_grounding_hiding.py``). 0.05 with ``min_users`` 2 keeps a
            property that a few instances use without letting one stray triple decide.
        min_users: Sampled instances that must use it, however small the sample.
        instances: Instances sampled per type.
        types_checked: Known types whose instances are sampled (the first ones by IRI).
        ancestors_read: Most superclass rows read from the graph per lookup.
        confirming_sources: Domain sources that can confirm a conflict: the graph's own
            ontology (formal), its sampled data (induced, surveyed). A curated domain from an
            outside schema (YAGO's shapes, text2kgbench) names a few classes and is partial by
            construction ("nominated for" lists film and album, yet people are nominated), so
            its conflicts are shown but never hide.
    """

    support: float = 0.05
    min_users: int = 2
    instances: int = 50
    types_checked: int = 5
    ancestors_read: int = 2000
    confirming_sources: frozenset[SchemaSource] = frozenset({"formal", "induced", "surveyed"})


#: Domain sources drawn from a sample of the data: a conflict there is outweighed by the entity's own triple.
SAMPLED_SOURCES: frozenset[SchemaSource] = frozenset({"induced", "surveyed"})


@dataclass(frozen=True, slots=True)
class HideVerdict:
    """The decision on one property: the schema's verdict, and the rule that hid it (``None`` when kept)."""

    verdict: Verdict
    rule: HideRule | None = None

    @property
    def hidden(self) -> bool:
        """True when the property is hidden."""
        return self.rule is not None


@dataclass(slots=True)
class Hiding:
    """The hide rules with their caches (one per tool context: the graph's hierarchy and usage do not change).

    Attributes:
        schema: The schema index.
        vocabulary: Type and subclass predicates.
        settings: Bounds and threshold.
        names: Name predicates (beside the vocabulary's labels) that are never hidden.
    """

    schema: SchemaIndex
    vocabulary: SchemaVocabulary
    settings: HideSettings = field(default_factory=HideSettings)
    names: frozenset[str] = frozenset()
    _ancestors: dict[str, frozenset[str]] = field(default_factory=dict)
    _instances: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _usage: dict[tuple[str, str], int] = field(default_factory=dict)

    def ancestors(self, reads: Reads, types: Iterable[str]) -> dict[str, frozenset[str]]:
        """The superclasses of each type that the graph records, read on demand (bounded, cached).

        The schema index's own hierarchy is not repeated here: the compatibility check applies it.
        """
        wanted = sorted(set(types))
        # Only types the index cannot place are read: the graph is asked for what is missing.
        placed = self.schema.hierarchy
        for t in wanted:
            if t not in self._ancestors and placed.parents(t):
                self._ancestors[t] = frozenset()
        missing = [t for t in wanted if t not in self._ancestors]
        if missing:
            found = self._graph_ancestors(reads, missing)
            for t in missing:
                self._ancestors[t] = found.get(t, frozenset())
        return {t: self._ancestors[t] for t in wanted}

    def ancestry_unknown(self, types: Iterable[str], ancestors: Mapping[str, frozenset[str]]) -> list[str]:
        """The types whose place in the hierarchy is not recorded (no superclass anywhere)."""
        closed = self.schema.is_closed()
        return sorted(
            t
            for t in types
            if not ancestors.get(t)
            and not self.schema.hierarchy.parents(t)
            and not (closed and t in self.schema.classes)
        )

    def decide(
        self,
        reads: Reads,
        types: Iterable[str],
        props: Iterable[str],
        *,
        mode: CompatibilityMode,
        entity: str | None = None,
    ) -> dict[str, HideVerdict]:
        """Decide every property of an entity with these types (see the module docstring)."""
        known = frozenset(types)
        if mode == "exact":
            # The paper's rule: the declared types against the domain, nothing inferred, nothing reconciled.
            exact = {prop: self.schema.compatibility(known, prop, mode=mode) for prop in props}
            return {prop: HideVerdict(v, None if v.keeps else "domain_conflict") for prop, v in exact.items()}
        ancestors = self.ancestors(reads, known)
        verdicts = {prop: self.verdict(known, ancestors, prop) for prop in props}
        decided: dict[str, HideVerdict] = {prop: HideVerdict(v) for prop, v in verdicts.items() if v.keeps}
        conflicts = []
        never = self.names | frozenset(self.vocabulary.label_predicates)
        for prop in sorted(prop for prop, v in verdicts.items() if not v.keeps):
            if prop in never:
                reason = "kept: a label or name is never hidden"
                decided[prop] = HideVerdict(_kept(verdicts[prop], "name_property", reason))
            elif verdicts[prop].source in SAMPLED_SOURCES:
                reason = (
                    f"kept: the entity carries it, and the {verdicts[prop].source} domain is only the classes "
                    "a sample saw use it"
                )
                decided[prop] = HideVerdict(_kept(verdicts[prop], "own_property", reason))
            elif verdicts[prop].source in self.settings.confirming_sources:
                conflicts.append(prop)
            else:
                reason = f"kept: the {verdicts[prop].source} domain is partial, so the conflict is not confirmed"
                decided[prop] = HideVerdict(_kept(verdicts[prop], "unconfirmed_source", reason))
        if not conflicts:
            return decided
        unknown = self.ancestry_unknown(known, ancestors)
        if unknown:
            names = ", ".join(local_name(t) for t in unknown[:3])
            for prop in conflicts:
                reason = f"kept: no superclass is recorded for {names}, which may fall under the domain"
                decided[prop] = HideVerdict(_kept(verdicts[prop], "unknown_ancestry", reason))
            return decided
        observed = self._observed(reads, sorted(known), conflicts, entity)
        rule: HideRule = "closed_schema" if self.schema.is_closed() else "domain_conflict"
        for prop in conflicts:
            if prop in observed:
                cls, users, sampled = observed[prop]
                reason = (
                    f"kept: {users} of {sampled} sampled {local_name(cls)} instances use it (observed domain member)"
                )
                decided[prop] = HideVerdict(_kept(verdicts[prop], "observed_domain", reason))
            else:
                verdict = verdicts[prop]
                why = "closed schema" if rule == "closed_schema" else "every type's ancestry is recorded"
                decided[prop] = HideVerdict(verdict.model_copy(update={"reason": f"{verdict.reason} ({why})"}), rule)
        return decided

    def verdict(self, types: frozenset[str], ancestors: Mapping[str, frozenset[str]], prop: str) -> Verdict:
        """The subclass-aware verdict on the types, widened by the superclasses only the graph records.

        A graph superclass in the domain admits the type (an instance of a class is an instance
        of its superclasses); it is never fed to the "broader type" rule, which would admit
        everything once a top class such as "entity" is among them.
        """
        verdict = self.schema.compatibility(types, prop, mode="subclass")
        graph_supers = frozenset().union(*ancestors.values()) if ancestors else frozenset()
        if verdict.keeps or not graph_supers:
            return verdict
        via = self.schema.compatibility(graph_supers, prop, mode="subclass")
        if via.keeps and via.basis in ("exact", "subclass"):
            return via.model_copy(update={"basis": "subclass", "reason": f"a superclass in the graph: {via.reason}"})
        return verdict

    def _graph_ancestors(self, reads: Reads, classes: list[str]) -> dict[str, frozenset[str]]:
        """Superclasses through the graph's own subclass predicate (``wdt:P279+``, ``rdfs:subClassOf+``)."""
        predicates = self.vocabulary.subclass_predicates
        if not predicates:
            return {}
        found: dict[str, set[str]] = {}
        path = "|".join(iri(p) for p in predicates)
        for batch in batched(classes, _BATCH):
            # One branch per class with the class written as the path's start: Virtuoso refuses a
            # transitive path whose start comes from VALUES ("transitive start not given").
            branches = " UNION ".join(f"{{ {iri(cls)} ({path})+ ?sup BIND({iri(cls)} AS ?t) }}" for cls in batch)
            rows = reads.select(
                f"SELECT DISTINCT ?t ?sup WHERE {{ {branches} FILTER(isIRI(?sup)) }}",
                limit=self.settings.ancestors_read,
                what="superclasses",
            ).rows
            for row in rows:
                if "t" in row and "sup" in row:
                    found.setdefault(row["t"].value, set()).add(row["sup"].value)
        return {t: frozenset(sups) for t, sups in found.items()}

    def _observed(
        self, reads: Reads, types: list[str], props: list[str], entity: str | None
    ) -> dict[str, tuple[str, int, int]]:
        """Properties that sampled instances of a type use at the support threshold: prop → (type, users, sampled)."""
        found: dict[str, tuple[str, int, int]] = {}
        for cls in types[: self.settings.types_checked]:
            instances = self._sample(reads, cls)
            # The entity looked up is not evidence about its own type: it is the case in question.
            others = [s for s in instances if s != entity]
            if not others:
                continue
            pending = [p for p in props if p not in found and (cls, p) not in self._usage]
            if pending:
                self._count_usage(reads, cls, others, pending)
            for prop in props:
                users = self._usage.get((cls, prop), 0)
                if (
                    prop not in found
                    and users >= self.settings.min_users
                    and users >= self.settings.support * len(others)
                ):
                    found[prop] = (cls, users, len(others))
        return found

    def _sample(self, reads: Reads, cls: str) -> tuple[str, ...]:
        if cls not in self._instances:
            rows = reads.select(
                f"SELECT DISTINCT ?s WHERE {{ ?s {path_alternative(self.vocabulary.type_predicates)} {iri(cls)} "
                "FILTER(isIRI(?s)) }",
                limit=self.settings.instances,
            ).rows
            self._instances[cls] = tuple(sorted(row["s"].value for row in rows if "s" in row))
        return self._instances[cls]

    def _count_usage(self, reads: Reads, cls: str, instances: list[str], props: list[str]) -> None:
        for batch in batched(props, _BATCH):
            rows = reads.select(
                f"SELECT ?p (COUNT(DISTINCT ?s) AS ?n) WHERE {{ {values_clause('s', instances)} "
                f"{values_clause('p', batch)} FILTER EXISTS {{ ?s ?p ?o }} }} GROUP BY ?p",
                limit=len(batch),
            ).rows
            counts = {row["p"].value: count_of(row["n"]) for row in rows if "p" in row and "n" in row}
            for prop in batch:
                self._usage[(cls, prop)] = counts.get(prop, 0)


def _kept(
    verdict: Verdict,
    basis: Literal["unknown_ancestry", "observed_domain", "unconfirmed_source", "own_property", "name_property"],
    reason: str,
) -> Verdict:
    return verdict.model_copy(update={"decision": "keep", "basis": basis, "reason": reason})
