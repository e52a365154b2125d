"""Helpers of the protocol tests: start the sqlcdc kernel with jupyter_client and run cells on it."""
import http.server
import os
import socket
import threading
from queue import Empty

from jupyter_client.manager import start_new_kernel

TIMEOUT = 30
ROOT = os.environ["SQLCDC_ROOT"]
NODE = os.environ.get("SQLCDC_NODE", "node")


def start_kernel(**kwargs):
    """A kernel started through the installed kernelspec, as notebooks start it. Returns (km, kc)."""
    return start_new_kernel(kernel_name="sqlcdc", startup_timeout=TIMEOUT, **kwargs)


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def iopub_of(kc, msg_id, timeout=TIMEOUT):
    """Every IOPub message of one request, in order, up to and including its idle status."""
    out = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        out.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return out


def run(kc, code, **kwargs):
    """Executes a cell; returns (reply, outputs) where outputs are the IOPub messages between busy and idle."""
    msg_id = kc.execute(code, **kwargs)
    reply = shell_reply(kc, msg_id)
    msgs = iopub_of(kc, msg_id)
    return reply, [m for m in msgs if m["msg_type"] not in ("status", "execute_input")]


def stdout_of(outputs):
    return "".join(m["content"]["text"] for m in outputs if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def drain_iopub(kc):
    while True:
        try:
            kc.get_iopub_msg(timeout=0.2)
        except Empty:
            return


class AnsweringServer:
    """An HTTP server on 127.0.0.1 that answers every request 200 with a small JSON body."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class HangingServer:
    """An HTTP server on 127.0.0.1 that accepts requests and never answers; records when a client hangs up."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.request_seen = threading.Event()
        self.client_closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn):
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.client_closed.set()
                    return
                self.request_seen.set()

    def close(self):
        self.sock.close()
