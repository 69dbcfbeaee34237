"""Two small sources cut from one concert graph: the only link is an identifier literal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.session import SourceSet

L = "http://left.example/"
R = "http://right.example/"
XSD = "http://www.w3.org/2001/XMLSchema#"

# (concert, stadium id, number of guests, year): the guests column repeats small integers that
# happen to cover more of the singers' ids than the stadium column covers of the stadiums'.
CONCERTS = [(1, 1, 1, 2014), (2, 2, 2, 2014), (3, 3, 3, 2015), (4, 4, 4, 2015), (5, 1, 5, 2014), (6, 2, 6, 2015)]
STADIUMS = [(1, "Hampden", 52500), (2, "Balmoor", 4000), (3, "Glebe Park", 3960), (4, "Somerset", 11998)]
SINGERS = [(n, f"Singer {n}") for n in range(1, 8)]


def _int(value: int) -> str:
    return f'"{value}"^^<{XSD}integer>'


def left_ttl() -> str:
    lines = []
    for concert, stadium, guests, year in CONCERTS:
        s = f"<{L}concert/{concert}>"
        lines += [
            f"{s} a <{L}Concert> .",
            f"{s} <{L}stadium_id> {_int(stadium)} .",
            f"{s} <{L}num_guests> {_int(guests)} .",
            f"{s} <{L}year> {_int(year)} .",
            f'{s} <{L}name> "Concert {concert}" .',
        ]
    return "\n".join(lines) + "\n"


def right_ttl(key: Callable[[int], str]) -> str:
    lines = []
    for stadium, name, capacity in STADIUMS:
        s = f"<{R}stadium/{stadium}>"
        lines += [
            f"{s} a <{R}Stadium> .",
            f"{s} <{R}stadiumId> {key(stadium)} .",
            f'{s} <{R}stadiumName> "{name}" .',
            f"{s} <{R}capacity> {_int(capacity)} .",
        ]
    for singer, name in SINGERS:
        s = f"<{R}singer/{singer}>"
        lines += [f"{s} a <{R}Singer> .", f"{s} <{R}singerId> {_int(singer)} .", f'{s} <{R}singerName> "{name}" .']
    return "\n".join(lines) + "\n"


KEY_FORMS: dict[str, Callable[[int], str]] = {
    "integer": _int,
    "string": lambda n: f'"{n}"',
    "padded": lambda n: f'"{n:03d}"',
    "double": lambda n: f'"{n}"^^<{XSD}double>',
    "prefix": lambda n: f'"ID:{n}"',
    "iri": lambda n: f"<{R}id/{n}>",
}


@pytest.fixture()
def concert_sources(tmp_path: Path) -> Iterator[Callable[[str], SourceSet]]:
    """Open the two halves with the right side's stadium ids written in one of :data:`KEY_FORMS`."""
    opened: list[SourceSet] = []

    def build(form: str) -> SourceSet:
        folder = tmp_path / form
        folder.mkdir()
        (folder / "left.ttl").write_text(left_ttl())
        (folder / "right.ttl").write_text(right_ttl(KEY_FORMS[form]))
        catalog = Catalog(
            sources={
                "concerts": SourceRecord(name="concerts", data=(folder / "left.ttl",)),
                "venues": SourceRecord(name="venues", data=(folder / "right.ttl",)),
            },
            default_source="concerts",
        )
        sources = SourceSet(catalog, survey_dir=folder / "cache", toolboxes=open_source_toolbox)
        opened.append(sources)
        return sources

    yield build
    for sources in opened:
        sources.close()
