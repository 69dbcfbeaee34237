"""Identifier keys compared across sources: one id written ``1``, ``"001"``, ``"XX"``, ``" xx"`` or ``<…/XX>``.

Two sources rarely write a shared identifier the same way. One side types it as an integer,
the other as a string, a double or a zero-padded code; one writes ``"XX"``, the other
``"xx"``, ``"SCHEME:XX"``, ``" XX"`` or an IRI ending ``/XX``. A key is split into its written
parts (:class:`Written`: the IRI's namespace, surrounding whitespace, a scheme or namespace
prefix, the core, its case and zero padding, its datatype) and compared on its core
(:func:`match_key`). :func:`normalisation` names the *shown* transformations two matching keys
needed (``exact``, or steps such as ``case+prefix``), :func:`expression` writes them as a rule
(``money.usedIn = lower(countries.code)``), and :func:`render` writes a key in the form
another side stores it, so a bound query sends each side's stored form exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from saga_kgqa.kg.core.result import Term

Step = Literal["datatype", "trim", "numeric", "zero-padding", "local-name", "prefix", "case"]
#: A key pair's transformation: ``exact`` or its steps joined by ``+`` (in :data:`STEPS` order).
Normalisation = str
#: Steps from the least to the most lossy; a transformation's cost is its costliest step's.
STEPS: tuple[Step, ...] = ("datatype", "trim", "numeric", "zero-padding", "local-name", "prefix", "case")
#: How much each step costs a match (0: exact). A datatype or a number's spelling loses nothing
#: (the value is the same); trimming little; a local name, a prefix or a case fold can join keys
#: that differ, so a match needing them ranks below an exact one of equal containment.
LOSS: dict[str, float] = {
    "exact": 0.0,
    "datatype": 0.02,
    "numeric": 0.05,
    "zero-padding": 0.05,
    "trim": 0.15,
    "local-name": 0.3,
    "prefix": 0.3,
    "case": 0.3,
}
#: Keys whose core is longer than this are not identifiers; they are compared exactly.
MAX_KEY_CHARS = 64
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PADDED = re.compile(r"[+-]?0[0-9]+")
# A scheme or namespace prefix: ``urn:isbn:``, ``SCHEME:``, a CURIE's ``ex:``; never ``12:30`` or ``Note: x``.
_PREFIX = re.compile(r"(?:urn:(?:[A-Za-z0-9][\w.\-]*:)+|[A-Za-z][A-Za-z0-9+.\-_]{0,31}:)(?=[^\s/])", re.I)
_LEAD = re.compile(r"\A\s*")
_TRAIL = re.compile(r"\s*\Z")


@dataclass(frozen=True)
class Written:
    """How a key is written: ``namespace`` + ``lead`` + ``prefix`` + core + ``trail``, plus its term's kind.

    Attributes:
        kind: ``uri`` or ``literal``.
        datatype: The literal's datatype (``None``: a plain string or an IRI).
        lang: The literal's language tag.
        namespace: An IRI's part before its local name (``""`` for a literal).
        lead: Whitespace before the text.
        prefix: A scheme or namespace prefix of the text (``SCHEME:``, ``urn:x:``).
        core: The rest, as written.
        trail: Whitespace after the text.
        number: The core as a number (``"7"`` for ``"007"`` and ``7.0``), when it is one.
        case: ``upper``, ``lower`` or ``mixed`` (letters of the core), ``none`` without letters.
        width: The width of a zero-padded core (``"007"``: 3), else 0.
    """

    kind: str
    datatype: str | None
    lang: str | None
    namespace: str
    lead: str
    prefix: str
    core: str
    trail: str
    number: str | None
    case: str
    width: int

    @property
    def shape(self) -> tuple[object, ...]:
        """Everything :func:`render` copies: two keys of one shape are written the same way."""
        case = self.case if self.case in ("upper", "lower") else ""
        return (
            self.kind,
            self.datatype,
            self.lang,
            self.namespace,
            self.lead,
            self.prefix,
            self.trail,
            case,
            self.width,
        )


def written(term: Term) -> Written:
    """Split a term into its written parts (see :class:`Written`)."""
    text, namespace = term.value, ""
    if term.kind == "uri":
        cut = max(text.rfind("/"), text.rfind("#"))
        if cut < 0:
            cut = text.rfind(":")
        namespace, text = text[: cut + 1], text[cut + 1 :]
    lead = _LEAD.match(text).group(0)  # type: ignore[union-attr]
    trail = _TRAIL.search(text[len(lead) :]).group(0)  # type: ignore[union-attr]
    inner = text[len(lead) : len(text) - len(trail)]
    prefix = ""
    found = _PREFIX.match(inner) if len(inner) <= MAX_KEY_CHARS else None
    if found is not None and ":" not in inner[found.end() :]:
        prefix, inner = found.group(0), inner[found.end() :]
    number = _number(inner)
    letters = [ch for ch in inner if ch.isalpha()]
    case = (
        "none" if not letters else "upper" if inner.upper() == inner else "lower" if inner.lower() == inner else "mixed"
    )
    width = len(inner) if number is not None and _PADDED.fullmatch(inner) else 0
    return Written(term.kind, term.datatype, term.lang, namespace, lead, prefix, inner, trail, number, case, width)


def match_key(term: Term) -> str:
    """The form a key is compared in: its core, a number by value, other text case-folded.

    ``1``, ``"1"``, ``1.0``, ``"001"``, ``" 1"`` and ``<http://x/1>`` all map to ``"n:1"``;
    ``"A12"``, ``"a12"``, ``"SCHEME:A12"`` and ``<http://x/A12>`` to ``"s:a12"``. Language tags
    and datatypes are dropped. Text longer than :data:`MAX_KEY_CHARS` is compared as written.
    """
    parts = written(term)
    if len(parts.core) > MAX_KEY_CHARS:
        return f"x:{term.kind}:{term.value}"
    if parts.number is not None:
        return f"n:{parts.number}"
    return f"s:{parts.core.casefold()}"


def _number(text: str) -> str | None:
    if len(text) > MAX_KEY_CHARS or not _NUMBER.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def steps(left: Term, right: Term) -> tuple[Step, ...]:
    """The transformations that make two keys of the same :func:`match_key` meet (none: the same term)."""
    if left == right:
        return ()
    a, b = written(left), written(right)
    found: set[Step] = set()
    if a.kind != b.kind or a.namespace != b.namespace:
        found.add("local-name")
    if (a.lead, a.trail) != (b.lead, b.trail):
        found.add("trim")
    if a.prefix.casefold() != b.prefix.casefold():
        found.add("prefix")
    if a.core != b.core:
        if a.number is not None and b.number is not None:
            found.add("zero-padding" if a.width or b.width else "numeric")
        elif a.core.casefold() == b.core.casefold():
            found.add("case")
    if not found and (a.datatype, a.lang) != (b.datatype, b.lang):
        found.add("datatype")
    return tuple(step for step in STEPS if step in found)


def normalisation(left: Term, right: Term) -> Normalisation:
    """The transformation that joined two keys: ``exact`` or its steps (``case+prefix``)."""
    return "+".join(steps(left, right)) or "exact"


#: The cost of each step of a re-encoding: a transformation that maps each side's values one to one.
REENCODING_LOSS = 0.02


def loss(rule: Normalisation, *, reencoding: bool = False) -> float:
    """The cost of a transformation: its costliest step's, a little more for each further step.

    A ``reencoding`` (each side writes all its keys in one shape, and no two of a side's keys
    meet under the transformation: ``"ID:1"``, ``"ID:2"`` against ``1``, ``2``) loses nothing,
    and costs only :data:`REENCODING_LOSS` per step.
    """
    if rule == "exact":
        return 0.0
    parts = [LOSS.get(step, 0.6) for step in rule.split("+")]
    if reencoding:
        return min(REENCODING_LOSS * len(parts), max(parts))
    return min(max(parts) + 0.02 * (len(parts) - 1), 1.0)


def weakest(found: dict[Normalisation, int]) -> Normalisation:
    """The union of the steps some matched pair needed (what a join applies), ``exact`` if none."""
    used = {step for rule, count in found.items() if count and rule != "exact" for step in rule.split("+")}
    return "+".join(step for step in STEPS if step in used) or "exact"


def expression(rule: Normalisation, left: Term, right: Term, left_name: str, right_name: str) -> str:
    """The rule as shown: each side wrapped in what it needs, e.g. ``lower(a.code) = trim(b.code)``."""
    if rule == "exact":
        return f"{left_name} = {right_name}"
    a, b = written(left), written(right)
    used = set(rule.split("+"))
    return f"{_side(used, a, b, left_name)} = {_side(used, b, a, right_name)}"


def _side(used: set[str], own: Written, other: Written, name: str) -> str:
    text = name
    if "local-name" in used and own.kind == "uri":
        text = f"localname({text})"
    if "trim" in used and (own.lead or own.trail):
        text = f"trim({text})"
    if "prefix" in used and own.prefix and own.prefix.casefold() != other.prefix.casefold():
        text = f'unprefix("{own.prefix}", {text})'
    if ("numeric" in used or "zero-padding" in used) and own.number is not None and own.core != own.number:
        text = f"number({text})"
    if "case" in used and own.case != "lower" and own.case != "none" and own.case != other.case:
        text = f"lower({text})"
    if "datatype" in used and own.datatype:
        text = f"str({text})"
    return text


def render(key: Term, like: Written) -> Term:
    """``key`` written in the form ``like`` describes (its kind, datatype, namespace, prefix, case, padding).

    A key whose core is not a number keeps its letters, changed only to ``like``'s case when
    that is all upper or all lower.
    """
    own = written(key)
    if like.number is not None and own.number is None and like.datatype:
        return key  # a code that is no number is never written as a typed number
    core = own.core
    if own.number is not None and like.number is not None:
        core = own.number
        if like.width and core.isdigit():
            core = core.zfill(like.width)
    elif like.case == "upper":
        core = core.upper()
    elif like.case == "lower":
        core = core.lower()
    text = f"{like.lead}{like.prefix}{core}{like.trail}"
    if like.kind == "uri":
        return Term("uri", like.namespace + text)
    return Term("literal", text, like.datatype, like.lang)


def right_form(key: Term, like: Term) -> Term:
    """``key`` rewritten in the form of a stored value ``like`` (see :func:`render`)."""
    return render(key, written(like))
