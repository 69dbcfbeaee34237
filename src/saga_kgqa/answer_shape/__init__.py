"""Answer shape: the scored query projects answer columns only; display labels come from a second query."""

from saga_kgqa.answer_shape.projection import LABEL_PROPERTIES, ShapedQuery, shape_query

__all__ = ["LABEL_PROPERTIES", "ShapedQuery", "shape_query"]
