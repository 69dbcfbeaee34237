"""Allow ``python -m saga_kgqa``."""

from saga_kgqa.cli import main

main()
