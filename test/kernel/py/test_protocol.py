"""Protocol tests of the sqlcdc kernel through Debian's jupyter_client (run by test/kernel/protocol.test.ts).

The working directory holds items.csv (3 rows); SQLCDC_HOME is a fresh workspace.
"""
import json
import os
import signal
import subprocess
import time
import unittest
import uuid

import zmq
from jupyter_client.session import Session
from jupyter_client.utils import run_sync

from kernel_env import NODE, ROOT, TIMEOUT, AnsweringServer, HangingServer, drain_iopub, iopub_of, run, shell_reply, start_kernel, stdout_of

LOAD = "SELECT * FROM DRIVE 'items.csv';"


class OneKernel(unittest.TestCase):
    """Tests sharing one kernel; each leaves it idle."""

    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_kernel()

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=False)

    def setUp(self):
        drain_iopub(self.kc)

    def test_kernel_info_reply_is_complete(self):
        msg_id = self.kc.kernel_info()
        reply = shell_reply(self.kc, msg_id)
        c = reply["content"]
        self.assertEqual(reply["header"]["version"], "5.3")
        self.assertEqual(c["status"], "ok")
        self.assertEqual(c["protocol_version"], "5.3")
        self.assertEqual(c["implementation"], "sqlcdc")
        info = c["language_info"]
        self.assertEqual(info["name"], "sql")
        self.assertEqual(info["mimetype"], "text/x-sql")
        self.assertEqual(info["file_extension"], ".sql")
        self.assertEqual(info["codemirror_mode"], "sql")
        for key in ("version", "pygments_lexer", "nbconvert_exporter"):
            self.assertIn(key, info)
        self.assertTrue(c["banner"])
        self.assertTrue(c["help_links"])
        # kernel_info is framed by busy/idle too: jupyter_client's wait_for_ready depends on it
        states = [m["content"]["execution_state"] for m in iopub_of(self.kc, msg_id)]
        self.assertEqual(states, ["busy", "idle"])

    def test_iopub_order_over_100_consecutive_executes(self):
        ids = [self.kc.execute(f"PRINT 'cell {i}';") for i in range(100)]
        replies = [shell_reply(self.kc, i) for i in ids]
        self.assertEqual([r["content"]["status"] for r in replies], ["ok"] * 100)
        counts = [r["content"]["execution_count"] for r in replies]
        self.assertEqual(counts, list(range(counts[0], counts[0] + 100)))

        seen = []
        idles = 0
        while idles < 100:
            m = self.kc.get_iopub_msg(timeout=TIMEOUT)
            parent = m["parent_header"].get("msg_id")
            if parent not in ids:
                continue
            seen.append((ids.index(parent), m["msg_type"], m["content"]))
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                idles += 1
        for i in range(100):
            busy, inp, out, idle = seen[4 * i : 4 * i + 4]
            self.assertEqual([x[0] for x in (busy, inp, out, idle)], [i] * 4, "messages of two cells interleaved")
            self.assertEqual(busy[2], {"execution_state": "busy"})
            self.assertEqual(inp[1], "execute_input")
            self.assertEqual(inp[2]["execution_count"], counts[i])
            self.assertEqual(out[1], "stream")
            self.assertEqual(out[2], {"name": "stdout", "text": f"cell {i}\n"})
            self.assertEqual(idle[2], {"execution_state": "idle"})

    def test_a_burst_of_output_arrives_whole_and_before_idle(self):
        # The client reads IOPub only once the cell has replied: the output waits for it meanwhile.
        n = 20000
        reply, outputs = run(self.kc, "".join(f"PRINT 'line {i}';\n" for i in range(n)))
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(stdout_of(outputs).splitlines(), [f"line {i}" for i in range(n)])
        # several such cells sent at once: each gets all its lines, then its idle
        ids = [self.kc.execute("".join(f"PRINT '{c}.{i}';\n" for i in range(2000))) for c in range(3)]
        for c, msg_id in enumerate(ids):
            self.assertEqual(shell_reply(self.kc, msg_id)["content"]["status"], "ok")
        for c, msg_id in enumerate(ids):
            lines = stdout_of(iopub_of(self.kc, msg_id)).splitlines()
            self.assertEqual(lines, [f"{c}.{i}" for i in range(2000)])

    def test_dataset_is_one_bundle_with_text_html_and_data_resource(self):
        reply, outputs = run(self.kc, LOAD)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        results = [m for m in outputs if m["msg_type"] == "execute_result"]
        self.assertEqual(len(results), 1)
        self.assertIs(outputs[-1], results[0], "the table is the cell's last output")
        data = results[0]["content"]["data"]
        self.assertEqual(results[0]["content"]["execution_count"], reply["content"]["execution_count"])
        self.assertNotIn("\x1b", data["text/plain"])
        self.assertIn("lamp", data["text/plain"])
        self.assertIn("(3 rows)", data["text/plain"])
        self.assertIn("<table", data["text/html"])
        self.assertIn("fridge", data["text/html"])
        resource = data["application/vnd.dataresource+json"]
        self.assertEqual([f["name"] for f in resource["schema"]["fields"]], ["id", "name", "amount"])
        self.assertEqual(len(resource["data"]), 3)

    def test_plot_is_a_vega_lite_display_and_describe_a_table(self):
        run(self.kc, LOAD)
        reply, outputs = run(self.kc, "%plot bar x=name y=amount")
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        self.assertEqual([m["msg_type"] for m in outputs], ["display_data"])
        data = outputs[0]["content"]["data"]
        self.assertEqual(set(data), {"application/vnd.vegalite.v5+json", "text/plain"})
        self.assertEqual(data["text/plain"], "bar chart of amount by name, 3 rows")
        spec = data["application/vnd.vegalite.v5+json"]
        self.assertEqual(spec["$schema"], "https://vega.github.io/schema/vega-lite/v5.json")
        self.assertEqual([v["x"] for v in spec["data"]["values"]], ["lamp", "fridge", "door"])

        reply, outputs = run(self.kc, "%describe")
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        self.assertEqual([m["msg_type"] for m in outputs], ["execute_result"])
        data = outputs[0]["content"]["data"]
        self.assertTrue(data["text/plain"].startswith("Profile of the pipeline dataset (3 rows, 3 columns)\n"))
        profile = data["application/vnd.dataresource+json"]["data"]
        self.assertEqual([(r["column"], r["nulls"], r["distinct"]) for r in profile], [("id", 0, 3), ("name", 0, 3), ("amount", 0, 3)])

    def test_push_progress_is_one_display_updated_in_place_before_the_summary(self):
        server = AnsweringServer()
        try:
            reply, outputs = run(self.kc, f"%connection add progress {server.url}\n{LOAD}\nPUSH INTO HTTP [progress] ON_UPSERT (POST /items/{{{{id}}}}) PAYLOAD ({{{{name}}}});")
        finally:
            server.close()
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        kinds = [m["msg_type"] for m in outputs]
        shown = [m for m in outputs if m["msg_type"] in ("display_data", "update_display_data")]
        # the first tick shows the display, the last report updates it
        self.assertGreaterEqual(len(shown), 2, kinds)
        self.assertEqual([m["msg_type"] for m in shown], ["display_data"] + ["update_display_data"] * (len(shown) - 1))
        self.assertEqual(len({m["content"]["transient"]["display_id"] for m in shown}), 1, "one display, updated in place")
        self.assertRegex(shown[-1]["content"]["data"]["text/plain"], r"^PUSH INTO HTTP: 3 / 3 rows, 3 calls, 0 retries")
        summary = next(i for i, m in enumerate(outputs) if m["msg_type"] == "stream" and "3 calls made" in m["content"]["text"])
        self.assertLess(outputs.index(shown[-1]), summary, kinds)

    def test_display_limit_cuts_every_representation(self):
        run(self.kc, LOAD)
        reply, outputs = run(self.kc, "%limit 2\n" + LOAD)
        self.assertEqual(reply["content"]["status"], "ok")
        data = [m for m in outputs if m["msg_type"] == "execute_result"][0]["content"]["data"]
        self.assertIn("showing 2 of 3 rows", data["text/plain"])
        self.assertIn("showing 2 of 3 rows", data["text/html"])
        self.assertEqual(len(data["application/vnd.dataresource+json"]["data"]), 2)
        run(self.kc, "%limit 20")

    def test_error_reply_and_one_error_output_point_at_the_statement(self):
        run(self.kc, LOAD)
        reply, outputs = run(self.kc, "APPLY FILTER 'id > 0';\nAPPLY FILTER 'nosuch > 1';")
        c = reply["content"]
        self.assertEqual(c["status"], "error")
        self.assertEqual(c["ename"], "ScriptError")
        self.assertIn("nosuch", c["evalue"])
        self.assertIn("APPLY FILTER at line 2", c["traceback"][0])
        self.assertEqual(c["traceback"][1].strip(), "APPLY FILTER 'nosuch > 1';")
        self.assertEqual(c["traceback"][2].strip(), "^")
        errors = [m for m in outputs if m["msg_type"] == "error"]
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0]["content"]["traceback"], c["traceback"])

    def test_a_magic_error_points_at_its_line_and_argument_as_a_statement_error_does(self):
        for code, head, line, caret in (
            ("%limit 5\n%webhook start --port 99999", "%webhook at line 2, column 23: --port must be 0..65535", "%webhook start --port 99999", 22),
            ("%%job nightly writer --bogus\nPRINT 1;", "%%job at line 1, column 22: unknown option --bogus", "%%job nightly writer --bogus", 21),
            ("%%job nightly maybe\nPRINT 1;", "%%job at line 1, column 1: usage: %%job NAME reader|writer", "%%job nightly maybe", 0),
        ):
            reply, outputs = run(self.kc, code)
            tb = reply["content"]["traceback"]
            self.assertTrue(tb[0].startswith(head), tb[0])
            self.assertEqual(tb[1], "    " + line)
            self.assertEqual(tb[2], "    " + " " * caret + "^")
        self.assertEqual([m for m in outputs if m["msg_type"] == "stream"], [])

    def test_stop_on_error_false_keeps_running_queued_cells(self):
        first = self.kc.execute("APPLY FILTER 'nosuch > 1';", stop_on_error=False)
        second = self.kc.execute("PRINT 'still runs';")
        self.assertEqual(shell_reply(self.kc, first)["content"]["status"], "error")
        self.assertEqual(shell_reply(self.kc, second)["content"]["status"], "ok")

    def test_silent_cells_publish_nothing_and_are_not_counted(self):
        before = run(self.kc, "PRINT 'x';")[0]["content"]["execution_count"]
        msg_id = self.kc.execute("PRINT 'quiet';", silent=True)
        reply = shell_reply(self.kc, msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual([m["msg_type"] for m in iopub_of(self.kc, msg_id)], ["status", "status"])
        after = run(self.kc, "PRINT 'y';")[0]["content"]["execution_count"]
        self.assertEqual(after, before + 1)

    def test_store_history_false_is_not_in_history(self):
        run(self.kc, "PRINT 'unrecorded';", store_history=False)
        msg_id = self.kc.history(hist_access_type="search", pattern="*unrecorded*", output=False, raw=True)
        self.assertEqual(shell_reply(self.kc, msg_id)["content"]["history"], [])

    def test_user_expressions_are_evaluated_after_the_cell(self):
        run(self.kc, LOAD)
        msg_id = self.kc.execute("PRINT 'x';", user_expressions={"rows": "#data.count()", "bad": "#nosuchfunction()"})
        exprs = shell_reply(self.kc, msg_id)["content"]["user_expressions"]
        self.assertEqual(exprs["rows"], {"status": "ok", "data": {"text/plain": "3"}, "metadata": {}})
        self.assertEqual(exprs["bad"]["status"], "error")
        self.assertIn("nosuchfunction", exprs["bad"]["evalue"])

    def test_complete_inspect_and_is_complete(self):
        run(self.kc, LOAD)
        code = "PRINT '😀'; APPLY FILTER 'am"
        msg_id = self.kc.complete(code, cursor_pos=len(code))  # Python counts code points, as Jupyter does
        c = shell_reply(self.kc, msg_id)["content"]
        self.assertEqual(c["matches"], ["amount"])
        self.assertEqual((c["cursor_start"], c["cursor_end"]), (len(code) - 2, len(code)))

        # A magic's options and a cell magic's words, from the table the magic parses them with.
        for code, matches in (
            ("%webhook start --", ["--port", "--job", "--no-auth"]),
            ("%job create nightly --writer w.sql --", ["--reader", "--webhook", "--save-sample", "--signing-secret"]),
            ("%%job nightly ", ["reader", "writer"]),
            ("%%job nightly writer --w", ["--webhook"]),
        ):
            c = shell_reply(self.kc, self.kc.complete(code, cursor_pos=len(code)))["content"]
            self.assertEqual(c["matches"], matches, code)
            typed = code.rsplit(" ", 1)[1]
            self.assertEqual((c["cursor_start"], c["cursor_end"]), (len(code) - len(typed), len(code)), code)

        msg_id = self.kc.inspect("APPLY FILTER", cursor_pos=3)
        c = shell_reply(self.kc, msg_id)["content"]
        self.assertTrue(c["found"])
        self.assertIn("APPLY FILTER", c["data"]["text/plain"])

        for code, status in (("PRINT 'a';", "complete"), ("SELECT * FROM DRIVE 'items.csv'", "incomplete")):
            c = shell_reply(self.kc, self.kc.is_complete(code))["content"]
            self.assertEqual(c["status"], status, code)

    def test_comms_and_odd_requests_are_answered_and_never_crash_the_kernel(self):
        msg = self.kc.session.msg("comm_info_request", {"target_name": "jupyter.widget"})
        self.kc.shell_channel.send(msg)
        reply = shell_reply(self.kc, msg["header"]["msg_id"])
        self.assertEqual(reply["content"], {"status": "ok", "comms": {}})

        comm_id = uuid.uuid4().hex
        msg = self.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget", "data": {}})
        self.kc.shell_channel.send(msg)
        closes = [m for m in iopub_of(self.kc, msg["header"]["msg_id"]) if m["msg_type"] == "comm_close"]
        self.assertEqual(closes[0]["content"]["comm_id"], comm_id)

        # malformed and unknown requests: an error reply or nothing, never a dead kernel
        msg = self.kc.session.msg("execute_request", {})
        self.kc.shell_channel.send(msg)
        self.assertEqual(shell_reply(self.kc, msg["header"]["msg_id"])["content"]["status"], "error")
        self.kc.shell_channel.send(self.kc.session.msg("no_such_request", {}))
        self.assertEqual(run(self.kc, "PRINT 'alive';")[0]["content"]["status"], "ok")

    def test_malformed_requests_get_an_error_reply_naming_the_field(self):
        cases = [
            ("complete_request", {"code": 5, "cursor_pos": 0}, "'code' must be a string, not number"),
            ("complete_request", {"code": "PRINT", "cursor_pos": -1}, "'cursor_pos' must be a whole number from 0 to 5"),
            ("complete_request", {"code": "PRINT", "cursor_pos": 6}, "not 6"),
            ("complete_request", {"code": "PRINT", "cursor_pos": "3"}, "not string"),
            ("inspect_request", {"code": None, "cursor_pos": 0, "detail_level": 0}, "'code' must be a string, not null"),
            ("inspect_request", {"code": "PRINT", "cursor_pos": 1.5, "detail_level": 0}, "not 1.5"),
            ("is_complete_request", {"code": ["PRINT"]}, "'code' must be a string, not an array"),
            ("is_complete_request", {}, "'code' must be a string, not undefined"),
            ("execute_request", {"code": 1, "silent": False}, "'code' must be a string, not number"),
        ]
        for msg_type, content, why in cases:
            msg = self.kc.session.msg(msg_type, content)
            self.kc.shell_channel.send(msg)
            reply = shell_reply(self.kc, msg["header"]["msg_id"])
            self.assertEqual(reply["msg_type"], msg_type.replace("_request", "_reply"))
            c = reply["content"]
            self.assertEqual((c["status"], c["ename"]), ("error", "BadRequest"), (msg_type, content, c))
            self.assertIn(f"{msg_type}: ", c["evalue"])
            self.assertIn(why, c["evalue"])
        # a request without cursor_pos is answered at the end of the code
        msg = self.kc.session.msg("complete_request", {"code": "PRINT '😀'; APPLY FIL"})
        self.kc.shell_channel.send(msg)
        c = shell_reply(self.kc, msg["header"]["msg_id"])["content"]
        self.assertEqual(c["status"], "ok", c)
        self.assertIn("FILTER", c["matches"])
        self.assertEqual(c["cursor_end"], len("PRINT '😀'; APPLY FIL"))
        self.assertEqual(run(self.kc, "PRINT 'alive';")[0]["content"]["status"], "ok")

    def test_history_tail_range_and_search(self):
        run(self.kc, "PRINT 'history probe';")
        tail = shell_reply(self.kc, self.kc.history(hist_access_type="tail", n=1, output=False, raw=True))["content"]["history"]
        session, line, text = tail[0]
        self.assertEqual(text, "PRINT 'history probe';")
        rng = shell_reply(self.kc, self.kc.history(hist_access_type="range", session=session, start=line, stop=line + 1, output=False, raw=True))
        self.assertEqual(rng["content"]["history"], [[session, line, "PRINT 'history probe';"]])
        found = shell_reply(self.kc, self.kc.history(hist_access_type="search", pattern="*probe*", output=False, raw=True))
        self.assertEqual([h[2] for h in found["content"]["history"]], ["PRINT 'history probe';"])

    def test_cells_carrying_secrets_stay_out_of_the_history_file(self):
        secrets = ["%connection add h1 http://127.0.0.1:9 --bearer S3CRET-BEARER",
                   '%connection add h2 http://127.0.0.1:9 --header "X-Api-Key: S3CRET-HEADER"',
                   "%connection add db postgres://app:S3CRET-PASSWORD@127.0.0.1:5/app",
                   "%var set --encrypted token S3CRET-VARIABLE"]
        for cell in secrets:
            self.assertEqual(run(self.kc, cell)[0]["content"]["status"], "ok")
        run(self.kc, "PRINT 'after the secrets';")
        # this session's own history still has them, as a terminal's up-arrow does
        found = shell_reply(self.kc, self.kc.history(hist_access_type="search", pattern="*S3CRET*", output=False, raw=True))
        self.assertEqual([h[2] for h in found["content"]["history"]], secrets)
        path = os.path.join(os.environ["SQLCDC_HOME"], "kernel_history.jsonl")
        deadline = time.time() + TIMEOUT
        while "after the secrets" not in open(path).read() and time.time() < deadline:
            time.sleep(0.05)
        written = open(path).read()
        self.assertIn("after the secrets", written)
        self.assertNotIn("S3CRET", written)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)


class Interrupts(unittest.TestCase):
    """Interrupting a statement waiting on an HTTP server that never answers: the kernel keeps its dataset."""

    def setUp(self):
        self.server = HangingServer()
        self.km, self.kc = start_kernel()
        reply, _ = run(self.kc, f"%connection add hang http://127.0.0.1:{self.server.port}\n{LOAD}")
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self.server.close()

    def wait_for_http_call(self, msg_id):
        deadline = time.time() + TIMEOUT
        while not self.server.request_seen.wait(0.05):
            if run_sync(self.kc.shell_channel.msg_ready)():
                self.fail(f"the cell ended before its HTTP call reached the server: {shell_reply(self.kc, msg_id)['content']}")
            if time.time() > deadline:
                self.fail("the HTTP call never reached the server")

    def interrupt_hanging_call(self, interrupt, code="SELECT * FROM HTTP [hang] (GET /never);"):
        msg_id = self.kc.execute(code)
        self.wait_for_http_call(msg_id)
        interrupt()
        reply = shell_reply(self.kc, msg_id)
        c = reply["content"]
        self.assertEqual(c["status"], "error")
        self.assertIn("cancelled", c["evalue"])
        errors = [m for m in iopub_of(self.kc, msg_id) if m["msg_type"] == "error"]
        self.assertEqual(len(errors), 1)
        # the pending HTTP call was cancelled, not left to hang
        self.assertTrue(self.server.client_closed.wait(TIMEOUT), "the HTTP connection was left open")
        # the session kept its dataset and takes the next request at once
        reply, outputs = run(self.kc, "PRINT '#data.count() rows';")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(stdout_of(outputs), "3 rows\n")

    def test_interrupt_request_message(self):
        self.interrupt_hanging_call(self.km.interrupt_kernel)

    def test_interrupt_request_cancels_a_push_at_once(self):
        # Issue 12: "Ctrl-C / Jupyter interrupt cancels a push at once", WITH TIMEOUT 0 (no limit) included.
        self.interrupt_hanging_call(
            self.km.interrupt_kernel, "PUSH INTO HTTP [hang] ON_UPSERT (POST /never) PAYLOAD ({{id}}) WITH TIMEOUT 0;"
        )

    def test_cells_queued_behind_an_interrupted_or_failed_cell_are_aborted(self):
        # "Run all" sends every cell at once; after a failure (an interrupt is one) the rest do not run.
        first = self.kc.execute("SELECT * FROM HTTP [hang] (GET /never);")
        queued = [self.kc.execute("PRINT 'must not run';") for _ in range(2)]
        self.wait_for_http_call(first)
        self.km.interrupt_kernel()
        self.assertEqual(shell_reply(self.kc, first)["content"]["status"], "error")
        for q in queued:
            c = shell_reply(self.kc, q)["content"]
            self.assertEqual((c["status"], c["ename"]), ("error", "Aborted"))
            self.assertNotIn("must not run", stdout_of(iopub_of(self.kc, q)))
        # the next cell, sent after the failure was answered, runs
        reply, outputs = run(self.kc, "PRINT 'runs again';")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(stdout_of(outputs), "runs again\n")

    def test_sigint(self):
        pid = self.km.provisioner.process.pid
        self.interrupt_hanging_call(lambda: os.kill(pid, signal.SIGINT))

    def test_control_answers_and_interrupt_ends_a_large_document_being_shaped(self):
        # About 7 MB of XML: read at once, then parsed and shaped for seconds (xmldom), which must not
        # hold the kernel's event loop: the control channel answers and the interrupt is seen meanwhile.
        with open("big.xml", "w") as f:
            f.write("<rows>" + "".join(f"<row><id>{i}</id><name>name {i}</name></row>" for i in range(100_000)) + "</rows>")
        msg_id = self.kc.execute("SELECT * FROM DRIVE 'big.xml';")
        time.sleep(0.5)
        info = self.km.session.msg("kernel_info_request")
        self.kc.control_channel.send(info)
        while True:
            reply = self.kc.get_control_msg(timeout=TIMEOUT)
            if reply["parent_header"].get("msg_id") == info["header"]["msg_id"]:
                break
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertFalse(run_sync(self.kc.shell_channel.msg_ready)(), "the cell ended before the control reply")
        self.km.interrupt_kernel()
        c = shell_reply(self.kc, msg_id)["content"]
        self.assertEqual(c["status"], "error")
        self.assertIn("cancelled", c["evalue"])
        reply, outputs = run(self.kc, "PRINT '#data.count() rows';")
        self.assertEqual(stdout_of(outputs), "3 rows\n")

    def test_interrupt_request_ends_a_parquet_read_stuck_in_decoding(self):
        # The file of test/drives/parquet-corrupt.test.ts that hyparquet decodes forever: five rows
        # (int id, string customer) written UNCOMPRESSED, the customer page's encoding made
        # RLE_DICTIONARY with a bit-packed run header that reads as -1.
        with open("customers.csv", "w") as f:
            f.write("id,customer\n1,Ann\n2,Bob\n3,Cy\n4,Dee\n5,Eve\n")
        reply, _ = run(self.kc, "SELECT * FROM DRIVE 'customers.csv';\nAPPLY SCHEMA ( int id, string customer );\n"
                                "SINK INTO DRIVE FORMAT PARQUET FILE 'customers.parquet' COMPRESSION 'none';")
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        with open("customers.parquet", "rb") as f:
            data = bytearray(f.read())
        at, header = 47, bytes.fromhex("1506154815485c150a1500150a1500150415000000")
        self.assertEqual(bytes(data[at:at + len(header)]), header, "the page header is where the patch expects it")
        data[at + 14] = 0x10
        data[at + len(header) + 2:at + len(header) + 8] = bytes.fromhex("00ffffffff0f")
        with open("stuck.parquet", "wb") as f:
            f.write(data)

        msg_id = self.kc.execute("SELECT * FROM DRIVE 'stuck.parquet';")
        # The decoding is endless: any moment after the cell started is a moment it is stuck in.
        while True:
            m = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
                break
        time.sleep(0.3)
        self.km.interrupt_kernel()
        c = shell_reply(self.kc, msg_id)["content"]
        self.assertEqual(c["status"], "error")
        self.assertEqual(c["evalue"], "cancelled")
        self.assertEqual(c["traceback"][0], "SELECT FROM DRIVE at line 1, column 1: cancelled")
        # the kernel takes the next cell, with the dataset it had before
        reply, outputs = run(self.kc, "PRINT '#data.count() rows';")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(stdout_of(outputs), "5 rows\n")


class Lifecycle(unittest.TestCase):
    def test_forged_signature_is_dropped_logged_and_never_executed(self):
        log = os.path.abspath("forged-stderr.log")  # the working directory is the test's temporary folder
        stderr = open(log, "w")
        km, kc = start_kernel(stderr=stderr)
        try:
            count = run(kc, "PRINT 'before';")[0]["content"]["execution_count"]
            forger = Session(key=b"not-the-key")
            ctx = zmq.Context.instance()
            sock = ctx.socket(zmq.DEALER)
            sock.linger = 0
            sock.connect(f"{km.transport}://{km.ip}:{km.shell_port}")
            forger.send(sock, "execute_request", {"code": "PRINT 'forged';", "silent": False, "store_history": True,
                                                  "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
            self.assertEqual(sock.poll(500), 0, "the kernel answered a forged message")
            sock.close()
            reply, outputs = run(kc, "PRINT 'after';")
            self.assertEqual(reply["content"]["execution_count"], count + 1, "the forged cell was counted")
            self.assertEqual(stdout_of(outputs), "after\n")
            with open(log) as f:
                self.assertIn("bad HMAC signature", f.read())
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            stderr.close()

    def test_unknown_message_types_are_logged_and_never_match_built_ins(self):
        log = os.path.abspath("unknown-stderr.log")
        stderr = open(log, "w")
        km, kc = start_kernel(stderr=stderr)
        try:
            names = ["constructor", "toString", "__proto__", "hasOwnProperty", "no_such_request"]
            sent = []
            for name in names:
                msg = kc.session.msg(name, {})
                kc.shell_channel.send(msg)
                sent.append(msg["header"]["msg_id"])
            # each is framed by busy/idle like any shell request, and answered by nothing
            for msg_id in sent:
                self.assertEqual([m["content"]["execution_state"] for m in iopub_of(kc, msg_id)], ["busy", "idle"])
            reply, outputs = run(kc, "PRINT 'alive';")
            self.assertEqual(stdout_of(outputs), "alive\n")
            self.assertFalse(run_sync(kc.shell_channel.msg_ready)(), "an unknown request was answered")
            with open(log) as f:
                text = f.read()
            for name in names:
                self.assertIn(f"ignored unknown message type '{name}' on shell", text)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            stderr.close()

    def test_the_interpreter_loads_as_soon_as_a_client_is_ready_even_while_it_keeps_asking(self):
        # The session makes its workspace folder when the interpreter loads, before any cell runs.
        workspace = os.path.abspath(f"workspace-{uuid.uuid4().hex}")
        km, kc = start_kernel(env={**os.environ, "SQLCDC_HOME": workspace})
        try:
            # requests that need no interpreter, sent without a quiet moment between them
            for _ in range(200):
                if os.path.isdir(workspace):
                    break
                reply = shell_reply(kc, kc.history(hist_access_type="tail", n=1, output=False, raw=True))
                self.assertEqual(reply["content"]["history"], [])
                time.sleep(0.05)
            self.assertTrue(os.path.isdir(workspace), "the interpreter was not loaded while the client kept asking")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    def test_the_interpreter_loads_for_a_client_whose_iopub_subscription_came_after_its_kernel_info(self):
        # The kernel may answer the kernel_info that makes a client ready before it has read the
        # client's IOPub subscription (ZeroMQ delivers the idle already): the client is ready all the
        # same. Made certain here: kernel_info first, IOPub subscribed afterwards, no kernel_info again.
        from jupyter_client.manager import KernelManager
        workspace = os.path.abspath(f"workspace-{uuid.uuid4().hex}")
        km = KernelManager(kernel_name="sqlcdc")
        km.start_kernel(env={**os.environ, "SQLCDC_HOME": workspace})
        kc = km.client()
        kc.start_channels(shell=True, iopub=False, stdin=False, hb=False)
        try:
            reply = shell_reply(kc, kc.kernel_info())
            self.assertEqual(reply["content"]["status"], "ok")
            kc.iopub_channel.start()
            # Subscribed once an idle of a request sent afterwards arrives.
            subscribed = False
            for _ in range(200):
                msg_id = kc.history(hist_access_type="tail", n=1, output=False, raw=True)
                shell_reply(kc, msg_id)
                try:
                    while True:
                        m = kc.get_iopub_msg(timeout=0.1)
                        if m["parent_header"].get("msg_id") == msg_id and m["content"].get("execution_state") == "idle":
                            subscribed = True
                            break
                except Exception:
                    pass
                if subscribed:
                    break
            self.assertTrue(subscribed, "IOPub never delivered an idle")
            for _ in range(200):
                if os.path.isdir(workspace):
                    break
                shell_reply(kc, kc.history(hist_access_type="tail", n=1, output=False, raw=True))
                time.sleep(0.05)
            self.assertTrue(os.path.isdir(workspace), "the interpreter was not loaded while the ready client kept asking")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    def test_shutdown_replies_then_exits_and_restart_gives_a_fresh_session(self):
        km, kc = start_kernel()
        try:
            run(kc, LOAD)
            msg_id = kc.shutdown(restart=False)
            reply = kc.get_control_msg(timeout=TIMEOUT)
            self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
            self.assertEqual(reply["content"], {"status": "ok", "restart": False})
            process = km.provisioner.process
            self.assertEqual(process.wait(timeout=TIMEOUT), 0)
            kc.stop_channels()

            km.start_kernel()
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=TIMEOUT)
            old_pid = km.provisioner.process.pid
            km.restart_kernel(now=False)
            self.assertNotEqual(km.provisioner.process.pid, old_pid)
            kc.wait_for_ready(timeout=TIMEOUT)
            reply, outputs = run(kc, "PRINT '#data.count() rows';")
            self.assertEqual(reply["content"]["execution_count"], 1)
            self.assertEqual(stdout_of(outputs), "0 rows\n")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    def test_repl_attached_with_existing_sees_the_dataset_a_cell_made(self):
        km, kc = start_kernel()
        try:
            reply, _ = run(kc, LOAD)
            self.assertEqual(reply["content"]["status"], "ok")
            # %connect_info tells the notebook user the command
            info = stdout_of(run(kc, "%connect_info")[1])
            self.assertIn(f"sqlcdc repl --existing {km.connection_file}", info)
            repl = subprocess.run(
                [NODE, os.path.join(ROOT, "dist", "bin", "sqlcdc.js"), "repl", "--existing", km.connection_file],
                input="PRINT 'the notebook loaded #data.count() rows';\nAPPLY FILTER 'id > 1';\n",
                capture_output=True, text=True, timeout=TIMEOUT,
            )
            self.assertEqual(repl.returncode, 0, repl.stderr)
            self.assertIn("the notebook loaded 3 rows", repl.stdout)
            self.assertIn("(2 rows)", repl.stdout)
            # and the notebook sees what the REPL did: one live session
            reply, outputs = run(kc, "PRINT '#data.count()';")
            self.assertEqual(stdout_of(outputs), "2\n")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


    def test_repl_detaches_when_the_kernel_dies(self):
        km, kc = start_kernel()
        repl = subprocess.Popen(
            [NODE, os.path.join(ROOT, "dist", "bin", "sqlcdc.js"), "repl", "--existing", km.connection_file],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            repl.stdin.write("PRINT 'attached';\n")
            repl.stdin.flush()
            # IOPub shows every client's cells: wait until the REPL's cell ran
            while True:
                msg = kc.get_iopub_msg(timeout=TIMEOUT)
                if msg["msg_type"] == "stream" and "attached" in msg["content"]["text"]:
                    break
            kc.stop_channels()
            km.shutdown_kernel(now=True)  # killed, not asked: the REPL must notice by itself
            # stdin stays open, so only the REPL's own liveness check can end it
            self.assertEqual(repl.wait(timeout=TIMEOUT), 1)
            self.assertIn("the kernel stopped answering", repl.stdout.read())
        finally:
            if repl.poll() is None:
                repl.kill()
                repl.wait()
            for pipe in (repl.stdin, repl.stdout, repl.stderr):
                pipe.close()


if __name__ == "__main__":
    unittest.main()
