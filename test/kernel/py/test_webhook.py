"""%webhook through Debian's jupyter_client (run by test/webhook/jupyter.test.ts): a listener started in
one cell, a real HTTP POST from this test after other cells ran, and the call shown under the cell
that started the listener as ipykernel shows output of background threads.
"""
import http.server
import json
import os
import re
import socket
import threading
import time
import unittest
import urllib.request

from kernel_env import TIMEOUT, drain_iopub, iopub_of, run, shell_reply, start_kernel, stdout_of


class WebhookInTheKernel(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start_kernel()
        drain_iopub(self.kc)

    def tearDown(self):
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=False)
        else:
            self.km.cleanup_resources()

    def post(self, url, key, body):
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(url, data=body.encode(), method="POST", headers=headers)
        with urllib.request.urlopen(req, timeout=TIMEOUT) as res:
            return res.status, json.loads(res.read())

    def test_a_posted_payload_shows_under_the_starting_cell_and_can_be_taken(self):
        start_id = self.kc.execute("%webhook start")
        reply = shell_reply(self.kc, start_id)
        self.assertEqual(reply["content"]["status"], "ok")
        text = stdout_of([m for m in iopub_of(self.kc, start_id) if m["msg_type"] == "stream"])
        url = re.search(r"webhook listening: (\S+)", text).group(1)
        key = re.search(r"access key .*: (sqk_\S+)", text).group(1)
        self.assertRegex(url, r"^http://127\.0\.0\.1:\d+/job/push\?guid=[0-9a-f]{32}$")
        # another cell runs in between: the call still belongs to the first
        reply, _ = run(self.kc, "%webhook status")
        self.assertEqual(reply["content"]["status"], "ok")
        status, answer = self.post(url, key, '[{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 5}]')
        self.assertEqual(status, 202)
        self.assertEqual(answer["rows"], 2)
        # the display arrives on IOPub with the starting cell's execute_request as its parent
        while True:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["msg_type"] == "display_data":
                break
        self.assertEqual(msg["parent_header"]["msg_id"], start_id)
        self.assertIn("A-1", msg["content"]["data"]["text/plain"])
        self.assertIn("application/vnd.dataresource+json", msg["content"]["data"])
        reply, outputs = run(self.kc, "%webhook take")
        self.assertEqual(reply["content"]["status"], "ok")
        reply, outputs = run(self.kc, "PRINT 'rows: #data.count()';")
        self.assertEqual(stdout_of(outputs), "rows: 2\n")
        reply, outputs = run(self.kc, "%webhook stop")
        self.assertEqual(stdout_of(outputs), "webhook listener stopped after 1 call\n")

    def test_an_interrupt_ends_a_webhook_wait_and_the_listener_goes_on(self):
        start_id = self.kc.execute("%webhook start --no-auth")
        shell_reply(self.kc, start_id)
        text = stdout_of([m for m in iopub_of(self.kc, start_id) if m["msg_type"] == "stream"])
        url = re.search(r"webhook listening: (\S+)", text).group(1)
        # --timeout only bounds a kernel that ignores the interrupt: the wait would end with its own error
        wait_id = self.kc.execute("%webhook wait --timeout 60")
        while True:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["parent_header"].get("msg_id") == wait_id and msg["msg_type"] == "execute_input":
                break
        self.km.interrupt_kernel()
        reply = shell_reply(self.kc, wait_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["evalue"], "cancelled")
        iopub_of(self.kc, wait_id)
        self.assertEqual(self.post(url, None, '[{"sku": "C-3"}]')[0], 202)
        reply, outputs = run(self.kc, "%webhook status")
        self.assertIn("calls received: 1", stdout_of(outputs))
    def test_the_inbox_drops_the_oldest_payloads_says_so_once_and_outlives_the_stop(self):
        start_id = self.kc.execute("%webhook start --no-auth")
        shell_reply(self.kc, start_id)
        text = stdout_of([m for m in iopub_of(self.kc, start_id) if m["msg_type"] == "stream"])
        url = re.search(r"webhook listening: (\S+)", text).group(1)
        # Five payloads of ~7 MB: more than the inbox's 32 MB, in rows that the displayed tables cut short.
        row = "x" * 1000
        for call in range(1, 6):
            body = json.dumps([{"call": call, "n": n, "s": row} for n in range(7000 + call)])
            self.assertEqual(self.post(url, None, body)[0], 202)
        warnings = []
        while not warnings:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["parent_header"].get("msg_id") == start_id and msg["msg_type"] == "stream":
                warnings.append(msg["content"])
        self.assertEqual(warnings[0]["name"], "stderr")
        self.assertIn("webhook call 1's payload left the inbox, which keeps the last 1,000 payloads (32 MB at most)", warnings[0]["text"])
        reply, outputs = run(self.kc, "%webhook status")
        self.assertRegex(stdout_of(outputs), r"inbox: payloads of calls 2 to 5 \(\d+(\.\d)?mb\); calls 1 to 1 dropped")
        reply, outputs = run(self.kc, "%webhook stop")
        self.assertEqual(stdout_of(outputs), "webhook listener stopped after 5 calls\n")
        # After the stop the inbox is still there, until the next %webhook start.
        reply, outputs = run(self.kc, "%webhook take 1")
        self.assertEqual(reply["content"]["status"], "error")
        self.assertIn("calls 2 to 5 can be taken", reply["content"]["evalue"])
        reply, outputs = run(self.kc, "%webhook take 2")
        self.assertEqual(reply["content"]["status"], "ok")
        reply, outputs = run(self.kc, "PRINT '#data.count() rows';")
        self.assertEqual(stdout_of(outputs), "7002 rows\n")
        drain_iopub(self.kc)
        run(self.kc, "%webhook start --no-auth")
        reply, outputs = run(self.kc, "%webhook take 2")
        self.assertIn("no webhook call has arrived yet", reply["content"]["evalue"])

    def test_a_shutdown_lets_the_job_calls_under_way_finish_and_closes_the_port(self):
        released = threading.Event()
        seen = threading.Event()

        class Held(http.server.BaseHTTPRequestHandler):
            # The job's writer pushes here; the answer waits until the kernel was asked to shut down.
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                seen.set()
                released.wait(TIMEOUT)
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        target = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Held)
        threading.Thread(target=target.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{target.server_address[1]}"
            reply, _ = run(
                self.kc,
                f'%%job hook writer --webhook\nPUSH INTO HTTP ON_UPSERT (POST {url}/orders) PAYLOAD ({{"id": {{{{id}}}}}});\n',
            )
            self.assertEqual(reply["content"]["status"], "ok")
            reply, outputs = run(self.kc, "%webhook start --job hook --no-auth")
            self.assertEqual(reply["content"]["status"], "ok")
            hook = re.search(r"webhook listening: (\S+)", stdout_of(outputs)).group(1)
            answered = {}

            def post():
                try:
                    answered["reply"] = self.post(hook, None, '{"id": 7}')
                except Exception as e:  # the test asserts on it below
                    answered["error"] = e

            caller = threading.Thread(target=post)
            caller.start()
            self.assertTrue(seen.wait(TIMEOUT))
            self.kc.shutdown()
            # Released once the listener takes no new connection: the session is closing, the call still held.
            port = int(re.search(r":(\d+)/", hook).group(1))
            deadline = time.monotonic() + TIMEOUT
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT).close()
                except OSError:
                    break
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.05)
            released.set()
            caller.join(TIMEOUT)
            self.assertNotIn("error", answered)
            status, answer = answered["reply"]
            self.assertEqual(status, 200)
            self.assertTrue(os.path.exists(answer["changeLog"]))
            self.km.finish_shutdown()
            with self.assertRaises(OSError):
                urllib.request.urlopen(hook, timeout=TIMEOUT)
        finally:
            target.shutdown()
            target.server_close()

if __name__ == "__main__":
    unittest.main()
