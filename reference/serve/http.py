"""The HTTP plumbing of `loopkit serve`: the standard library's ThreadingHTTPServer, bounded.

    server = ServeHTTP(app, host="127.0.0.1", port=0)   # port 0: the OS picks a free one
    server.start()          # serves in a thread; server.base_url is http://127.0.0.1:PORT
    ...
    server.stop()           # stops accepting, closes the socket

Bounds: a request body over `max_bytes` gets 413, a POST without Content-Length 411, more than `rate`
requests a second (with a burst of `2 * rate`, at least 2) get 429 with the kit's text, each in the
envelope of the wire format its path names. At most `workers` connections are served at once; one more
gets 503 at once and is closed. Each request has `timeout` seconds in all, from the moment the server
waits for it to the last byte of its answer: a client that sends (or reads) slowly, a byte at a time, is
dropped at the deadline instead of holding a worker. A client that resets its connection is one log line.
Loopback only unless `public=True`.
"""
from __future__ import annotations

import io
import ipaddress
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..sandbox.channel import MAX_FRAME
from ..wire.formats import ROUTES, guess_format
from .app import ServeApp

MAX_BYTES = MAX_FRAME  # the grader's channel bound (32 MB) for one message, reused for one request body
RATE = 200.0  # requests per second for the whole server; eight clients of a scenario use a fraction
TIMEOUT = 30.0  # seconds one request may take in all, waiting for it, reading it and answering it
POLL_SECONDS = 0.05  # how often the accepting thread looks for a stop: `stop()` waits up to this long (the standard
# library's 0.5 s made every stop wait about half a second); an idle server spends about 2 ms of CPU a second on it
WORKERS = 32  # connections served at once (a bench runs four clients; a keep-alive SDK holds one each)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RateLimit:
    """A token bucket: `rate` requests a second, up to `burst` at once."""

    def __init__(self, rate: float, burst: float):
        self.rate, self.burst = rate, burst
        self.tokens, self.last = burst, time.monotonic()
        self.lock = threading.Lock()

    def allow(self) -> bool:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens < 1:
                return False
            self.tokens -= 1
            return True


class ServeHTTP(ThreadingHTTPServer):
    daemon_threads = True  # a client that keeps its connection open must not keep the server alive
    request_queue_size = 128  # the listen backlog: a burst of clients is accepted (and counted) rather than left
    # half-open in the kernel, where the worker cap cannot see them

    def __init__(self, app: ServeApp, host: str = "127.0.0.1", port: int = 0, *, public: bool = False,
                 max_bytes: int = MAX_BYTES, rate: float = RATE, timeout: float = TIMEOUT, workers: int = WORKERS):
        if not public and not is_loopback(host):
            raise ValueError(f"{host} is not a loopback address; the scripted server listens on loopback only "
                             "unless told otherwise (--public)")
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.app = app
        self.max_bytes = max_bytes
        self.limit = RateLimit(rate, max(2 * rate, 2))
        self.request_timeout = timeout
        if workers < 1 or timeout <= 0:
            raise ValueError(f"workers must be at least 1 and the timeout above 0 (got {workers} and {timeout:g})")
        self.workers = threading.BoundedSemaphore(workers)
        self._thread: threading.Thread | None = None
        super().__init__((host, port), Handler)

    def process_request(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        """A worker thread for the connection if one is free; else 503 at once (in the shape of the wire its
        request line names, peeked at, nothing consumed), and closed."""
        if not self.workers.acquire(blocking=False):
            _refuse_busy(request)
            self.app.log("connection refused: every worker is busy (503)")
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.workers.release()

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        """A client that goes away or runs out of time is a log line, not a traceback."""
        import sys

        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError, socket.timeout)):
            self.app.log(f"client {client_address[0]}: {type(error).__name__}: the connection was dropped")
            return
        super().handle_error(request, client_address)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{'[' + str(host) + ']' if ':' in str(host) else host}:{port}"

    def start(self) -> "ServeHTTP":
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": POLL_SECONDS},
                                        name="loopkit-serve", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self.shutdown()  # from another thread than serve_forever's, as it requires
            self._thread.join()
        self.server_close()

    def __enter__(self) -> "ServeHTTP":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDKs reuse their connections
    disable_nagle_algorithm = True  # the head and the body go out as two writes: with Nagle's algorithm the body
    # waits for the client's delayed ACK of the head, 40 ms a request on Linux
    server: ServeHTTP
    server_version = "loopkit-serve"

    def setup(self) -> None:
        self.timeout = self.server.request_timeout
        super().setup()
        self.deadline = Deadline(self.connection, self.server.request_timeout)
        self.rfile = io.BufferedReader(DeadlineReader(self.connection, self.deadline))  # type: ignore[assignment]

    def handle_one_request(self) -> None:
        self.deadline.restart()  # the whole next request, idle wait included, has `timeout` seconds
        super().handle_one_request()

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def _serve(self) -> None:
        if not self.server.limit.allow():
            return self._refuse(429, "rate_limit", f"more than {self.server.limit.rate:g} requests a second",
                                {"retry-after-ms": "1"})
        length = self.headers.get("content-length")
        if self.command == "POST" and length is None:
            return self._refuse(411, "invalid_request", "send the body with a Content-Length header")
        try:
            size = int(length or 0)
        except ValueError:
            return self._refuse(400, "invalid_request", "the Content-Length header is not a number")
        if size > self.server.max_bytes or size < 0:
            return self._refuse(413, "request_too_large", f"a request body of {size:,} bytes (at most "
                                                        f"{self.server.max_bytes:,})")
        try:
            content = self.rfile.read(size)
        except (TimeoutError, OSError):
            self.close_connection = True
            return None
        path = self.path.split("?", 1)[0]
        status, headers, data = self.server.app.respond(self.command, path, dict(self.headers.items()), content)
        self._send(status, headers, data)

    def _send(self, status: int, headers: dict[str, str], data: bytes) -> None:
        self.deadline.arm()  # a client that does not read its answer is dropped at the deadline too
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if headers.get("content-type") == "text/event-stream":
            self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self, status: int, kind: str, text: str, extra: dict[str, str] | None = None) -> None:
        """Refused before the request is read: the connection is not reused (its body may still be unread)."""
        self.close_connection = True
        fmt = ROUTES.get(self.path.split("?", 1)[0]) or guess_format({k.lower(): v for k, v in self.headers.items()})
        envelope = fmt.error_body(kind, f"loopkit serve: {text}.")
        self._send(status, {"content-type": "application/json", "connection": "close", **(extra or {})},
                   json.dumps(envelope).encode("utf-8"))
        self.server.app.log(f"{self.command} {self.path} {status} refused: {text}")

    def log_message(self, format: str, *args: object) -> None:  # the app logs one line per request itself
        return None


class Deadline:
    """One request's time in all: every read and write on the socket gets what is left of it."""

    def __init__(self, sock: socket.socket, seconds: float):
        self.sock, self.seconds = sock, seconds
        self.ends = time.monotonic() + seconds

    def restart(self) -> None:
        self.ends = time.monotonic() + self.seconds

    def arm(self) -> None:
        left = self.ends - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's deadline passed")
        self.sock.settimeout(left)


class DeadlineReader(io.RawIOBase):
    """The socket's bytes, each receive limited to what is left of the request's deadline (the standard
    library's timeout starts again at every receive, so a byte at a time would keep a worker forever)."""

    def __init__(self, sock: socket.socket, deadline: Deadline):
        self.sock, self.deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        self.deadline.arm()
        return self.sock.recv_into(buffer)


PEEK_SECONDS = 0.05  # how long a refused connection may hold the accepting thread to show its request line


def _busy_format(sock: socket.socket):
    """The wire format of a connection refused before it was read, from a peek at what it sent so far (its
    route, else its headers); nothing is consumed. A client that has sent nothing yet gets Chat's shape."""
    try:
        sock.settimeout(PEEK_SECONDS)
        seen = sock.recv(4096, socket.MSG_PEEK).decode("latin-1")
    except OSError:
        seen = ""
    head, *lines = seen.split("\r\n\r\n", 1)[0].split("\r\n")
    parts = head.split(" ")
    path = parts[1].split("?", 1)[0] if len(parts) > 1 else ""
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return ROUTES.get(path) or guess_format(headers)


def _refuse_busy(sock: socket.socket) -> None:
    body = json.dumps(_busy_format(sock).kit_error("server", "every worker is busy; try again.")).encode("utf-8")
    head = (f"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(body)}"
            "\r\nretry-after-ms: 1\r\nconnection: close\r\n\r\n").encode("ascii")
    try:
        sock.settimeout(1.0)
        sock.sendall(head + body)
        sock.recv(1 << 16, socket.MSG_DONTWAIT)  # what the client already sent: a socket closed with unread
        # input is reset, and the reset can reach the client before the 503 does
    except OSError:
        pass
