"""Checks ``saga eval run`` makes before its first question: a campaign must not fail at its end.

The gold store is read, the scoring runtime found, the examples screened and the graph opened before any
question; then the model server is asked once whether it is there (``GET /models``, which OpenAI-compatible
servers answer and which costs no generation). A server that answers at all, even 404, is reachable; a
refused connection, a timeout or a refused key is a configuration error, exit status 2.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from saga_kgqa.errors import ConfigurationError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

#: Seconds the reachability request may take (a cold local server answers its model list at once).
PROBE_TIMEOUT_S = 10.0


def check_scoring_runtime() -> None:
    """Scoring needs SciPy (the ``eval`` extra): say so before the run, not after it.

    Raises:
        ConfigurationError: SciPy is not installed.
    """
    if importlib.util.find_spec("scipy") is None:
        raise ConfigurationError("scoring with --gold needs SciPy: pip install 'saga-kgqa[eval]'")


def check_model_reachable(model: BaseChatModel) -> None:
    """One request to the model's server (its model list); a model without an OpenAI client is not probed.

    Raises:
        ConfigurationError: The server cannot be reached, does not answer in time, or refuses the key.
    """
    client: Any = getattr(model, "root_client", None)
    if client is None:  # a custom factory's model (SAGA_MODEL_FACTORY): nothing to reach
        return
    import openai

    where = str(getattr(client, "base_url", "")).rstrip("/") or "the model server"
    try:
        client.with_options(timeout=PROBE_TIMEOUT_S, max_retries=0).models.list()
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise ConfigurationError(f"the model server at {where} refused the API key (HTTP {exc.status_code})") from exc
    except openai.APIStatusError:
        return  # it answered: reachable, whether or not it lists models
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        raise ConfigurationError(
            f"the model server at {where} is not reachable ({type(exc).__name__}): start it, or check "
            "SAGA_BASE_URL / --base-url"
        ) from exc
