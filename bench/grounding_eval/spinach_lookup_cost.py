"""SPINACH's full cost of one entity lookup: its raw JSON, plus the pruning call that reads it.

SPINACH's ``get_wikidata_entry`` sends the raw neighbourhood to a second LLM call,
``prune_outgoing_edges``, whose answer is what the controller sees (docs
reference-systems.md §1.2). SAGA's compact lookup replaces both, so the paper's token
argument compares the compact text with all three parts:

* the raw JSON (:mod:`bench.grounding_eval.lookup_tokens`, :mod:`bench.grounding_eval.spinach_format`);
* the pruning prompt's fixed text: its instruction and two worked examples,
  :data:`SPINACH_PRUNE_PROMPT_TOKENS`;
* the pruned output: SPINACH's own recorded pruned observation of that entity in its released
  QALD-10 traces where there is one, else the median of those recorded outputs, never more
  than the raw JSON it prunes.
"""

from __future__ import annotations

import gzip
import json
import statistics
from collections.abc import Iterable, Mapping
from pathlib import Path

from bench.grounding_eval.measurement import TokenSample
from bench.grounding_eval.tokens import count_tokens
from saga_kgqa.dialects.model import WIKIDATA_ENTITY
from saga_kgqa.errors import ConfigurationError

#: cl100k_base tokens of ``spinach_agent/prompts/prune_outgoing_edges.prompt`` (stanford-oval/spinach at
#: 8bb2d9c) with its four placeholders (entity, outgoing edges, past turns, question) left empty.
SPINACH_PRUNE_PROMPT_TOKENS = 1691
#: SPINACH's released QALD-10 agent traces, under the data directory.
TRACE_FILE = Path("spinach") / "qald10_spinach_agent_trace.json.gz"


def recorded_pruned_tokens(path: Path) -> dict[str, int]:
    """Tokens of each entity's first recorded pruned lookup observation in SPINACH's traces (``wd:`` IRI → tokens).

    Raises:
        ConfigurationError: The file is missing or not the traces' JSON.
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            questions = json.load(handle)
    except (OSError, EOFError, ValueError) as exc:
        raise ConfigurationError(f"cannot read SPINACH's traces {path}: {exc}") from exc
    found: dict[str, int] = {}
    for question in questions if isinstance(questions, list) else []:
        actions = question.get("actions", []) if isinstance(question, dict) else []
        for action in actions:
            if not isinstance(action, dict) or action.get("action_name") != "get_wikidata_entry":
                continue
            argument = str(action.get("action_argument", "")).strip()
            observation = action.get("observation")
            if argument.startswith("Q") and isinstance(observation, str) and argument not in found:
                found[WIKIDATA_ENTITY + argument] = count_tokens(observation)
    return found


def full_lookup_samples(samples: Iterable[TokenSample], pruned: Mapping[str, int]) -> list[TokenSample]:
    """The samples with ``raw_tokens`` replaced by SPINACH's full lookup cost (see the module docstring)."""
    default = int(statistics.median(pruned.values())) if pruned else 0
    return [
        TokenSample(
            entity=s.entity,
            values=s.values,
            compact_tokens=s.compact_tokens,
            raw_tokens=s.raw_tokens + SPINACH_PRUNE_PROMPT_TOKENS + min(s.raw_tokens, pruned.get(s.entity, default)),
        )
        for s in samples
    ]


def ratio(samples: Iterable[TokenSample]) -> float:
    """Summed compact tokens over summed (full) SPINACH tokens."""
    listed = list(samples)
    raw = sum(s.raw_tokens for s in listed)
    return sum(s.compact_tokens for s in listed) / raw if raw else 0.0
