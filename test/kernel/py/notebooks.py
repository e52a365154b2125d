"""Runs notebooks on the sqlcdc kernel and keeps their outputs as checked documentation.

  notebooks.py [--check] [NOTEBOOK.ipynb ...]      (default: every notebooks/*.ipynb)

Without --check (`npm run notebooks`) each notebook is executed and its outputs are stored in place,
only when they differ from the stored ones once normalised: a run that changes nothing rewrites no
file, whatever random values it printed. With --check (test/kernel/notebooks.test.ts) each notebook
is executed and the run fails, printing a diff, when an output differs from the stored one; each
notebook whose outputs all match is named with `outputs match`.

Compared, as nbval does: per output, the stream name and text (consecutive outputs of one stream
joined, as front ends show them), the text/plain of results and
displays, the data of tables (application/vnd.dataresource+json) and of charts (the Vega-Lite spec),
an error's name and value. Not compared: execution counts, metadata, text/html (the same data as
HTML). Values that change on every run are masked first: GUIDs (whole, or cut to fit a table, or the
32 hex digits of a job or listener guid; numbered per cell, so that which GUIDs are equal is still
compared), execution ids (Unix milliseconds, in change log names and listings; numbered per cell
likewise), the ISO times of this run (`…T12:34:56.789Z`), the port of a listener on 127.0.0.1 (taken
free on each run) and the access key it makes, a push's rows/s, and this run's temporary folder.
A cell tagged `nbval-ignore-output` is run but its outputs are not compared; a cell tagged
`raises-exception` may end in an error (nbclient's tag), any other error fails the run.

The kernel is the one built in this checkout (`node install.js --prefix` into a temporary folder);
each notebook has a workspace of its own in a temporary folder, so the user's connections and
variables are never touched, and no notebook sees what another left.
"""
import copy
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TEMP_PREFIX = "sqlcdc-notebooks-"
CELL_TIMEOUT = 120
COMPARED_MIME = ("text/plain", "application/vnd.dataresource+json", "application/vnd.vegalite.v5+json")
IGNORE_TAG = "nbval-ignore-output"
REGENERATE = "run `npm run notebooks` to regenerate the stored outputs, then review and commit them"

GUID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    # or one cut to fit a text table's column
    r"|\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{0,12}){0,4}…"
    # or the 32 hex digits of a job's or a webhook listener's guid (`/job/push?guid=…`)
    r"|\b[0-9a-f]{32}\b"
)
# 13 digits starting with 1: Unix milliseconds from 2001 to 2286 (`orders_1764000000123.eds`).
EXECUTION_ID = re.compile(r"(?<![0-9])1[0-9]{12}(?![0-9])")
# As JavaScript's toISOString writes a moment, milliseconds included; dates in data have no milliseconds or no Z.
ISO_TIME = re.compile(r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
# A listener on an ephemeral port (`%webhook start`: http://127.0.0.1:40123/job/push…).
LOOPBACK_PORT = re.compile(r"(127\.0\.0\.1|localhost|\[::1\]):[0-9]+\b")
# A push's rate in its last progress line (`PUSH INTO HTTP: 3 / 3 rows, 2 calls, 0 retries, 57 rows/s`).
RATE = re.compile(r"\b[0-9][0-9,]* rows/s\b")
# The access key a `%webhook start` listener makes (32 random bytes, base64url).
ACCESS_KEY = re.compile(r"\bsqk_[A-Za-z0-9_-]{43}")
TEMP = re.compile(re.escape(os.path.join(tempfile.gettempdir(), TEMP_PREFIX)) + r"[A-Za-z0-9_]+")


def mask(text, seen):
    """`text` with this run's temporary folder, ISO times, loopback ports, access keys, push rates, GUIDs and execution
    ids masked. A GUID becomes <guid N> and an id <id N>, N counting the distinct ones of the cell
    (`seen`), so which values are equal is still compared."""
    text = ISO_TIME.sub("<time>", TEMP.sub("<tmp>", text))
    text = RATE.sub("<n> rows/s", LOOPBACK_PORT.sub(r"\1:<port>", ACCESS_KEY.sub("<access key>", text)))
    text = GUID.sub(lambda m: numbered(seen, "guid", m.group(0)), text)
    return EXECUTION_ID.sub(lambda m: numbered(seen, "id", m.group(0)), text)


def numbered(seen, kind, value):
    """<kind N>, the same N for the same value within a cell."""
    names = seen.setdefault(kind, {})
    return names.setdefault(value, f"<{kind} {len(names) + 1}>")


def output_lines(output, seen):
    """One output as the lines compared: a header naming its kind, then its normalised content."""
    kind = output["output_type"]
    if kind == "stream":
        return [f"[{output['name']}]"] + mask(output["text"], seen).splitlines()
    if kind == "error":
        return [f"[error] {output['ename']}: {mask(output['evalue'], seen)}"]
    lines = []
    for mime in COMPARED_MIME:
        if mime not in output.get("data", {}):
            continue
        value = output["data"][mime]
        text = value if isinstance(value, str) else json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)
        lines += [f"[{kind} {mime}]"] + mask(text, seen).splitlines()
    return lines


def coalesced(outputs):
    """Consecutive outputs of one stream as one, as Jupyter front ends show them: how the kernel's writes
    were cut into messages depends on timing (a write that comes before the previous one left is joined
    to it), not on what the cell printed."""
    out = []
    for output in outputs:
        last = out[-1] if out else None
        if output["output_type"] == "stream" and last and last["output_type"] == "stream" and last["name"] == output["name"]:
            out[-1] = {**last, "text": last["text"] + output["text"]}
        else:
            out.append(output)
    return out


def cell_lines(cell):
    if IGNORE_TAG in cell.get("metadata", {}).get("tags", []):
        return [f"[outputs not compared: {IGNORE_TAG}]"]
    seen = {}
    return [line for output in coalesced(cell.get("outputs", [])) for line in output_lines(output, seen)]


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def differences(stored, executed, label):
    """A readable diff for each code cell whose normalised outputs changed; [] when none did."""
    out = []
    for i, (old, new) in enumerate(zip(code_cells(stored), code_cells(executed)), start=1):
        before, after = cell_lines(old), cell_lines(new)
        if before == after:
            continue
        first = next((line for line in new.source.splitlines() if line.strip()), "")
        diff = difflib.unified_diff(before, after, "stored outputs", "outputs of this run", lineterm="", n=2)
        out.append(f"{label}: code cell {i} ({first}) differs:\n" + "\n".join(diff))
    return out


def kernelspec(prefix):
    """Installs this checkout's kernel into `prefix`; returns the JUPYTER_PATH that shows it."""
    node = os.environ.get("SQLCDC_NODE") or shutil.which("node")
    if not node:
        sys.exit("notebooks.py: node is not on PATH (or set SQLCDC_NODE)")
    subprocess.run([node, os.path.join(ROOT, "install.js"), "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(prefix, "share", "jupyter")


def execute(stored, folder):
    """A copy of the notebook with fresh outputs, run in its folder as Jupyter runs it."""
    for attempt in (1, 2):
        nb = copy.deepcopy(stored)
        client = NotebookClient(
            nb,
            kernel_name="sqlcdc",
            timeout=CELL_TIMEOUT,
            startup_timeout=60,
            record_timing=False,
            resources={"metadata": {"path": folder}},
        )
        try:
            client.execute()
            return nb
        except RuntimeError as e:
            # jupyter_client picks free TCP ports and closes them before the kernel binds them; a
            # process of a test running beside this one can take one meanwhile, and the kernel then
            # stops at start ("cannot start: Address already in use"). A kernel that cannot start
            # for a reason of its own fails the second time as well.
            if attempt == 2 or "Kernel died before replying to kernel_info" not in str(e):
                raise


def write_atomically(path, nb):
    text = nbformat.writes(nb)
    fd, temp = tempfile.mkstemp(prefix=".notebook-", suffix=".ipynb", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def counts(nb):
    return [c.get("execution_count") for c in code_cells(nb)]


def main(argv):
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    if any(a.startswith("--") for a in paths):
        sys.exit("usage: notebooks.py [--check] [NOTEBOOK.ipynb ...]")
    if not paths:
        folder = os.path.join(ROOT, "notebooks")
        paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".ipynb"))

    failures = []
    with tempfile.TemporaryDirectory(prefix=TEMP_PREFIX) as temp:
        os.environ.update(JUPYTER_PATH=kernelspec(temp), JUPYTER_RUNTIME_DIR=temp)
        for path in paths:
            label = os.path.relpath(path, ROOT) if os.path.abspath(path).startswith(ROOT + os.sep) else path
            stored = nbformat.read(path, as_version=4)
            try:
                # Each notebook on a new workspace, as a user opening it alone would have: no
                # connection, variable or CDC state left by the notebook run before it.
                with tempfile.TemporaryDirectory(prefix=TEMP_PREFIX) as own:
                    os.environ["SQLCDC_HOME"] = os.path.join(own, "workspace")
                    executed = execute(stored, os.path.dirname(os.path.abspath(path)))
            except CellExecutionError as e:
                failures.append(f"{label}: a cell failed:\n{e}")
                continue
            diffs = differences(stored, executed, label)
            if check:
                failures += diffs
                # The line test/kernel/notebooks.test.ts looks for: it checks every notebook in one run.
                if not diffs:
                    print(f"{label}: outputs match")
            elif diffs or counts(stored) != counts(executed):
                write_atomically(path, executed)
                print(f"{label}: outputs stored")
            else:
                print(f"{label}: outputs unchanged")
    if failures:
        print("\n\n".join(failures))
        if check:
            print(f"\n{REGENERATE}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
