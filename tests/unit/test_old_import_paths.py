"""The controller's folder was renamed ``graph/`` → ``agent/``: the old import paths keep working."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    ("old", "new", "names"),
    [
        ("saga_kgqa.graph", "saga_kgqa.agent", ("build_graph", "run_config", "SagaToolbox", "checkpoint_serde")),
        ("saga_kgqa.agent", "saga_kgqa.app.graphs", ("build_graph",)),
        ("saga_kgqa.graph.embedding", "saga_kgqa.agent.embedding", ("saga_node",)),
        ("saga_kgqa.graph.defaults", "saga_kgqa.app.defaults", ("toolbox_from_context", "sources_from_catalog_file")),
        ("saga_kgqa.graph.caller", "saga_kgqa.app.caller", ("CallerModelFactory", "CallerToolboxFactory")),
    ],
)
def test_old_path_re_exports_the_same_objects(old: str, new: str, names: tuple[str, ...]) -> None:
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    for name in names:
        assert getattr(old_module, name) is getattr(new_module, name), f"{old}.{name}"


def test_the_lazy_default_toolbox_is_the_composition_roots() -> None:
    from saga_kgqa.app.defaults import toolbox_from_context
    from saga_kgqa.graph import toolbox_from_context as old

    assert old is toolbox_from_context
