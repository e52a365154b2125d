#!/bin/sh
# A check run by hand, not part of the suite: what a command (by default the whole built suite) leaves
# in the system's temp folder, and in /dev/shm, where test/helpers/temp.ts makes the test folders when
# it is a roomy tmpfs. Lists the entries it added, per folder and prefix (the name without its random
# tail), and exits 1 when one of them is a sqlcdc-* folder. Other programs on the machine use these
# folders too: the benchmarks' sqlcdc-bench-* and cpuper-* folders are not counted, anything else that
# appears meanwhile is listed and is for the reader to judge.
#   test/leftovers.sh                        # node --test dist/test/
#   test/leftovers.sh node --test dist/test/drives/
tmp=${TMPDIR:-/tmp}
folders=$tmp
if [ -d /dev/shm ] && [ "$tmp" != /dev/shm ]; then folders="$folders /dev/shm"; fi
listing=$(mktemp)
for folder in $folders; do ls -A "$folder" | sort > "$listing.$(echo "$folder" | tr / _)"; done
if [ $# -eq 0 ]; then set -- node --test dist/test/; fi
"$@" > /dev/null 2>&1
status=$?
echo "command exit status: $status"
found=0
for folder in $folders; do
  before="$listing.$(echo "$folder" | tr / _)"
  added=$(ls -A "$folder" | sort | comm -13 "$before" - | grep -v -e '^sqlcdc-bench-' -e '^cpuper-' -e "^$(basename "$listing")")
  rm -f "$before"
  if [ -z "$added" ]; then
    echo "nothing left in $folder"
    continue
  fi
  echo "left in $folder, per prefix:"
  echo "$added" | sed -E 's/[-.][A-Za-z0-9_]{6,}$//' | sort | uniq -c
  if echo "$added" | grep -q '^sqlcdc-'; then found=1; fi
done
rm -f "$listing"
exit $found
