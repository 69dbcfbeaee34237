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

The reading runs in a child process (:mod:`saga_kgqa.kg.embedded.names_main`), on the other core,
while this process indexes the names it sent before (issue 39: at 10M triples the read was 40% of
the index build, one after the other with the indexing). Should the child fail to start, the names
are read here instead, the same way.

What is not a name (issue 39): the vocabularies' description predicates (``rdfs:comment``,
``skos:definition``, ``dcterms:description``, ``schema:description``, Freebase's topic description)
are never streamed, whatever chose the predicates, and neither is any literal longer than
:data:`MAX_NAME_CHARS`. At 10M triples the bench graph's comments were a third of the "names".
"""

from __future__ import annotations

import contextlib
import marshal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.errors import BackendError, ConfigurationError
from saga_kgqa.kg.embedded import names_main
from saga_kgqa.kg.embedded.worker_process import pyoxigraph_search_dir
from saga_kgqa.schema.vocab import DCTERMS, DEFAULT_DESCRIPTION_PREDICATES, SCHEMA_ORG, SKOS
from saga_kgqa.tools.search.label_index import NameEntry

#: IRIs whose local name was indexed, remembered by a 64-bit hash (about 60 bytes each, so about
#: 480 MB at the cap, and only on graphs with that many named IRIs). Past it the memory is cleared:
#: an IRI named again later gets a second local-name entry, which search merges (one hit per IRI),
#: rather than memory growing with the graph. At 1,000,000 the cap sat just below the 10M-triple
#: bench graph's 1,000,000 entities: every name of the second and third name predicate re-indexed
#: its IRI's local name, 3M extra documents (`saga load` at 10M went from 202 s to 174 s without them).
SEEN_CAP = 8_000_000
#: Longest literal streamed as a name; a longer one is a description (titles of papers stay under it).
MAX_NAME_CHARS = 400
#: Predicates that describe rather than name, in every vocabulary the dialects use: never streamed as names.
DESCRIPTION_PREDICATES = frozenset(
    {
        *DEFAULT_DESCRIPTION_PREDICATES,
        SCHEMA_ORG + "description",
        DCTERMS + "abstract",
        "http://purl.org/dc/elements/1.1/description",
        SKOS + "scopeNote",
        "http://rdf.freebase.com/ns/common.topic.description",
    }
)
_FRAME_LIMIT = 1 << 30


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

    def __init__(
        self, store_dir: Path, predicates: Sequence[str], *, seen_cap: int = SEEN_CAP, in_process: bool = False
    ) -> None:
        """Check that ``store_dir`` is a readable store.

        Args:
            store_dir: An embedded store directory.
            predicates: Name predicates, preferred first (names of every language are streamed,
                each with its tag; search ranks the question's language first). Description
                predicates (:data:`DESCRIPTION_PREDICATES`) are dropped.
            seen_cap: IRIs remembered (by hash) so that each one's local name is indexed once.
            in_process: Read in this process instead of a child (tests; the fallback when none starts).

        Raises:
            ConfigurationError: The directory is not a readable store.
        """
        try:
            ox.Store.read_only(str(store_dir))
        except OSError as exc:
            raise ConfigurationError(f"cannot open store {store_dir}: {exc}") from exc
        self._dir = store_dir
        #: The streamed predicates' IRIs, by predicate index.
        self.sources: tuple[str, ...] = tuple(p for p in predicates if p not in DESCRIPTION_PREDICATES)
        self._seen_cap = seen_cap
        self._in_process = in_process

    def stream(self, *, start: tuple[int, int] = (0, 0)) -> Iterator[StreamedName]:
        """Yield every name, predicate by predicate, from ``start`` = (predicate index, triples to skip in it)."""
        for resource, text, language, index, position, first in self.rows(start=start):
            yield StreamedName(NameEntry(resource, text, self.sources[index], language), index, position, first)

    def rows(self, *, start: tuple[int, int] = (0, 0), seen: set[int] | None = None) -> Iterator[NameRow]:
        """What :meth:`stream` yields, as plain tuples: (IRI, text, language tag, predicate index, position, first).

        The index build takes these: a dataclass per name cost a tenth of its time at 10M triples.
        ``seen`` carries the IRIs already given their local name across calls (a build that streams in parts).

        Raises:
            BackendError: The child reading the names failed.
        """
        seen = set() if seen is None else seen
        cap = self._seen_cap
        for resource, text, language, index, position in self._read(start):
            key = hash(resource)
            first = key not in seen
            if first:
                if len(seen) >= cap:
                    seen.clear()  # bounded: an IRI met again after this gets its local name once more
                seen.add(key)
            yield resource, text, language, index, position, first

    def _read(self, start: tuple[int, int]) -> Iterator[tuple[str, str, str, int, int]]:
        if not self.sources[start[0] :]:
            return
        if not self._in_process:
            try:
                reader = _ChildReader(self._dir, start, self.sources)
            except OSError:
                pass  # no child: read here
            else:
                yield from reader.rows()
                return
        store = ox.Store.read_only(str(self._dir))
        yield from names_main.iter_names(store, ox, start[0], start[1], MAX_NAME_CHARS, list(self.sources))


class _ChildReader:
    """One child process streaming names (:mod:`saga_kgqa.kg.embedded.names_main`); killed when not read to the end."""

    def __init__(self, store_dir: Path, start: tuple[int, int], predicates: Sequence[str]) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in rows()
        command = [sys.executable, "-S", "-P", names_main.__file__, "--pyoxigraph-dir", pyoxigraph_search_dir()]
        command += [str(store_dir), str(start[0]), str(start[1]), str(MAX_NAME_CHARS), *predicates]
        try:
            self._proc = subprocess.Popen(  # noqa: S603 -- our interpreter running our own reader file
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr
            )
        except OSError:
            self._stderr.close()
            raise

    def rows(self) -> Iterator[tuple[str, str, str, int, int]]:
        proc = self._proc
        assert proc.stdout is not None
        out = proc.stdout
        try:
            while header := out.read(8):
                size = int.from_bytes(header, "big")
                payload = out.read(size) if len(header) == 8 and size <= _FRAME_LIMIT else b""
                if len(payload) != size or not payload:
                    break
                yield from marshal.loads(payload)  # noqa: S302 -- our own child's plain tuples
            if proc.wait() != 0:
                self._stderr.seek(0)
                tail = self._stderr.read()[-2000:].decode("utf-8", "replace").strip()
                raise BackendError(f"reading the store's names failed (exit {proc.returncode}): {tail}")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            with contextlib.suppress(OSError):
                out.close()
            self._stderr.close()
