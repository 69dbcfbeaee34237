"""Summaries of grounding measurements: per-graph and overall tables, token buckets, the RESULT line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from saga_kgqa.eval.grounding import MODES, GraphMeasurement, ModeTally, TokenSample

#: Neighbourhood sizes (number of values) the token comparison is split by: (label, low, high).
SIZE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("1-9", 1, 9),
    ("10-19", 10, 19),
    ("20-49", 20, 49),
    ("50+", 50, None),
)


@dataclass(frozen=True, slots=True)
class TokenRow:
    """Token totals of the entities in one neighbourhood-size bucket."""

    bucket: str
    entities: int
    compact_tokens: int
    raw_tokens: int

    @property
    def ratio(self) -> float | None:
        """Compact tokens per raw token (``None`` without entities)."""
        return self.compact_tokens / self.raw_tokens if self.raw_tokens else None


def merged(measurements: Sequence[GraphMeasurement], name: str = "overall") -> GraphMeasurement:
    """Pool several graphs' measurements (micro-averages: every use, entity and query weighs the same)."""
    total = GraphMeasurement(graph=name)
    for m in measurements:
        total.questions += m.questions
        total.uses += m.uses
        total.untyped_uses += m.untyped_uses
        total.unsampled_uses += m.unsampled_uses
        total.no_swap += m.no_swap
        total.errors.extend(m.errors)
        total.notes.extend(m.notes)
        total.tokens.extend(m.tokens)
        for mode in MODES:
            _add(total.modes[mode], m.modes[mode])
    return total


def _add(into: ModeTally, tally: ModeTally) -> None:
    into.typed_uses += tally.typed_uses
    into.retained_uses += tally.retained_uses
    into.lost.extend(tally.lost)
    into.hidden_shares.extend(tally.hidden_shares)
    into.false_blocks.update(tally.false_blocks)
    into.swaps += tally.swaps
    into.detected += tally.detected
    into.detected_without_trace += tally.detected_without_trace
    into.missed.extend(tally.missed)


def token_rows(samples: Iterable[TokenSample]) -> list[TokenRow]:
    """Token totals per neighbourhood-size bucket, then an ``all`` row."""
    samples = list(samples)
    rows = []
    for label, low, high in SIZE_BUCKETS:
        inside = [s for s in samples if s.values >= low and (high is None or s.values <= high)]
        rows.append(_token_row(label, inside))
    rows.append(_token_row("all", samples))
    return rows


def _token_row(label: str, samples: Sequence[TokenSample]) -> TokenRow:
    return TokenRow(label, len(samples), sum(s.compact_tokens for s in samples), sum(s.raw_tokens for s in samples))


def metric_rows(m: GraphMeasurement) -> list[tuple[str, str, str]]:
    """One graph's metrics as (metric, subclass-aware, exact) cells."""
    sub, exact = m.modes["subclass"], m.modes["exact"]

    def both(render: str, a: ModeTally, b: ModeTally) -> tuple[str, str]:
        return _cell(render, a), _cell(render, b)

    tokens = token_rows(m.tokens)[-1]
    rows = [
        ("questions", str(m.questions), ""),
        ("property uses (untyped / unsampled)", f"{m.uses} ({m.untyped_uses} / {m.unsampled_uses})", ""),
        ("retention", *both("retention", sub, exact)),
        ("reduction (mean share hidden)", *both("reduction", sub, exact)),
        ("false blocks", str(len(sub.false_blocks)), str(len(exact.false_blocks))),
        ("detection (Θ with sampled types)", *both("detection", sub, exact)),
        ("detection (query patterns only)", *both("detection_without_trace", sub, exact)),
        ("queries with no possible swap", str(m.no_swap), ""),
        (
            "tokens compact / raw JSON",
            f"{tokens.compact_tokens} / {tokens.raw_tokens} = {_share(tokens.ratio)}",
            f"{tokens.entities} entities",
        ),
    ]
    if m.errors:
        rows.append(("questions that failed", str(len(m.errors)), ""))
    return rows


def _cell(metric: str, tally: ModeTally) -> str:
    if metric == "retention":
        return f"{_share(tally.retention)} ({tally.retained_uses}/{tally.typed_uses})"
    if metric == "reduction":
        return f"{_share(tally.reduction)} ({len(tally.hidden_shares)} entities)"
    if metric == "detection":
        return f"{_share(tally.detection)} ({tally.detected}/{tally.swaps})"
    return f"{_share(tally.detection_without_trace)} ({tally.detected_without_trace}/{tally.swaps})"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def result_line(overall: GraphMeasurement) -> str:
    """The final ``RESULT`` line: shares as fractions, false blocks as a count (subclass-aware mode)."""
    sub, exact = overall.modes["subclass"], overall.modes["exact"]
    ratio = token_rows(overall.tokens)[-1].ratio
    return (
        f"RESULT retention={_fraction(sub.retention)} retention_exact={_fraction(exact.retention)} "
        f"reduction={_fraction(sub.reduction)} false_blocks={len(sub.false_blocks)} "
        f"detection={_fraction(sub.detection)} token_ratio={_fraction(ratio)}"
    )


def _fraction(value: float | None) -> str:
    return "nan" if value is None else f"{value:.4f}"
