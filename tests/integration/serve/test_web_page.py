"""``saga serve web`` in real headless Chromium (Debian's, via Selenium): a scripted run streams in, then reopens.

The screenshots go to ``$SAGA_SCREENSHOTS`` when set (else the test's temporary directory), to be looked at.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.support.http_servers import saga_server
from tests.support.required import missing
from tests.support.scripted_model import answer_type

EX = "PREFIX ex: <http://example.org/space/> "
BLOCKED_QUERY = EX + "SELECT ?d WHERE { ex:JimLovell ex:launchDate ?d }"
EMPTY_QUERY = EX + (
    "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
    'SELECT ?m WHERE { ?m ex:crewMember ex:JimLovell ; ex:launchDate "1999-01-01"^^xsd:date }'
)
MISSIONS_QUERY = EX + (
    "SELECT ?m ?launched WHERE { ?m ex:crewMember ex:JimLovell ; ex:launchDate ?launched } ORDER BY ?launched"
)
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"

#: Records, in order, each step and the answer table as they are added to the page.
WATCH = """
window.__seen = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.classList && node.classList.contains("step")) {
      window.__seen.push(node.dataset.tool + ":" + node.dataset.outcome);
    }
    if (node.id === "answer-table") window.__seen.push("table");
  }
}).observe(document.querySelector("main"), {childList: true, subtree: true});
"""


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        missing("Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1400,900")
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def test_a_run_streams_search_lookup_blocked_execute_and_the_answer_then_reopens(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                answer_type("mission", "ex:Mission"),
                {"tool": "search", "args": {"text": "Jim Lovell"}},
                {"tool": "lookup", "args": {"entity": "ex:JimLovell"}},
                {"tool": "execute", "args": {"sparql": BLOCKED_QUERY}},
                {"tool": "execute", "args": {"sparql": EMPTY_QUERY}},
                {"tool": "execute", "args": {"sparql": MISSIONS_QUERY}},
                {"tool": "stop", "args": {}},
            ]
        ),
        encoding="utf-8",
    )
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "PYTHONPATH": str(REPO_ROOT),
    }
    args = ["serve", "web", "--checkpoints", str(tmp_path / "checkpoints.sqlite")]
    wait = WebDriverWait(browser, 60)
    with saga_server(args, env) as url:
        browser.get(url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#source option"))
        assert browser.find_element(By.ID, "source").get_attribute("value") == "example"
        browser.execute_script(WATCH)
        browser.find_element(By.ID, "question").send_keys("Which missions did Jim Lovell fly, and when?")
        browser.find_element(By.ID, "ask").click()
        wait.until(lambda d: d.find_elements(By.ID, "answer-table"))
        seen = browser.execute_script("return window.__seen")
        assert seen == ["search:ok", "lookup:ok", "execute:blocked", "execute:empty", "execute:ok", "table"]
        steps = browser.find_elements(By.CSS_SELECTOR, "#steps li")
        assert "[BLOCKED]" in steps[2].text
        assert "Diagnosis: The pattern `?m ex:launchDate" in steps[3].text  # the empty result's diagnosis
        # Each answer row gets an expander with the triples that support it (issue 37 point 4).
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".evidence-summary"))
        expanders = browser.find_elements(By.CSS_SELECTOR, "#answer-table details.evidence")
        answer_rows = browser.find_elements(By.CSS_SELECTOR, "#answer-table tr:not(.evidence-row)")
        assert len(expanders) == len(answer_rows) - 1 >= 1  # one per row (the first tr is the header)
        expanders[0].find_element(By.TAG_NAME, "summary").click()
        supporting = [li.text for li in expanders[0].find_elements(By.CSS_SELECTOR, "li.triple")]
        assert len(supporting) == 2 and any("ex:JimLovell" in line for line in supporting)
        expanders[0].find_element(By.TAG_NAME, "summary").click()  # closed again, as the reopened page shows it
        rows = browser.find_elements(By.CSS_SELECTOR, "#answer-table tr")
        assert "ex:Apollo13" in " ".join(r.text for r in rows)  # by label and short name
        cells = browser.find_elements(By.CSS_SELECTOR, "#answer-table td")
        assert "http://example.org/space/Apollo13" in [c.get_attribute("title") for c in cells]  # the exact IRI
        assert browser.find_element(By.CSS_SELECTOR, "#sparql .kw").text.upper() == "PREFIX"
        theta = browser.find_elements(By.CSS_SELECTOR, "#theta li")  # Θ grew: Lovell, his missions, ?m
        assert "ex:JimLovell: ex:Astronaut" in [item.text for item in theta]
        assert browser.find_element(By.ID, "theta-size").text == f"({len(theta)})"
        shots = Path(os.environ.get("SAGA_SCREENSHOTS", tmp_path))
        shots.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(shots / "web-live.png"))
        live_rows = [r.text for r in rows]

        # A fresh page: the run is listed in the history and reopens from the checkpoint store.
        browser.get(url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#history a"))
        browser.find_element(By.CSS_SELECTOR, "#history a").click()
        wait.until(lambda d: d.find_elements(By.ID, "answer-table"))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".evidence-summary"))
        reopened = [
            (li.get_attribute("data-tool"), li.get_attribute("data-outcome"))
            for li in browser.find_elements(By.CSS_SELECTOR, "#steps li")
        ]
        assert reopened == [
            ("search", "ok"),
            ("lookup", "ok"),
            ("execute", "blocked"),
            ("execute", "empty"),
            ("execute", "ok"),
        ]
        assert [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#answer-table tr")] == live_rows
        browser.save_screenshot(str(shots / "web-reopened.png"))


def test_a_double_submit_starts_one_run_that_shows_progress_cancel_and_labelled_answers(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    run = [
        answer_type("mission", "ex:Mission"),
        {"tool": "execute", "args": {"sparql": MISSIONS_QUERY}},
        {"tool": "stop", "args": {}},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(run + run), encoding="utf-8")  # the double-submitted run, then one cancelled
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.gated_models:slow_scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "SAGA_TEST_DELAY_S": "1.5",
        "PYTHONPATH": str(REPO_ROOT),
    }
    shots = Path(os.environ.get("SAGA_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    wait = WebDriverWait(browser, 60)
    args = ["serve", "web", "--checkpoints", str(tmp_path / "checkpoints.sqlite")]
    with saga_server(args, env) as url:
        browser.get(url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#source option"))
        question = browser.find_element(By.ID, "question")
        question.send_keys("Which missions did Jim Lovell fly, and when?")
        ask = browser.find_element(By.ID, "ask")
        # A double click, then Enter at once: one run, not three.
        ActionChains(browser).double_click(ask).perform()
        question.send_keys(Keys.ENTER)
        wait.until(lambda d: d.find_element(By.ID, "cancel").is_displayed())
        assert not ask.is_enabled()
        wait.until(lambda d: d.find_element(By.ID, "progress").is_displayed())
        wait.until(lambda d: "step 1 of at most" in d.find_element(By.ID, "progress-text").text)
        browser.save_screenshot(str(shots / "web-progress-cancel.png"))

        wait.until(lambda d: d.find_elements(By.ID, "answer-table"))
        # The run ends once the answer's evidence is read (the node after finalize): then Ask is back.
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".evidence-summary"))
        wait.until(lambda d: ask.is_enabled())
        assert not browser.find_element(By.ID, "cancel").is_displayed()
        runs = browser.execute_script("return fetch('/api/runs').then(r => r.json())")["runs"]
        assert len(runs) == 1  # the double submit started one run
        cells = browser.find_elements(By.CSS_SELECTOR, "#answer-table td")
        shorts = [
            c.find_element(By.CSS_SELECTOR, ".short").text for c in cells if c.find_elements(By.CSS_SELECTOR, ".short")
        ]
        assert "ex:Apollo13" in shorts  # each mission by label, its short name beneath
        labelled = [c for c in cells if c.find_elements(By.CSS_SELECTOR, ".label")]
        assert labelled and all(c.get_attribute("title").startswith("http://example.org/space/") for c in labelled)
        browser.save_screenshot(str(shots / "web-labels.png"))

        # The next run: cancelled while it runs, it says so and offers Resume, which finishes it.
        ask.click()
        # Cancel shows at once but acts only once the run has started (then it is enabled).
        wait.until(
            lambda d: d.find_element(By.ID, "cancel").is_displayed() and d.find_element(By.ID, "cancel").is_enabled()
        )
        browser.find_element(By.ID, "cancel").click()
        wait.until(lambda d: d.find_element(By.ID, "resume").is_displayed())
        assert "Cancelled" in browser.find_element(By.ID, "status").text
        assert not browser.find_elements(By.ID, "answer-table")
        browser.find_element(By.ID, "resume").click()
        wait.until(lambda d: d.find_elements(By.ID, "answer-table"))
        assert "Finished: answered" in browser.find_element(By.ID, "status").text
        browser.save_screenshot(str(shots / "web-resumed.png"))
