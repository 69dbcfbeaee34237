"""Queries written for one engine, made to run on another before the guard sees them -- or refused by name.

A query written for WDQS (Blazegraph) leans on what only WDQS has: its predeclared prefixes,
query hints, Blazegraph's full-text search, IRI ordering in comparisons, its label service and
its other SERVICEs. Sent as it is to the embedded store (oxigraph), Virtuoso, Fuseki or QLever
it fails with an unhelpful error, or -- worse -- runs and answers nothing. :func:`port_query`
rewrites, on the token stream, what has a faithful equivalent on the target and says each
rewrite in one line; what has none is refused with the construct named, before anything runs:

* **WDQS's predeclared prefixes** (``wd:``, ``wdt:``, ``p:`` ..., the Wikidata- and
  Blazegraph-specific ones) used but neither declared nor known to the target profile: a
  ``PREFIX`` line is written for each.
* **Query hints** (``hint:Query hint:optimizer "None" .``): optimizer advice only; the triple
  is removed (elsewhere it would be a pattern that matches nothing).
* **Full-text search** ``?text bds:search "words"``: when ``?text`` is bound by another pattern
  it becomes ``FILTER(CONTAINS(LCASE(STR(?text)), "words"))`` (a substring match, not
  Blazegraph's token index); unbound, or with other ``bds:`` parameters, it is refused.
* **Comparisons of two variables** (``?a < ?b``): WDQS orders IRIs, SPARQL 1.1 engines
  (oxigraph, Jena) raise a type error and drop the row. The comparison becomes
  ``IF(isIRI(?a) && isIRI(?b), STR(?a) < STR(?b), ?a < ?b)``: the same for anything else.
  QLever and Virtuoso order IRIs themselves and are left alone.
* Refused by name: WDQS's other services (``wikibase:mwapi``, ``wikibase:around``,
  ``wikibase:box``), QLever's text search (``ql:contains-word``, ``ql:contains-entity``) off
  QLever.

The label service is rewritten after the first guard check by :mod:`saga_kgqa.kg.guard.label_guard`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import WIKIDATA_PREFIXES, EndpointProfile
from saga_kgqa.kg.guard.sparql_lexer import Token, declared_prefixes, expand_iri, tokenize

#: WDQS's predeclared prefixes that name Wikidata or Blazegraph namespaces (general vocabularies
#: such as schema: or skos: are left to the writer: their IRIs differ between stores).
WDQS_ONLY_PREFIXES = frozenset(
    {"wd", "wdt", "wdtn", "p", "ps", "psv", "pq", "pqv", "pr", "prv", "prn", "psn", "pqn", "wds", "wdv", "wdref"}
    | {"wdno", "wdata", "wikibase", "bd", "bds", "gas", "hint"}
)
_BDS = "http://www.bigdata.com/rdf/search#"
_HINT = "http://www.bigdata.com/queryHints#"
_WIKIBASE = "http://wikiba.se/ontology#"
_QLEVER = "http://qlever.cs.uni-freiburg.de/builtin-functions/"
#: WDQS services that have no equivalent elsewhere, by IRI -> what they are.
FOREIGN_SERVICES = {
    f"{_WIKIBASE}mwapi": "SERVICE wikibase:mwapi (WDQS's MediaWiki API search)",
    f"{_WIKIBASE}around": "SERVICE wikibase:around (WDQS's geographic search around a point)",
    f"{_WIKIBASE}box": "SERVICE wikibase:box (WDQS's geographic search in a box)",
}
#: QLever's text-search predicates.
QLEVER_TEXT = {f"{_QLEVER}contains-word": "ql:contains-word", f"{_QLEVER}contains-entity": "ql:contains-entity"}
_COMPARISONS = frozenset({"<", ">", "<=", ">="})
#: Profiles whose engine orders IRIs in comparisons (WDQS's Blazegraph, QLever, Virtuoso: checked on 7.2, where the
#: rewrite also broke a CK25 reference query with an internal compiler error, SQ156).
ORDERS_IRIS = frozenset({"wikidata", "qlever", "virtuoso"})


@dataclass(frozen=True, slots=True)
class Ported:
    """A query as the target will receive it, and one line per rewrite made."""

    text: str
    rewrites: tuple[str, ...]


def _refuse(construct: str, profile: EndpointProfile, advice: str) -> QueryRejected:
    return QueryRejected(
        f"{construct} cannot run on this {profile.name} store: {advice}; nothing was sent", reason="not_portable"
    )


def port_query(text: str, profile: EndpointProfile, *, native_wdqs: bool = False) -> Ported:
    """Rewrite ``text`` for a store of ``profile`` (see the module docstring).

    Args:
        text: The query as written.
        profile: The target's profile.
        native_wdqs: The target is WDQS itself: nothing is rewritten.

    Raises:
        QueryRejected: A construct the target cannot run (reason ``not_portable``).
    """
    if native_wdqs:
        return Ported(text, ())
    tokens = [t for t in tokenize(text) if t.kind != "comment"]
    declared = declared_prefixes(tokens)
    rewrites: list[str] = []
    added = _missing_wdqs_prefixes(tokens, declared, profile)
    known = {**profile.prefixes, **{name: WIKIDATA_PREFIXES[name] for name in added}, **declared}
    _refuse_foreign(tokens, known, profile)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) on the original text
    hints = _hint_triples(tokens, known, profile)
    if hints:
        edits += [(start, end, "") for start, end in hints]
        rewrites.append(f"removed {len(hints)} Blazegraph query hint(s) (hint:...): optimizer advice only")
    searches = _text_searches(tokens, known, profile)
    for start, end, variable, words in searches:
        edits.append((start, end, f"FILTER(CONTAINS(LCASE(STR({variable})), LCASE({words})))"))
        rewrites.append(
            f"bds:search on {variable} became FILTER(CONTAINS(LCASE(STR({variable})), ...)): a substring match, "
            "not Blazegraph's full-text index"
        )
    if profile.name not in ORDERS_IRIS:
        compared = _variable_comparisons(tokens)
        for start, end, left, op, right in compared:
            edits.append(
                (start, end, f"IF(isIRI({left}) && isIRI({right}), STR({left}) {op} STR({right}), {left} {op} {right})")
            )
        if compared:
            shown = ", ".join(f"{a} {o} {b}" for _s, _e, a, o, b in compared)
            rewrites.append(
                f"{len(compared)} comparison(s) of two variables ({shown}) compare IRIs by their text, "
                "as WDQS orders them (SPARQL 1.1 engines drop the row)"
            )
    ported = _apply(text, edits)
    # Only the prefixes the rewritten text still uses (a removed hint needs no hint: line).
    added = _missing_wdqs_prefixes([t for t in tokenize(ported) if t.kind != "comment"], declared, profile)
    if added:
        lines = "".join(f"PREFIX {name}: <{WIKIDATA_PREFIXES[name]}>\n" for name in added)
        ported = lines + ported
        rewrites.insert(0, f"declared WDQS's predeclared prefix(es) {', '.join(f'{n}:' for n in added)}")
    return Ported(ported, tuple(rewrites))


def _missing_wdqs_prefixes(tokens: list[Token], declared: Mapping[str, str], profile: EndpointProfile) -> list[str]:
    used: list[str] = []
    for token in tokens:
        if token.kind == "pname":
            prefix = token.text.partition(":")[0]
            if (
                prefix in WDQS_ONLY_PREFIXES
                and prefix not in declared
                and prefix not in profile.prefixes
                and prefix not in used
            ):
                used.append(prefix)
    return used


def _refuse_foreign(tokens: list[Token], prefixes: Mapping[str, str], profile: EndpointProfile) -> None:
    for i, token in enumerate(tokens):
        iri = expand_iri(token, prefixes)
        if iri is None:
            continue
        if iri in FOREIGN_SERVICES and i > 0 and tokens[i - 1].is_word("SERVICE"):
            raise _refuse(FOREIGN_SERVICES[iri], profile, "it exists only on WDQS; find the items with patterns")
        if iri in QLEVER_TEXT and profile.name != "qlever":
            raise _refuse(
                f"{QLEVER_TEXT[iri]} (QLever's text search)", profile, "use FILTER(CONTAINS(LCASE(STR(?text)), ...))"
            )
        if iri.startswith(_BDS) and iri != f"{_BDS}search":
            raise _refuse(
                f"bds:{iri[len(_BDS) :]} (a Blazegraph full-text search parameter)",
                profile,
                'only a plain ?text bds:search "words" is rewritten',
            )


def _triple_at(tokens: list[Token], i: int) -> tuple[Token, Token, Token] | None:
    """The subject-predicate-object starting a statement at ``i`` (after ``{`` or ``.``), if it is one."""
    if i + 2 >= len(tokens) or (i > 0 and tokens[i - 1].text not in ("{", ".")):
        return None
    return tokens[i], tokens[i + 1], tokens[i + 2]


def _statement_end(tokens: list[Token], i: int) -> int:
    """Index just past a three-token statement at ``i`` and its ``.`` if one follows."""
    end = i + 3
    return end + 1 if end < len(tokens) and tokens[end].text == "." else end


def _hint_triples(tokens: list[Token], prefixes: Mapping[str, str], profile: EndpointProfile) -> list[tuple[int, int]]:
    """Hint statements (``hint:Query hint:optimizer "None" .``) as spans to remove; any other hint is refused."""
    found: list[tuple[int, int]] = []
    covered = -1
    for i, token in enumerate(tokens):
        if i <= covered or not (expand_iri(token, prefixes) or "").startswith(_HINT):
            continue
        triple = _triple_at(tokens, i)
        if triple is None or not (expand_iri(triple[1], prefixes) or "").startswith(_HINT):
            raise _refuse(f"the query hint {token.text}", profile, "hints are Blazegraph's; write it as its own triple")
        end = _statement_end(tokens, i)
        if tokens[end - 1].text != "." and (end >= len(tokens) or tokens[end].text != "}"):
            raise _refuse("a Blazegraph query hint inside a longer statement", profile, "write it as its own triple")
        found.append((tokens[i].start, tokens[end - 1].end))
        covered = end - 1
    return found


def _text_searches(
    tokens: list[Token], prefixes: Mapping[str, str], profile: EndpointProfile
) -> list[tuple[int, int, str, str]]:
    found: list[tuple[int, int, str, str]] = []
    for i, token in enumerate(tokens):
        if expand_iri(token, prefixes) != f"{_BDS}search" or i == 0:
            continue
        subject, words = tokens[i - 1], tokens[i + 1] if i + 1 < len(tokens) else None
        if subject.kind != "var" or words is None or words.kind != "string" or _triple_at(tokens, i - 1) is None:
            raise _refuse("bds:search (Blazegraph's full-text search)", profile, 'write it as ?text bds:search "words"')
        # Bound elsewhere in a pattern: a mention inside braces other than this one (the projection is outside).
        elsewhere = sum(1 for t in tokens if t.kind == "var" and t.brace_depth > 0 and t.text[1:] == subject.text[1:])
        elsewhere -= 1
        if elsewhere < 1:
            raise _refuse(
                f"bds:search on {subject.text} (Blazegraph's full-text search)",
                profile,
                f"bind {subject.text} with a pattern (e.g. ?item rdfs:label {subject.text}) so it can become a FILTER",
            )
        end = _statement_end(tokens, i - 1)
        found.append((subject.start, tokens[end - 1].end, subject.text, words.text))
    return found


def _variable_comparisons(tokens: list[Token]) -> list[tuple[int, int, str, str, str]]:
    found: list[tuple[int, int, str, str, str]] = []
    for i in range(1, len(tokens) - 1):
        if tokens[i].kind == "punct" and tokens[i].text in _COMPARISONS and tokens[i].paren_depth > 0:
            left, right = tokens[i - 1], tokens[i + 1]
            before = tokens[i - 2].text if i >= 2 else ""
            after = tokens[i + 2].text if i + 2 < len(tokens) else ""
            # Only a bare ?a OP ?b (no arithmetic or function call on either side).
            if left.kind == right.kind == "var" and before in ("(", "&&", "||", "!") and after in (")", "&&", "||"):
                found.append((left.start, right.end, left.text, tokens[i].text, right.text))
    return found


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
