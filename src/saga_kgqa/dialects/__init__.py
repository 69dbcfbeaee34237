"""Graph dialects (plain RDF, Wikidata, Freebase) as data, and the offline Wikidata store builder."""

from saga_kgqa.dialects.model import DIALECTS, FREEBASE_DIALECT, RDF_DIALECT, WIKIDATA_DIALECT, Dialect, get_dialect

__all__ = ["DIALECTS", "FREEBASE_DIALECT", "RDF_DIALECT", "WIKIDATA_DIALECT", "Dialect", "get_dialect"]
