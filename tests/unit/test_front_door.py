"""The README is a front door: short, with the two commands, and every link it gives leads somewhere."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_at_most_200_lines_and_names_the_two_commands() -> None:
    assert len(README.splitlines()) <= 200
    assert "make run" in README and "make test" in README


def test_every_local_link_of_the_readme_exists() -> None:
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", README) if "://" not in t]
    assert targets, "the README links the manual"
    assert [t for t in targets if not (REPO_ROOT / t).exists()] == []


def test_the_manual_lists_every_page_of_docs() -> None:
    nav = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(path.name for path in (REPO_ROOT / "docs").glob("*.md"))
    assert [page for page in pages if f": {page}" not in nav] == []
