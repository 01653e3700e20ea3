#!/bin/bash
# Issue 45: the stream digest in every trailer, an old binary against a new
# one, interleaved: 4 GiB from /dev/zero into 8 MiB volumes on /dev/shm,
# then restored to /dev/null. Prints each run's wall, user and system
# seconds (GNU time) for the write and the restore.
#
#   benches/trailer_digest_compare.sh OLD_BINARY NEW_BINARY RUNS BLOCK
#
# For example: benches/trailer_digest_compare.sh /tmp/old/tapebuf target/release/tapebuf 5 1M
set -euo pipefail
old=$1; new=$2; runs=$3; bs=$4
count=$((4096 * 1048576 / $(numfmt --from=iec "${bs^^}")))
dir=/dev/shm/tapebuf-digest-bench
for _ in $(seq "$runs"); do
    for which in old new; do
        bin=${!which}
        rm -rf "$dir"; mkdir -p "$dir"
        w=$( { /usr/bin/time -f "%e %U %S" sh -c "dd if=/dev/zero bs=$bs count=$count status=none | $bin -q -m 64M -s $bs -D 8M -o $dir/v.%04d"; } 2>&1 | tail -1)
        r=$( { /usr/bin/time -f "%e %U %S" "$bin" -q -m 64M -s "$bs" -i "$dir/v.%04d" -o /dev/null; } 2>&1 | tail -1)
        echo "$which write $w restore $r"
    done
done
rm -rf "$dir"
