"""``fenix-table club serve``'s web application: one page, JSON, FGN and a live stream.

Standard library only (:mod:`http.server`), read-only: it answers GET and nothing else.

* ``/`` the page: every table's board as SVG, last move, turn, clocks; a click opens one
  game with its move list (``page.html``); ``/arbiter`` the same page with violations
  explained, behind HTTP Basic authentication when an arbiter password is set (without
  one every viewer sees them);
* ``/stream`` Server-Sent Events: ``tables`` events, each a JSON list of the tables that
  changed (all of them first); ``/arbiter/stream`` the same with violations explained;
* ``/api/tables`` every table as JSON; ``/api/tables/<table>`` one;
  ``/api/tables/<table>/game.fgn`` its game as FGN; ``/api/round.fgn`` every game of every
  table this evening in one FGN file; ``/api/club`` the club's name.
"""
from __future__ import annotations

import base64
import hmac
import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional
from urllib.parse import unquote, urlsplit

from ..errors import FenixError
from . import archive
from .viewer import Club

log = logging.getLogger(__name__)

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.html")
#: Seconds between keep-alive comments on an idle stream.
KEEPALIVE = 15.0


class ViewerServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, club: Club, *, arbiter_password: Optional[str] = None,
                 club_name: str = "") -> None:
        self.club = club
        self.arbiter_password = arbiter_password or None
        self.club_name = club_name
        with open(PAGE, encoding="utf-8") as fh:
            self.page = fh.read()
        self.stopping = threading.Event()
        super().__init__(address, Handler)

    def shutdown(self) -> None:
        self.stopping.set()
        with self.club.changed:
            self.club.changed.notify_all()
        super().shutdown()


class Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:   # quiet: one line per request is noise
        log.debug("%s %s", self.address_string(), format % args)

    def _arbiter(self) -> bool:
        password = self.server.arbiter_password
        if password is None:
            return True
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            given = base64.b64decode(header[6:], validate=True).decode("utf-8").partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return False
        return hmac.compare_digest(given.encode(), password.encode())

    def _send(self, status: int, body: bytes, kind: str, extra=()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data, status: int = 200) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _text(self, status: int, text: str) -> None:
        self._send(status, (text + "\n").encode(), "text/plain; charset=utf-8")

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path)
        club = self.server.club
        arbiter = self._arbiter()
        if path in ("/", "/index.html"):
            return self._page(arbiter and self.server.arbiter_password is None)
        if path in ("/arbiter", "/arbiter/stream") and not arbiter:
            return self._send(401, b"arbiter password needed\n", "text/plain",
                              [("WWW-Authenticate", 'Basic realm="fenix arbiter"')])
        if path == "/arbiter":
            return self._page(True)
        if path in ("/stream", "/arbiter/stream"):
            return self._stream(path == "/arbiter/stream")
        if path == "/api/club":
            return self._json({"club": self.server.club_name})
        if path == "/api/tables":
            return self._json(club.snapshot(arbiter))
        if path == "/api/round.fgn":
            text = archive.round_fgn(self.server.club_name or "club", club.round())
            return self._send(200, text.encode(), "application/x-fenix-fgn; charset=utf-8",
                              [("Content-Disposition", 'attachment; filename="round.fgn"')])
        if path.startswith("/api/tables/"):
            rest = path[len("/api/tables/"):]
            name, _, what = rest.partition("/")
            entry = club.table(name)
            if entry is None or what not in ("", "game.fgn"):
                return self._text(404, f"no table {name[:64]!r}")
            data = next(t for t in club.snapshot(arbiter) if t["table"] == name)
            if what == "":
                return self._json(data)
            try:
                text = archive.game_fgn(self.server.club_name or "club", data)
            except FenixError as error:
                return self._text(409, f"table {name}: {error}")
            return self._send(200, text.encode(), "application/x-fenix-fgn; charset=utf-8",
                              [("Content-Disposition",
                                f'attachment; filename="{name}.fgn"')])
        self._text(404, "not found")

    def _page(self, arbiter: bool) -> None:
        page = self.server.page.replace("__ARBITER__", "1" if arbiter else "0")
        self._send(200, page.encode(), "text/html; charset=utf-8")

    def _stream(self, arbiter: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        club = self.server.club
        version = 0
        try:
            version, tables = club.changes(-1, arbiter, 0)
            self._event("tables", tables)
            while not self.server.stopping.is_set():
                now_version, tables = club.changes(version, arbiter, KEEPALIVE)
                if tables:
                    version = now_version
                    self._event("tables", tables)
                else:
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass   # the browser went away

    def _event(self, name: str, data) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
