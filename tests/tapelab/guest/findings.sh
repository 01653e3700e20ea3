#!/bin/bash
# tests/tapelab/guest/findings.sh: `lab.sh findings` runs this in the VM
# instead of the suite. It asks the real st driver (through mtprobe) what it
# returns in each state the suite exercises, and prints it all; FINDINGS.md
# is written from this output. Nothing here asserts anything.
{
set -u
. "$LAB_HERE/suite.sh"      # helpers only: load, unload, slot_in_drive
P=$LAB_OUT/mtprobe
mkdir -p /run/lab/case; cd /run/lab/case
step() { echo; echo "=== $*"; }
for e in 0 1; do unload "$e" 2>/dev/null; done

step "empty drive: O_NONBLOCK status, then a blocking open"
$P status "$D0"
timeout 200 $P open "$D0"

step "a data cartridge just loaded"
mtx -f "$CH" load 1 0; wait_ready "$D0"
$P status "$D0"
step "10 records of 256 KiB, then close (st writes a filemark at close after a write)"
$P write "$D0" 262144 10
$P status "$D0"
mt -f "$D0" rewind
step "read records of 256 KiB with a 64 KiB buffer"
$P read "$D0" 65536
mt -f "$D0" rewind
step "read them with a 256 KiB buffer to the filemark and past it"
$P read "$D0" 262144
step "a 1 MiB record (beyond the HBA's 128 segments)"
mt -f "$D0" rewind
$P write "$D0" 1048576 1
step "a 512 KiB record"
mt -f "$D0" rewind
$P write "$D0" 524288 1

step "fixed-block mode: mt setblk 512, then status"
mt -f "$D0" setblk 512; $P status "$D0"; mt -f "$D0" status
step "a 256 KiB write in fixed-block mode (a multiple of 512)"
mt -f "$D0" rewind; $P write "$D0" 262144 1
step "a 1000-byte write in fixed-block mode (not a multiple)"
mt -f "$D0" rewind; $P write "$D0" 1000 1
mt -f "$D0" setblk 0

step "end of medium: 256 KiB records to the first failure and 40 more (100 MB cartridge)"
mt -f "$D0" rewind
$P eom "$D0" 262144
$P status "$D0"
step "reading that volume back to the end"
mt -f "$D0" rewind
$P read "$D0" 262144
$P status "$D0"

step "write-protected cartridge (edit_tape -w on)"
load 7 0
$P status "$D0"
$P open "$D0"
$P write "$D0" 262144 1

step "WORM cartridge right after the write-protected one (mhvtl keeps the drive's WP state)"
load 8 0
$P status "$D0"
step "WORM cartridge after a writable data cartridge: first write at BOT of a blank one, then an overwrite at BOT"
load 5 0
load 8 0
$P status "$D0"
$P write "$D0" 262144 2
mt -f "$D0" rewind
$P write "$D0" 262144 1

step "cleaning cartridge"
load 9 0 nowait; sleep 3
$P status "$D0"
mt -f "$D0" status
for i in 1 2 3 4 5 6; do sleep 5; echo "t+$((i * 5 + 3)) s:"; $P status "$D0"; done
mtx -f "$CH" status | sed -n '/^Data Transfer Element 0/p'
step "cleaning cartridge: a blocking open"
load 9 0 nowait; sleep 3
$P open "$D0"
mtx -f "$CH" status | sed -n '/^Data Transfer Element 0/p'
sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$' | head -20

step "load delay: vtlcmd $LAB_DRIVE0_ID delay load 10, then mtx load"
unload 0
vtlcmd "$LAB_DRIVE0_ID" delay load 10
t0=$(date +%s.%N)
mtx -f "$CH" load 2 0
echo "mtx load returned after $(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN{print b-a}") s"
for i in $(seq 1 15); do
    echo "t+$i:"; $P status "$D0"; sleep 1
done
vtlcmd "$LAB_DRIVE0_ID" delay load 0
step "load delay 10 s again, blocking open right after mtx load"
unload 0
vtlcmd "$LAB_DRIVE0_ID" delay load 10
mtx -f "$CH" load 2 0
$P open "$D0"
vtlcmd "$LAB_DRIVE0_ID" delay load 0

step "after MTOFFL (mt offline), before the changer moves the cartridge"
mt -f "$D0" offline
$P status "$D0"
$P open "$D0"
unload 0
exit
}
