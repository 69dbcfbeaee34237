"""The knowledge log as the controller reads it: failures kept, type discoveries summarised, one budget.

The prompt tells the controller to avoid repeating failed approaches, so a failure (blocked,
empty, rejected, error, refused), and the answer checks' findings on a stop (flagged), stay visible
for the rest of the run; the same failure seen again is one line with its steps. ``[info]`` type
discoveries, which a few lookups produce by the dozen, become one summary line. Recent ``ok`` outcomes fill what the
budget leaves. Lines are ordered by step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from saga_kgqa.state import KnowledgeEntry

OUTCOME_TAGS = {
    "ok": "[ok]",
    "info": "[info]",
    "empty": "[fail] Empty",
    "blocked": "[fail] BLOCKED",
    "rejected": "[fail] rejected",
    "error": "[fail] error",
    "refused": "[fail] refused",
    "flagged": "[check] flagged",
}
#: Kept visible for the rest of the run: failures, and the answer checks' findings on a stop.
_FAILURES = frozenset({"empty", "blocked", "rejected", "error", "refused", "flagged"})
#: Subjects named in the type summary line before "+N more".
_SUBJECTS_NAMED = 4


@dataclass(slots=True)
class _Failure:
    outcome: str
    summary: str
    steps: list[int] = field(default_factory=list)

    def line(self) -> str:
        tag = OUTCOME_TAGS[self.outcome]
        if len(self.steps) == 1:
            return f"{tag} step {self.steps[0]}: {self.summary}"
        steps = ", ".join(str(s) for s in self.steps)
        return f"{tag} steps {steps} ({len(self.steps)} times): {self.summary}"


def knowledge_log_text(entries: Sequence[KnowledgeEntry], limit: int) -> str:
    """At most ``limit`` lines: every distinct failure, one type summary, then the latest ``ok`` outcomes."""
    if not limit or not entries:
        return "(nothing yet)"
    failures: dict[tuple[str, str], _Failure] = {}
    infos = [e for e in entries if e.outcome == "info"]
    oks = [e for e in entries if e.outcome not in _FAILURES and e.outcome != "info"]
    for entry in entries:
        if entry.outcome in _FAILURES:
            failure = failures.setdefault((entry.outcome, entry.summary), _Failure(entry.outcome, entry.summary))
            if entry.step not in failure.steps:
                failure.steps.append(entry.step)
    # (last step, line): failures first claim the budget, then the type summary, then ok outcomes.
    chosen: list[tuple[int, str]] = []
    ordered = sorted(failures.values(), key=lambda f: f.steps[-1])
    room = limit - (1 if infos else 0) - (1 if oks else 0)
    room = max(room, 1)
    if len(ordered) > room:
        dropped, ordered = ordered[: len(ordered) - room + 1], ordered[len(ordered) - room + 1 :]
        steps = sorted(s for f in dropped for s in f.steps)
        span = f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else str(steps[0])
        chosen.append((-1, f"[fail] {len(dropped)} earlier failures not shown (steps {span})"))
    chosen.extend((f.steps[-1], f.line()) for f in ordered)
    if infos and len(chosen) < limit:
        chosen.append((infos[-1].step, _type_summary(infos)))
    left = limit - len(chosen)
    if left > 0:
        chosen.extend((e.step, f"{OUTCOME_TAGS[e.outcome]} step {e.step}: {e.summary}") for e in oks[-left:])
    chosen.sort(key=lambda item: item[0])
    return "\n".join(line for _step, line in chosen)


def _type_summary(infos: Sequence[KnowledgeEntry]) -> str:
    """One line for every type discovery: how many, over which steps, for which subjects."""
    steps = sorted({e.step for e in infos})
    span = f"steps {steps[0]}-{steps[-1]}" if len(steps) > 1 else f"step {steps[0]}"
    subjects: list[str] = []
    found = 0
    for entry in infos:
        subject, _sep, types = entry.summary.partition(" has type ")
        found += len(types.split(", ")) if types else 1
        if subject not in subjects:
            subjects.append(subject)
    named = ", ".join(subjects[:_SUBJECTS_NAMED])
    more = f" +{len(subjects) - _SUBJECTS_NAMED} more" if len(subjects) > _SUBJECTS_NAMED else ""
    latest = infos[-1].summary
    noun = "type" if found == 1 else "types"
    return f"[info] {span}: {found} {noun} found for {named}{more} (latest: {latest})"
