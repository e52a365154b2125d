"""Kernel latency, measured with Debian's jupyter_client: driven by bench/kernel.ts.

Usage: kernel.py KERNEL CODE STARTS EXECUTES
Prints one JSON object: {"ready": [seconds from start to ready, per start], "first": [seconds of the
first cell after ready, per start], "execute": [seconds per execute-to-idle]}.
"""
import json
import sys
import time

from jupyter_client.manager import KernelManager

kernel, code, starts, executes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
TIMEOUT = 60


def start():
    km = KernelManager(kernel_name=kernel)
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return km, kc, time.perf_counter() - t0


def execute_to_idle(kc):
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            elapsed = time.perf_counter() - t0
            break
    while kc.get_shell_msg(timeout=TIMEOUT)["parent_header"].get("msg_id") != msg_id:
        pass
    return elapsed


ready = []
first = []
execute = []
for i in range(starts):
    km, kc, seconds = start()
    ready.append(seconds)
    first.append(execute_to_idle(kc))
    if i == starts - 1:
        for _ in range(10):  # warm-up: the first cells load the interpreter
            execute_to_idle(kc)
        execute = [execute_to_idle(kc) for _ in range(executes)]
    kc.stop_channels()
    km.shutdown_kernel(now=False)

print(json.dumps({"ready": ready, "first": first, "execute": execute}))
