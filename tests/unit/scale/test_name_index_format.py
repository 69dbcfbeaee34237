"""Format 5 of the name index stores the IRI, the source and the language tag without indexing them (issue 39).

No query reads those three as terms, so indexing them was work for nothing (about 2 µs of a 10-13 µs document).
An index of format 4 (the same fields, indexed) is still searched, with the same hits.
"""

from __future__ import annotations

import json
from pathlib import Path

import tantivy

from saga_kgqa.schema.vocab import local_name
from saga_kgqa.tools.search.fulltext import FORMAT_VERSION, META_FILE, FullTextIndex, write_meta
from saga_kgqa.tools.search.identifier_forms import identifier_forms
from saga_kgqa.tools.search.label_index import NameEntry, normalise

EX = "http://example.org/f/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
CODE = EX + "code"
ENTRIES = [
    *(NameEntry(f"{EX}e{n}", f"Switch number {n}", LABEL, "en") for n in range(30)),
    *(NameEntry(f"{EX}e{n}", f"Schalter {n}", LABEL, "de") for n in range(0, 30, 3)),
    *(NameEntry(f"{EX}e{n}", f"X{n:05d}", CODE, "") for n in range(30)),
    NameEntry(f"{EX}GO_0008150", "biological process", LABEL, ""),
]
QUERIES = ["switch number 7", "switches", "schalter 9", "X00012", "x_00012", "GO:0008150", "swich numbr 2", "biolog"]


def _format_4(path: Path) -> None:
    """The index as format 4 wrote it: the same documents, ``iri``/``source``/``lang`` indexed raw text."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("iri", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("name", stored=True, tokenizer_name="default", index_option="freq")
    builder.add_text_field("stem", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("exact", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("ident", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("source", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("lang", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("local", stored=False, tokenizer_name="raw", index_option="basic")
    path.mkdir()
    writer = tantivy.Index(builder.build(), path=str(path)).writer(heap_size=20_000_000, num_threads=1)
    seen: set[str] = set()
    for entry in ENTRIES:
        document = tantivy.Document()
        for field, value in (("iri", entry.resource), ("name", entry.text), ("stem", entry.text)):
            document.add_text(field, value)
        document.add_text("exact", normalise(entry.text))
        if entry.resource not in seen:
            for form in identifier_forms(local_name(entry.resource)):
                document.add_text("local", form)
        seen.add(entry.resource)
        document.add_text("source", entry.source)
        document.add_text("lang", entry.language)
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    write_meta(path, "x", len(ENTRIES), [])
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    (path / META_FILE).write_text(json.dumps({**meta, "format_version": 4}), encoding="utf-8")


def test_format_5_finds_what_format_4_found(tmp_path: Path) -> None:
    new = FullTextIndex.build(tmp_path / "new", ENTRIES, endpoint_id="x", primary=[LABEL])
    assert new.meta["format_version"] == FORMAT_VERSION == 5
    _format_4(tmp_path / "old")
    old = FullTextIndex.open(tmp_path / "old", primary=[LABEL])
    for query in QUERIES:
        for language in ("en", "de"):
            found = new.search(query, limit=5, language=language)
            assert found, query
            assert found == old.search(query, limit=5, language=language), query
            assert all(type(m.resource) is str and type(m.source) is str for m in found)
    hit = new.search("schalter 9", limit=1, language="de")[0]
    assert (hit.resource, hit.text, hit.source, hit.language) == (f"{EX}e9", "Schalter 9", LABEL, "de")
    assert new.search("GO:0008150", limit=1)[0].resource == f"{EX}GO_0008150"  # by its local name's forms
