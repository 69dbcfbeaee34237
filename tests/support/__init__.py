"""Test doubles and fixtures shared by test modules: fake endpoint, fake clock, oxigraph server."""
