"""``server.json``, the manifest MCP registries read, agrees with the package and the server."""

from __future__ import annotations

import hashlib
import json
import tomllib

import jsonschema
import pytest

from tests.conftest import REPO_ROOT

SCHEMA_FILE = REPO_ROOT / "tests" / "data" / "mcp_registry" / "server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"


def test_server_json_describes_this_package_and_its_command() -> None:
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = manifest["packages"]
    assert manifest["version"] == package["version"] == project["version"]
    assert package["registryType"] == "pypi" and package["identifier"] == project["name"]
    assert package["transport"] == {"type": "stdio"}
    # A registry client runs `uvx <runtime arguments> <identifier> <package arguments>`, here
    # `uvx --with saga-kgqa[mcp] saga-kgqa mcp`: an executable named like the package, the mcp extra beside it
    # (.ci/wheel-check runs exactly that from the built wheel and lists the tools).
    assert project["scripts"][package["identifier"]] == project["scripts"]["saga"]
    assert package["runtimeHint"] == "uvx"
    assert [(arg["name"], arg["value"]) for arg in package["runtimeArguments"]] == [("--with", "saga-kgqa[mcp]")]
    assert "mcp" in project["optional-dependencies"]
    assert [arg["value"] for arg in package["packageArguments"]] == ["mcp"]
    documented = (REPO_ROOT / ".env.example").read_text(encoding="utf-8")
    for variable in package["environmentVariables"]:
        assert variable["name"] in documented, variable["name"]
    assert len(manifest["description"]) <= 100  # the registry's limit


def test_server_json_says_how_to_install_without_claiming_a_release() -> None:
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    provided = manifest["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]
    assert provided["published"] is False
    assert "make dist" in provided["install"] and "saga mcp" in provided["install"]
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\ndist:" in makefile and "\ndist-check:" in makefile  # the route it names exists


def test_the_readme_carries_the_registry_ownership_line() -> None:
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {manifest['name']}" in readme  # the registry reads it from the published package


def test_server_json_validates_against_the_registry_schema() -> None:
    """The registry's own JSON Schema, at the version ``$schema`` names.

    The schema is the registry's file (modelcontextprotocol/static, ``schemas/2025-12-11/server.schema.json``,
    MIT), vendored under ``tests/data/mcp_registry/`` with its source and licence (``SOURCE.md``): the test never
    skips and never reaches the network.
    """
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    raw = SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256  # the file SOURCE.md describes, unedited
    schema = json.loads(raw)
    assert schema["$id"] == manifest["$schema"]
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    assert [error.message for error in validator.iter_errors(manifest)] == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "saga-kgqa"),  # no namespace slash
        ("description", "x" * 101),  # over the registry's limit
        ("packages", [{"registryType": "pypi", "identifier": "saga-kgqa"}]),  # no transport
    ],
)
def test_the_registry_schema_refuses_a_broken_manifest(field: str, value: object) -> None:
    """The validation can fail: the vendored schema rejects what the registry rejects."""
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8")) | {field: value}
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    assert list(validator.iter_errors(manifest))
