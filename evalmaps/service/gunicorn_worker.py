"""A gunicorn threaded worker that idle or slow clients cannot starve (used by gunicorn.conf.py).

Part of serving, beside :mod:`evalmaps.service.server`: it imports gunicorn only, never the web
app. gunicorn imports it by the dotted name gunicorn.conf.py gives as ``worker_class``.

gunicorn's own ``gthread`` worker (27.x) hands every accepted connection to a pool thread, which
waits up to 5 s for the first byte and then reads the request head with a blocking socket. So
200 silent connections keep 2 x 8 threads busy for about a minute before a new request gets one,
and a client that sends part of a request line holds its thread until it disconnects: a few dozen
such sockets stop the service, as sync workers did.

This worker reads the request head in the worker's event loop instead, without blocking, and
hands a connection to a pool thread only once its head is complete (``\\r\\n\\r\\n``); the
parser then applies the ``limit_request_*`` settings as usual. A connection that has not sent a
complete head within ``header_timeout`` seconds of being accepted, or of becoming readable again
after a kept-alive response, is closed (with a 408 if it had sent something); one whose head
passes ``max_head_bytes`` unfinished gets a 431, one with a bare LF line end a 400, and is
closed. Silent, half-sent and slowloris connections cost a file descriptor and at most
``max_head_bytes`` each, never a thread; their number is bounded per worker by
``worker_connections``.

Once a request is in a thread, socket reads and writes (the body, the response) time out after
the worker ``timeout``: a client that stalls mid-body or stops reading the response loses its
connection instead of keeping the thread. A client trickling a large body slowly still holds a
thread while it keeps sending; a buffering reverse proxy in front is the complete answer to that.

TLS, HTTP/2 prior knowledge and the uwsgi protocol keep gthread's behaviour (the head cannot be
read before the TLS handshake or the HTTP/2 preface): this deployment uses none of them.
"""

from __future__ import annotations

import errno
import selectors
import time
from collections import deque
from functools import partial

import gunicorn
from gunicorn.workers.gthread import STOP_KEEPALIVE_LINGER, TConn, ThreadWorker

if gunicorn.version_info[0] != 27:
    raise ImportError(f"evalmaps.service.gunicorn_worker extends gunicorn 27's gthread worker, "
                      f"but gunicorn {gunicorn.__version__} is installed. Install gunicorn 27 "
                      f"(pip install 'gunicorn>=27,<28').")

HEAD_END = b"\r\n\r\n"
RECV_SIZE = 65536


def _answer(status: str, text: str) -> bytes:
    body = text.encode()
    return (f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


TIMED_OUT = _answer("408 Request Timeout", "The request head did not arrive in time.\n")
TOO_LARGE = _answer("431 Request Header Fields Too Large", "The request head is too large.\n")
BARE_LF = _answer("400 Bad Request", "Lines of the request head must end with CRLF.\n")


class HeadBufferingThreadWorker(ThreadWorker):
    """gthread, except that the request head is read in the event loop, not in a pool thread."""

    header_timeout = 10.0  # seconds from accept (or keep-alive wake-up) to a complete head
    max_head_bytes = 65536  # browsers send a few kB; the parser's limits apply below this

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.heading: deque[TConn] = deque()  # waiting for their head, oldest deadline first
        cfg = self.cfg
        self.buffer_heads = (not cfg.is_ssl
                             and getattr(cfg, "protocol", "http") == "http"
                             and getattr(cfg, "http2_cleartext", "off") in ("off", "upgrade"))

    # ----------------------------------------------------------------- connections in

    def accept(self, listener):
        if not self.buffer_heads:
            return super().accept(listener)
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, client_sock, client_addr, listener.getsockname())
        conn.head_ready = False
        self.await_head(conn)

    def enqueue_req(self, conn):
        """Every path into the pool (new, kept-alive, pipelined) comes through here."""
        if not self.buffer_heads or getattr(conn, "head_ready", False):
            conn.head_ready = False  # the next request on this connection is read again
            return super().enqueue_req(conn)
        return self.await_head(conn)

    def await_head(self, conn):
        # bytes the parser already holds (a pipelined request) count towards the head
        held = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        conn.head = bytearray(held)
        if self.head_complete(conn.head):
            return self.dispatch(conn)
        conn.sock.setblocking(False)
        conn.head_deadline = time.monotonic() + self.header_timeout
        self.heading.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_head_readable, conn))

    @staticmethod
    def head_complete(head) -> bool:
        return HEAD_END in head

    def on_head_readable(self, conn, _client):
        try:
            data = conn.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self.drop(conn)
            return
        # only the tail can complete the marker: search the new bytes and the 3 before them
        start = max(len(conn.head) - 3, 0)
        conn.head += data
        if HEAD_END in conn.head[start:]:
            self.poller.unregister(conn.sock)
            self.heading.remove(conn)
            self.dispatch(conn)
        elif len(conn.head) > self.max_head_bytes:
            self.drop(conn, TOO_LARGE)
        elif conn.head.count(b"\n") != conn.head.count(b"\r\n"):
            self.drop(conn, BARE_LF)  # such a head never ends; gunicorn's parser refuses it too

    def dispatch(self, conn):
        """Give the complete head back to the parser and the connection to a pool thread."""
        if conn.parser is None:
            conn.init()  # plain HTTP/1: creates the parser, no I/O
        conn.parser.unreader.unread(bytes(conn.head))
        conn.head = None
        conn.data_ready = True  # gthread's handle() must not wait for data again
        conn.head_ready = True
        self.enqueue_req(conn)

    def drop(self, conn, answer: bytes = b""):
        if answer:  # best effort, never blocks: the socket is non-blocking here
            try:
                conn.sock.send(answer)
            except OSError:
                pass
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass
        try:
            self.heading.remove(conn)
        except ValueError:
            pass
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self):
        """Also close connections whose head is late. A stopping worker gives them
        STOP_KEEPALIVE_LINGER seconds at most, as gthread does for kept-alive connections."""
        super().murder_pending()
        now = time.monotonic()
        if not self.alive:
            cap = now + STOP_KEEPALIVE_LINGER  # the same cap for all keeps the deque sorted
            for conn in self.heading:
                conn.head_deadline = min(conn.head_deadline, cap)
        while self.heading and self.heading[0].head_deadline <= now:
            late = self.heading[0]
            self.drop(late, TIMED_OUT if late.head else b"")

    # ----------------------------------------------------------------- inside a thread

    def handle_request(self, req, conn):
        # the head is parsed; bound each read of the body and each write of the response
        if self.cfg.timeout:
            conn.sock.settimeout(self.cfg.timeout)
        return super().handle_request(req, conn)

