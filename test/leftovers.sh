#!/bin/sh
# A check run by hand, not part of the suite: what a command (by default the whole built suite) leaves
# in the system's temp folder. Lists the entries it added, per prefix (the name without its random
# tail), and exits 1 when one of them is a sqlcdc-* folder. Other programs on the machine use the temp
# folder too: the benchmarks' sqlcdc-bench-* and cpuper-* folders are not counted, anything else that
# appears meanwhile is listed and is for the reader to judge.
#   test/leftovers.sh                        # node --test dist/test/
#   test/leftovers.sh node --test dist/test/drives/
tmp=${TMPDIR:-/tmp}
before=$(mktemp)
ls -A "$tmp" | sort > "$before"
if [ $# -eq 0 ]; then set -- node --test dist/test/; fi
"$@" > /dev/null 2>&1
status=$?
added=$(ls -A "$tmp" | sort | comm -13 "$before" - | grep -v -e '^sqlcdc-bench-' -e '^cpuper-' -e "^$(basename "$before")\$")
rm -f "$before"
echo "command exit status: $status"
if [ -z "$added" ]; then echo "nothing left in $tmp"; exit 0; fi
echo "left in $tmp, per prefix:"
echo "$added" | sed -E 's/[-.][A-Za-z0-9_]{6,}$//' | sort | uniq -c
if echo "$added" | grep -q '^sqlcdc-'; then exit 1; fi
