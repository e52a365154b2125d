"""Drives the REPL in a real pseudo-terminal, as a person at a terminal would.

usage: tty_driver.py <steps.json> -- <command…>
steps: a JSON list of ["send", text], ["expect", regex] and ["post", body] items; each expect waits
(bounded) for the regex to match the screen output received since the previous expect; a post sends
body (JSON) to the last webhook push URL the REPL printed, as a client outside the terminal would.
Prints the whole transcript to stdout; exits 1 with the unmatched regex when an expect times out.
"""
import json
import os
import pty
import re
import select
import sys
import time
import urllib.request

steps = json.load(open(sys.argv[1]))
command = sys.argv[sys.argv.index('--') + 1:]

pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)

transcript = ''
mark = 0


def pump(deadline):
    global transcript
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            return
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        transcript += data.decode('utf-8', 'replace')


status = 0
for kind, value in steps:
    if kind == 'send':
        for ch in value:
            os.write(fd, ch.encode())
            time.sleep(0.01)
    elif kind == 'post':
        url = re.findall(r'http://127\.0\.0\.1:\d+/job/push\?guid=[0-9a-f]{32}', transcript)[-1]
        request = urllib.request.Request(url, data=value.encode(), headers={'content-type': 'application/json'})
        urllib.request.urlopen(request).read()
    else:
        deadline = time.time() + 15
        pattern = re.compile(value, re.S)
        while time.time() < deadline:
            pump(deadline)
            m = pattern.search(transcript, mark)
            if m:
                mark = m.end()
                break
        else:
            sys.stdout.write(transcript)
            sys.stdout.write('\n<<timed out waiting for %r>>\n' % value)
            status = 1
            break

if status == 0:
    end = time.time() + 10
    while time.time() < end:
        pump(end)
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, 9)
        status = 1
        transcript += '\n<<the REPL did not exit>>\n'
sys.stdout.write(transcript)
sys.exit(status)
