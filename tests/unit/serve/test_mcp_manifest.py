"""``server.json``, the manifest MCP registries read, agrees with the package and the server."""

from __future__ import annotations

import json
import tomllib

from tests.conftest import REPO_ROOT


def test_server_json_describes_this_package_and_its_command() -> None:
    manifest = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = manifest["packages"]
    assert manifest["version"] == package["version"] == project["version"]
    assert package["registryType"] == "pypi" and package["identifier"] == project["name"]
    assert package["transport"] == {"type": "stdio"}
    # The registry's host runs `uvx saga-kgqa mcp`: the script and subcommand must exist.
    assert "saga" in project["scripts"]
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
