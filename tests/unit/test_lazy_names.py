"""The package doors' lazy names (PEP 562): loaded on first use, kept, unknown names refused."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from saga_kgqa.lazy_names import lazy_names
from tests.conftest import REPO_ROOT


def test_a_name_loads_from_its_home_once_and_stays() -> None:
    namespace: dict[str, Any] = {}
    getattr_ = lazy_names(
        "saga_kgqa.tools", {"compact_iri": ".render", "UnknownName": "saga_kgqa.config.catalog"}, namespace
    )
    from saga_kgqa.config.catalog import UnknownName
    from saga_kgqa.tools.render import compact_iri

    assert getattr_("compact_iri") is compact_iri
    assert getattr_("UnknownName") is UnknownName
    assert namespace == {"compact_iri": compact_iri, "UnknownName": UnknownName}


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError, match=r"'saga_kgqa\.tools' has no attribute 'nothing_here'"):
        lazy_names("saga_kgqa.tools", {}, {})("nothing_here")


def test_the_doors_import_nothing_heavy_until_a_name_is_asked_for() -> None:
    code = (
        "import sys, saga_kgqa, saga_kgqa.schema, saga_kgqa.state, saga_kgqa.tools\n"
        "heavy = ('saga_kgqa.schema.build', 'saga_kgqa.state.records',\n"
        "         'saga_kgqa.tools.execute.tool', 'saga_kgqa.app.graphs')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "from saga_kgqa.schema import build_schema_index\n"
        "from saga_kgqa.tools import execute\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    before, after = done.stdout.splitlines()
    assert before == "[]"
    assert "saga_kgqa.schema.build" in after and "saga_kgqa.tools.execute.tool" in after
