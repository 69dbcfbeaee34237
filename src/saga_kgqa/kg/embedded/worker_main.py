"""The embedded store's query worker: its own entry point, its wire protocol and its caps.

The host (:mod:`saga_kgqa.kg.embedded.worker`) starts this file as a script,
``python -S -P .../worker_main.py --lifeline FD --pyoxigraph-dir DIR [--cleanup DIR]``, never
through ``multiprocessing``: a ``spawn`` child re-imports the host's ``__main__``, which crashed
(and re-ran, paying twice) every plain user script that embeds the store. Run as a script,
the worker imports only a few standard modules and pyoxigraph, never the ``saga_kgqa``
package, so it starts in about 2.2x the time a bare ``python -c "import pyoxigraph"`` takes
(``bench/worker_start.py``; ``tests/unit/kg/test_worker_start_imports.py`` fails on any module
it imports without needing it). The host imports this module too, for the framing functions
and the wire types.

Processes: the script forks once, before pyoxigraph is loaded. The parent is a *watchdog*
that owns nothing but the lifeline pipe; the child is the *server* that answers queries.

* The lifeline is a pipe whose write end only the host holds. When the host dies (``kill
  -9`` included) the kernel closes it; the watchdog sees EOF, kills the server, deletes the
  temporary store named by ``--cleanup`` and exits. A thread in the server could not do
  this: pyoxigraph keeps the GIL while it iterates results, so no other thread runs.
* The server asks for ``SIGKILL`` when the watchdog dies (``PR_SET_PDEATHSIG``), so killing
  the watchdog, as the host does to stop a runaway query, ends the server at once.

Caps, all set by the host per worker or per query: ``RLIMIT_AS`` on the server (a query
that exhausts it ends in a typed "narrow it" error on the host and is never retried), the
row cap, a byte cap on the term text sent back and a cell cap on each term's value; a cut
result is marked truncated with a note saying which cap cut it.

Wire format: each frame is an 8-byte big-endian length and a :mod:`marshal` payload of
plain values (dicts, lists, tuples, strings, numbers, ``None``), so no code can travel.
"""

import marshal
import os
import sys

# Imports are the worker's start-up cost, so the server's path holds only what it needs:
# ``typing`` (3.5 ms with ``re``) is for annotations only; ``_signal`` is the C module
# ``signal`` wraps in enums (``enum`` costs ~1.5 ms) and is loaded at interpreter start anyway.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal
    from typing import Any
else:
    try:
        import _signal
    except ImportError:  # an interpreter without CPython's private module
        import signal as _signal

#: One term on the wire: (kind, value, datatype, lang).
WireTerm = tuple[str, str, str | None, str | None]

#: Bytes of a frame's length header.
HEADER_BYTES = 8
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_CONSTRUCT_VARIABLES = ["subject", "predicate", "object"]
_PR_SET_PDEATHSIG = 1
#: What the Rust allocator prints before it aborts a process that ran out of address space.
MEMORY_ABORT_TEXT = "memory allocation of"


class FrameTooLarge(Exception):
    """A peer announced a frame larger than the reader accepts."""


def encode_frame(value: "Any") -> bytes:
    """Return ``value`` as one frame (length header and marshal payload)."""
    payload = marshal.dumps(value)
    return len(payload).to_bytes(HEADER_BYTES, "big") + payload


def write_frame(fd: int, value: "Any") -> None:
    """Write one frame to a file descriptor, all of it."""
    view = memoryview(encode_frame(value))
    while view:
        view = view[os.write(fd, view) :]


def read_exact(fd: int, size: int) -> bytes | None:
    """Read exactly ``size`` bytes, or return ``None`` at end of file."""
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def decode_length(header: bytes, limit: int) -> int:
    """Return the payload length a header announces.

    Raises:
        FrameTooLarge: The announced payload is larger than ``limit`` bytes.
    """
    length = int.from_bytes(header, "big")
    if length > limit:
        raise FrameTooLarge(f"frame of {length} bytes is over the {limit}-byte limit")
    return length


def decode_payload(payload: bytes) -> "Any":
    """Return the value a frame's payload holds."""
    return marshal.loads(payload)  # noqa: S302 -- our own worker's plain values; marshal carries no code


def _read_frame(fd: int) -> "Any":
    header = read_exact(fd, HEADER_BYTES)
    if header is None:
        return None
    payload = read_exact(fd, decode_length(header, 1 << 30))
    return None if payload is None else decode_payload(payload)


def _wire(node: "Any", ox: "Any") -> WireTerm:
    if isinstance(node, ox.NamedNode):
        return ("uri", node.value, None, None)
    if isinstance(node, ox.Literal):
        datatype = node.datatype.value
        if node.language is not None or datatype in (_XSD_STRING, _RDF_LANG_STRING):
            return ("literal", node.value, None, node.language)
        return ("literal", node.value, datatype, None)
    if isinstance(node, ox.BlankNode):
        return ("bnode", node.value, None, None)
    return ("triple", str(node), None, None)


class _Collector:
    """Rows read lazily from a pyoxigraph answer, under the row, byte and cell caps."""

    def __init__(self, request: "dict[str, Any]", ox: "Any") -> None:
        self.max_rows: int = request["max_rows"]
        self.max_bytes: int = request["max_bytes"]
        self.max_cell: int = request["max_cell"]
        self.ox = ox
        self.rows: list[list[WireTerm | None]] = []
        self.used = 0
        self.cut_cells = 0
        self.notes: list[str] = []

    def term(self, node: "Any") -> WireTerm | None:
        if node is None:
            return None
        kind, value, datatype, lang = _wire(node, self.ox)
        if len(value) > self.max_cell:
            value = value[: self.max_cell]
            self.cut_cells += 1
        self.used += len(value.encode("utf-8", "surrogatepass")) + len(datatype or "") + len(lang or "")
        return (kind, value, datatype, lang)

    def add(self, row: list[WireTerm | None]) -> bool:
        """Keep one row; return ``False`` when a cap says to stop reading."""
        if self.used > self.max_bytes:
            self.notes.append(f"stopped after {len(self.rows)} rows (byte cap of {self.max_bytes} bytes)")
            return False
        self.rows.append(row)
        return True

    def collect(self, raw: "Any") -> tuple[list[str], bool]:
        ox = self.ox
        triples = isinstance(raw, ox.QueryTriples)
        variables = list(_CONSTRUCT_VARIABLES) if triples else [v.value for v in raw.variables]
        truncated = False
        for item in raw:
            if len(self.rows) == self.max_rows:
                truncated = True
                self.notes.append(f"stopped after {self.max_rows} rows (row cap)")
                break
            parts = (item.subject, item.predicate, item.object) if triples else [item[name] for name in variables]
            if not self.add([self.term(part) for part in parts]):
                truncated = True
                break
        if self.cut_cells:
            truncated = True
            self.notes.append(f"{self.cut_cells} value(s) cut to {self.max_cell} characters (cell cap)")
        return variables, truncated


def _answer(
    store: "Any", request: "dict[str, Any]", prefixes: dict[str, str], union: bool, ox: "Any"
) -> "dict[str, Any]":
    try:
        # Same dataset as the in-process path: the default graph is the union of all graphs.
        raw = store.query(
            request["text"],
            prefixes=prefixes,
            use_default_graph_as_union=union,
            custom_functions=_derived_casts(request["text"]),
        )
        if isinstance(raw, ox.QueryBoolean):
            return {"status": "ok", "form": "ASK", "boolean": bool(raw)}
        collector = _Collector(request, ox)
        variables, truncated = collector.collect(raw)
    except SyntaxError as exc:
        return {"status": "syntax_error", "message": str(exc)}
    except MemoryError as exc:
        return {"status": "memory", "message": str(exc)}
    except OSError as exc:
        return {"status": "io_error", "message": str(exc)}
    except Exception as exc:  # any other pyoxigraph failure must reach the host as a reply, not kill us
        return {"status": "failed", "message": f"{type(exc).__name__}: {exc}"}
    return {
        "status": "ok",
        "form": request["form"],
        "variables": variables,
        "rows": collector.rows,
        "truncated": truncated,
        "notes": collector.notes,
    }


#: Text a query calling an XSD derived integer cast holds (``:int``, ``#unsignedByte`` ...). A query without any
#: never loads the casts' module (its ``re`` and ``decimal`` are start-up cost); one with a false hit
#: (``xsd:integer`` holds ``:int``) only pays for loading it once.
_CAST_MARKERS = tuple(
    sep + name
    for sep in (":", "#")
    for name in ("int", "long", "short", "byte", "nonNegative", "positive", "nonPositive", "negative", "unsigned")
)


_CASTS_MODULE = "_saga_worker_xsd_casts"


def _derived_casts(text: str) -> "Any":
    """The custom functions (pyoxigraph's) for XSD's derived integer casts, when ``text`` may call one (faults AE2).

    The worker never imports the ``saga_kgqa`` package, so ``xsd_casts.py`` (standard library and pyoxigraph
    only) is loaded from this file's folder by its path, once, under a name no installed module can shadow.
    """
    if not any(marker in text for marker in _CAST_MARKERS):
        return None
    module = sys.modules.get(_CASTS_MODULE)
    if module is None:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "xsd_casts.py")
        spec = importlib.util.spec_from_file_location(_CASTS_MODULE, path)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[_CASTS_MODULE] = module
    return module.casts_for(text)


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(_signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the watchdog died before the request took effect
        os._exit(1)


def serve(request_fd: int, reply_fd: int) -> None:
    """Server loop: read the configuration, cap memory, open the store, answer until told to stop.

    The first frame is ``{"store", "prefixes", "memory_bytes"}``; each later frame is a
    request, and ``None`` (or end of file) means stop.
    """
    config = _read_frame(request_fd)
    if config is None:
        return
    import resource

    # A crashing worker (pyoxigraph overflows its stack on absurdly nested queries) must
    # not leave a core dump of the mapped store in the working directory.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if config["memory_bytes"]:
        cap = config["memory_bytes"]
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    import pyoxigraph as ox

    try:
        store = ox.Store.read_only(config["store"])
    except (OSError, MemoryError) as exc:
        write_frame(reply_fd, {"status": "io_error", "message": f"cannot open store {config['store']}: {exc}"})
        return
    union = next(iter(store.named_graphs()), None) is not None
    prefixes = dict(config["prefixes"])
    write_frame(reply_fd, {"status": "ready"})
    while (request := _read_frame(request_fd)) is not None:
        reply = _answer(store, request, prefixes, union, ox)
        try:
            frame = encode_frame(reply)
        except MemoryError:
            frame = encode_frame({"status": "memory", "message": "no memory left to send the answer"})
        try:
            view = memoryview(frame)
            while view:
                view = view[os.write(reply_fd, view) :]
        except OSError:
            return  # the host stopped listening (it timed out or closed); it will reap us


def _watch(server: int, lifeline: int, cleanup: str | None) -> None:
    """Watchdog: end the server and delete the temporary store when the host dies; mirror the server's exit.

    One ``poll`` waits for both events, so the watchdog needs no thread (and no ``threading``
    import beside a server that is still starting): the lifeline turns readable at EOF, when the
    host is gone, and a pidfd of the server when the server exits. ``poll``, not ``select``: the
    lifeline keeps the host's descriptor number, which a busy host can hold above ``FD_SETSIZE``.
    """
    import select

    waiter = select.poll()
    waiter.register(lifeline, select.POLLIN)
    try:
        waiter.register(os.pidfd_open(server), select.POLLIN)  # Linux >= 5.3
        tick = None
    except (AttributeError, OSError):  # elsewhere: look at the server ten times a second
        tick = 100
    host_gone = False
    while True:
        ready = [fd for fd, _ in waiter.poll(tick)]
        if lifeline in ready and not os.read(lifeline, 1):  # the host never writes; EOF: it is gone
            host_gone = True
            import contextlib  # only now: the host is gone and nothing is starting

            with contextlib.suppress(ProcessLookupError):
                os.kill(server, int(_signal.SIGKILL))
            _, status = os.waitpid(server, 0)
            break
        reaped, status = os.waitpid(server, os.WNOHANG)
        if reaped:
            break
    if cleanup and host_gone:
        import shutil

        shutil.rmtree(cleanup, ignore_errors=True)
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


def main(argv: list[str]) -> None:
    """Entry point: fork the watchdog and the server (where ``fork`` exists), then serve."""
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # Ctrl-C reaches the whole group; the host decides
    lifeline = int(argv[argv.index("--lifeline") + 1])
    cleanup = argv[argv.index("--cleanup") + 1] if "--cleanup" in argv else None
    if "--pyoxigraph-dir" in argv:
        # Started with -S (no site-packages): the host names the directory its own pyoxigraph
        # came from. Appended, so the standard library still comes first, as under ``site``.
        sys.path.append(argv[argv.index("--pyoxigraph-dir") + 1])
    if hasattr(os, "fork"):
        watchdog = os.getpid()
        server = os.fork()
        if server:
            # The watchdog keeps no copy of the pipes, so the host sees EOF the moment the server dies.
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            _watch(server, lifeline, cleanup)
        os.close(lifeline)
        _die_with_parent(watchdog)
    serve(0, 1)


if __name__ == "__main__":
    main(sys.argv)
