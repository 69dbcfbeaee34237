"""The web API's run request, validated: a bad body is a 400 that names the field, never a 500."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.serve.mcp.arguments import lone_surrogate

_NAME_CHARS = 200


class RunRequest(BaseModel):
    """``POST /api/runs``: a question, and optionally the source and model by catalog name."""

    model_config = ConfigDict(extra="ignore", strict=True)

    question: str = ""
    source: str | None = Field(default=None, max_length=_NAME_CHARS)
    model: str | None = Field(default=None, max_length=_NAME_CHARS)

    @field_validator("question", "source", "model")
    @classmethod
    def _unicode(cls, value: str | None) -> str | None:
        if value is not None and lone_surrogate(value) is not None:
            raise ValueError("holds a lone surrogate, not a character; send valid Unicode text")
        return value


def parse_run_request(body: Any) -> RunRequest:
    """The request in a decoded JSON body.

    Raises:
        ConfigurationError: The body is not an object, or a field has the wrong type (the message names it;
            the value is not echoed).
    """
    if not isinstance(body, dict):
        raise ConfigurationError("send a JSON object {question, source, model}")
    try:
        return RunRequest.model_validate(body)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error.get("loc", ())) or "body"
        message = str(error["msg"]).removeprefix("Value error, ")
        raise ConfigurationError(f"field {field!r}: {message}") from None
