"""A reproducibility kit: predictions, their manifest and the frozen gold in one archive.

``saga eval kit`` packs a run's predictions, its manifest (:mod:`saga_kgqa.eval.qa.manifest`)
and the gold store it is scored against into one ``.tar.gz``, with ``kit.json`` naming each
member and its SHA-256. ``saga eval score KIT`` reads the archive and scores offline: no
graph, no endpoint, no dataset -- the frozen gold travels inside. Every member is checked
against ``kit.json`` on the way in, and the predictions against the hash the run recorded
in its manifest, so a kit edited after packing is refused, never scored.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.gold import GoldStore
from saga_kgqa.eval.qa.manifest import file_sha256, manifest_path, read_manifest
from saga_kgqa.runs.predictions import PredictionRecord, read_predictions

#: Member names inside a kit.
PREDICTIONS, MANIFEST, GOLD, INDEX = "predictions.jsonl", "manifest.json", "gold.jsonl", "kit.json"
KIT_VERSION = 1
#: Largest member read from a kit (an archive is outside input: a bomb is refused, not unpacked).
MAX_MEMBER_BYTES = 512 << 20


@dataclass(frozen=True, slots=True)
class Kit:
    """What a kit holds, checked."""

    records: list[PredictionRecord]
    gold: GoldStore
    manifest: dict[str, Any]


def write_kit(predictions: Path, gold: Path, out: Path) -> dict[str, Any]:
    """Pack predictions, their manifest and the gold into ``out`` (``.tar.gz``); return ``kit.json``.

    Raises:
        ConfigurationError: The manifest is missing, or the predictions changed since the run wrote it.
    """
    manifest_file = manifest_path(predictions)
    if not manifest_file.is_file():
        raise ConfigurationError(
            f"no manifest beside {predictions} ({manifest_file.name}): was it made by saga eval run?"
        )
    manifest = read_manifest(manifest_file)
    recorded = (manifest.get("predictions") or {}).get("sha256")
    if recorded is not None and recorded != file_sha256(predictions):
        raise ConfigurationError(f"{predictions} changed since its run finished (hash differs from its manifest)")
    GoldStore.load(gold)  # a kit never carries an unreadable gold store
    members = {PREDICTIONS: predictions, MANIFEST: manifest_file, GOLD: gold}
    index = {
        "kit_version": KIT_VERSION,
        "packed_at": datetime.now(UTC).isoformat(),
        "members": {name: file_sha256(path) for name, path in members.items()},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", delete=False) as handle:
        temporary = Path(handle.name)
    try:
        with tarfile.open(temporary, "w:gz") as archive:
            encoded = json.dumps(index, indent=2, sort_keys=True).encode("utf-8")
            info = tarfile.TarInfo(INDEX)
            info.size = len(encoded)
            archive.addfile(info, io.BytesIO(encoded))
            for name, path in members.items():
                archive.add(path, arcname=name, recursive=False)
        temporary.replace(out)
    finally:
        temporary.unlink(missing_ok=True)
    return index


def is_kit(path: Path) -> bool:
    """Whether ``path`` is a tar archive (a predictions file is JSON lines)."""
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except OSError:
        return False


def _member(archive: tarfile.TarFile, name: str, path: Path) -> bytes:
    try:
        info = archive.getmember(name)
    except KeyError:
        raise ConfigurationError(f"{path}: not a kit (no {name})") from None
    if not info.isfile() or info.size > MAX_MEMBER_BYTES:
        raise ConfigurationError(f"{path}: {name} is not a regular file under {MAX_MEMBER_BYTES >> 20} MiB")
    stream = archive.extractfile(info)
    if stream is None:
        raise ConfigurationError(f"{path}: cannot read {name}")
    return stream.read()


def read_kit(path: Path) -> Kit:
    """Open a kit, check every member's hash, and load predictions and gold.

    Raises:
        ConfigurationError: Not a kit, a member missing or changed, or unreadable contents.
    """
    try:
        with tarfile.open(path, "r:gz") as archive:
            index = json.loads(_member(archive, INDEX, path))
            blobs = {name: _member(archive, name, path) for name in (PREDICTIONS, MANIFEST, GOLD)}
    except (OSError, tarfile.TarError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read kit {path}: {exc}") from exc
    expected = index.get("members") if isinstance(index, dict) else None
    if not isinstance(expected, dict):
        raise ConfigurationError(f"{path}: kit.json lists no members")
    for name, blob in blobs.items():
        if hashlib.sha256(blob).hexdigest() != expected.get(name):
            raise ConfigurationError(f"{path}: {name} does not match its hash in kit.json (changed after packing)")
    with tempfile.TemporaryDirectory(prefix="saga-kit-") as folder:
        for name, blob in blobs.items():
            (Path(folder) / name).write_bytes(blob)
        manifest = read_manifest(Path(folder) / MANIFEST)
        recorded = (manifest.get("predictions") or {}).get("sha256")
        if recorded is not None and recorded != expected[PREDICTIONS]:
            raise ConfigurationError(f"{path}: predictions differ from the run that made them (manifest hash)")
        return Kit(read_predictions(Path(folder) / PREDICTIONS), GoldStore.load(Path(folder) / GOLD), manifest)
