"""Small data directories in the layout of ../shared/data, written for the dialect schema tests."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

YAGO_MINI = Path(__file__).resolve().parent.parent / "data" / "wikidata" / "yago_mini.ttl"

# KGTK edges as in wikidata_properties_isi: a CSV-quoted value when the text holds a double quote.
LABELS = "node1\tnode2\nP57\t'director'@en\nP50\t'author'@en\nP27\t'country of citizenship'@en\n" + (
    "P1082\t'population'@en\nP2047\t'duration'@en\nP131\t'located in'@en\nP355\t'subsidiary'@en\n"
    "P749\t'parent organization'@en\n"
)
DESCRIPTIONS = (
    "node1\tnode2\n"
    "P57\t'director(s) of film, TV-series, stageplay, video game or similar'@en\n"
    'P50\t"\'main creator(s) of a written work (use on works, not humans); use \\""author\\"" for people\'@en"\n'
    "P1082\t'number of people inhabiting the place; it\\'s a quantity'@en\n"
)
DATATYPES = "id\tnode1\tlabel\tnode2\n" + "".join(
    f"{pid}-datatype\t{pid}\tdatatype\t{kind}\n"
    for pid, kind in [
        ("P57", "wikibase-item"),
        ("P50", "wikibase-item"),
        ("P27", "wikibase-item"),
        ("P1082", "quantity"),
        ("P2047", "quantity"),
        ("P131", "wikibase-item"),
        ("P355", "wikibase-item"),
        ("P749", "wikibase-item"),
    ]
)
CLAIMS = (
    "id\tnode1\tlabel\tnode2\trank\tnode2;wikidatatype\n"
    "P57-P2302-1\tP57\tP2302\tQ21503250\tnormal\twikibase-item\n"
    "P57-P2302-2\tP57\tP2302\tQ21510865\tnormal\twikibase-item\n"
    "P355-P1696-1\tP355\tP1696\tP749\tnormal\twikibase-property\n"
)
TEXT2KGBENCH = {
    "title": "Movie Ontology",
    "id": "ont_1_movie",
    "concepts": [{"qid": "Q11424", "label": "film"}, {"qid": "Q5", "label": "human"}],
    "relations": [
        {"pid": "P57", "label": "director", "domain": "Q11424", "range": "Q5"},
        {"pid": "P1082", "label": "population", "domain": "Q515", "range": "Q11229"},
        {"pid": "P577", "label": "publication date", "domain": "Q11424", "range": ""},
    ],
}
# CoDEx: P27 (citizenship) is induced; P57's film subjects include a 3D film the curated domain misses.
ENTITY_TYPES = {
    "Q1": ["Q5"],
    "Q2": ["Q5"],
    "Q3": ["Q5"],
    "Q4": ["Q5"],
    "Q10": ["Q3624078"],
    "Q11": ["Q3624078", "Q6256"],
    "Q20": ["Q11424"],
    "Q21": ["Q11424"],
    "Q22": ["Q229390"],
}
TRIPLES = (
    "Q1\tP27\tQ10\nQ2\tP27\tQ10\nQ3\tP27\tQ11\nQ4\tP27\tQ11\nQ99\tP27\tQ10\nQ20\tP57\tQ1\nQ21\tP57\tQ2\nQ22\tP57\tQ3\n"
)
TYPES_EN = {"Q5": {"label": "human", "description": "a person"}, "Q3624078": {"label": "sovereign state"}}

FB_ROLES = (
    "film.film film.film.directed_by film.director\n"
    "film.director film.director.film film.film\n"
    "film.film film.film.initial_release_date type.datetime\n"
    "film.film film.film.runtime type.float\n"
    "film.film film.film.tagline type.text\n"
    "film.film film.film.official_website type.uri\n"
    "common.topic common.topic.notable_for type.object\n"
    "broken line with five fields\n"
)
FB_TYPES = (
    "film.director meta.subclassOf people.person\n"
    "film.film meta.subclassOf common.topic .\n"
    "people.person meta.subclassOf common.topic\n"
)
FB_REVERSE = "film.film.directed_by\tfilm.director.film\nfilm.actor.film\tfilm.performance.actor\n"


def _gzip(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)


def write_wikidata_sources(root: Path) -> Path:
    """Write the offline Wikidata sources under ``root`` and return it."""
    isi = root / "wikidata_properties_isi"
    _gzip(isi / "labels.property.en.tsv.gz", LABELS)
    _gzip(isi / "descriptions.property.en.tsv.gz", DESCRIPTIONS)
    _gzip(isi / "metadata.property.datatypes.tsv.gz", DATATYPES)
    _gzip(isi / "claims.properties.tsv.gz", CLAIMS)
    (root / "yago45_schema").mkdir(parents=True, exist_ok=True)
    shutil.copy(YAGO_MINI, root / "yago45_schema" / "yago-schema.ttl")
    t2k = root / "text2kgbench_wikidata_ontologies"
    t2k.mkdir(parents=True, exist_ok=True)
    (t2k / "1_movie_ontology.json").write_text(json.dumps(TEXT2KGBENCH), encoding="utf-8")
    codex = root / "codex"
    _gzip(codex / "entity2types.json.gz", json.dumps(ENTITY_TYPES))
    _gzip(codex / "types_en.json.gz", json.dumps(TYPES_EN))
    _gzip(codex / "triples" / "codex-m" / "train.txt.gz", TRIPLES)
    return root


def write_freebase_sources(root: Path) -> Path:
    """Write GrailQA-style Freebase ontology files under ``root/grailqa_ontology`` and return ``root``."""
    ontology = root / "grailqa_ontology"
    ontology.mkdir(parents=True, exist_ok=True)
    (ontology / "fb_roles").write_text(FB_ROLES, encoding="utf-8")
    (ontology / "fb_types").write_text(FB_TYPES, encoding="utf-8")
    (ontology / "reverse_properties").write_text(FB_REVERSE, encoding="utf-8")
    return root
