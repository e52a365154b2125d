"""Issue 3's named interfaces through Debian's jupyter_client (run by test/kernel/issue3-contract.test.ts).

Each test holds one part of the issue as written: complete (keywords, #/@ functions, column names,
connection names, magics, with cursor_start/cursor_end), inspect (the documentation of the command
or function under the cursor), is_complete (complete / incomplete with indent / invalid), and the
magics shared with the REPL (%help, %connection, %limit N, %reset, %workspace).
The working directory holds items.csv (3 rows); SQLCDC_HOME is a fresh workspace.
"""
import os
import unittest

from kernel_env import drain_iopub, run, shell_reply, start_kernel, stdout_of

LOAD = "SELECT * FROM DRIVE 'items.csv';"


def result_of(outputs):
    """The data of the one dataset bundle among a cell's outputs."""
    bundles = [m["content"]["data"] for m in outputs if m["msg_type"] in ("execute_result", "display_data")]
    assert len(bundles) == 1, outputs
    return bundles[0]


class Issue3Contract(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_kernel()

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=False)

    def setUp(self):
        drain_iopub(self.kc)

    def ok(self, code):
        reply, outputs = run(self.kc, code)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        return outputs

    def complete(self, code):
        c = shell_reply(self.kc, self.kc.complete(code, cursor_pos=len(code)))["content"]
        self.assertEqual(c["status"], "ok", c)
        return c

    def test_complete_offers_keywords_functions_columns_connections_and_magics(self):
        self.ok("%connection add [orders api] http://127.0.0.1:9/api\n" + LOAD)
        for code, typed, expected in (
            ("APPLY FIL", "FIL", "FILTER"),  # a keyword, in the case typed
            ("PRINT '#toupp", "#toupp", "#toupper"),  # a #function inside quoted text
            ("ADD COLUMN 'big=@toupp", "@toupp", "@toupper"),  # an @function in a default
            ("ADD COLUMN 'n=@len({{na", "na", "name"),  # a column of the live dataset inside {{ }}
            ("SELECT * FROM HTTP [orde", "orde", "orders api"),  # a connection name after [
            ("%conne", "%conne", "%connection"),  # a magic at the top of a cell
            ("%connection rem", "rem", "remove"),  # a magic's subcommand
        ):
            c = self.complete(code)
            self.assertIn(expected, c["matches"], code)
            self.assertEqual((c["cursor_start"], c["cursor_end"]), (len(code) - len(typed), len(code)), code)
        self.ok("%connection remove [orders api]")

    def test_inspect_shows_the_documentation_of_the_function_or_command_under_the_cursor(self):
        for code, pos, name in (
            ("PRINT '#urlencode(a b)';", len("PRINT '#urlen"), "#urlencode"),
            ("ADD COLUMN 'x=@toupper({{name}})';", len("ADD COLUMN 'x=@toup"), "#toupper"),
            ("ZIP COLUMN 'doc' FORMAT JSON;", 2, "ZIP COLUMN"),
        ):
            c = shell_reply(self.kc, self.kc.inspect(code, cursor_pos=pos))["content"]
            self.assertEqual(c["status"], "ok", c)
            self.assertTrue(c["found"], code)
            self.assertIn(name, c["data"]["text/plain"], code)
        c = shell_reply(self.kc, self.kc.inspect("PRINT 'plain words';", cursor_pos=9))["content"]
        self.assertEqual((c["status"], c["found"]), ("ok", False))

    def test_is_complete_answers_complete_incomplete_with_an_indent_or_invalid(self):
        for code, status in (
            ("PRINT 'a';", "complete"),
            ("%limit 5", "complete"),
            ("SELECT * FROM DRIVE 'items.csv'", "incomplete"),
            ("APPLY SCHEMA (\n  int id", "incomplete"),
            ("PRINT 'x' garbage ) ;", "invalid"),
        ):
            c = shell_reply(self.kc, self.kc.is_complete(code))["content"]
            self.assertEqual(c["status"], status, code)
            if status == "incomplete":
                self.assertIsInstance(c["indent"], str, code)

    def test_magics_help_limit_reset_and_workspace(self):
        self.assertIn("%connection", result_of(self.ok("%help"))["text/plain"])

        shown = result_of(self.ok("%limit 2\n" + LOAD))
        self.assertEqual(len(shown["application/vnd.dataresource+json"]["data"]), 2)
        self.assertIn("3 rows", shown["text/plain"])
        self.assertIn("display limit: 2 rows", stdout_of(self.ok("%limit")))
        self.ok("%limit 20")

        self.assertEqual(stdout_of(self.ok("PRINT '#data.count()';")), "3\n")
        self.assertIn("empty dataset", stdout_of(self.ok("%reset")))
        self.assertEqual(stdout_of(self.ok("PRINT '#data.count()';")), "0\n")

        text = stdout_of(self.ok("%workspace"))
        self.assertIn(f"workspace: {os.environ['SQLCDC_HOME']}\n", text)
        self.assertIn(f"working directory: {os.getcwd()}\n", text)

    def test_connection_add_list_remove_never_prints_a_secret(self):
        self.ok("%connection add shop http://127.0.0.1:9/api --bearer TOPSECRET")
        listed = result_of(self.ok("%connection list"))
        self.assertIn("shop", listed["text/plain"])
        self.assertNotIn("TOPSECRET", str(listed))
        self.assertIn("removed", stdout_of(self.ok("%connection remove shop")))
        self.assertNotIn("shop", str(result_of(self.ok("%connection list"))))


if __name__ == "__main__":
    unittest.main()
