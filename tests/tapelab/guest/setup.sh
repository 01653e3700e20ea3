#!/bin/bash
# tests/tapelab/guest/setup.sh: runs inside the lab VM, chrooted into the
# host's read-only root. Loads st, ch, sg and mhvtl, writes the mhvtl
# configuration (an STK L700 with an IBM LTO-6 and an LTO-7 drive), makes the
# cartridges, starts the daemons, ties each library drive element to its
# /dev/nstN by serial number, then runs the suite (or returns, for `lab.sh
# shell`).
{
set -u
. "$LAB_OUT/env"
export LAB_MODE LAB_CASES LAB_MHVTL LAB_HERE LAB_OUT TAPEBUF_BIN
export PATH=$LAB_MHVTL/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=$LAB_MHVTL/lib
export HOME=/root

log() { echo "tapelab-setup: $*"; }
die() { log "ERROR: $*"; echo "SETUP-FAILED $*" >>"$LAB_OUT/results"; exit 1; }

mkdir -p /run/lock /run/mhvtl/etc /run/mhvtl/tapes /run/lab
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

modprobe st || die "modprobe st"
modprobe ch || die "modprobe ch"
modprobe sg || die "modprobe sg"
insmod "$LAB_MHVTL/mhvtl.ko" || die "insmod mhvtl.ko"

conf=/run/mhvtl/etc
cat >"$conf/mhvtl.conf" <<CONF
MHVTL_HOME_PATH=/run/mhvtl/tapes
CAPACITY=100
VERBOSE=0
VTL_DEBUG=0
CONF

# One library (id 10), an LTO-6 drive (id 11) and an LTO-7 drive (id 12):
# mhvtl's LTO-6 offers logical block protection with the Reed-Solomon CRC
# only, its LTO-7 with CRC32C too (issue 49), and an LTO-7 writes LTO-6
# cartridges, so every cartridge below serves both. Compression off:
# the suite writes random data, and compressing it only costs time.
drive_conf() { # id target serial slot product
    printf 'Drive: %02d CHANNEL: 00 TARGET: %02d LUN: 00\n' "$1" "$2"
    printf ' Library ID: 10 Slot: %02d\n' "$4"
    echo " Vendor identification: IBM"
    echo " Product identification: $5"
    echo " Product revision level: 2160"
    echo " Unit serial number: $3"
    printf ' NAA: 10:22:33:44:ab:00:%02d:00\n' "$2"
    echo " Compression: factor 1 enabled 0"
    echo " Compression type: lzo"
    echo " Backoff: 400"
    echo
}
{
    echo "VERSION: 5"
    echo
    echo "Library: 10 CHANNEL: 00 TARGET: 00 LUN: 00"
    echo " Vendor identification: STK"
    echo " Product identification: L700"
    echo " Unit serial number: LABLIB01"
    echo " NAA: 10:22:33:44:ab:00:00:00"
    echo " Home directory: /run/mhvtl/tapes"
    echo " PERSIST: False"
    echo " Backoff: 400"
    # Every move runs guest/robot.sh first: a log of the robot's moves, and
    # a slow or failing robot on demand.
    echo " movecommand: $LAB_HERE/guest/robot.sh"
    echo " commandtimeout: 120"
    echo
    drive_conf 11 1 LABDRV01 1 ULT3580-TD6
    drive_conf 12 2 LABDRV02 2 ULT3580-TD7
} >"$conf/device.conf"

# Slots (suite.sh's HOME table names the same layout; keep them in step):
#   1-6    E01001L6-E01006L6  data
#   7      E01007L6           data, write-protected
#   8      W01008LW           WORM
#   9      CLN009L1           cleaning
#   10-13  E01010L6-E01013L6  data (issue 33: 10 writable data cartridges in all)
#   14     E01014L3           LTO-3 data: an LTO-6 drive refuses it, and mhvtl's
#                             library then fails the MOVE MEDIUM (04/03)
#   15-18  empty
# and one import/export element (the MAP, mtx's slot 19). E01020L6 is made
# but placed nowhere: the operator's cartridge for `vtlcmd 10 load map`.
data_slots="1 2 3 4 5 6 7 10 11 12 13"
barcode_of() { # slot -> its cartridge's barcode, or nothing
    case $1 in
        8) echo W01008LW ;;
        9) echo CLN009L1 ;;
        14) echo E01014L3 ;;
        15|16|17|18) ;;
        *) printf 'E010%02dL6\n' "$1" ;;
    esac
}
{
    echo "VERSION: 2"
    echo
    echo "Drive 1:"
    echo "Drive 2:"
    echo
    echo "Picker 1:"
    echo
    echo "MAP 1:"
    echo
    for s in $(seq 1 18); do b=$(barcode_of "$s"); echo "Slot $s:${b:+ $b}"; done
} >"$conf/library_contents.10"

for s in $data_slots 20; do
    b=$(printf 'E010%02dL6' "$s")
    mktape -l 10 -s 100 -t data -m "$b" -d LTO6 >/dev/null || die "mktape $b"
done
mktape -l 10 -s 100 -t WORM -m W01008LW -d LTO6 >/dev/null || die "mktape WORM"
mktape -l 10 -s 100 -t clean -m CLN009L1 -d LTO6 >/dev/null || die "mktape clean"
mktape -l 10 -s 100 -t data -m E01014L3 -d LTO3 >/dev/null || die "mktape LTO-3"
edit_tape -l 10 -m E01007L6 -w on >/dev/null || die "edit_tape -w on"
# mhvtl quirk: `vtlcmd 10 load map BARCODE` checks that HOME/BARCODE/data
# exists, but this mktape writes data.0, indx.0 and meta.0 (partitions), so
# the check always fails ("Could not open .../data", "Hint: Use command
# 'mktape'"). An empty `data` beside them satisfies it; the drive reads
# data.0.
: >/run/mhvtl/tapes/E01020L6/data || die "the MAP cartridge's data file"

# The daemons must not hold the console pipe open.
vtllibrary -q 10 </dev/null >/dev/null 2>&1 || die "vtllibrary"
vtltape -q 11 </dev/null >/dev/null 2>&1 || die "vtltape 11"
vtltape -q 12 </dev/null >/dev/null 2>&1 || die "vtltape 12"

for i in $(seq 1 100); do
    [ -e /dev/nst0 ] && [ -e /dev/nst1 ] && [ -e /dev/sch0 ] && break
    sleep 0.2
done
[ -e /dev/nst1 ] && [ -e /dev/sch0 ] || { ls -l /dev/nst* /dev/sch* /dev/sg* 2>&1; die "no /dev/nst0, /dev/nst1 and /dev/sch0 after 20 s"; }
sleep 1

# Drive element N of the library -> /dev/nstM, by serial number.
declare -A node_of
for n in /dev/nst0 /dev/nst1; do
    serial=$(sg_inq -p 0x80 "$n" 2>/dev/null | sed -n 's/.*Unit serial number: *//p' | tr -d ' ')
    [ -n "$serial" ] || die "no serial from $n"
    node_of[$serial]=$n
done
sg_raw -b -r 512 /dev/sch0 b8 14 00 00 00 04 03 00 02 00 00 00 2>/dev/null >/run/lab/res.bin ||
    die "READ ELEMENT STATUS failed"
mapfile -t serials < <(tr -c 'A-Z0-9_' '\n' </run/lab/res.bin | grep -E '^LABDRV[0-9]+$')
[ "${#serials[@]}" = 2 ] || die "READ ELEMENT STATUS gave serials '${serials[*]}'"
LAB_DRIVE0=${node_of[${serials[0]}]}
LAB_DRIVE1=${node_of[${serials[1]}]}
LAB_CHANGER=/dev/sch0
# vtlcmd names drives by their device.conf id: LABDRV01 is 11, LABDRV02 is 12.
LAB_DRIVE0_ID=$((10 + 10#${serials[0]#LABDRV}))
LAB_DRIVE1_ID=$((10 + 10#${serials[1]#LABDRV}))
log "drive element 0 = ${serials[0]} = $LAB_DRIVE0, element 1 = ${serials[1]} = $LAB_DRIVE1"
LAB_DRIVE0_SERIAL=${serials[0]}
LAB_DRIVE1_SERIAL=${serials[1]}
export LAB_DRIVE0 LAB_DRIVE1 LAB_CHANGER LAB_DRIVE0_ID LAB_DRIVE1_ID LAB_DRIVE0_SERIAL LAB_DRIVE1_SERIAL
lsscsi -g 2>/dev/null
mtx -f "$LAB_CHANGER" status

if [ "$LAB_MODE" = shell ]; then
    {
        echo "export PATH=$PATH LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        echo "export LAB_DRIVE0=$LAB_DRIVE0 LAB_DRIVE1=$LAB_DRIVE1 LAB_CHANGER=$LAB_CHANGER"
        echo "export LAB_DRIVE0_ID=$LAB_DRIVE0_ID LAB_DRIVE1_ID=$LAB_DRIVE1_ID"
        echo "export LAB_DRIVE0_SERIAL=$LAB_DRIVE0_SERIAL LAB_DRIVE1_SERIAL=$LAB_DRIVE1_SERIAL"
        echo "export TAPEBUF_BIN=$TAPEBUF_BIN LAB_HERE=$LAB_HERE LAB_OUT=$LAB_OUT"
    } >/root/.profile
    log "shell: the lab is up; suite: bash $LAB_HERE/suite.sh [CASE...]"
    exit 0
fi
if [ "$LAB_MODE" = findings ]; then
    bash "$LAB_HERE/guest/findings.sh" >"$LAB_OUT/findings.log" 2>&1
    echo "DONE" >>"$LAB_OUT/results"
    exit 0
fi
if [ "$LAB_MODE" = bench ]; then
    # shellcheck disable=SC2086
    bash "$LAB_HERE/suite.sh" --bench $LAB_CASES </dev/null
    exit
fi
# shellcheck disable=SC2086
bash "$LAB_HERE/suite.sh" $LAB_CASES </dev/null
exit
}
