"""`loopkit serve`'s HTTP layer against the same app behind uvicorn + starlette (docs/serve.md, "The server stack").

    python benchmarks/serve_stack.py                                  # the standard-library server (ServeHTTP)
    python benchmarks/serve_stack.py --stack starlette --python VENV/bin/python   # a venv with uvicorn, starlette

The server is a child process serving `happy-path` (its interpreter: --python, default this one), with the
same bounds for both stacks where the stack can express them: 32 workers, a 5 s request deadline, a 32 MB
body cap, no rate limit (the default 200 requests a second would cap the throughput figure). The app is the
same object, `ServeApp.respond`; only the HTTP layer differs. Measured from this process over plain HTTP
(http.client, one keep-alive connection per client thread), with VmRSS, VmHWM and Threads from /proc (Linux):

1. throughput: N clients post the scenario's first Chat Completions request for S seconds; requests a
   second, p50 and p99 latency, non-200 answers;
2. memory: five 30 MB Chat bodies one after another;
3. the worker cap: 40 clients each stuck half-way through a body, then one ordinary request;
4. the deadline: a client that sends its body a byte every 0.2 s, and one that sends its headers so.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import socket
import statistics
import subprocess
import sys
import threading
import time

SCENARIO, TIMEOUT, WORKERS, MAX_BYTES = "happy-path", 5.0, 32, 32 * 1024 * 1024


def serve_stdlib() -> None:
    from reference.serve.app import ServeApp
    from reference.serve.http import ServeHTTP
    from reference.sim.scenario.loading import find
    server = ServeHTTP(ServeApp(find(SCENARIO)), rate=1e9, timeout=TIMEOUT, workers=WORKERS, max_bytes=MAX_BYTES)
    print(server.base_url, flush=True)
    server.serve_forever()


def serve_starlette(impl: str) -> None:
    """The same app behind uvicorn: the body cap and a deadline on reading the body in the handler, the
    worker cap as uvicorn's limit_concurrency (it has no deadline on reading a request's headers)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from reference.serve.app import ServeApp
    from reference.sim.scenario.loading import find
    app = ServeApp(find(SCENARIO))

    async def handle(request: Request) -> Response:
        length = request.headers.get("content-length")
        if request.method == "POST" and length is None:
            return Response(b'{"error": "length required"}', 411)
        if int(length or 0) > MAX_BYTES:
            return Response(b'{"error": "too large"}', 413, {"connection": "close"})
        try:
            content = await asyncio.wait_for(request.body(), TIMEOUT)
        except asyncio.TimeoutError:
            return Response(b'{"error": "deadline"}', 408, {"connection": "close"})
        status, headers, data = app.respond(request.method, request.url.path, dict(request.headers), content)
        return Response(data, status, headers)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(Starlette(routes=[Route("/{path:path}", handle, methods=["GET", "POST"])]),
                            log_level="warning", access_log=False, limit_concurrency=WORKERS + 1,  # counts itself
                            **({"http": "h11", "loop": "asyncio"} if impl == "h11" else {}),
                            timeout_keep_alive=int(TIMEOUT), h11_max_incomplete_event_size=MAX_BYTES)
    uvicorn.Server(config).run(sockets=[sock])


def proc(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return {k: v.strip() for k, v in (line.split(":", 1) for line in f if ":" in line)}


def first_request() -> bytes:
    from reference.sim.scenario.loading import find
    s = find(SCENARIO)
    tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                               "parameters": t.parameters}} for t in s.tools]
    return json.dumps({"model": "m", "messages": [{"role": "system", "content": s.system},
                                                  {"role": "user", "content": s.user}], "tools": tools}).encode()


def post(conn: http.client.HTTPConnection, body: bytes) -> int:
    conn.request("POST", "/v1/chat/completions", body, {"content-type": "application/json", "authorization": "Bearer k"})
    answer = conn.getresponse()
    answer.read()
    return answer.status


def throughput(host: str, port: int, clients: int, seconds: float) -> str:
    body, latencies, bad, lost, stop = first_request(), [], [0], [0], time.monotonic() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                status = post(conn, body)
            except OSError:  # reset or refused: counted, and a new connection
                lost[0] += 1
                conn.close()
                continue
            latencies.append(time.perf_counter() - started)
            if status != 200:
                bad[0] += 1
        conn.close()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ms = sorted(x * 1000 for x in latencies)
    return (f"{clients} clients: {len(ms) / (time.monotonic() - began):.0f} requests/s, p50 {statistics.median(ms):.1f} "
            f"ms, p99 {ms[int(len(ms) * 0.99) - 1]:.1f} ms, {bad[0]} not 200 of {len(ms)}, {lost[0]} connections lost")


def stuck(host: str, port: int, how: bytes) -> socket.socket:
    sock = socket.create_connection((host, port))
    sock.sendall(how)
    return sock


def dropped_after(sock: socket.socket, trickle: bytes, limit: float = 20.0) -> str:
    """Seconds until the server answers or closes a client that sends `trickle` a byte every 0.2 s."""
    began = time.monotonic()
    sock.settimeout(0.2)
    for i in range(int(limit / 0.2)):
        try:
            sock.sendall(trickle[i % len(trickle):i % len(trickle) + 1])
            got = sock.recv(200)
            return f"{'answered ' + got.split(b' ', 2)[1].decode() if got else 'closed'} after {time.monotonic() - began:.1f} s"
        except socket.timeout:
            continue
        except OSError as exc:
            return f"{type(exc).__name__} after {time.monotonic() - began:.1f} s"
    return f"still held after {limit:g} s"


def main() -> None:
    cli = argparse.ArgumentParser()
    cli.add_argument("--stack", choices=["stdlib", "starlette"], default="stdlib")
    cli.add_argument("--python", default=sys.executable, help="the server's interpreter")
    cli.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    cli.add_argument("--seconds", type=float, default=5.0)
    cli.add_argument("--impl", choices=["auto", "h11"], default="auto", help="uvicorn's HTTP parser and loop: its "
                     "default (httptools and uvloop when installed) or the pure-Python h11 on asyncio")
    cli.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = cli.parse_args()
    if args.serve:
        return serve_stdlib() if args.stack == "stdlib" else serve_starlette(args.impl)
    server = subprocess.Popen([args.python, __file__, "--serve", "--stack", args.stack, "--impl", args.impl],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    host, port = server.stdout.readline().strip().removeprefix("http://").split(":")
    port = int(port)
    try:
        time.sleep(0.5)
        print(f"{args.stack} ({args.python}, {args.impl}): at start VmRSS {proc(server.pid)['VmRSS']}, threads {proc(server.pid)['Threads']}")
        for n in args.clients:
            print("  " + throughput(host, port, n, args.seconds))
            time.sleep(1)  # the last round's connections are closed on both sides
        big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 30_000_000}]}).encode()
        for _ in range(5):
            conn = http.client.HTTPConnection(host, port, timeout=120)
            status = post(conn, big)
            conn.close()
        seen = proc(server.pid)
        print(f"  after five 30 MB bodies (last {status}): VmRSS {seen['VmRSS']}, peak VmHWM {seen['VmHWM']}")
        head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n"
        held = [stuck(host, port, head + b"{") for _ in range(WORKERS + 8)]
        time.sleep(1)
        conn = http.client.HTTPConnection(host, port, timeout=30)
        started = time.perf_counter()
        try:
            status = str(post(conn, first_request()))
        except OSError as exc:
            status = type(exc).__name__
        answered = 0
        for sock in held:
            sock.settimeout(0.01)
            try:
                answered += bool(sock.recv(100))
            except OSError:
                pass
        print(f"  {WORKERS + 8} clients stuck mid-body ({answered} of them answered at once): threads "
              f"{proc(server.pid)['Threads']}; one more request -> {status} in {(time.perf_counter() - started) * 1000:.0f} ms")
        for sock in held:
            sock.close()
        conn.close()
        time.sleep(TIMEOUT + 1)  # whatever the stuck clients held is let go
        print(f"  a body a byte every 0.2 s: {dropped_after(stuck(host, port, head), b'{' * 100)}")
        print(f"  headers a byte every 0.2 s: {dropped_after(stuck(host, port, b'P'), head[1:])}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
