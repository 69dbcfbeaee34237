"""saga-kgqa: a schema-aware agent that answers questions over knowledge graphs with SPARQL."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
