"""``saga wikidata build-store``: the offline Wikidata store from the third-party data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.output import fail, print_json
from saga_kgqa.cli.progress import progress_bar
from saga_kgqa.config import settings
from saga_kgqa.errors import SagaError

wikidata_app = command_group("The offline Wikidata store (CoDEx and recorded Wikidata responses).")


@wikidata_app.command("build-store")
def build_store(
    store: Annotated[Path, typer.Option("--store", "-s", help="New directory for the store.")],
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Third-party data directory (default: ../shared/data).")
    ] = None,
) -> None:
    """Build the offline Wikidata store (CoDEx test triples held out) and print what it holds."""
    from saga_kgqa.dialects.wikidata_store import BUILD_STEPS, build_wikidata_store

    source = settings.data_dir(data_dir)
    with progress_bar("building", len(BUILD_STEPS)) as advance:
        try:
            report = build_wikidata_store(
                source, store, progress=lambda step, triples: advance(description=f"{step}: {triples} triples")
            )
        except SagaError as exc:
            fail(exc)
    print_json(report.as_dict())


def register(app: typer.Typer) -> None:
    """Add ``saga wikidata`` to the ``saga`` application."""
    app.add_typer(wikidata_app, name="wikidata")
