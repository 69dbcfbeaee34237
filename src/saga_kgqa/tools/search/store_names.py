"""Names streamed straight from an embedded store's indexes, for building its full-text index.

Reading names with one SPARQL query per predicate materialised every row in Python (about
1.5 KB per triple at 5M triples) and stopped at ``names_per_predicate`` (500,000): at 5M
triples 15% of entities could not be found by their exact label. Here each name predicate's
triples are iterated from the store's own index (``quads_for_pattern``), one at a time, so the
memory of a build is the index writer's budget, whatever the graph's size, and nothing is
capped: every name of every IRI is indexed, in every language, with its language tag (search ranks
the question's language first). Typed literals (numbers, dates) are values, not names, and are left out.

Iteration follows the store's index order, which is the same on every run over the same
content: a build interrupted midway resumes by skipping the names it already committed
(:mod:`saga_kgqa.tools.search.streamed_build`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.vocab import XSD_STRING
from saga_kgqa.tools.search.label_index import NameEntry

#: IRIs whose local name was indexed, remembered by a 64-bit hash (about 60 bytes each, so about
#: 480 MB at the cap, and only on graphs with that many named IRIs). Past it the memory is cleared:
#: an IRI named again later gets a second local-name entry, which search merges (one hit per IRI),
#: rather than memory growing with the graph. At 1,000,000 the cap sat just below the 10M-triple
#: bench graph's 1,000,000 entities: every name of the second and third name predicate re-indexed
#: its IRI's local name, 3M extra documents (`saga load` at 10M went from 202 s to 174 s without them).
SEEN_CAP = 8_000_000


#: One streamed name: (IRI, text, language tag or "", predicate index, position, first name of its IRI).
NameRow = tuple[str, str, str, int, int, bool]


@dataclass(frozen=True, slots=True)
class StreamedName:
    """One name as streamed: the entry, its predicate's position, and whether it is its IRI's first name.

    Attributes:
        entry: The IRI, the literal's text and the predicate it came from.
        predicate_index: The predicate's position in the list streamed.
        position: The triple's position among its predicate's triples (a resume point skips that many).
        first_of_resource: The first name streamed for this IRI: its local name is indexed here.
    """

    entry: NameEntry
    predicate_index: int
    position: int
    first_of_resource: bool


class StoreNames:
    """The names of a store's IRIs under some predicates, read from its indexes without a query."""

    def __init__(self, store_dir: Path, predicates: Sequence[str], *, seen_cap: int = SEEN_CAP) -> None:
        """Open ``store_dir`` read-only.

        Args:
            store_dir: An embedded store directory.
            predicates: Name predicates, preferred first (names of every language are streamed,
                each with its tag; search ranks the question's language first).
            seen_cap: IRIs remembered (by hash) so that each one's local name is indexed once.

        Raises:
            ConfigurationError: The directory is not a readable store.
        """
        try:
            self._store = ox.Store.read_only(str(store_dir))
        except OSError as exc:
            raise ConfigurationError(f"cannot open store {store_dir}: {exc}") from exc
        self._predicates = [ox.NamedNode(p) for p in predicates]
        #: The streamed predicates' IRIs, by predicate index.
        self.sources: tuple[str, ...] = tuple(predicates)
        self._seen_cap = seen_cap

    def stream(self, *, start: tuple[int, int] = (0, 0)) -> Iterator[StreamedName]:
        """Yield every name, predicate by predicate, from ``start`` = (predicate index, triples to skip in it)."""
        for resource, text, language, index, position, first in self.rows(start=start):
            yield StreamedName(NameEntry(resource, text, self.sources[index], language), index, position, first)

    def rows(self, *, start: tuple[int, int] = (0, 0), seen: set[int] | None = None) -> Iterator[NameRow]:
        """What :meth:`stream` yields, as plain tuples: (IRI, text, language tag, predicate index, position, first).

        The index build takes these: a dataclass per name cost a tenth of its time at 10M triples.
        ``seen`` carries the IRIs already given their local name across calls (a build that streams in parts).
        """
        first_predicate, skip = start
        seen = set() if seen is None else seen
        cap, string = self._seen_cap, XSD_STRING
        for index in range(first_predicate, len(self._predicates)):
            quads = self._store.quads_for_pattern(None, self._predicates[index], None, None)
            for position, quad in enumerate(quads):
                if position < skip and index == first_predicate:
                    continue
                subject, obj = quad.subject, quad.object
                if type(subject) is not ox.NamedNode or type(obj) is not ox.Literal:
                    continue
                language = obj.language
                if language is None and obj.datatype.value != string:
                    continue  # numbers and dates are values, not names
                resource = subject.value
                key = hash(resource)
                first = key not in seen
                if first:
                    if len(seen) >= cap:
                        seen.clear()  # bounded: an IRI met again after this gets its local name once more
                    seen.add(key)
                yield resource, obj.value, language.lower() if language else "", index, position, first
