"""Prompt templates kept as text files, filled with :class:`string.Template` (``$name``).

SAGA's files follow the paper's Appendix F: ``answer_type.md`` (F.1), ``controller.md`` and
``controller_input.md`` (F.2), ``prune_fallback.md`` (F.3) and ``action_parsing.md`` (the
second call that parses a text action). One deliberate departure: F.3 (SPINACH's pruning prompt) has the
model copy back the part of the raw entry worth keeping; ``prune_fallback.md`` asks only for the *ids* of
the properties to keep (a short reply, and ids the code checks against the entry before it prunes).
``mars/*.md`` holds MARS's prompts (mention finding, the
reasoner, the verifier). ``dialects/<name>.md`` holds the wording that
differs per graph (generic RDF IRIs, Wikidata QID/PID, Freebase MID), as ``## key``
sections.
"""

from __future__ import annotations

import functools
from importlib import resources
from string import Template

from saga_kgqa.config.context import DIALECT_NAMES
from saga_kgqa.errors import ConfigurationError


@functools.cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>.md``.

    Raises:
        ConfigurationError: No such prompt file.
    """
    ref = resources.files(__package__) / f"{name}.md"
    if not ref.is_file():
        raise ConfigurationError(f"no prompt named {name!r}")
    return ref.read_text(encoding="utf-8")


def render_prompt(name: str, **values: str) -> str:
    """Fill a prompt's ``$placeholders``; every placeholder must be given.

    Raises:
        ConfigurationError: The prompt is unknown or a placeholder has no value.
    """
    try:
        return Template(load_prompt(name)).substitute(values).strip() + "\n"
    except KeyError as exc:
        raise ConfigurationError(f"prompt {name!r} needs a value for {exc.args[0]!r}") from None


@functools.cache
def dialect_wording(dialect: str) -> dict[str, str]:
    """The ``## key`` sections of ``dialects/<dialect>.md`` as a mapping.

    Raises:
        ConfigurationError: The dialect is unknown.
    """
    if dialect not in DIALECT_NAMES:
        raise ConfigurationError(f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECT_NAMES)}")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in load_prompt(f"dialects/{dialect}").splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines).strip() for key, lines in sections.items()}
