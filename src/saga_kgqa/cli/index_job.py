"""The detached process of ``saga load --index background``: build one store's name index, then clear its marker.

Run as ``python -m saga_kgqa.cli.index_job STORE`` by
:func:`~saga_kgqa.tools.search.background_index.start_background_build`; its output goes to
``STORE/saga-fulltext.log``. The build resumes from the last checkpoint of an interrupted one.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Build the name index of the store named by the one argument; 0 when it was built."""
    import typer

    from saga_kgqa.cli.store_commands import build_name_index
    from saga_kgqa.tools.search.background_index import finish_background_build

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m saga_kgqa.cli.index_job STORE\n")
        return 2
    store = Path(args[0])
    try:
        build_name_index(store, log_progress=True)
    except typer.Exit as exc:  # raised after the error was printed (to the log)
        return exc.exit_code
    finally:
        finish_background_build(store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
