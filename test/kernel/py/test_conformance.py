"""The official Jupyter kernel conformance suite (Debian's python3-jupyter-kernel-test) on the sqlcdc kernel.

Run by test/kernel/conformance.test.ts with JUPYTER_PATH pointing at a kernelspec installed into a
temporary prefix, SQLCDC_HOME at a fresh workspace, and the working directory holding items.csv.
"""
import unittest

import jupyter_kernel_test


class SqlCdcKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "sqlcdc"
    language_name = "sql"
    file_extension = ".sql"

    code_hello_world = "PRINT 'hello, world';"

    # A warning goes to stderr; the cell still succeeds ('lamp' is no int: left null under CONTINUE_ON_ERROR).
    code_stderr = "SELECT * FROM DRIVE 'items.csv';\nAPPLY SCHEMA (\n  int name\n) CONTINUE_ON_ERROR;"

    # One expected match each: the suite compares the whole match set.
    completion_samples = [
        {"text": "%hel", "matches": {"%help"}},
        {"text": "PRINT '#utcn", "matches": {"#utcnow"}},
    ]

    complete_code_samples = ["PRINT 'x';", "%help", "SELECT * FROM DRIVE 'items.csv';", ""]
    incomplete_code_samples = ["SELECT * FROM DRIVE 'items.csv'", "APPLY SCHEMA (\n  int id"]
    invalid_code_samples = ["PRINT 'x' garbage ) ;"]

    code_generate_error = "APPLY FILTER 'nosuchcolumn > 1';"

    code_execute_result = [
        {"code": "%help", "mime": "text/plain"},
        {"code": "%connection list", "mime": "text/html"},
        {"code": "SELECT * FROM DRIVE 'items.csv';", "mime": "application/vnd.dataresource+json"},
    ]

    code_display_data = [
        {"code": "%help\nPRINT 'after the table';", "mime": "text/html"},
    ]

    # Matches '%connection list' only (the unique sub-test expects one distinct input).
    code_history_pattern = "%conn*"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "APPLY FILTER"


if __name__ == "__main__":
    unittest.main()
