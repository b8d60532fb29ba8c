"""`loopkit serve` under hostile clients: its memory after five 30 MB request bodies, and its threads while
many clients trickle their requests a byte at a time (docs/serve.md, "Limits, measured").

    python benchmarks/serve_limits.py            # the worktree's reference/ (PYTHONPATH picks another)

Starts `loopkit serve happy-path` as a child process and reads its VmRSS and Threads from /proc (Linux only).
"""
from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(line.split(":", 1) for line in f if ":" in line)


def figure(pid: int, name: str) -> str:
    return status(pid)[name].strip()


def main() -> None:
    server = subprocess.Popen([sys.executable, "-m", "reference.cli", "serve", "happy-path", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = server.stdout.readline().strip()
    host, port = url.removeprefix("http://").split(":")
    try:
        print(f"at start: VmRSS {figure(server.pid, 'VmRSS')}, threads {figure(server.pid, 'Threads')}")
        big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 30_000_000}]}).encode()
        for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
            conn = http.client.HTTPConnection(host, int(port), timeout=120)
            conn.request("POST", "/v1/chat/completions", big, {"content-type": "application/json",
                                                                "authorization": "Bearer k"})
            answer = conn.getresponse()
            answer.read()
            conn.close()
        print(f"after {int(sys.argv[1]) if len(sys.argv) > 1 else 5} 30 MB bodies (last status {answer.status}): VmRSS {figure(server.pid, 'VmRSS')}")
        slow = []
        for _ in range(200):
            sock = socket.create_connection((host, int(port)))
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{")
            slow.append(sock)
        time.sleep(1)
        print(f"200 slow clients connected: threads {figure(server.pid, 'Threads')}, "
              f"VmRSS {figure(server.pid, 'VmRSS')}")
        for sock in slow:
            sock.close()
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
