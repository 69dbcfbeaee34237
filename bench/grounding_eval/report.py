"""Summaries of grounding measurements: per-graph and overall tables, token buckets, the RESULT line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.grounding_eval.measurement import MODES, GraphMeasurement, ModeTally, TokenSample

#: Neighbourhood sizes (number of values) the token comparison is split by: (label, low, high).
SIZE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("1-9", 1, 9),
    ("10-19", 10, 19),
    ("20-49", 20, 49),
    ("50-99", 50, 99),
    ("100+", 100, None),
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
    into.empty_gold_blocks.update(tally.empty_gold_blocks)
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


def token_table(samples: Iterable[TokenSample], noun: str = "entities", against: str = "raw JSON") -> str:
    """The token buckets of :func:`token_rows` as an aligned text table.

    ``noun`` heads the count column and ``against`` names what the compact text is compared with.
    """
    rows = [
        (row.bucket, str(row.entities), str(row.compact_tokens), str(row.raw_tokens), _ratio_text(row.ratio))
        for row in token_rows(samples)
    ]
    return aligned(["values", noun, "compact", against, "compact/raw" if against == "raw JSON" else "ratio"], rows)


def _ratio_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _token_row(label: str, samples: Sequence[TokenSample]) -> TokenRow:
    return TokenRow(label, len(samples), sum(s.compact_tokens for s in samples), sum(s.raw_tokens for s in samples))


#: Column headers of :func:`summary_row`, with what each means.
SUMMARY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("graph", "graph"),
    ("qs", "gold questions"),
    ("uses(unt/uns)", "property uses (with untyped / unsampled subjects)"),
    ("ret.sub", "retention, subclass-aware"),
    ("ret.exact", "retention, exact"),
    ("red.sub", "reduction (mean share of outgoing properties hidden), subclass-aware"),
    ("red.exact", "reduction, exact"),
    ("fblk s/e", "gold queries blocked (false blocks), subclass-aware / exact"),
    ("det.sub", "swapped queries blocked, subclass-aware, Θ with the variables' sampled types (agreement figure)"),
    ("det.exact", "the same, exact"),
    ("det.notrace", "the same, subclass-aware, Θ empty (query type patterns and constants only)"),
    ("noswap", "queries with no typed subject that a declared domain excludes"),
    ("tok c/r", "tokens compact lookup / SPINACH raw JSON (entities)"),
)


#: Printed beside every swap-based detection figure: what it does and does not measure.
AGREEMENT_NOTE = (
    "note: detection figures are agreement figures: each swap is chosen with the same compatibility verdict "
    "the pre-execution check applies, so they show that the two code paths agree, not how well the check "
    "discriminates; the check on queries real models wrote is measured separately"
)


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain aligned text: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        first, *rest = cells
        return "  ".join([first.ljust(widths[0]), *(c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))])

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(row) for row in rows)])


def summary_row(m: GraphMeasurement) -> tuple[str, ...]:
    """One graph's metrics in both modes, as cells under :data:`SUMMARY_COLUMNS` (shares with their counts)."""
    sub, exact = m.modes["subclass"], m.modes["exact"]
    tokens = token_rows(m.tokens)[-1]
    return (
        m.graph,
        str(m.questions),
        f"{m.uses} ({m.untyped_uses}/{m.unsampled_uses})",
        _counted(sub.retention, sub.retained_uses, sub.typed_uses),
        _counted(exact.retention, exact.retained_uses, exact.typed_uses),
        _share(sub.reduction),
        _share(exact.reduction),
        f"{len(sub.false_blocks)}/{len(exact.false_blocks)}",
        _counted(sub.detection, sub.detected, sub.swaps),
        _counted(exact.detection, exact.detected, exact.swaps),
        _counted(sub.detection_without_trace, sub.detected_without_trace, sub.swaps),
        str(m.no_swap),
        f"{_share(tokens.ratio)} ({tokens.entities})",
    )


def _counted(value: float | None, part: int, whole: int) -> str:
    return f"{_share(value)} {part}/{whole}"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def result_line(overall: GraphMeasurement) -> str:
    """The final ``RESULT`` line: shares as fractions, false blocks as a count (subclass-aware mode)."""
    sub, exact = overall.modes["subclass"], overall.modes["exact"]
    ratio = token_rows(overall.tokens)[-1].ratio
    return (
        f"RESULT retention={_fraction(sub.retention)} retention_exact={_fraction(exact.retention)} "
        f"reduction={_fraction(sub.reduction)} false_blocks={len(sub.false_blocks)} "
        f"blocked_empty_gold={len(sub.empty_gold_blocks)} "
        f"detection={_fraction(sub.detection)} token_ratio={_fraction(ratio)}"
    )


def _fraction(value: float | None) -> str:
    return "nan" if value is None else f"{value:.4f}"
