"""Run the enabled answer checks and collect their findings."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from saga_kgqa.checks.answer_type import check_answer_type
from saga_kgqa.checks.consistency import check_consistency
from saga_kgqa.checks.dependent_step import check_dependent_step
from saga_kgqa.checks.know_before_use import check_know_before_use
from saga_kgqa.checks.models import CheckInput, CheckName, Finding
from saga_kgqa.checks.question_form import check_question_form

_Check = Callable[[CheckInput, Mapping[str, str]], list[Finding]]

CHECKS: dict[CheckName, _Check] = {
    "answer_type": lambda item, _prefixes: check_answer_type(item),
    "question_form": lambda item, _prefixes: check_question_form(item),
    "know_before_use": check_know_before_use,
    "consistency": check_consistency,
    "dependent_step": lambda item, _prefixes: check_dependent_step(item),
}


def run_checks(item: CheckInput, prefixes: Mapping[str, str], enabled: Collection[CheckName]) -> list[Finding]:
    """The findings of every enabled check, in the order of :data:`CHECKS`."""
    found: list[Finding] = []
    for name, check in CHECKS.items():
        if name in enabled:
            found.extend(check(item, prefixes))
    return found
