"""``app.run.open_run``: a ready run for a face, checked before anything opens, closed when the block ends."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from saga_kgqa.app.run import RunRequest, open_run
from saga_kgqa.config.model_settings import ModelNotConfigured, ModelSettings
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.persistence import CheckpointStore

SCRIPTED = ModelSettings(factory="tests.support.studio_models:scripted_factory")


@pytest.fixture(autouse=True)
def _no_model_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("SAGA_MODEL", "SAGA_BASE_URL", "SAGA_API_KEY", "OPENAI_API_KEY", "SAGA_MODEL_FACTORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "surveys"))


def test_a_run_is_ready_to_stream_and_its_store_is_closed_after(tmp_path: Path) -> None:
    checkpoints = tmp_path / "checkpoints.sqlite"
    request = RunRequest(
        question="Which missions went to Mars?", resume=None, model=SCRIPTED, checkpoint_db=checkpoints
    )
    with open_run(request) as run:
        assert run.inputs == {"question": "Which missions went to Mars?"}
        assert run.config["configurable"]["thread_id"] == run.thread_id
        assert run.sources is None  # a --data run stays one graph
        assert run.state().values == {}  # a new thread: nothing checkpointed yet
        assert run.checkpointer is not None
        saver = run.checkpointer
    with pytest.raises(sqlite3.ProgrammingError):
        saver.conn.execute("SELECT 1")  # type: ignore[attr-defined]
    with CheckpointStore(checkpoints) as store:
        thread = store.thread(str(run.thread_id))
    assert thread is not None and thread.question == "Which missions went to Mars?"


def test_the_model_is_checked_before_the_checkpoint_store_opens(tmp_path: Path) -> None:
    checkpoints = tmp_path / "checkpoints.sqlite"
    with pytest.raises(ModelNotConfigured), open_run(RunRequest("Who?", None, checkpoint_db=checkpoints)):
        pass
    assert not checkpoints.exists()


def test_a_question_and_a_resume_together_are_refused(tmp_path: Path) -> None:
    request = RunRequest("Who?", "thread-1", model=SCRIPTED, checkpoint_db=tmp_path / "c.sqlite")
    with pytest.raises(ConfigurationError, match="not both"), open_run(request):
        pass
