#!/bin/bash
# tests/tapelab/guest/findings.sh: `lab.sh findings [SECTION...]` runs this
# in the VM instead of the suite. It asks the real st and ch drivers (through
# mtprobe, chprobe, sg3-utils and mtx) what they return in each state the
# suite exercises, and prints it all; FINDINGS.md is written from this
# output. Nothing here asserts anything. Sections: st (the tape driver,
# about 8 minutes: it waits out st's 124 s open three times) and changer
# (the library, issue 33: about 3 minutes); without a name, both.
{
set -u
. "$LAB_HERE/suite.sh"      # helpers only: load, unload, slot_in_drive
P=$LAB_OUT/mtprobe
C=$LAB_OUT/chprobe
FIX=$LAB_OUT/fixtures       # captures, copied to tests/fixtures/changer/ by hand
mkdir -p /run/lab/case "$FIX"; cd /run/lab/case
step() { echo; echo "=== $*"; }
sections=${LAB_CASES:-st changer}

section_st() {
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
}

# Element addresses of mhvtl's STK L700 personality: transport 1, MAP 10,
# drives from 500, storage from 1000 (slot N, 1-based, is 999+N).
h16() { printf '%02x %02x' $(( $1 >> 8 )) $(( $1 & 255 )); }
# move_raw FROM TO: MOVE MEDIUM over SG_IO, printing the sense data ch hides.
move_raw() {
    echo "+ MOVE MEDIUM $1 -> $2 (sg_raw)"
    # shellcheck disable=SC2046
    sg_raw -v /dev/sch0 a5 00 00 01 $(h16 "$1") $(h16 "$2") 00 00 00 00 2>&1 | grep -v '^ *$' | sed 's/^/    /'
    echo "    sg_raw status ${PIPESTATUS[0]}"
}
drive_tur() { sg_turs -v "$1" 2>&1 | grep -v 'cdb:' | tr -s ' \n' ' '; echo; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$@"; }

section_changer() {
    for e in 0 1; do unload "$e" 2>/dev/null; done
    local n mm

    step "ch at probe (dmesg), and CHIOGPARAMS"
    dmesg | grep -E ' ch |ch[0-9]|sch|mhvtl' | head -20
    $C params "$CH"

    step "Q1: the drive serial in sysfs (vpd_pg80) against sg_inq -p 0x80"
    for n in "$D0" "$D1"; do
        b=$(basename "$n")
        f=/sys/class/scsi_tape/$b/device/vpd_pg80
        echo "$f:"; ls -l "$f" 2>&1; xxd "$f" 2>&1
        mm=$(printf '%d:%d' "0x$(stat -c %t "$n")" "0x$(stat -c %T "$n")")
        echo "/sys/dev/char/$mm/device/vpd_pg80:"; xxd "/sys/dev/char/$mm/device/vpd_pg80" 2>&1
        echo "sg_inq -p 0x80 $n:"; sg_inq -p 0x80 "$n" 2>&1; sg_inq -p 0x80 -H "$n" 2>&1
        echo "sysfs and INQUIRY bytes equal: $(cmp -s "$f" <(sg_inq -p 0x80 -r "$n" 2>/dev/null) && echo yes || echo no)"
    done

    step "the library for the captures: slot 1 in drive 0, the cleaning cartridge in drive 1, E01020L6 in the MAP"
    mtx -f "$CH" load 1 0; wait_ready "$D0"
    t_cln=$(date +%s)
    mtx -f "$CH" load 9 1
    vtlcmd 10 open map; vtlcmd 10 load map E01020L6; vtlcmd 10 close map
    mtx -f "$CH" status
    # The cleaning cartridge over time, watched in the background on drive 1.
    (
        for i in $(seq 0 10 150); do
            echo "t+$(( $(date +%s) - t_cln )) s: $(drive_tur "$D1")"
            sleep 10
        done
    ) >/run/lab/cln-watch 2>&1 &
    watch_pid=$!

    step "Q4: one READ ELEMENT STATUS of every element, VolTag and DVCID (and CURDATA), captured"
    sg_raw -o "$FIX/lab-read-element-status-all-voltag-dvcid.bin" -r 4096 "$CH" b8 10 00 00 ff ff 03 00 10 00 00 00 2>&1
    xxd "$FIX/lab-read-element-status-all-voltag-dvcid.bin"
    step "the same without DVCID and without VolTag"
    sg_raw -o "$FIX/lab-read-element-status-all-plain.bin" -r 4096 "$CH" b8 00 00 00 ff ff 02 00 10 00 00 00 2>&1
    xxd "$FIX/lab-read-element-status-all-plain.bin" | head -20
    step "MODE SENSE(6) page 0x1D, element address assignment, captured"
    sg_raw -o "$FIX/lab-mode-sense-1d.bin" -r 255 "$CH" 1a 00 1d 00 ff 00 2>&1
    xxd "$FIX/lab-mode-sense-1d.bin"
    step "MODE SENSE(6) with DBD, page 0x1D"
    sg_raw -o "$FIX/lab-mode-sense-1d-dbd.bin" -r 255 "$CH" 1a 08 1d 00 ff 00 2>&1
    xxd "$FIX/lab-mode-sense-1d-dbd.bin"

    step "Q3: CHIOGELEM of every element (root)"
    $C elements "$CH"

    step "Q2: non-root (uid 65534, no capabilities), /dev/sch0 and the st nodes chmod 666"
    chmod 666 "$CH" "$D0" "$D1"
    echo "+ sg_raw READ ELEMENT STATUS as nobody:"
    nobody sg_raw -r 512 "$CH" b8 10 00 00 ff ff 03 00 02 00 00 00 2>&1 | head -5
    echo "+ sg_raw MOVE MEDIUM as nobody:"
    # shellcheck disable=SC2046
    nobody sg_raw "$CH" a5 00 00 01 $(h16 1001) $(h16 1014) 00 00 00 00 2>&1 | head -5
    echo "+ chprobe params and elements as nobody:"
    nobody "$C" params "$CH"
    nobody "$C" elements "$CH" | head -8
    echo "+ CHIOMOVE as nobody (slot 2 -> slot 15 and back):"
    nobody "$C" move "$CH" slot:1 slot:14
    nobody "$C" move "$CH" slot:14 slot:1
    echo "+ INQUIRY VPD 0x80 and LOG SENSE 0x2E on the st node as nobody:"
    nobody sg_inq -p 0x80 "$D0" 2>&1 | tail -2
    nobody sg_logs -p 0x2e "$D0" 2>&1 | head -3
    echo "+ sysfs vpd_pg80 as nobody (id, then od of the file):"
    nobody id
    nobody od -An -c "/sys/class/scsi_tape/$(basename "$D0")/device/vpd_pg80" 2>&1 | head -3
    echo "+ TEST UNIT READY on the st node as nobody, and INQUIRY on its sg node (chmod 666):"
    nobody sg_turs -v "$D0" 2>&1 | head -3
    sgn=$(ls "/sys/class/scsi_tape/$(basename "$D0")/device/scsi_generic/" 2>/dev/null | head -1)
    echo "the sg node of $D0: /dev/$sgn"
    if [ -n "$sgn" ]; then
        chmod 666 "/dev/$sgn"
        nobody sg_inq -p 0x80 "/dev/$sgn" 2>&1 | tail -2
        nobody sg_raw -r 512 "/dev/$sgn" 12 01 80 00 ff 00 2>&1 | head -3
        chmod 660 "/dev/$sgn"
    fi
    echo "+ the same INQUIRY as root with CAP_SYS_RAWIO dropped, on the st node:"
    capsh --drop=cap_sys_rawio -- -c "sg_inq -p 0x80 $D0" 2>&1 | tail -2
    echo "+ root without CAP_SYS_RAWIO (capsh --drop=cap_sys_rawio): READ ELEMENT STATUS"
    capsh --drop=cap_sys_rawio -- -c "sg_raw -r 512 $CH b8 10 00 00 ff ff 03 00 02 00 00 00" 2>&1 | head -5
    chmod 660 "$CH" "$D0" "$D1"

    step "Q7: the MAP: moves into and out of it with the CAP closed, then open"
    vtlcmd 10 list map
    echo "+ CAP closed: MAP (E01020L6) -> slot 15, with CHIOMOVE"
    $C move "$CH" portal:0 slot:14
    $C elements "$CH" | grep -E '^(slot 14|portal 0):'
    echo "+ CAP closed: slot 15 -> MAP, with CHIOMOVE"
    $C move "$CH" slot:14 portal:0
    $C elements "$CH" | grep -E '^(slot 14|portal 0):'
    vtlcmd 10 open map
    echo "+ CAP open (vtlcmd 10 open map): element status of the MAP"
    $C elements "$CH" | grep -E '^portal 0:'
    sg_raw -r 512 "$CH" b8 13 00 0a 00 01 00 00 02 00 00 00 2>&1 | head -8
    echo "+ CAP open: MAP -> slot 15 (CHIOMOVE, then MOVE MEDIUM over SG_IO)"
    $C move "$CH" portal:0 slot:14
    move_raw 10 1014
    echo "+ CAP open: vtlcmd 10 load map E01006L6 (a cartridge already in the library)"
    vtlcmd 10 load map E01006L6
    echo "+ CAP open: empty map, then close; load map with the CAP closed"
    vtlcmd 10 empty map; vtlcmd 10 close map
    vtlcmd 10 load map E01020L6
    $C elements "$CH" | grep -E '^portal 0:'
    echo "+ CAP open: slot 16 (empty) -> MAP, and slot 2 -> MAP"
    vtlcmd 10 open map
    $C move "$CH" slot:1 portal:0
    move_raw 1001 10
    vtlcmd 10 close map

    step "Q5: a wrong-generation cartridge (E01014L3, LTO-3) into an LTO-6 drive"
    unload 0
    echo "+ mtx load 14 0:"; mtx -f "$CH" load 14 0; echo "mtx status $?"
    mtx -f "$CH" status | grep -E '^ *(Data Transfer Element 0|Storage Element 14):'
    echo "+ CHIOMOVE slot 14 -> drive 0:"; $C move "$CH" slot:13 drive:0
    echo "+ MOVE MEDIUM over SG_IO:"; move_raw 1013 500
    mtx -f "$CH" status | grep -E '^ *(Data Transfer Element 0|Storage Element 14):'
    $P status "$D0"
    echo "+ TapeAlert of drive 0 after the refused load:"
    sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$' | head -12

    step "Q6: vtlcmd $LAB_DRIVE0_ID TapeAlert 80000 (flag 20, clean now) on a loaded drive"
    load 4 0; mt -f "$D0" rewind
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 80000
    $P status "$D0"; mt -f "$D0" status 2>&1 | tail -3
    echo "+ after a write of 1 record:"; $P write "$D0" 262144 1; $P status "$D0"
    echo "+ sg_logs -p 0x2e, first read:"; sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$'
    echo "+ sg_logs -p 0x2e, second read:"; sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$'
    echo "+ a read with a 4-byte allocation length (sg_raw 4d 00 6e 00 00 00 00 00 04 00):"
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 80000
    sg_raw -r 4 "$D0" 4d 00 6e 00 00 00 00 00 04 00 2>&1 | head -3
    echo "+ then the page again:"; sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$'
    echo "+ TapeAlert set, then the cartridge changed (slot 4 out, slot 5 in):"
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 80000
    load 5 0
    sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$'
    echo "+ vtlcmd TapeAlert 100000 (flag 21, periodic):"
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 100000
    sg_logs -p 0x2e "$D0" 2>&1 | grep -v ': 0$'

    step "Q6b: a cleaning cartridge over time (drive 1, loaded at t+0; TEST UNIT READY every 10 s)"
    wait "$watch_pid"
    cat /run/lab/cln-watch
    mtx -f "$CH" status | grep -E '^Data Transfer Element 1:'
    $C elements "$CH" | grep -E '^drive 1:'
    sg_raw -r 512 "$CH" b8 14 01 f5 00 01 03 00 02 00 00 00 2>&1 | head -8
    echo "+ moving it back without MTOFFL (mtx unload 9 1):"; mtx -f "$CH" unload 9 1; echo "mtx status $?"

    step "the library at the end"
    for e in 0 1; do unload "$e" 2>/dev/null; done
    mtx -f "$CH" status
}

for s in $sections; do
    if declare -F "section_$s" >/dev/null; then "section_$s"; else echo "findings: no section $s"; fi
done
exit
}
