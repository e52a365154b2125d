"""Issue 15 in Jupyter (run by test/kernel/issue15-secrets.test.ts): no output of the kernel shows a connection's secrets.

The working directory holds items.csv (3 rows); SQLCDC_HOME is a fresh workspace.
"""
import json
import unittest

from kernel_env import run, start_kernel

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


if __name__ == "__main__":
    unittest.main()
