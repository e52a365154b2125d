"""Kernel latency, measured with Debian's jupyter_client: driven by bench/kernel.ts.

Usage: kernel.py CONFIG_JSON: {"kernels": [case, …], "starts", "executes", "interrupts"}, each case
{kernel, trivial (cells doing almost nothing, by name: each kernel's cell of a name does the
same work), setup (run once before the interrupts; {port} is an
HTTP server on 127.0.0.1 that never answers), long (a cell waiting on that server)}.
The kernels are measured in turns (start A, start B, execute on A, on B, …) so that both see the
same machine load. Prints, per kernel name, seconds: ready (start to ready, per start), first (the
first cell after ready), execute (by trivial cell name: execute to idle, per cell), interrupt
(interrupt to the reply).
"""
import json
import socket
import sys
import threading
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

config = json.loads(sys.argv[1])
cases = config["kernels"]
TIMEOUT = 60

# The client's own first-time work, done before anything is measured: jupyter_client's first kernel
# start lists the kernelspec folders, for which it imports IPython (~/.ipython/kernels): 0.3-0.8 s
# on the development machine, once per process, counted otherwise against whichever kernel starts
# first (sqlcdc, in every run). A Jupyter server or console has done it before its first kernel.
KernelSpecManager().find_kernel_specs()


def hanging_server():
    """An HTTP server on 127.0.0.1 that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held = []

    def serve():
        while True:
            conn, _ = sock.accept()
            held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    return sock.getsockname()[1]


def start(case):
    km = KernelManager(kernel_name=case["kernel"])
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return km, kc, time.perf_counter() - t0


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def reply_to(kc, msg_id):
    while True:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def iopub_until(kc, msg_id, msg_type, state=None):
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == msg_type:
            if state is None or msg["content"].get("execution_state") == state:
                return


def execute_to_idle(kc, code):
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    iopub_until(kc, msg_id, "status", "idle")
    elapsed = time.perf_counter() - t0
    reply_to(kc, msg_id)
    return elapsed


def interrupt_latency(km, kc, code):
    msg_id = kc.execute(code)
    iopub_until(kc, msg_id, "execute_input")
    time.sleep(0.3)  # let the cell reach its wait
    t0 = time.perf_counter()
    km.interrupt_kernel()
    reply = reply_to(kc, msg_id)
    elapsed = time.perf_counter() - t0
    assert reply["content"]["status"] == "error", reply["content"]
    iopub_until(kc, msg_id, "status", "idle")
    return elapsed


figures = {c["kernel"]: {"ready": [], "first": [], "execute": {name: [] for name in c["trivial"]}, "interrupt": []} for c in cases}

for _ in range(config["starts"]):
    for case in cases:
        km, kc, seconds = start(case)
        figures[case["kernel"]]["ready"].append(seconds)
        figures[case["kernel"]]["first"].append(execute_to_idle(kc, next(iter(case["trivial"].values()))))
        stop(km, kc)

running = [(case, *start(case)[:2]) for case in cases]
port = hanging_server()
for case, km, kc in running:
    for _ in range(10):  # warm-up
        for code in case["trivial"].values():
            execute_to_idle(kc, code)
    execute_to_idle(kc, case["setup"].format(port=port))
for _ in range(config["executes"]):
    for case, km, kc in running:
        # One cell not measured at each switch: what the other kernel still does after its idle
        # (ipykernel saves history in a thread) must not be counted against this one.
        execute_to_idle(kc, next(iter(case["trivial"].values())))
        for name, code in case["trivial"].items():
            figures[case["kernel"]]["execute"][name].append(execute_to_idle(kc, code))
for _ in range(config["interrupts"]):
    for case, km, kc in running:
        figures[case["kernel"]]["interrupt"].append(interrupt_latency(km, kc, case["long"]))
for case, km, kc in running:
    stop(km, kc)

print(json.dumps(figures))
