"""Benchmark questions and their loaders (QALD, WikiWebQuestions, SPINACH, TEXT2SPARQL, Freebase splits).

They stand low in the house because the product needs them too: worked examples are harvested from train
splits, and the TEXT2SPARQL server reads its challenge's questions. Scoring and running lives in ``eval``.
"""
