"""``saga eval kit``: a run's predictions, manifest and frozen gold packed into one archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.cli.output import fail, print_json
from saga_kgqa.errors import SagaError


def kit_command(
    predictions: Annotated[
        Path, typer.Argument(help="Predictions file written by `saga eval run` (manifest beside it).")
    ],
    gold: Annotated[Path, typer.Option(help="Gold store the run is scored against (frozen into the kit).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Kit archive to write (.tar.gz).")],
) -> None:
    """Pack predictions, manifest and gold into one archive that `saga eval score KIT` scores offline."""
    from saga_kgqa.eval.qa.kit import write_kit

    try:
        index = write_kit(predictions, gold, out)
    except SagaError as exc:
        fail(exc)
    print_json({"kit": str(out), "members": index["members"]})
