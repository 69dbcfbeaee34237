"""Do the result's values have the expected answer's type (number, date, boolean, entity, class)?"""

from __future__ import annotations

from saga_kgqa.checks.models import CheckInput, Finding
from saga_kgqa.kg.core.result import Term
from saga_kgqa.schema.vocab import NUMERIC_DATATYPES, XSD

#: Answer-type labels that ask for a name: numbers there are keys, not the answer.
_NAME_LABELS = frozenset({"name", "names", "title", "label", "person", "people", "string", "text", "word"})
_DATES = frozenset(XSD + name for name in ("date", "dateTime", "gYear", "gYearMonth", "dateTimeStamp"))


def check_answer_type(item: CheckInput) -> list[Finding]:
    """Findings on the result's values against the expected answer kind and class."""
    if item.expected == "boolean":
        if item.form != "ASK":
            return [Finding("answer_type", "the expected answer is yes or no, but the query is not an ASK")]
        return []
    values = [term for row in item.rows for term in row.values()]
    if item.form == "SELECT" and not item.rows:
        return [
            Finding(
                "answer_type",
                "the final query returns no rows: a question rarely asks for nothing; "
                "read the empty-result diagnosis before stopping",
            )
        ]
    if not values:
        return []
    uris = sum(1 for t in values if t.kind == "uri")
    if item.expected in ("quantity", "count") and not any(_is_number(t) for t in values):
        what = "entities" if uris else "literals that are not numbers"
        return [Finding("answer_type", f"the results are {what}; the expected answer is a number: is a hop missing?")]
    if item.expected == "date" and not any(_is_date(t) for t in values):
        what = "entities" if uris else "literals that are not dates"
        return [Finding("answer_type", f"the results are {what}; the expected answer is a date: is a hop missing?")]
    if _asks_for_a_name(item) and all(_is_number(t) for t in values):
        shown = ", ".join(t.value for t in values[:3])
        return [
            Finding(
                "answer_type",
                f"the results are numbers ({shown}); the expected answer is a name: are these ids or keys? "
                "take the name property (or the label) of what they identify",
            )
        ]
    if item.expected == "entity" and not uris:
        return [Finding("answer_type", "the results are literals; the expected answer is an entity")]
    if item.expected_types and item.result_types and not item.result_types & item.expected_types:
        shown = ", ".join(sorted(_local(t) for t in item.result_types)[:3])
        wanted = ", ".join(sorted(_local(t) for t in item.expected_types)[:3])
        return [
            Finding(
                "answer_type",
                f"the results are of types {shown}; the expected answer is {wanted}: "
                "does the answer type apply to another variable?",
            )
        ]
    return []


def _asks_for_a_name(item: CheckInput) -> bool:
    """The prior names a name ("name", "person"), not a number, a date or a yes/no."""
    if item.expected in ("quantity", "count", "date", "boolean"):
        return False
    return item.expected_label.strip().casefold() in _NAME_LABELS


def _is_number(term: Term) -> bool:
    if term.kind != "literal":
        return False
    if term.datatype in NUMERIC_DATATYPES:
        return True
    try:
        float(term.value)
    except ValueError:
        return False
    return True


def _is_date(term: Term) -> bool:
    if term.kind != "literal":
        return False
    if term.datatype in _DATES:
        return True
    text = term.value
    return len(text) >= 4 and text[:4].isdigit() and (len(text) == 4 or text[4] == "-")


def _local(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
