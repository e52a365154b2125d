"""A real FTP (or FTPS) server for the tests: pyftpdlib serving one folder to one user.

Usage: ftp_server.py ROOT USER PASSWORD [PERM [RATE_LIMIT]]
PERM is pyftpdlib's permission letters for the user (default: all of them); RATE_LIMIT, bytes a
second the server sends and receives at most (a slow site, to interrupt a transfer in the middle).
Prints "listening on PORT" once ready (port chosen by the system), then serves until killed.
"""
import sys

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler
from pyftpdlib.servers import FTPServer


def main():
    root, user, password = sys.argv[1:4]
    perm = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else "elradfmwMT"
    authorizer = DummyAuthorizer()
    authorizer.add_user(user, password, root, perm=perm)
    handler = FTPHandler
    handler.authorizer = authorizer
    if len(sys.argv) > 5:
        dtp = ThrottledDTPHandler
        dtp.read_limit = dtp.write_limit = int(sys.argv[5])
        handler.dtp_handler = dtp
    server = FTPServer(("127.0.0.1", 0), handler)
    print("listening on %d" % server.address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
