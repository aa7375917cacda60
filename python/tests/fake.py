"""A tiny API stand-in on http.server: it answers each request with the next scripted reply and
records what it was asked."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

Reply = Tuple[int, Dict[str, str], Any]


class FakeApi:
    def __init__(self) -> None:
        self.replies: List[Reply] = []
        self.requests: List[Dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                fake.requests.append({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                status, headers, payload = fake.replies.pop(0) if fake.replies else (500, {}, {"error": {"code": "SERVICE_UNAVAILABLE", "message": "no reply scripted", "requestId": "r"}})
                raw = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PATCH = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def reply(self, status: int, payload: Any, headers: Optional[Dict[str, str]] = None) -> "FakeApi":
        self.replies.append((status, headers or {}, payload))
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def ok(data: Any, charged: int = 1) -> Dict[str, Any]:
    return {"data": data, "meta": {"requestId": "req-ok", "creditsCharged": charged, "creditsRemaining": 99, "cached": False}}


def error(code: str, message: str = "m", details: Any = None) -> Dict[str, Any]:
    body: Dict[str, Any] = {"code": code, "message": message, "requestId": f"req-{code}"}
    if details is not None:
        body["details"] = details
    return {"error": body}
