"""POSTs a body of SIZE bytes with Python's urllib, which writes the whole body before it reads the
answer; prints {"status", "body"} as JSON, or {"error"} when the connection failed instead.

  urllib_post.py URL SIZE (length|chunked) [HEADERS-JSON]
"""
import json
import sys
import urllib.error
import urllib.request

url, size, framing = sys.argv[1], int(sys.argv[2]), sys.argv[3]
headers = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
body = b"x" * size
# An iterable body has no length: urllib sends it chunked, as a streaming client does.
data = body if framing == "length" else (body[i : i + 65536] for i in range(0, size, 65536))
req = urllib.request.Request(url, data=data, method="POST", headers=headers)
try:
    with urllib.request.urlopen(req, timeout=60) as res:
        print(json.dumps({"status": res.status, "body": res.read().decode()}))
except urllib.error.HTTPError as e:
    print(json.dumps({"status": e.code, "body": e.read().decode()}))
except OSError as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
