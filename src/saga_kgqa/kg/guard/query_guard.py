r"""The read-only query guard every model- or user-written query passes before any backend.

Pipeline (docs/faults.md sections 3 and 8A):

1. Reject empty text, non-UTF-8 bytes, oversized text and control characters.
2. Expand ``\\u`` escapes once, as the SPARQL grammar does before parsing, and send the
   expanded text, so every store sees the text that was checked.
3. Tokenize (:mod:`saga_kgqa.kg.guard.sparql_lexer`): update verbs, a second operation after a
   top-level ``;``, query forms the policy forbids, and ``SERVICE`` clauses with a
   variable or a non-allowlisted IRI are rejected before parsing, with a precise message.
   Blazegraph named subqueries are inlined (:mod:`saga_kgqa.kg.guard.named_subqueries`).
   Virtuoso ``DEFINE`` pragmas and ``bif:`` / ``sql:`` IRIs are rejected here too
   (:mod:`saga_kgqa.kg.guard.extensions`).
4. Blank comments and plan the top-level LIMIT (:mod:`saga_kgqa.kg.guard.limit_rewrite`).
5. Parse the rewritten text once with rdflib (:mod:`saga_kgqa.kg.guard.sparql_grammar`);
   ``ParseException`` becomes a syntax error with line and column, ``RecursionError``
   becomes "too complex". Check in the parse tree that the LIMIT is the planned one.
6. Translate to rdflib's algebra with the profile's prefixes and walk it for every
   ``ServiceGraphPattern`` (inside OPTIONAL, UNION, MINUS, subqueries and
   ``FILTER (NOT) EXISTS``): each must name an allowlisted IRI after BASE and prefix
   resolution. Function calls must be SPARQL 1.1 built-ins, XSD casts or the profile's
   ``allowed_functions``; FROM / FROM NAMED must name an allowed graph.

Only then is a :class:`~saga_kgqa.kg.core.query.CheckedQuery` returned; backends accept
nothing else. Every rejection is a :class:`~saga_kgqa.errors.QueryRejected` whose message
is short and says what to change, because it goes back to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from pyparsing import ParseBaseException
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Variable

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryForm
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.extensions import (
    AllowedGraphs,
    check_datasets,
    check_functions,
    reject_engine_iris,
    reject_pragmas,
)
from saga_kgqa.kg.guard.limit_rewrite import first_keyword, join_path_modifiers, plan_limit
from saga_kgqa.kg.guard.limits import (
    expand_escapes,
    reject_control_chars,
    reject_costly,
    reject_surrogates,
    reject_updates,
)
from saga_kgqa.kg.guard.messages import (
    form_not_allowed,
    rejected_at,
    service_not_allowed,
    syntax_error,
    too_complex,
    unknown_prefix_or_invalid,
)
from saga_kgqa.kg.guard.named_subqueries import has_named_subqueries, inline_named_subqueries
from saga_kgqa.kg.guard.sparql_lexer import Token, blank_comments, tokenize

_FORM_KEYWORDS: dict[str, QueryForm] = {
    "SELECT": "SELECT",
    "CONSTRUCT": "CONSTRUCT",
    "DESCRIBE": "DESCRIBE",
    "ASK": "ASK",
}
_TREE_FORMS: dict[str, QueryForm] = {
    "SelectQuery": "SELECT",
    "ConstructQuery": "CONSTRUCT",
    "DescribeQuery": "DESCRIBE",
    "AskQuery": "ASK",
}


@dataclass(frozen=True)
class GuardPolicy:
    """What the guard lets through.

    Attributes:
        max_chars: Longest query accepted, in characters.
        max_tokens: Most tokens accepted; checked before parsing, which costs about a
            millisecond per expression term (benchmark queries have under 200 tokens).
        max_expression_tokens: Most tokens inside parentheses (function arguments,
            FILTER and BIND expressions), the costliest part to parse.
        allowed_forms: Query forms accepted. DESCRIBE is off by default because its
            output size is up to the store.
        default_limit: LIMIT injected when a query has none (``None``: the profile's).
        max_limit: Largest top-level LIMIT (``None``: the profile's); larger ones are clamped.
        max_construct_triples: Most triples a CONSTRUCT may produce (``None``: the
            effective ``max_limit``); enforced by clamping its LIMIT to this number
            divided by the template's size.
    """

    max_chars: int = 20_000
    max_tokens: int = 5_000
    max_expression_tokens: int = 500
    allowed_forms: frozenset[QueryForm] = field(default_factory=lambda: frozenset({"SELECT", "ASK", "CONSTRUCT"}))
    default_limit: int | None = None
    max_limit: int | None = None
    max_construct_triples: int | None = None

    def __post_init__(self) -> None:
        for name in (
            "max_chars",
            "max_tokens",
            "max_expression_tokens",
            "default_limit",
            "max_limit",
            "max_construct_triples",
        ):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"GuardPolicy.{name} must be at least 1, got {value}")
        unknown = set(self.allowed_forms) - set(_FORM_KEYWORDS)
        if unknown or not self.allowed_forms:
            raise ValueError(f"GuardPolicy.allowed_forms must be a non-empty subset of {sorted(_FORM_KEYWORDS)}")


class QueryGuard:
    """Checks query text against an endpoint profile and a policy.

    Instances hold no mutable state and may be shared between threads.
    """

    def __init__(
        self,
        profile: EndpointProfile,
        policy: GuardPolicy | None = None,
        *,
        allowed_graphs: Collection[str] | Callable[[], Collection[str]] = frozenset(),
    ) -> None:
        """Create a guard.

        Args:
            profile: The endpoint profile: predeclared prefixes, SERVICE allowlist,
                allowed functions and graphs, default / maximum LIMIT.
            policy: Overrides; :class:`GuardPolicy` defaults when omitted.
            allowed_graphs: Graphs FROM / FROM NAMED may name besides the profile's
                ``allowed_graphs`` (an embedded store's own named graphs); a callable is
                asked only when a query has a FROM clause.
        """
        self.profile = profile
        self._allowed_graphs = allowed_graphs
        self.policy = policy or GuardPolicy()
        self.max_limit = self.policy.max_limit or profile.max_limit
        self.default_limit = min(self.policy.default_limit or profile.default_limit, self.max_limit)
        self.max_construct_triples = self.policy.max_construct_triples or self.max_limit

    @property
    def allowed_graphs_source(self) -> Collection[str] | Callable[[], Collection[str]]:
        """The extra FROM / FROM NAMED graphs this guard was built with, for guards derived from it."""
        return self._allowed_graphs

    def check(self, text: str | bytes, *, default_limit: int | None = None) -> CheckedQuery:
        r"""Check a query and return the text that may be sent.

        Args:
            text: The query as written (``bytes`` must be UTF-8).
            default_limit: LIMIT to inject when the query has none, for this call only
                (e.g. one more than the caller's row cap); still clamped to the maximum.

        Returns:
            A query with origin ``guard``: its text has comments blanked, ``\\u`` escapes
            expanded and the top-level LIMIT injected or clamped (not for ASK).

        Raises:
            QueryRejected: The query is not a single, read-only, allowed query. Its
                ``reason`` is one of ``empty``, ``encoding``, ``too_large``,
                ``control_char``, ``escape``, ``update``, ``multiple_operations``,
                ``unsupported``, ``form``, ``service``, ``pragma``, ``function``,
                ``graph``, ``syntax``, ``unknown_prefix``, ``too_complex`` or ``rewrite``.
        """
        source = self._decode(text)
        if not source.strip():
            raise QueryRejected("empty query: send one SPARQL SELECT or ASK query", reason="empty")
        if len(source) > self.policy.max_chars:
            raise QueryRejected(
                f"query too long ({len(source)} characters; the limit is {self.policy.max_chars}): shorten it",
                reason="too_large",
            )
        expanded = expand_escapes(source)
        reject_control_chars(expanded)
        reject_surrogates(expanded)  # a \\uD800 escape expands to one
        tokens = tokenize(expanded)
        reject_costly(
            tokens, max_tokens=self.policy.max_tokens, max_expression_tokens=self.policy.max_expression_tokens
        )
        reject_pragmas(tokens, expanded)
        reject_updates(tokens, expanded)
        reject_engine_iris(tokens, expanded)
        if has_named_subqueries(tokens):
            expanded = inline_named_subqueries(expanded, tokens, max_chars=self.policy.max_chars)
            tokens = tokenize(expanded)
        form = self._query_form(tokens)
        prefixes = _used_prefixes(tokens, expanded, self.profile.prefixes)
        self._precheck_services(tokens)
        clean = blank_comments(expanded, tokens)
        try:
            inject = min(default_limit or self.default_limit, self.max_limit)
            sent, parsed, limit = self._parse(clean, tokens, form, inject)
            if _TREE_FORMS.get(parsed[1].name) != form:
                raise QueryRejected("could not determine the query form: start with SELECT or ASK", reason="rewrite")
            try:
                prepared = sparql_grammar.translate(parsed, prefixes)
            except RecursionError:
                raise
            except Exception as exc:  # rdflib raises bare Exception for semantic errors
                raise unknown_prefix_or_invalid(exc) from None
            self._check_services(prepared.algebra, tokens)
            check_functions(prepared.algebra, self.profile)
            check_datasets(prepared.algebra, AllowedGraphs(self.profile.allowed_graphs, self._allowed_graphs))
            if form == "CONSTRUCT":
                sent, limit = self._cap_construct(sent, prepared.algebra, limit)
        except RecursionError:
            raise too_complex() from None
        sent = _with_prefix_declarations(sent, prefixes, _declared_prefixes(tokens))
        written = None if limit is None else plan_limit(clean, tokens, default_limit=1, max_limit=2**62).original
        capped = limit is not None and (written is None or written > limit)
        return CheckedQuery(text=sent, form=form, origin="guard", limit=limit, source_text=source, limit_capped=capped)

    def _decode(self, text: str | bytes) -> str:
        if isinstance(text, str):
            reject_surrogates(text)
            return text
        # UTF-8 needs at most 4 bytes a character: anything longer is over the limit.
        if len(text) > 4 * self.policy.max_chars:
            raise QueryRejected(
                f"query too long ({len(text)} bytes; the limit is {self.policy.max_chars} characters): shorten it",
                reason="too_large",
            )
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise QueryRejected(
                f"query is not valid UTF-8 (bad byte at offset {exc.start}): send it as plain UTF-8 text",
                reason="encoding",
            ) from None

    def _query_form(self, tokens: list[Token]) -> QueryForm:
        keyword = first_keyword(tokens)
        form = _FORM_KEYWORDS.get(keyword.text.upper()) if keyword is not None else None
        if form is None:
            # Not a query form: the parser reports the syntax error with its position.
            return "SELECT"
        if form not in self.policy.allowed_forms:
            raise form_not_allowed(form, self.policy.allowed_forms)
        return form

    def _precheck_services(self, tokens: list[Token]) -> None:
        """Reject SERVICE clauses whose target is visible in the tokens, before parsing."""
        prefixes = dict(self.profile.prefixes)
        base: str | None = None
        for index, token in enumerate(tokens):
            if token.is_word("PREFIX") and index + 2 < len(tokens) and tokens[index + 2].kind == "iri":
                prefixes[tokens[index + 1].text[:-1]] = tokens[index + 2].text[1:-1]
            elif token.is_word("BASE") and index + 1 < len(tokens) and tokens[index + 1].kind == "iri":
                base = tokens[index + 1].text[1:-1]
            elif token.is_word("SERVICE"):
                target = next((t for t in tokens[index + 1 :] if not t.is_word("SILENT")), None)
                self._precheck_service_target(target, prefixes, base)

    def _precheck_service_target(self, target: Token | None, prefixes: dict[str, str], base: str | None) -> None:
        if target is None:
            return
        if target.kind == "var":
            raise service_not_allowed(target.text, self.profile)
        if target.kind == "iri":
            iri = target.text[1:-1]
            resolved = urljoin(base, iri) if base else iri
        elif target.kind == "pname" and target.text.split(":", 1)[0] in prefixes:
            prefix, local = target.text.split(":", 1)
            resolved = prefixes[prefix] + local
        else:
            return  # unknown prefix or odd syntax: the parser and the algebra walk decide
        if resolved not in self.profile.service_allowlist:
            raise service_not_allowed(resolved, self.profile)

    def _parse(self, clean: str, tokens: list[Token], form: QueryForm, inject: int) -> tuple[str, Any, int | None]:
        try:
            return self._parse_with_limit(clean, tokens, form, self.max_limit, inject)
        except ParseBaseException as first_error:
            # rdflib wants path modifiers glued to their element ("wdt:P279*"), the
            # grammar does not; retry once with the gaps closed.
            joined = join_path_modifiers(clean, tokens)
            if joined != clean:
                try:
                    return self._parse_with_limit(joined, tokenize(joined), form, self.max_limit, inject)
                except ParseBaseException:
                    pass
            # Locate the error in the text as written, without the planned LIMIT.
            try:
                sparql_grammar.parse_query(clean)
            except ParseBaseException as exc:
                raise syntax_error(clean, tokens, exc) from None
            raise _rewrite_failed() from first_error

    def _parse_with_limit(
        self, text: str, tokens: list[Token], form: QueryForm, max_limit: int, inject: int | None = None
    ) -> tuple[str, Any, int | None]:
        if form == "ASK":
            return text, sparql_grammar.parse_query(text), None
        default = self.default_limit if inject is None else inject
        plan = plan_limit(text, tokens, default_limit=min(default, max_limit), max_limit=max_limit)
        parsed = sparql_grammar.parse_query(plan.text)
        if _top_level_limit(parsed[1]) != plan.limit:
            raise _rewrite_failed()
        return plan.text, parsed, plan.limit

    def _check_services(self, algebra: Any, tokens: list[Token]) -> None:
        found = 0
        for node in sparql_grammar.iter_components(algebra, "ServiceGraphPattern"):
            found += 1
            term = node.get("term")
            if isinstance(term, Variable) or str(term) not in self.profile.service_allowlist:
                raise service_not_allowed(term.n3() if isinstance(term, Variable) else str(term), self.profile)
        written = sum(1 for token in tokens if token.is_word("SERVICE"))
        if found < written:
            # Defence in depth: never send a SERVICE clause the algebra walk did not see.
            raise QueryRejected("SERVICE clauses could not all be checked: remove them", reason="service")

    def _cap_construct(self, text: str, algebra: Any, limit: int | None) -> tuple[str, int | None]:
        template = algebra.get("template")
        if template is None:  # CONSTRUCT WHERE { ... }: the pattern is the template
            template = [t for bgp in sparql_grammar.iter_components(algebra, "BGP") for t in bgp.triples]
        cap = max(1, self.max_construct_triples // max(1, len(template)))
        if limit is None or limit <= cap:
            return text, limit
        try:
            sent, _, new_limit = self._parse_with_limit(text, tokenize(text), "CONSTRUCT", cap)
        except ParseBaseException:
            raise QueryRejected("could not cap this CONSTRUCT query: add a smaller LIMIT", reason="rewrite") from None
        return sent, new_limit


def _rewrite_failed() -> QueryRejected:
    # Only reachable if the token-level LIMIT planning and the grammar disagree.
    return QueryRejected(
        "could not apply the LIMIT to this query: add 'LIMIT n' after the WHERE block and resend",
        reason="rewrite",
    )


def _declared_prefixes(tokens: list[Token]) -> set[str]:
    """Return the prefixes the query declares itself with PREFIX."""
    return {
        tokens[index + 1].text[:-1]
        for index, token in enumerate(tokens[:-1])
        if token.is_word("PREFIX") and tokens[index + 1].kind == "pname"
    }


def _with_prefix_declarations(text: str, prefixes: Mapping[str, str], declared: set[str]) -> str:
    """Prepend PREFIX lines for the profile prefixes the query uses without declaring.

    The guard parsed the query with the profile's prefixes; stores such as Fuseki or
    QLever predeclare none of them, so the text sent must carry the same declarations.
    """
    missing = sorted((name, iri) for name, iri in prefixes.items() if name not in declared)
    if not missing:
        return text
    return "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in missing) + text


def _used_prefixes(tokens: list[Token], text: str, predeclared: Mapping[str, str]) -> dict[str, str]:
    """Return the predeclared prefixes the query uses; reject a prefix declared nowhere.

    rdflib resolves some thirty well-known prefixes (``foaf:``, ``dcterms:``, ...) on its
    own, which no store does, so undeclared prefixes are caught here instead. Passing
    only the prefixes in use also keeps rdflib's per-query namespace binding cheap.
    """
    declared = _declared_prefixes(tokens)
    used: dict[str, str] = {}
    for token in tokens:
        if token.kind != "pname":
            continue
        prefix = token.text.split(":", 1)[0]
        if prefix in predeclared:
            used[prefix] = predeclared[prefix]
        elif prefix not in declared:
            advice = f": declare it with PREFIX {prefix}: <namespace IRI>"
            raise rejected_at(text, token.start, "unknown_prefix", f"unknown prefix '{prefix}:'", advice)
    return used


def _top_level_limit(query: CompValue) -> int | None:
    clauses = query.get("limitoffset")
    if clauses is None or clauses.get("limit") is None:
        return None
    return int(clauses.get("limit"))
