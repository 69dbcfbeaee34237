"""The source summary shortens each class's detail before it drops a class (issue 22, point 3)."""

from __future__ import annotations

from saga_kgqa.sources.summary import ClassSummary, PropertyLine, SourceSummary, render_summary


def _summary(classes: int, properties: int) -> SourceSummary:
    return SourceSummary(
        source="unseen",
        title="graph of things",
        description="classes: many",
        declared_schema=False,
        built_at="2026-12-02T00:00:00+00:00",
        classes=tuple(
            ClassSummary(
                id=f":class_number_{c}",
                instances=100 + c,
                properties=tuple(
                    PropertyLine(
                        property=f":class_{c}_property_{p}",
                        used_by=50,
                        kinds={"literal": 50},
                        types=("xsd:string",),
                        examples=(f'"an example value of property {p} that is long"', '"another one, also long"'),
                    )
                    for p in range(properties)
                ),
                example_query=f"SELECT ?s ?value WHERE {{ ?s a :class_number_{c} ; :class_{c}_property_0 ?value }}",
                example_rows=5,
            )
            for c in range(classes)
        ),
    )


def test_every_class_stays_when_detail_is_shortened() -> None:
    summary = _summary(classes=11, properties=12)
    text = render_summary(summary)
    assert len(text) <= 6000
    for c in range(11):
        assert f":class_number_{c} " in text
        # Each class keeps its property names, even where examples were cut.
        assert f":class_{c}_property_11" in text
    assert "left out:" in text and "SELECT ?p" in text


def test_a_summary_that_fits_is_shown_whole() -> None:
    text = render_summary(_summary(classes=2, properties=3))
    assert "left out" not in text and "e.g." in text and "example (5 rows)" in text


def test_classes_are_dropped_last_and_the_summary_says_which_and_how_to_list_them() -> None:
    text = render_summary(_summary(classes=200, properties=12))
    assert len(text) <= 6000
    assert ":class_number_0 " in text
    assert "classes left out" in text and "GROUP BY ?c" in text


def test_properties_beyond_the_detailed_ones_are_still_named() -> None:
    text = render_summary(_summary(classes=1, properties=15))
    assert "left out" not in text
    assert all(f":class_0_property_{p}" in text for p in range(15))
