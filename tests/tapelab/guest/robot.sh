#!/bin/sh
# tests/tapelab/guest/robot.sh: mhvtl's library runs this before every robot
# move (device.conf `movecommand`), as
#   robot.sh SRCTYPE SRCNUM DSTTYPE DSTNUM BARCODE
# (types Storage, Drive, MAP, each numbered from 1). It logs the move to
# /run/lab/robot.log as "TIME slot N drive E BARCODE" (slots and the portal
# numbered from 1, drives from 0 as mtx numbers them; the suite's record of
# what the robot did), sleeps as
# many seconds as /run/lab/robot-delay says (a slow robot: the MOVE MEDIUM
# does not return until then), and fails the move while /run/lab/robot-fail
# exists (mhvtl then answers HARDWARE ERROR 04/03, and nothing moves).
el() {
    case $1 in
        Storage) echo "slot $2" ;;
        Drive) echo "drive $(($2 - 1))" ;;
        MAP) echo "portal $2" ;;
        *) echo "$1 $2" ;;
    esac
}
echo "$(date +%s.%N) $(el "$1" "$2") $(el "$3" "$4") $5" >>/run/lab/robot.log 2>/dev/null
d=$(cat /run/lab/robot-delay 2>/dev/null)
[ -n "$d" ] && sleep "$d"
[ -e /run/lab/robot-fail ] && exit 1
exit 0
