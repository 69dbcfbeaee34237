"""Worked examples from many threads at once in a fresh process, with the default model (e5).

A served face (the TEXT2SPARQL service, MCP's ``worked_examples``, the controller's tool) reaches the example
index on its first requests, several at a time. Each thread must get its own question's examples, the same as
a sequential index gives, and the process builds the index once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from saga_kgqa.examples.model import QueryExample, write_examples
from tests.unit.examples.test_example_languages import ENGLISH, V

ASKED = [
    "Welche Flüsse fließen durch Deutschland?",
    "¿Quién pintó la Gioconda?",
    "Who is the author of Dune?",
    "How many moons orbit Mars?",
    "Welche Länder grenzen an Spanien?",
    "What is Canada's capital city?",
    "Which movies were directed by Kubrick?",
    "In which year did the Berlin Wall come down?",
]
SCRIPT = """
import json, sys, threading
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from saga_kgqa.config.context import SagaContext
from saga_kgqa.examples import configured
from saga_kgqa.examples.index import ExampleIndex
from saga_kgqa.examples.model import read_examples
from saga_kgqa.examples.serving import worked_examples
from saga_kgqa.tools.patterns.embeddings import build_embeddings

path, asked = sys.argv[1], json.loads(sys.argv[2])
context = SagaContext.from_env(examples_file=path)
barrier = threading.Barrier(len(asked))

def ask(question):
    barrier.wait()  # every thread's first call at once: the index is built under their feet
    return [e.question for e in worked_examples(context, question, 2)]

with ThreadPoolExecutor(len(asked)) as pool:
    together = list(pool.map(ask, asked))
alone = ExampleIndex(read_examples(Path(path)), embeddings=build_embeddings(context.examples_embedding_runtime))
print(json.dumps({
    "together": together,
    "alone": [[e.question for e in alone.examples_for(q, 2)] for q in asked],
    "indexes": len(configured._INDEXES),
    "runtime": context.examples_embedding_runtime,
}))
"""


def test_eight_threads_first_use_of_the_default_example_index_each_get_their_own_answer(tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    write_examples([QueryExample(question=q, sparql=V + s, source="runs") for q, s in ENGLISH], path)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SAGA_EXAMPLES")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path), json.dumps(ASKED)],
        capture_output=True, text=True, timeout=300, check=True, env=environment,
    )  # fmt: skip
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["runtime"] == "e5" and result["indexes"] == 1
    assert result["together"] == result["alone"]
    tops = [shown[0] for shown in result["together"]]
    assert tops[:2] == ["Which rivers flow through Germany?", "Who painted the Mona Lisa?"]
    assert len(set(tops)) == len(ASKED)  # each thread got its own question's nearest example
