"""GRASP's know-before-use check: IRIs in the query that no observation of the run has shown."""

from __future__ import annotations

from collections.abc import Mapping

from saga_kgqa.checks.models import CheckInput, Finding
from saga_kgqa.checks.query_iris import local_id, query_iris, seen_in


def unseen_iris(item: CheckInput, prefixes: Mapping[str, str]) -> list[str]:
    """The query's IRIs that appear in none of the observations and that the graph does not hold, sorted."""
    texts = "\n".join(item.observations)
    unseen = (i for i in query_iris(item.sparql, prefixes) if not seen_in(i, texts, prefixes))
    return sorted(i for i in unseen if item.exists is None or not item.exists(i))


def check_know_before_use(item: CheckInput, prefixes: Mapping[str, str]) -> list[Finding]:
    """A finding naming the IRIs that may be invented (never seen in this run)."""
    unseen = unseen_iris(item, prefixes)
    if not unseen:
        return []
    names = ", ".join(local_id(i) for i in unseen[:5]) + (f" (+{len(unseen) - 5} more)" if len(unseen) > 5 else "")
    return [
        Finding(
            "know_before_use",
            f"{names} appeared in no observation of this run and the graph does not hold it: possibly invented; "
            "search for the right id first",
        )
    ]
