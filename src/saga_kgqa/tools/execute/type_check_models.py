"""What the pre-execution type check reports (:mod:`saga_kgqa.tools.execute.type_check`), and its settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from saga_kgqa.kg.core.clock import Deadline
from saga_kgqa.schema import CompatibilityMode, SchemaSource

Side = Literal["subject", "object"]
#: Where a term's types came from: its declared types, a type pattern of the query, Θ of
#: earlier steps, a literal's datatype, or the range of the path step before a path's middle node.
TypesOrigin = Literal["graph", "query", "type_state", "literal", "range"]


class BlockedPattern(BaseModel):
    """One triple pattern that contradicts what is known about its subject's (or object's) type.

    Attributes:
        pattern: The pattern as written for display (prefixed names).
        side: ``subject`` (a domain conflict) or ``object`` (a range conflict).
        term: The subject or object, for display.
        term_types: Its known types.
        types_from: Where those types came from.
        property_iri: The property.
        constraint: The property's domain (or range).
        constraint_source: Where the domain (or range) came from.
        reason: The compatibility verdict's sentence.
        verified: True when a graph query confirmed that no such triple exists.
    """

    model_config = ConfigDict(frozen=True)

    pattern: str
    side: Side
    term: str
    term_types: tuple[str, ...]
    types_from: TypesOrigin
    property_iri: str
    constraint: tuple[str, ...]
    constraint_source: SchemaSource
    reason: str
    verified: bool


class TypeCheckReport(BaseModel):
    """What the pre-execution type check found.

    Attributes:
        blocked: The conflicting patterns (empty: the query may run).
        checked: Patterns whose subject or object had known types and a known constraint.
        constant_types: Declared types read from the graph for the query's constants.
        overruled: Conflicts the schema predicted but the graph contradicted (not blocked).
        notes: Remarks (a helper query failed, too many constants, ...).
    """

    model_config = ConfigDict(frozen=True)

    blocked: tuple[BlockedPattern, ...] = ()
    checked: int = 0
    constant_types: dict[str, frozenset[str]] = {}
    overruled: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TypeCheckSettings:
    """Knobs of the pre-execution type check.

    Attributes:
        mode: ``subclass`` (subclass-aware, default) or ``exact`` (the paper's intersection).
        check_ranges: Also check objects of known type against the property's range.
        verify: Confirm each conflict with one bounded ASK before blocking.
        block_sources: Schema sources trusted to block (formal, induced, surveyed).
        max_constants: Most constants whose types are read from the graph.
        deadline_s: Budget of each helper query.
        until: The execute call's total deadline; each helper query gets at most what is
            left of it (none is sent once it has passed).
        unplaced_types_block: Let a term block even when one of its types has no known
            place in the hierarchy (:meth:`SchemaIndex.placed_classes`). Off for graphs whose
            hierarchy is mostly missing (offline Wikidata): such a type may be a subclass
            of the domain, so the conflict is not certain.
        plain_literals_typed: Read a plain literal constant (``"33"``) as ``xsd:string``.
            Off for stores that match plain strings against typed values (the Virtuoso
            Freebase behind CWQ answers ``presidency_number "33"``).
    """

    mode: CompatibilityMode = "subclass"
    check_ranges: bool = True
    verify: bool = True
    block_sources: frozenset[SchemaSource] = frozenset({"formal", "induced", "surveyed"})
    unplaced_types_block: bool = True
    plain_literals_typed: bool = True
    max_constants: int = 50
    deadline_s: float = 5.0
    until: Deadline | None = None

    def probe_deadline_s(self) -> float:
        """The budget of the next helper query: ``deadline_s``, or less when ``until`` is nearer.

        Raises:
            QueryTimeout: ``until`` has passed; nothing may be sent.
        """
        return self.deadline_s if self.until is None else self.until.cap(self.deadline_s)
