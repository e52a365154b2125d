"""Tab completion in `jupyter console --kernel sqlcdc`, in a real terminal (a pty), as a user presses it.

Run by test/kernel/issue3-console-tab.test.ts with JUPYTER_PATH at a temporary kernelspec and
SQLCDC_HOME at a fresh workspace. Exits 0 when Tab completed a keyword, a function and a connection name
in lines that then ran as completed; else prints what the terminal showed and exits 1.
"""
import os
import pty
import re
import select
import sys
import time

# Terminal control sequences and backspaces: what is left is the text as drawn.
CONTROL = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x08")
WAIT = 60  # seconds: bounds a hung console only, never a timing check

env = dict(os.environ, TERM="xterm", COLUMNS="120", LINES="40")
pid, fd = pty.fork()
if pid == 0:
    os.execve(sys.executable, [sys.executable, "-m", "jupyter_console", "--kernel", "sqlcdc"], env)

shown = b""


def wait_for(text, since):
    """Reads the terminal until `text` is drawn after byte `since`; False when the console ends or WAIT passes."""
    global shown
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                shown += os.read(fd, 65536)
            except OSError:
                return False
        if text in CONTROL.sub(b"", shown[since:]):
            return True
    return False


def type_slowly(text):
    # prompt_toolkit reads keys as they come; a burst can arrive as a paste, which Tab does not complete.
    for ch in text:
        os.write(fd, bytes([ch]))
        time.sleep(0.02)


def fail(why):
    sys.stdout.write(f"{why}\n--- terminal ---\n{CONTROL.sub(b'', shown).decode(errors='replace')}\n")
    os.kill(pid, 9)
    sys.exit(1)


def complete(typed, suffix):
    """Types `typed`, presses Tab, and waits until the console has drawn the completion's `suffix`."""
    type_slowly(typed)
    mark = len(shown)
    os.write(fd, b"\t")
    if not wait_for(suffix, mark):
        fail(f"Tab after {typed!r} did not draw {suffix!r}")


if not wait_for(b"In [1]: ", 0):
    fail("no first prompt")
mark = len(shown)
os.write(fd, b"%connection add [orders api] http://127.0.0.1:9\r")
if not wait_for(b"In [2]: ", mark):
    fail("no second prompt")


# What runs is what Tab made of the line: PRINT, #toupper and [orders api] only when each was completed.
complete(b"PRI", b"NT")
complete(b" '#toupp", b"er")
type_slowly(b"(tab worked)';")
mark = len(shown)
os.write(fd, b"\r")
if not wait_for(b"TAB WORKED", mark):
    fail("the completed PRINT did not run")
complete(b"SELECT * FROM HTTP [ord", b"ers api")
type_slowly(b"] (GET /never);")
mark = len(shown)
os.write(fd, b"\r")
if not wait_for(b"127.0.0.1:9/never", mark):  # the connection's URL: the name was completed
    fail("the completed connection name was not used")
wait_for(b"In [4]: ", mark)

# Done: leave as a user does (Ctrl-D, then "y" to the console's question), reading its output meanwhile
# so it never blocks on a full terminal; a console still there after WAIT is ended, as what was tested passed.
os.write(fd, b"\x04")
if wait_for(b"exit", len(shown)):
    os.write(fd, b"y\r")
end = time.monotonic() + WAIT
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.monotonic() > end:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        break
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready:
        try:
            shown += os.read(fd, 65536)
        except OSError:
            pass
