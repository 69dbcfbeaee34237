"""Pattern retrieval (MARS): one-hop triple patterns around an entity, verbalised, ranked and enriched.

A *pattern* is ``(entity, property, ?value)`` (outgoing) or ``(?subject, property, entity)``
(incoming), with how often the entity has it. :mod:`.retrieval` reads them with one bounded
grouped query per direction, :mod:`.model` verbalises them, :mod:`.ranking` orders them by
similarity to the question (embeddings, BM25, degree, random), and :mod:`.enrichment` adds
instance labels and domain/range to the top N. Embedding runtimes (:mod:`.embeddings`) are
optional extras (``saga-kgqa[patterns]``), imported only when a ranking needs one.
"""

from saga_kgqa.tools.patterns.model import Direction, Pattern, PatternSet

__all__ = ["Direction", "Pattern", "PatternSet"]
