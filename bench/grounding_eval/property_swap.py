r"""Type errors made on purpose: a gold query with one property swapped for a domain-incompatible one.

The swap imitates the type-blind mistake SAGA targets: a property that exists in the
graph, but whose declared domain excludes every known type of the subject it is applied
to. The query stays valid SPARQL and would run (returning nothing); the pre-execution
type check should block it first.

The rewrite works on tokens (:mod:`saga_kgqa.kg.guard.sparql_lexer`), so an IRI inside a
string literal or a comment is never touched, and every spelling of the property
(``<iri>``, ``pv:name``, ``:singer\#name``) is recognised after prefix resolution.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bench.grounding_eval.gold_patterns import PropertyUse
from saga_kgqa.benchmarks.datasets import GoldQuestion
from saga_kgqa.kg.guard.sparql_lexer import Token, tokenize
from saga_kgqa.kg.guard.sparql_terms import iri, unescape_local_name
from saga_kgqa.schema import SchemaIndex


@dataclass(frozen=True, slots=True)
class PropertySwap:
    """A gold query with one property replaced.

    Attributes:
        qid: The gold question.
        subject: The subject the swapped property applies to (``?var`` or an IRI).
        subject_types: The subject's types that the new property's domain excludes.
        original: The gold property.
        replacement: The property put in its place (every occurrence).
        sparql: The rewritten query.
    """

    qid: str
    subject: str
    subject_types: frozenset[str]
    original: str
    replacement: str
    sparql: str


def conflicting_properties(
    schema: SchemaIndex, subject_types: Iterable[str], *, exclude: Iterable[str] = ()
) -> list[str]:
    """Properties whose declared (formal) domain excludes all these types, subclass-aware; sorted.

    A property with no formal domain never qualifies: nothing declares it incompatible.
    """
    types = frozenset(subject_types)
    skip = frozenset(exclude) | frozenset(schema.type_predicates)
    if not types:
        return []
    return sorted(
        prop
        for prop, entry in schema.properties.items()
        if entry.domain_source == "formal"
        and prop not in skip
        and schema.compatibility(types, prop, mode="subclass").decision == "drop"
    )


def choose_swap(
    question: GoldQuestion,
    uses: Sequence[PropertyUse],
    subject_types: Mapping[str, frozenset[str]],
    schema: SchemaIndex,
    rng: random.Random,
    *,
    prefixes: Mapping[str, str] | None = None,
) -> PropertySwap | None:
    """Pick one property use with a typed subject and replace its property with a conflicting one.

    Args:
        question: The gold question.
        uses: Its property uses.
        subject_types: Known types of each use's subject (sampled from the graph).
        schema: The schema index giving the declared domains.
        rng: The seeded generator that picks the use and the replacement.
        prefixes: Prefixes assumed by the query.

    Returns:
        The swap, or ``None`` when no use has a typed subject with a conflicting property.
    """
    options: list[tuple[PropertyUse, list[str]]] = []
    used = {use.property_iri for use in uses}
    for use in uses:
        candidates = conflicting_properties(schema, subject_types.get(use.subject, ()), exclude=used)
        if candidates:
            options.append((use, candidates))
    if not options:
        return None
    use, candidates = rng.choice(options)
    replacement = rng.choice(candidates)
    sparql = replace_property(question.sparql, use.property_iri, replacement, prefixes=prefixes)
    return PropertySwap(
        qid=question.qid,
        subject=use.subject,
        subject_types=frozenset(subject_types[use.subject]),
        original=use.property_iri,
        replacement=replacement,
        sparql=sparql,
    )


def replace_property(sparql: str, old: str, new: str, *, prefixes: Mapping[str, str] | None = None) -> str:
    """Replace every occurrence of IRI ``old`` (written in any form) with ``<new>``.

    Args:
        sparql: The query text.
        old: The IRI to replace.
        new: The IRI to write instead.
        prefixes: Prefixes assumed when the query does not declare them.

    Raises:
        ValueError: ``old`` does not occur in the query.
        QueryRejected: ``new`` is not a usable IRI.
    """
    replacement = iri(new)
    tokens = tokenize(sparql)
    declared = dict(prefixes or {})
    declared.update(_declared_prefixes(tokens))
    pieces: list[str] = []
    position = 0
    for token in tokens:
        if _resolve(token, declared) == old:
            pieces.extend([sparql[position : token.start], replacement])
            position = token.end
    if not pieces:
        raise ValueError(f"<{old}> does not occur in the query")
    pieces.append(sparql[position:])
    return "".join(pieces)


def _declared_prefixes(tokens: Sequence[Token]) -> dict[str, str]:
    """``PREFIX p: <ns>`` declarations (a later one wins, as in the grammar's prologue)."""
    found: dict[str, str] = {}
    for keyword, name, namespace in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if keyword.is_word("PREFIX") and name.kind == "pname" and name.text.endswith(":") and namespace.kind == "iri":
            found[name.text[:-1]] = namespace.text[1:-1]
    return found


def _resolve(token: Token, prefixes: Mapping[str, str]) -> str | None:
    if token.kind == "iri":
        return token.text[1:-1]
    if token.kind == "pname":
        prefix, _, local = token.text.partition(":")
        namespace = prefixes.get(prefix)
        if namespace is not None and local:
            return namespace + unescape_local_name(local)
    return None
