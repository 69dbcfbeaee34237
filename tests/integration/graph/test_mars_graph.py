"""The MARS graph end to end with a scripted model, on CK25 and on the offline Wikidata store.

Linking → patterns → one expansion → SPARQL → verification rewrite → answer; the hop limit ends
a run gracefully; every ablation switch changes what the model is shown (captured prompts).
The ranking is the real in-process MiniLM model (no fake vectors).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.dialects.wikidata_store import build_wikidata_store
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_dialect_index
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox
from tests.support.mars import expand_pattern, run_mars
from tests.support.wikidata_store_data import write_store_sources

PV = "PREFIX pv: <http://ld.company.org/prod-vocab/>\n"
PRODI = "http://ld.company.org/prod-instances/"
HOCH = f"<{PRODI}empl-Heinrich.Hoch%40company.org>"
KUTTNER = f"{PRODI}empl-Waldtraud.Kuttner%40company.org"
QUESTION = "What is the email address of Heinrich Hoch's manager?"
FIRST_TRY = PV + f"SELECT ?m WHERE {{ {HOCH} pv:hasManager ?m }}"
REWRITE = PV + f"SELECT ?email WHERE {{ {HOCH} pv:hasManager ?m . ?m pv:email ?email }}"


def sparql(query: str) -> str:
    return f"SPARQL:\n```sparql\n{query}\n```"


def link(*entities: str, types: tuple[str, ...] = ()) -> str:
    return json.dumps({"entities": list(entities), "types": list(types)})


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


@pytest.mark.shared_data
def test_ck25_link_patterns_expand_sparql_verify_rewrite_answer(ck25: SagaToolbox) -> None:
    run = run_mars(
        ck25,
        [link("Heinrich Hoch"), expand_pattern("pv:hasManager"), sparql(FIRST_TRY), sparql(REWRITE)],
        question=QUESTION,
    )
    state, model = run.state, run.model
    assert state["linked_entities"] == [HOCH[1:-1]]
    first = model.prompt_text(1)
    assert "'Heinrich Hoch' (prodi:empl-Heinrich.Hoch%40company.org) 'has manager' (pv:hasManager) ?value" in first
    assert "domain: pv:Employee; range: pv:Manager" in first and "Waldtraud Kuttner" in first
    # The expansion read the next hop: patterns of the manager, numbered after the first hop's.
    hop1 = [entry for entry in state["patterns"] if entry.hop == 1]
    assert hop1 and {entry.entity for entry in hop1} == {KUTTNER}
    assert hop1[0].index == max(entry.index for entry in state["patterns"] if entry.hop == 0) + 1
    assert f"[{hop1[0].index}] " in model.prompt_text(2) and "Expansions left: 4" in model.prompt_text(2)
    # Verification saw the first result and rewrote the query; the rewrite ran and was accepted.
    assert "Result:" in model.prompt_text(3) and "Waldtraud.Kuttner" in model.prompt_text(3)
    assert [a.sparql for a in state["attempts"]] == [FIRST_TRY, REWRITE]
    output = run.output
    assert output["status"] == "answered"
    assert output["final_sparql"] == REWRITE
    direct = ck25.graph.query(REWRITE).rows
    assert direct and [row["email"] for row in output["answer"].rows] == [row["email"].value for row in direct]
    # One verification pass: the rewrite is executed, not verified again.
    assert output["summary"].llm_calls == model.calls == 4


@pytest.mark.shared_data
def test_hop_limit_ends_the_run_gracefully(ck25: SagaToolbox) -> None:
    run = run_mars(
        ck25,
        [link("Heinrich Hoch"), expand_pattern("pv:hasManager"), expand_pattern("pv:memberOf")],
        question=QUESTION,
        mars_hop_limit=1,
    )
    assert run.output["status"] == "failed" and run.output["outcome"].reason == "step_budget"
    assert run.output["summary"].stop_reason == "hop_limit"
    assert run.output["final_sparql"] is None
    assert "Expansions left: 0 (write the query now)" in run.model.prompt_text(2)
    assert run.state["history"][-1].observation == "the hop limit is reached"


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("switch", "value"),
    [
        ("mars_examples", False),
        ("mars_typology", False),
        ("mars_top_n", 3),
        ("mars_hop_limit", 2),
        ("mars_augmented_question", True),
        ("mars_verification", False),
    ],
)
def test_every_ablation_switch_changes_what_the_model_is_shown(ck25: SagaToolbox, switch: str, value: object) -> None:
    script = [link("Heinrich Hoch", types=("employee", "manager")), sparql(FIRST_TRY), "CORRECT"]
    baseline = run_mars(ck25, script, question=QUESTION)
    ablated = run_mars(ck25, script, question=QUESTION, **{switch: value})
    assert baseline.output["status"] == ablated.output["status"] == "answered"
    base, other = baseline.model.all_prompts(), ablated.model.all_prompts()
    assert base != other
    reason_base, reason_other = baseline.model.prompt_text(1), ablated.model.prompt_text(1)
    if switch == "mars_examples":
        assert "e.g. " in reason_base and "e.g. " not in reason_other
        assert "copy ids from them" not in reason_other
    elif switch == "mars_typology":
        assert "domain: " in reason_base and "domain: " not in reason_other
        assert "domain and range match" not in reason_other
    elif switch == "mars_top_n":
        assert "[4] " in reason_base and "[4] " not in reason_other and "[3] " in reason_other
    elif switch == "mars_hop_limit":
        assert "Expansions left: 5" in reason_base and "Expansions left: 2" in reason_other
    elif switch == "mars_augmented_question":
        assert '"types"' in ablated.model.prompt_text(0) and '"types"' not in baseline.model.prompt_text(0)
        assert "Question with expected types: " + QUESTION + " (types: employee, manager)" in reason_other
    else:
        assert baseline.model.calls == 3 and ablated.model.calls == 2
        assert "Result:" in baseline.model.prompt_text(2)


@pytest.fixture(scope="module")
def wikidata(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SagaToolbox]:
    root = tmp_path_factory.mktemp("mars-wikidata")
    data = write_store_sources(root / "data")
    build_wikidata_store(data, root / "store")
    schema = build_dialect_index("wikidata", data_dir=data)
    graph = KnowledgeGraph(EmbeddedStore(root / "store", profile=get_profile("wikidata")))
    yield SagaToolbox(graph, schema, dialect=WIKIDATA_DIALECT)
    graph.close()


def test_wikidata_store_expand_instance_of_then_population_with_its_qualifier(wikidata: SagaToolbox) -> None:
    first = "SELECT ?p WHERE { wd:Q42053 wdt:P1082 ?p }"
    rewrite = "SELECT ?p ?when WHERE { wd:Q42053 p:P1082 ?st . ?st ps:P1082 ?p . ?st pq:P585 ?when }"
    run = run_mars(
        wikidata,
        [link("Isfahan"), expand_pattern("wdt:P31"), sparql(first), sparql(rewrite)],
        question="What was the population of Isfahan, and when was it counted?",
        dialect="wikidata",
    )
    first_prompt = run.model.prompt_text(1)
    # Truthy wdt: patterns only, with Wikidata's statement form and the qualifier its statement carries.
    assert "'population' (wdt:P1082) ?value" in first_prompt
    assert "statement form: p:P1082 ?st . ?st ps:P1082 ?value; qualifiers: " in first_prompt
    assert "pq:P585" in first_prompt and "rdfs:label" not in first_prompt
    hop1 = {entry.entity for entry in run.state["patterns"] if entry.hop == 1}
    assert "http://www.wikidata.org/entity/Q1549591" in hop1
    # The next hop's patterns: what points at the class Isfahan is an instance of.
    assert "?subject 'p31' (wdt:P31) 'big city' (wd:Q1549591)" in run.model.prompt_text(2)
    assert run.output["status"] == "answered"
    assert run.output["final_sparql"] == rewrite
    assert [row["p"] for row in run.output["answer"].rows] == ["1961260"]
    assert run.output["answer"].rows[0]["when"].startswith("2016-01-01")
