#!/usr/bin/env bash
# Two tapebuf binaries side by side, interleaved, on the throughput
# benchmark's stream: 4 GiB from /dev/zero to /dev/null through pipes, a
# 64 MiB ring, 1M and 64k blocks. Prints each run's wall seconds and the
# medians, for checking that a change (a refactor) did not slow the data
# path. Usage:
#
#   benches/compare_builds.sh OLD_BINARY NEW_BINARY [RUNS]
#
# For example, against the release build of an older commit:
#
#   git worktree add /tmp/old REV && (cd /tmp/old && cargo build --release --locked)
#   cargo build --release --locked
#   benches/compare_builds.sh /tmp/old/target/release/tapebuf target/release/tapebuf
#
# TAPEBUF_COMPARE_ARGS adds flags to both binaries' command lines, such as
# TAPEBUF_COMPARE_ARGS="--hash xxh3" to compare the path a digest takes.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [RUNS]" >&2
    exit 2
fi
old=$1
new=$2
runs=${3:-7}
for bin in "$old" "$new"; do
    [ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 2; }
done

# Wall seconds of one run of binary $1 with block size $2 and $3 blocks.
one_run() {
    local start end
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # the extra flags are meant to be split
    dd if=/dev/zero bs="$2" count="$3" 2>/dev/null | "$1" -q -m 64M -s "$2" ${TAPEBUF_COMPARE_ARGS:-} | dd of=/dev/null bs="$2" 2>/dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}' 
}

median() {
    sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

echo "# 4 GiB, 64M ring, $runs interleaved runs each; wall seconds; extra flags: ${TAPEBUF_COMPARE_ARGS:-none}"
for bs in 1M 64k; do
    case $bs in
    1M) count=4096 ;;
    64k) count=65536 ;;
    esac
    old_times=()
    new_times=()
    for _ in $(seq "$runs"); do
        old_times+=("$(one_run "$old" "$bs" "$count")")
        new_times+=("$(one_run "$new" "$bs" "$count")")
    done
    old_median=$(printf '%s\n' "${old_times[@]}" | median)
    new_median=$(printf '%s\n' "${new_times[@]}" | median)
    echo "$bs old: ${old_times[*]}"
    echo "$bs new: ${new_times[*]}"
    echo "$bs median old $old_median s, new $new_median s, new/old $(awk -v o="$old_median" -v n="$new_median" 'BEGIN {printf "%.2f", n / o}')"
done
