"""Issue 16 in Jupyter (run by test/kernel/issue16.test.ts).

The working directory holds items.csv (3 rows); SQLCDC_HOME is a fresh workspace.
"""
import unittest

from kernel_env import run, start_kernel


class DataResource(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start_kernel()

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def test_data_resource_keeps_a_decimals_scale(self):
        # "The application/vnd.dataresource+json output drops a decimal's scale (230.00 -> 230): keep it".
        with open("prices.csv", "w") as f:
            f.write("id,amount\n1,230.00\n2,-0.5\n")
        reply, outputs = run(self.kc, "SELECT * FROM DRIVE 'prices.csv';\nAPPLY SCHEMA ( int id, decimal(10,2) amount );")
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        [result] = [m for m in outputs if m["msg_type"] == "execute_result"]
        resource = result["content"]["data"]["application/vnd.dataresource+json"]
        self.assertEqual([r["amount"] for r in resource["data"]], ["230.00", "-0.50"])
        [field] = [f for f in resource["schema"]["fields"] if f["name"] == "amount"]
        self.assertEqual(field["type"], "number")


if __name__ == "__main__":
    unittest.main()
