"""The detached process of ``saga load --index background``: build one store's name index, one builder per store.

Run as ``python -m saga_kgqa.cli.index.job STORE [--lock-fd N]`` by
:func:`~saga_kgqa.tools.search.background_index.start_background_build`, which takes the
store's builder lock and hands it over as descriptor N; run by hand, the job takes the lock
itself, and ends at once when another builder holds it. Its output goes to
``STORE/saga-fulltext.log``. The build resumes from the last checkpoint of an interrupted one;
when the store's content changed while it built (a second load), it builds again.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: Builds of one job at most: the first, and again for content loaded meanwhile.
MAX_ROUNDS = 3


def main(argv: list[str] | None = None) -> int:
    """Build the name index of the store named by the first argument; 0 when it was built (or another builds it)."""
    import typer

    from saga_kgqa.cli.store_commands import build_name_index
    from saga_kgqa.kg.embedded.loading import read_content_key
    from saga_kgqa.tools.search.background_index import acquire_build_lock, pending_build, release_build_lock

    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 3) or (len(args) == 3 and (args[1] != "--lock-fd" or not args[2].isdigit())):
        sys.stderr.write("usage: python -m saga_kgqa.cli.index.job STORE [--lock-fd N]\n")
        return 2
    store = Path(args[0])
    lock = int(args[2]) if len(args) == 3 else acquire_build_lock(store)
    if lock is None:
        sys.stdout.write(f"a build of {store}'s name index is already running (process {pending_build(store)})\n")
        return 0
    try:
        for _ in range(MAX_ROUNDS):
            content = read_content_key(store)
            build_name_index(store, log_progress=True)
            if read_content_key(store) == content:
                break
            sys.stdout.write("the store's content changed during the build: indexing it again\n")
    except typer.Exit as exc:  # raised after the error was printed (to the log)
        return exc.exit_code
    finally:
        release_build_lock(store, lock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
