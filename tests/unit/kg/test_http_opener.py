"""The per-thread opener: reused within a thread, rebuilt when the proxy settings change, never shared; TLS recorded."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
from pathlib import Path

import pytest

from saga_kgqa.kg.remote.http_opener import SocketRecorder, _RecordingHTTPSConnection, opener_for


def test_a_thread_reuses_its_opener_with_the_new_recorder() -> None:
    first, second = SocketRecorder(), SocketRecorder()
    opener = opener_for(first)
    assert opener_for(second) is opener
    handlers = [h for h in opener.handlers if hasattr(h, "recorder")]
    assert len(handlers) == 2 and all(h.recorder is second for h in handlers)  # type: ignore[attr-defined]


def test_a_changed_proxy_setting_builds_a_new_opener(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("http_proxy", raising=False)
    before = opener_for(SocketRecorder())
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:3128")
    after = opener_for(SocketRecorder())
    assert after is not before
    proxies = next(h for h in after.handlers if hasattr(h, "proxies"))
    assert proxies.proxies.get("http") == "http://127.0.0.1:3128"  # type: ignore[attr-defined]


def test_threads_never_share_an_opener() -> None:
    mine = opener_for(SocketRecorder())
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.append(opener_for(SocketRecorder())))
    worker.start()
    worker.join()
    assert theirs and theirs[0] is not mine


def _self_signed(directory: Path) -> tuple[Path, Path]:
    """A throw-away certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


def test_an_https_connection_records_its_tls_socket(tmp_path: Path) -> None:
    cert_file, key_file = _self_signed(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert_file, key_file)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def accept_one() -> None:
        connection, _ = listener.accept()
        with server_context.wrap_socket(connection, server_side=True) as tls:
            tls.recv(1)  # the handshake is done; wait for the client to close

    server = threading.Thread(target=accept_one, daemon=True)
    server.start()
    recorder = SocketRecorder()
    client = _RecordingHTTPSConnection(
        "127.0.0.1", port=port, timeout=10, context=ssl.create_default_context(cafile=cert_file), recorder=recorder
    )
    try:
        client.connect()
        assert isinstance(client.sock, ssl.SSLSocket)
        assert recorder.sock is client.sock
    finally:
        client.close()
        server.join(timeout=10)
        listener.close()
