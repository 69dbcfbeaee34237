"""Test suite of saga-kgqa (a package so that tests.support is importable)."""
