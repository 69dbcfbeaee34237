"""A tiny data directory with every source the offline Wikidata store builder reads."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.support.dialect_data import TRIPLES, write_wikidata_sources

# Q20 wdt:P57 Q1 is a CoDEx-M training triple; Q21 wdt:P57 Q2 is a test triple (held out even though
# the trace repeats it); Q22 wdt:P57 Q3 is a CoDEx-S test triple that CoDEx-M training also holds.
CODEX_FILES = {
    "codex-m/valid": "Q1\tP27\tQ11\n",
    "codex-m/test": "Q21\tP57\tQ2\n",
    "codex-s/train": "Q2\tP27\tQ10\n",
    "codex-s/valid": "",
    "codex-s/test": "Q22\tP57\tQ3\n",
}
# The dialect fixture's CoDEx-M training triples (P27 is induced from them: domain human).
TRAIN = TRIPLES
RELATIONS = {"P57": {"label": "director", "description": "director(s) of film"}, "P27": {"label": "citizenship"}}
TRACE = [
    {
        "question": "population of Isfahan",
        "actions": [
            {
                "action_name": "search_wikidata",
                "action_argument": "Isfahan",
                "observation": "Isfahan (Q42053): city in Isfahan Province, Iran\npopulation (P1082): number of people",
            },
            {
                "action_name": "get_wikidata_entry",
                "action_argument": "Q42053",
                "observation": json.dumps(
                    {
                        "instance of (P31)": ["big city (Q1549591)", "city of Iran (Q56557504)"],
                        "population (P1082)": {"1961260": {"Qualifiers": [{"point in time (P585)": "1 January 2016"}]}},
                    }
                ),
            },
            {
                "action_name": "get_wikidata_entry",
                "action_argument": "Q1549591",
                "observation": json.dumps({"subclass of (P279)": "city (Q515)"}),
            },
            {
                "action_name": "get_wikidata_entry",
                "action_argument": "Q21",
                "observation": json.dumps({"director (P57)": "Bob (Q2)"}),
            },
            {
                "action_name": "get_property_examples",
                "action_argument": "P1082",
                "observation": "Isfahan -- population --> 1961260\nNowhere -- population --> 5",
            },
            {
                "action_name": "execute_sparql",
                "action_argument": "SELECT ?x WHERE { wd:Q42053 wdt:P17 ?x . }",
                "observation": "x\nQ794",
            },
        ],
    }
]


def _gzip(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)


def write_store_sources(root: Path) -> Path:
    """Write the dialect sources plus CoDEx splits, relation labels and a SPINACH trace under ``root``."""
    write_wikidata_sources(root)
    codex = root / "codex"
    _gzip(codex / "triples" / "codex-m" / "train.txt.gz", TRAIN)
    for split, text in CODEX_FILES.items():
        _gzip(codex / "triples" / f"{split}.txt.gz", text)
    (codex / "relations_en.json").write_text(json.dumps(RELATIONS), encoding="utf-8")
    _gzip(root / "spinach" / "qald10_spinach_agent_trace.json.gz", json.dumps(TRACE))
    return root
