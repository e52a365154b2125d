"""Issue 15 in Jupyter (run by test/kernel/issue15-secrets.test.ts): no output of the kernel shows a connection's secrets.

The working directory holds items.csv (3 rows); SQLCDC_HOME is a fresh workspace.
"""
import json
import unittest

from kernel_env import iopub_of, run, shell_reply, start_kernel

SECRETS = ["KEYVAL999", "TOKEN4242", "PGPASS55", "INLINEPW66"]


class Secrets(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start_kernel()

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def assert_no_secret(self, outputs, what):
        shown = json.dumps([m["content"] for m in outputs])
        for secret in SECRETS:
            self.assertNotIn(secret, shown, f"{what} shows {secret}")

    def test_listing_and_errors_never_show_a_secret(self):
        reply, outputs = run(
            self.kc,
            '%connection add api https://api.example.test/v1 --header "X-Api-Key: KEYVAL999" --bearer TOKEN4242\n'
            "%connection add pg postgres://app:PGPASS55@127.0.0.1:1/shop\n"
            "%connection list",
        )
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        self.assert_no_secret(outputs, "%connection list")
        listed = json.dumps([m["content"].get("data", {}) for m in outputs])
        self.assertIn("X-Api-Key", listed)
        self.assertIn("postgres://app:****@127.0.0.1:1/shop", listed)
        for cell in ("SELECT * FROM HTTP (GET http://bob:INLINEPW66@127.0.0.1:9/x);", "SELECT * FROM DB [pg] (select 1);"):
            reply, outputs = run(self.kc, cell)
            self.assertEqual(reply["content"]["status"], "error")
            self.assert_no_secret([reply] + outputs, cell)
        # The session's own history keeps them until the kernel exits (docs/jupyter.md "History",
        # test_protocol.py): it is the user's input, not output; the history file never holds them.

    def test_echoed_input_and_errors_mask_magic_secrets(self):
        # A cell failing after magics that carry secrets: the echo every client gets (execute_input),
        # the reply and the error keep the cell's shape, the secrets masked.
        code = (
            "%connection add api https://api.example.test/v1 --bearer TOKEN4242\n"
            "%var set --encrypted key KEYVAL999\n"
            "SELEC 1;"
        )
        msg_id = self.kc.execute(code)
        reply = shell_reply(self.kc, msg_id)
        messages = iopub_of(self.kc, msg_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assert_no_secret([reply] + messages, "a failing cell's echo, reply and error")
        [echo] = [m["content"]["code"] for m in messages if m["msg_type"] == "execute_input"]
        self.assertEqual(
            echo,
            f"%connection add api {'*' * len('https://api.example.test/v1')} --bearer *********\n"
            "%var set --encrypted key *********\n"
            "SELEC 1;",
        )
        self.assertIn("    SELEC 1;", reply["content"]["traceback"])


if __name__ == "__main__":
    unittest.main()
