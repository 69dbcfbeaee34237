"""Answer checks run after execution and before ``stop`` is accepted (issue 13, point 4).

Each check reads the question, the final query, its result and the run's observations, and
returns findings: observations for the controller, never a rewrite of the query or the answer.

* :mod:`~saga_kgqa.checks.answer_type`: the result's values against the expected answer kind;
* :mod:`~saga_kgqa.checks.question_form`: yes/no, negation, "how many", superlatives;
* :mod:`~saga_kgqa.checks.know_before_use`: IRIs of the query that no observation showed (GRASP's check);
* :mod:`~saga_kgqa.checks.consistency`: a query sharing no entity and no predicate with the run.
"""

from saga_kgqa.checks.models import CheckInput, CheckName, Finding
from saga_kgqa.checks.run import CHECKS, run_checks

__all__ = ["CHECKS", "CheckInput", "CheckName", "Finding", "run_checks"]
