"""Wikidata's label service, rewritten into plain SPARQL for stores that do not have it.

WDQS answers ``SERVICE wikibase:label { bd:serviceParam wikibase:language "fr,en" }`` by
binding ``?xLabel``, ``?xDescription`` and ``?xAltLabel`` for every ``?x`` of the query:
the label in the first listed language that has one, else (labels only) the entity's
bare id (``Q42``); alt labels joined with ", ". The block may also bind explicitly
(``?x rdfs:label ?name``). Most gold and model-written Wikidata queries rely on it, and
no other store has it (embedded, Virtuoso, QLever, Fuseki), so :func:`rewrite_label_service`
replaces each block, in place, by the equivalent OPTIONAL patterns over ``rdfs:label``,
``schema:description`` and ``skos:altLabel``. The guard checks the original query first and
the rewritten one again, so nothing reaches a store that the guard did not see.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from saga_kgqa.kg.guard.sparql_lexer import Token, declared_prefixes, expand_iri, tokenize

LABEL_SERVICE_IRI = "http://wikiba.se/ontology#label"
_WIKIBASE = "http://wikiba.se/ontology#"
_BD = "http://www.bigdata.com/rdf#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SCHEMA_DESCRIPTION = "http://schema.org/description"
SKOS_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
ENTITY_PREFIX = "http://www.wikidata.org/entity/"
#: What ``[AUTO_LANGUAGE]`` means off WDQS (it is the user's interface language there).
AUTO_LANGUAGE = "en"

_KINDS = {"Label": RDFS_LABEL, "Description": SCHEMA_DESCRIPTION, "AltLabel": SKOS_ALT_LABEL}
_SUFFIX = re.compile(r"^[?$](\w+?)(AltLabel|Label|Description)$")


class LabelServiceError(ValueError):
    """A label-service block this rewrite does not understand (the caller rejects the query)."""


@dataclass(frozen=True)
class _Binding:
    subject: str  # ?x
    predicate: str  # full IRI
    target: str  # ?xLabel


def uses_label_service(text: str, prefixes: Mapping[str, str]) -> bool:
    """Whether ``text`` has a ``SERVICE wikibase:label`` block."""
    tokens = [t for t in tokenize(text) if t.kind != "comment"]
    declared = {**prefixes, **declared_prefixes(tokens)}
    return any(_service_block(tokens, i, declared) is not None for i in range(len(tokens)))


def rewrite_label_service(text: str, prefixes: Mapping[str, str]) -> str:
    """Replace every ``SERVICE wikibase:label {…}`` block of ``text`` by plain patterns.

    Args:
        text: The query (already accepted by the guard).
        prefixes: Prefixes in force (declared and the profile's), to read prefixed names.

    Returns:
        The query without label-service blocks (unchanged when it has none).

    Raises:
        LabelServiceError: A block has content this rewrite does not understand.
    """
    tokens = [t for t in tokenize(text) if t.kind != "comment"]
    declared = {**prefixes, **declared_prefixes(tokens)}
    blocks = [b for i in range(len(tokens)) if (b := _service_block(tokens, i, declared)) is not None]
    if not blocks:
        return text
    outside = _variables_outside(tokens, blocks)
    pieces: list[str] = []
    cursor = 0
    for number, (start, end) in enumerate(blocks):
        languages, explicit = _read_block(tokens[start + 3 : end], declared)
        bindings = explicit or _automatic(outside)
        pieces.append(text[cursor : tokens[start].start])
        pieces.append(_patterns(bindings, languages, number))
        cursor = tokens[end].end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _service_block(tokens: list[Token], i: int, prefixes: Mapping[str, str]) -> tuple[int, int] | None:
    """``(index of SERVICE, index of its closing brace)`` when a label-service block starts at ``i``."""
    if tokens[i].kind != "word" or tokens[i].text.upper() != "SERVICE" or i + 2 >= len(tokens):
        return None
    target = tokens[i + 1]
    if expand_iri(target, prefixes) != LABEL_SERVICE_IRI or tokens[i + 2].text != "{":
        return None
    depth = tokens[i + 2].brace_depth
    for j in range(i + 3, len(tokens)):
        if tokens[j].text == "}" and tokens[j].brace_depth == depth:
            return i, j
    raise LabelServiceError("unterminated SERVICE wikibase:label block")


def _read_block(inner: list[Token], prefixes: Mapping[str, str]) -> tuple[list[str], list[_Binding]]:
    languages: list[str] = []
    explicit: list[_Binding] = []
    statements: list[list[Token]] = [[]]
    for token in inner:
        if token.text == ".":
            statements.append([])
        elif token.text == ";":
            if not statements[-1]:
                raise LabelServiceError("unexpected ';' in the label-service block")
            statements.append([statements[-1][0]])
        else:
            statements[-1].append(token)
    for statement in (s for s in statements if s):
        if len(statement) != 3:
            raise LabelServiceError("the label-service block may hold only simple triples")
        subject, predicate, obj = statement
        iri = expand_iri(predicate, prefixes)
        if expand_iri(subject, prefixes) == _BD + "serviceParam" and iri == _WIKIBASE + "language":
            if obj.kind != "string":
                raise LabelServiceError('wikibase:language takes a string such as "en,fr"')
            for code in obj.text.strip("\"'").split(","):
                code = code.strip()
                code = AUTO_LANGUAGE if code == "[AUTO_LANGUAGE]" else code
                if not re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z0-9]+)*", code):
                    raise LabelServiceError(f"unreadable language code {code!r}")
                if code not in languages:
                    languages.append(code)
        elif subject.kind == "var" and obj.kind == "var" and iri is not None and iri in _KINDS.values():
            explicit.append(_Binding(subject.text, iri, obj.text))
        else:
            raise LabelServiceError("the label-service block may set wikibase:language and bind labels only")
    return languages or [AUTO_LANGUAGE], explicit


def _variables_outside(tokens: list[Token], blocks: list[tuple[int, int]]) -> list[str]:
    inside = {i for start, end in blocks for i in range(start, end + 1)}
    seen: list[str] = []
    for i, token in enumerate(tokens):
        if token.kind == "var" and i not in inside and token.text not in seen:
            seen.append(token.text)
    return seen


def _automatic(variables: list[str]) -> list[_Binding]:
    """WDQS's automatic mode: ``?xLabel`` (etc.) is bound for every ``?x`` the query has."""
    present = {v[1:] for v in variables}
    found = []
    for variable in variables:
        match = _SUFFIX.match(variable)
        if match and match.group(1) in present:
            found.append(_Binding("?" + match.group(1), _KINDS[match.group(2)], variable))
    return found


def _patterns(bindings: list[_Binding], languages: list[str], number: int) -> str:
    parts: list[str] = []
    for index, binding in enumerate(bindings):
        stem = f"?saga_label_{number}_{index}"
        if binding.predicate == SKOS_ALT_LABEL:
            choices = []
            for k, lang in enumerate(languages):
                alt, joined = f"{stem}_alt{k}", f"{stem}_{k}"
                parts.append(
                    f'OPTIONAL {{ SELECT {binding.subject} (GROUP_CONCAT({alt}; separator=", ") AS {joined}) '
                    f'WHERE {{ {binding.subject} <{SKOS_ALT_LABEL}> {alt} FILTER(LANG({alt}) = "{lang}") }} '
                    f"GROUP BY {binding.subject} }}"
                )
                choices.append(joined)
        else:
            choices = []
            for k, lang in enumerate(languages):
                name = f"{stem}_{k}"
                parts.append(
                    f'OPTIONAL {{ {binding.subject} <{binding.predicate}> {name} FILTER(LANG({name}) = "{lang}") }}'
                )
                choices.append(name)
            if binding.predicate == RDFS_LABEL:
                # WDQS's fallback: the bare id of an entity, the value itself otherwise.
                choices.append(
                    f'IF(isIRI({binding.subject}) && STRSTARTS(STR({binding.subject}), "{ENTITY_PREFIX}"), '
                    f'STRAFTER(STR({binding.subject}), "{ENTITY_PREFIX}"), STR({binding.subject}))'
                )
        parts.append(f"BIND(COALESCE({', '.join(choices)}) AS {binding.target})")
    return " ".join(parts) if parts else "{}"
