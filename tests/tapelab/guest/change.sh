#!/bin/bash
# tests/tapelab/guest/change.sh: the volume change command (-A) of the lab
# suite. Takes the next slot from the queue file $LAB_CHANGE_QUEUE (one slot
# per line), puts whatever cartridge is in drive element $LAB_CHANGE_ELEMENT
# back in its slot, and loads that slot into the drive with mtx. Logs each
# call (with tapebuf's TAPEBUF_* variables) to $LAB_CHANGE_LOG. Fails when
# the queue is empty, as an operator with no more cartridges would.
set -u
ch=${LAB_CHANGER:-/dev/sch0}
queue=${LAB_CHANGE_QUEUE:-/run/lab/case/queue}
el=${LAB_CHANGE_ELEMENT:-0}
logf=${LAB_CHANGE_LOG:-/run/lab/case/change.log}
echo "change: volume=${TAPEBUF_VOLUME:-} mode=${TAPEBUF_MODE:-} device=${TAPEBUF_DEVICE:-} bytes=${TAPEBUF_VOLUME_BYTES:-} refused='${TAPEBUF_REFUSED:-}'" >>"$logf"
slot=$(head -n 1 "$queue" 2>/dev/null)
if [ -z "$slot" ]; then
    echo "change.sh: no more cartridges" >&2
    echo "change: queue empty" >>"$logf"
    exit 1
fi
sed -i 1d "$queue"
cur=$(mtx -f "$ch" status | sed -n "s/^Data Transfer Element $el:Full (Storage Element \([0-9]*\) Loaded).*/\1/p")
if [ -n "$cur" ]; then
    mtx -f "$ch" unload "$cur" "$el" >/dev/null || { echo "change.sh: unload of slot $cur failed" >&2; exit 1; }
fi
mtx -f "$ch" load "$slot" "$el" >/dev/null || { echo "change.sh: load of slot $slot failed" >&2; exit 1; }
echo "change: loaded slot $slot into element $el" >>"$logf"
