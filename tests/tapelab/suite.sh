#!/bin/bash
# tests/tapelab/suite.sh: the tape lab's test cases, run inside the VM by
# guest/setup.sh against real st/ch nodes ($LAB_DRIVE0, $LAB_DRIVE1,
# $LAB_CHANGER). Each case is a function named after the behaviour it shows;
# `bash suite.sh` runs them all in order, `bash suite.sh CASE...` only those.
# Every case runs in its own bash (strict mode, per-case timeout) after the
# library is put back in a known state; its output goes to
# $LAB_OUT/cases/CASE.log and one line "PASS|FAIL CASE SECONDS" to
# $LAB_OUT/results.

TB=${TAPEBUF_BIN:?}
CH=${LAB_CHANGER:-/dev/sch0}
D0=${LAB_DRIVE0:-/dev/nst0}
D1=${LAB_DRIVE1:-/dev/nst1}
DATA=/var/tmp/lab            # guest tmpfs: seed data, made once per boot
# The drives' histories (tape/health/history.rs): a writable state directory
# for the boot, as a user's ~/.local/state is.
export XDG_STATE_HOME=/var/tmp/lab-state
CHANGE=$LAB_HERE/guest/change.sh

# --- assertions and helpers (used inside cases) -----------------------------

# mt-st by name: `mt` may be GNU cpio's mt-gnu, whose output differs.
mt() { command mt-st "$@"; }

fail() { echo "ASSERTION FAILED: $*" >&2; exit 1; }
note() { echo "--- $*"; }
# expect_status WANT GOT WHAT
expect_status() { [ "$2" = "$1" ] || fail "$3: exit status $2, expected $1"; echo "ok: $3 exited $2"; }
expect_nonzero() { [ "$1" != 0 ] || fail "$2: exit status 0, expected a failure"; echo "ok: $2 exited $1"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: '$1' != '$2'"; echo "ok: $3 ($1)"; }
# expect_grep REGEX FILE WHAT
# (expect_grep -i ... ignores case)
expect_grep() {
    local o=-Eq; if [ "$1" = -i ]; then o=-Eqi; shift; fi
    grep $o -- "$1" "$2" || { sed 's/^/    | /' "$2" >&2; fail "$3: no /$1/ in $2"; }
    echo "ok: $3"
}
expect_nogrep() { ! grep -Eq -- "$1" "$2" || { sed 's/^/    | /' "$2" >&2; fail "$3: /$1/ in $2"; }; echo "ok: $3"; }
sha() { sha256sum "$@" | cut -d' ' -f1; }
# ere TEXT: TEXT as an extended regular expression that matches it alone
# (a key's fingerprint holds + and /).
ere() { printf '%s' "$1" | sed 's/[][\\.^$*+?(){}|]/\\&/g'; }
# The summary's committed bytes ("out N bytes") from tapebuf's stderr file.
# ("summary: interrupted by SIGINT: in N bytes, out N bytes" after a signal)
summary_out() { sed -n 's/.*summary:.* in [0-9]* bytes, out \([0-9]*\) bytes.*/\1/p' "$1" | tail -1; }
summary_in() { sed -n 's/.*summary:.* in \([0-9]*\) bytes, out.*/\1/p' "$1" | tail -1; }
show() { echo "--- $1:"; sed 's/^/    | /' "$1"; }

# slot_in_drive ELEMENT: the storage slot whose cartridge is in the drive, or empty.
slot_in_drive() {
    mtx -f "$CH" status | sed -n "s/^Data Transfer Element $1:Full (Storage Element \([0-9]*\) Loaded).*/\1/p"
}
# load SLOT ELEMENT [nowait]: move a cartridge into a drive (unloading what
# is there), and wait until the drive is ONLINE unless told not to.
load() {
    local cur; cur=$(slot_in_drive "$2")
    if [ -n "$cur" ]; then unload "$2"; fi
    mtx -f "$CH" load "$1" "$2" >/dev/null
    [ "${3:-}" = nowait ] || wait_ready "$(drive_node "$2")"
}
unload() {
    local cur; cur=$(slot_in_drive "$1")
    [ -n "$cur" ] || return 0
    # Only an ONLINE drive gets MTOFFL: st's blocking open of an ejected or
    # empty drive waits 124 s for ENOMEDIUM (`mt status` opens O_NONBLOCK).
    if mt -f "$(drive_node "$1")" status 2>/dev/null | grep -q ONLINE; then
        mt -f "$(drive_node "$1")" offline 2>/dev/null || true
    fi
    mtx -f "$CH" unload "$cur" "$1" >/dev/null
}
drive_node() { if [ "$1" = 0 ]; then echo "$D0"; else echo "$D1"; fi; }
# wait_ready NODE: until `mt status` says ONLINE (at most 60 s).
wait_ready() {
    local i
    for i in $(seq 1 120); do
        mt -f "$1" status 2>/dev/null | grep -q ONLINE && return 0
        sleep 0.5
    done
    fail "$1 not ONLINE after 60 s"
}
# random_file PATH BYTES: fresh random bytes (tmpfs).
random_file() { head -c "$2" /dev/urandom >"$1"; }
# as_nobody CMD...: CMD as user nobody, without any capability.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$@"; }
# tb ERRFILE ARGS...: run tapebuf with its stderr to ERRFILE.
# Usage: st=0; tb w.err ARGS... || st=$?
tb() { local e=$1; shift; echo "+ tapebuf $*" >&2; "$TB" "$@" 2>"$e"; }

# --- the cases -----------------------------------------------------------------
# Slots: 1-3 hold the 3-volume backup once its case ran, and later cases only
# read them; 4-6 are scratch; 7 write-protected, 8 WORM, 9 cleaning.

RSH=$LAB_HERE/../fixtures/rsh      # the repo's stand-in for ssh: runs the command here
# queue SLOT...: the slots change.sh loads, in order.
queue() { printf '%s\n' "$@" >/run/lab/case/queue; : >/run/lab/case/change.log; }
# seed250: 250000000 random bytes, made once per boot in the guest's tmpfs.
seed250() {
    if [ ! -s "$DATA/seed250" ]; then
        head -c 250000000 /dev/urandom >"$DATA/seed250.tmp" && mv "$DATA/seed250.tmp" "$DATA/seed250"
        sha "$DATA/seed250" >"$DATA/seed250.sha"
    fi
    echo "$DATA/seed250"
}
# read_back NODE ARGS...: read with tapebuf into sha256sum; sets rs (tapebuf's
# status) and rsha (the digest); tapebuf's stderr is in r.err.
read_back() {
    local node=$1; shift
    { "$TB" -i "$node" "$@" 2>r.err | sha256sum >r.sha; ps=("${PIPESTATUS[@]}"); } || true
    rs=${ps[0]}; rsha=$(cut -d' ' -f1 r.sha)
    show r.err
}
prefix_sha() { head -c "$2" "$1" | sha256sum | cut -d' ' -f1; }
# bytes_on NODE: the bytes of the tape file at the position (read with dd, not tapebuf).
# (256k: st refuses a read over the HBA's 512 KiB with EBUSY, whatever the record.)
bytes_on() { dd if="$1" bs=256k 2>/dev/null | wc -c; }

a_round_trip_at_64k_256k_and_512k_records_is_byte_exact() {
    random_file in 12000000
    load 1 0
    for bs in 64k 256k 512k; do
        note "block size $bs"
        mt -f "$D0" rewind
        st=0; tb w.err -s "$bs" -i in -o "$D0" --rewind || st=$?
        show w.err; expect_status 0 "$st" "write at $bs"
        expect_eq "$(summary_out w.err)" 12000000 "committed bytes at $bs"
        read_back "$D0" -s "$bs"
        expect_status 0 "$rs" "read at $bs"
        expect_eq "$rsha" "$(sha in)" "sha256 of the read-back at $bs"
        mt -f "$D0" rewind
    done
}

# issue 50: tapebuf runs GNU tar (after --), and tar fails after its
# output: the real tape's trailer says cut, the manifest says not clean,
# the backup exits 1 naming tar, and the restore reads the trailer and
# fails. The same with the pipe `tar | tapebuf` would say complete.
a_tar_that_fails_leaves_the_real_tape_saying_cut() {
    load 1 0
    mt -f "$D0" rewind
    st=0; tb w.err -o "$D0" --manifest m.json --rewind -- tar cf - /usr/share/doc/bash /nonexistent-dir || st=$?
    show w.err
    expect_status 1 "$st" "a backup whose tar failed"
    expect_grep 'tapebuf: the producer `tar cf - /usr/share/doc/bash /nonexistent-dir` exited with status 2 after [0-9]+ bytes' w.err "one line names tar and its status"
    expect_grep 'Cannot stat' w.err "tar's own words are in it"
    expect_grep '"clean": false' m.json "the manifest says not clean"
    st=0; tb r.err -i "$D0" -o /dev/null || st=$?
    show r.err
    expect_status 1 "$st" "the restore of the cut backup"
    expect_grep 'cut short' r.err "the restore read the trailer: cut"
}

a_1m_record_beyond_the_controller_limit_is_refused_naming_the_size_to_use() {
    random_file in 5000000
    load 1 0
    st=0; tb w.err -s 1M -i in -o "$D0" || st=$?
    show w.err
    expect_status 1 "$st" "write of 1M records"
    expect_grep 'refused a 1M record' w.err "the message names the refused record size"
    expect_grep 'run again with -s 512k' w.err "the message names the size to use"
    expect_eq "$(summary_out w.err)" 0 "committed bytes"
    mt -f "$D0" rewind
    expect_eq "$(bytes_on "$D0")" 0 "bytes on the tape"
}

a_restore_with_a_block_smaller_than_the_records_names_the_record_size() {
    random_file in 3000000
    load 1 0
    st=0; tb w.err -s 256k -i in -o "$D0" --rewind || st=$?
    expect_status 0 "$st" "write at 256k"
    read_back "$D0" -s 64k
    # Documented: the record is measured and the error says `run again with -s 256k`.
    expect_nonzero "$rs" "read with -s 64k"
    expect_grep 'run again with -s 256k' r.err "the message names the record size"
}

fixed_block_mode_left_by_mt_setblk_is_switched_to_variable() {
    random_file in 3000000
    load 1 0
    mt -f "$D0" setblk 512
    mt -f "$D0" status | tee st.before
    expect_grep 'Tape block size 512 bytes' st.before "the drive is in fixed-block mode"
    st=0; tb w.err -s 256k -i in -o "$D0" --rewind || st=$?
    show w.err; expect_status 0 "$st" "write"
    expect_grep -i 'fixed' w.err "a line says the drive was in fixed-block mode"
    mt -f "$D0" status | tee st.after
    expect_grep 'Tape block size 0 bytes' st.after "the drive is in variable-block mode"
    read_back "$D0"
    expect_status 0 "$rs" "read"
    expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

writing_past_the_end_of_one_cartridge_without_a_change_command_fails_and_counts_exactly() {
    local seed; seed=$(seed250)
    load 1 0
    st=0; head -c 110000000 "$seed" | tb w.err -o "$D0" || st=$?
    show w.err
    expect_status 1 "$st" "a 110 MB backup onto a 100 MB cartridge"
    expect_grep -i 'volume|end of (the )?medi' w.err "the message speaks of the end of the volume"
    n=$(summary_out w.err)
    [ -n "$n" ] && [ "$n" -gt 90000000 ] && [ "$n" -lt 110000000 ] || fail "committed count '$n'"
    mt -f "$D0" status | tee st.after || true
    load 1 0
    expect_eq "$(bytes_on "$D0")" "$n" "dd finds exactly the committed bytes as the first tape file"
    dd if="$D0" bs=64k 2>/dev/null >trailer
    expect_grep '^ends continues$' trailer "the trailer says the stream goes on"
    mt -f "$D0" rewind
    # Its trailer says the stream goes on, and there is no volume 2: the
    # restore passes on every byte there is and fails, never exit 0.
    read_back "$D0"
    expect_status 1 "$rs" "reading back a volume whose backup went on"
    expect_grep 'volume 2 of .* is needed' r.err "the restore says a volume 2 is needed"
    expect_eq "$(summary_in r.err)" "$n" "bytes read back = bytes committed"
    expect_eq "$rsha" "$(prefix_sha "$seed" "$n")" "the read-back is the stream's first $n bytes"
}

a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command() {
    local seed; seed=$(seed250)
    load 1 0
    queue 2 3
    st=0; tb w.err -i "$seed" -o "$D0" -A "$CHANGE" --manifest "$DATA/multi.json" || st=$?
    show w.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "the 3-volume backup"
    expect_eq "$(summary_out w.err)" 250000000 "committed bytes"
    expect_grep '#3 [0-9]+ bytes' w.err "three volumes in the summary"
    expect_nogrep '#4 ' w.err "no fourth volume"
    expect_eq "$(grep -c 'loaded slot' /run/lab/case/change.log)" 2 "change command calls"
    sha "$DATA/multi.json" >"$DATA/multi.json.sha"
}

# The restore cases read the 3-volume backup; run alone, they make it first.
needs_multi() {
    [ -s "$DATA/multi.json" ] && return 0
    note "no 3-volume backup yet in this boot: making it"
    a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command
    reset_library
}

a_three_cartridge_restore_with_n_3_is_byte_exact() {
    needs_multi; local seed; seed=$(seed250)
    load 1 0; queue 2 3
    read_back "$D0" -n 3 -A "$CHANGE"
    cat /run/lab/case/change.log
    expect_status 0 "$rs" "restore -n 3"
    expect_eq "$(summary_in r.err)" 250000000 "bytes restored"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore"
}

a_three_cartridge_restore_with_the_manifest_is_byte_exact() {
    needs_multi; local seed; seed=$(seed250)
    load 1 0; queue 2 3
    read_back "$D0" --manifest "$DATA/multi.json" -A "$CHANGE"
    cat /run/lab/case/change.log
    expect_status 0 "$rs" "restore --manifest"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore"
    expect_eq "$(sha "$DATA/multi.json")" "$(cat "$DATA/multi.json.sha")" "the manifest is unchanged"
}

a_restore_without_n_or_manifest_reads_all_three_cartridges_by_their_trailers() {
    needs_multi; local seed; seed=$(seed250)
    load 1 0; queue 2 3
    read_back "$D0" -A "$CHANGE"
    cat /run/lab/case/change.log
    expect_status 0 "$rs" "a restore with neither -n nor a manifest"
    expect_eq "$(summary_in r.err)" 250000000 "every byte restored"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "the restore is byte-exact"
    expect_eq "$(grep -c '^change: volume=' /run/lab/case/change.log)" 2 "volumes 2 and 3 asked for, and no 4th"
}

a_restore_with_n_smaller_than_the_backup_fails_instead_of_ending_short() {
    needs_multi
    load 1 0; queue 2 3
    read_back "$D0" -n 2 -A "$CHANGE"
    expect_status 1 "$rs" "-n 2 of a 3-volume backup"
    expect_grep 'continues on volume 3, but -n/--volumes 2 stops here' r.err "the restore says why"
}

a_cartridge_out_of_order_fails_the_restore() {
    needs_multi
    load 1 0; queue 3 2
    read_back "$D0" -A "$CHANGE"
    expect_status 1 "$rs" "volumes 1, 3, 2"
    expect_grep 'is volume 3 of this backup' r.err "the restore names the volume it found"
}

a_restore_with_the_manifest_to_a_file_leaves_the_manifest_unchanged() {
    needs_multi
    load 1 0; queue 2 3
    cp "$DATA/multi.json" m.json
    before=$(sha m.json)
    st=0; tb r.err -i "$D0" --manifest m.json -A "$CHANGE" -o "$DATA/restored" || st=$?
    show r.err; cat /run/lab/case/change.log
    after=$(sha m.json)
    got=$(sha "$DATA/restored" 2>/dev/null || echo none); rm -f "$DATA/restored"
    expect_eq "$after" "$before" "m.json is unchanged by the restore"
    expect_status 0 "$st" "restore --manifest m.json -o FILE"
    expect_eq "$got" "$(cat "$DATA/seed250.sha")" "sha256 of the restored file"
}

a_backup_with_verify_reads_its_volume_back_and_passes() {
    random_file in 20000000
    load 4 0
    st=0; tb w.err -i in -o "$D0" --verify --manifest m.json || st=$?
    show w.err
    expect_status 0 "$st" "backup with --verify"
    expect_grep 'volume 1 \(.*\): verified' w.err "volume 1 verified"
    mt -f "$D0" rewind
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

tapebuf_verify_checks_a_backup_against_its_manifest() {
    random_file in 20000000
    load 4 0
    st=0; tb w.err -i in -o "$D0" --manifest m.json --rewind || st=$?
    show w.err; expect_status 0 "$st" "backup with --manifest"
    st=0; tb v.err verify --manifest m.json || st=$?
    show v.err
    expect_status 0 "$st" "tapebuf verify"
    expect_grep 'volume 1 .*: ok' v.err "volume 1 ok"
}

tapebuf_verify_of_the_three_cartridge_backup_changes_cartridges_and_passes() {
    needs_multi
    load 1 0; queue 2 3
    st=0; tb v.err verify --manifest "$DATA/multi.json" -A "$CHANGE" || st=$?
    show v.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "tapebuf verify of 3 cartridges"
    expect_grep 'volume 3 .*: ok' v.err "volume 3 ok"
}

tapebuf_verify_finds_a_second_backup_appended_on_the_same_cartridge() {
    random_file in1 6000000
    random_file in2 7000000
    load 6 0
    st=0; tb w1.err -i in1 -o "$D0" --manifest m1.json || st=$?
    show w1.err; expect_status 0 "$st" "first backup"
    st=0; tb w2.err -i in2 -o "$D0" --manifest m2.json || st=$?
    show w2.err; expect_status 0 "$st" "second backup, appended on the no-rewind node"
    mt -f "$D0" rewind
    read_back "$D0"; expect_eq "$rsha" "$(sha in1)" "the first restore reads the first backup"
    read_back "$D0"; expect_eq "$rsha" "$(sha in2)" "the next restore reads the second backup"
    # Each backup is two tape files: its data and its trailer.
    mt -f "$D0" rewind; mt -f "$D0" fsf 2
    st=0; tb v2.err verify --manifest m2.json || st=$?
    show v2.err; expect_status 0 "$st" "tapebuf verify of the second backup, from its start"
    mt -f "$D0" rewind
    st=0; tb v1.err verify --manifest m1.json || st=$?
    show v1.err; expect_status 0 "$st" "tapebuf verify of the first backup, from BOT"
}

a_second_backup_appended_on_the_no_rewind_node_verifies_with_mtbsf() {
    random_file in1 6000000
    random_file in2 7000000
    load 6 0
    st=0; tb w1.err -i in1 -o "$D0" --manifest m1.json || st=$?
    show w1.err; expect_status 0 "$st" "first backup"
    mt -f "$D0" status | tee pos1
    st=0; tb w2.err -i in2 -o "$D0" --verify --manifest m2.json || st=$?
    show w2.err; expect_status 0 "$st" "second backup, appended, with --verify"
    expect_grep 'volume 1 \(.*\): verified' w2.err "the appended backup verified"
    mt -f "$D0" status | tee pos2
    # tapebuf verify of the second backup, positioned at its start: each
    # backup is two tape files, its data and its trailer.
    mt -f "$D0" rewind; mt -f "$D0" fsf 2
    st=0; tb v2.err verify --manifest m2.json || st=$?
    show v2.err; expect_status 0 "$st" "tapebuf verify of the second backup"
    mt -f "$D0" rewind
    st=0; tb v1.err verify --manifest m1.json || st=$?
    show v1.err; expect_status 0 "$st" "tapebuf verify of the first backup"
    mt -f "$D0" rewind
    read_back "$D0"; expect_eq "$rsha" "$(sha in1)" "the first restore reads the first backup"
    read_back "$D0"; expect_eq "$rsha" "$(sha in2)" "the next restore reads the second backup"
    # dd, reading the tape directly: data, trailer, data, trailer.
    mt -f "$D0" rewind
    expect_eq "$(dd if="$D0" bs=256k 2>/dev/null | sha256sum | cut -d' ' -f1)" "$(sha in1)" "tape file 1 is the first backup's data"
    dd if="$D0" bs=64k 2>/dev/null >t1; expect_grep '^volume 1$' t1 "tape file 2 is its trailer"
    expect_eq "$(dd if="$D0" bs=256k 2>/dev/null | sha256sum | cut -d' ' -f1)" "$(sha in2)" "tape file 3 is the second backup's data"
    dd if="$D0" bs=64k 2>/dev/null >t2; expect_grep '^ends last$' t2 "tape file 4 is its trailer"
}

probe_sweeps_a_real_drive_and_marks_1m_unsupported() {
    load 4 0
    st=0; "$TB" probe "$D0" --sizes 128k..1M --size 4M --runs 1 --yes >p.out 2>p.err || st=$?
    show p.out; show p.err
    expect_status 0 "$st" "tapebuf probe"
    expect_grep '256k' p.out "the table has 256k"
    expect_grep '1M.*not supported' p.out "1M is marked not supported by this drive/controller"
    expect_grep 'backups: -s' p.out "a recommendation for backups"
}

gnu_tar_writes_and_reads_a_real_drive_through_tapebuf_rmt() {
    mkdir -p src/a src/b
    random_file src/a/one 3000000; random_file src/b/two 1500000; echo hello >src/c
    load 4 0
    st=0; tar -cf "localhost:$D0" --rsh-command="$RSH" --rmt-command="$TB rmt" -C src . 2>t.err || st=$?
    show t.err; expect_status 0 "$st" "tar -c through tapebuf rmt"
    mt -f "$D0" rewind
    mkdir out
    st=0; tar -xf "localhost:$D0" --rsh-command="$RSH" --rmt-command="$TB rmt" -C out 2>x.err || st=$?
    show x.err; expect_status 0 "$st" "tar -x through tapebuf rmt"
    diff -r src out && echo "ok: the tree is byte-exact"
}

tapebuf_writes_and_reads_a_real_drive_through_tapebuf_rmt_gnu_rmt_and_dump_rmt() {
    random_file in 8000000
    load 4 0
    # By their own names: /usr/sbin/rmt is rmt-dump once dump is installed.
    for server in "$TB rmt" /usr/sbin/rmt-tar /usr/sbin/rmt-dump; do
        note "server: $server"
        mt -f "$D0" rewind
        st=0; tb w.err -i in -o "localhost:$D0" --rsh-command "$RSH" --rmt-command "$server" || st=$?
        show w.err; expect_status 0 "$st" "write through $server"
        expect_eq "$(summary_out w.err)" 8000000 "committed bytes"
        mt -f "$D0" rewind
        read_back "localhost:$D0" --rsh-command "$RSH" --rmt-command "$server"
        expect_status 0 "$rs" "read through $server"
        expect_eq "$rsha" "$(sha in)" "sha256 through $server"
        mt -f "$D0" rewind
        read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 read locally"
    done
}

writing_to_the_rewinding_node_warns() {
    random_file in 1000000
    load 4 0
    st=0; tb w.err -i in -o "${D0/nst/st}" -q || st=$?
    show w.err
    expect_status 0 "$st" "write to ${D0/nst/st}"
    expect_grep 'rewind' w.err "a warning about the rewinding node, even with -q"
    expect_grep "${D0/nst/nst}" w.err "it names the no-rewind node to use"
}

a_drive_slow_to_load_is_waited_for() {
    random_file in 2000000
    vtlcmd "$LAB_DRIVE0_ID" delay load 15
    t0=$(date +%s)
    mtx -f "$CH" load 4 0
    echo "mtx load returned after $(( $(date +%s) - t0 )) s"
    mt -f "$D0" status 2>&1 | tee st.now || true
    st=0; tb w.err -i in -o "$D0" --rewind || st=$?
    echo "tapebuf ended $(( $(date +%s) - t0 )) s after the load began"
    show w.err; expect_status 0 "$st" "write right after a slow load"
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

a_write_protected_cartridge_is_refused_and_another_asked_for() {
    random_file in 2000000
    load 7 0
    mt -f "$D0" status | tee st.wp || true
    st=0; tb w.err -i in -o "$D0" || st=$?
    show w.err
    expect_status 1 "$st" "a backup onto a write-protected cartridge"
    expect_grep -i 'write-protect|read-only' w.err "the message says the cartridge cannot be written"
    load 7 0; queue 5
    st=0; tb w2.err -i in -o "$D0" -A "$CHANGE" --rewind || st=$?
    show w2.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "with a change command"
    expect_grep "refused='.*write-protected" /run/lab/case/change.log "TAPEBUF_REFUSED says why"
    expect_eq "$(slot_in_drive 0)" 5 "the cartridge from slot 5 is in the drive"
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

a_write_protected_cartridge_offered_as_volume_2_is_refused_and_another_loaded() {
    local seed; seed=$(seed250)
    load 5 0; queue 7 6
    st=0; head -c 110000000 "$seed" | tb w.err -o "$D0" -A "$CHANGE" || st=$?
    show w.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "a 2-volume backup offered the write-protected cartridge as volume 2"
    expect_grep -i 'write-protected' w.err "a line says why the cartridge was refused"
    expect_grep "volume=2 .*refused='.*write-protected" /run/lab/case/change.log "TAPEBUF_REFUSED says why"
    expect_eq "$(slot_in_drive 0)" 6 "the cartridge from slot 6 is volume 2"
    load 5 0; queue 6
    read_back "$D0" -n 2 -A "$CHANGE"
    expect_status 0 "$rs" "restore -n 2"
    expect_eq "$rsha" "$(prefix_sha "$seed" 110000000)" "sha256 of the restore"
}

a_worm_cartridge_refuses_an_overwrite_with_a_clear_message() {
    random_file in 2000000
    # mhvtl keeps a drive's write-protect state from the previous cartridge
    # when a WORM one is loaded: load a writable data cartridge first.
    load 5 0
    load 8 0
    st=0; tb w.err -i in -o "$D0" --rewind || st=$?
    show w.err; expect_status 0 "$st" "the first write to a blank WORM cartridge"
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "the first backup reads back"
    mt -f "$D0" rewind
    st=0; tb w2.err -i in -o "$D0" || st=$?
    show w2.err
    expect_status 1 "$st" "overwriting the WORM cartridge at BOT"
    expect_grep 'the drive refused the volume.s first record; a WORM cartridge' w2.err "the message says why"
    expect_eq "$(summary_out w2.err)" 0 "nothing counted as committed"
    # tapebuf wrote no filemark or trailer after the refused record. What
    # the cartridge holds now is mhvtl's doing (FINDINGS.md: it reads as
    # blank from BOT after a refused overwrite), so it is shown, not judged.
    mt -f "$D0" rewind; mt -f "$D0" status || true
}

a_cleaning_cartridge_is_refused_with_a_clear_message() {
    random_file in 1000000
    load 9 0 nowait; sleep 3
    mt -f "$D0" status 2>&1 | tee st.cln || true
    st=0; timeout -k 5 30 "$TB" -i in -o "$D0" 2>w.err || st=$?
    show w.err
    expect_status 1 "$st" "a backup onto a cleaning cartridge"
    expect_grep -i 'clean' w.err "the message says it is a cleaning cartridge"
    load 9 0 nowait; sleep 3; queue 5
    st=0; timeout -k 5 60 "$TB" -i in -o "$D0" -A "$CHANGE" --rewind 2>w2.err || st=$?
    show w2.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "with a change command, another cartridge is asked for"
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

an_empty_drive_fails_at_once_naming_the_device() {
    random_file in 1000000
    t0=$(date +%s)
    st=0; timeout -k 5 30 "$TB" -i in -o "$D0" 2>w.err || st=$?
    secs=$(( $(date +%s) - t0 ))
    show w.err; echo "ended after $secs s with status $st"
    [ "$st" != 124 ] || fail "still waiting after 30 s"
    expect_nonzero "$st" "a backup to an empty drive"
    [ "$secs" -le 10 ] || fail "took $secs s, expected a few"
    expect_grep "$D0" w.err "the message names the device"
}

an_empty_drive_gets_its_cartridge_from_the_change_command() {
    random_file in 1000000
    queue 5
    st=0; timeout -k 5 90 "$TB" -i in -o "$D0" -A "$CHANGE" --change-timeout 60 --rewind 2>w.err || st=$?
    show w.err; cat /run/lab/case/change.log
    expect_status 0 "$st" "a backup that starts on an empty drive with a change command"
    expect_grep 'no cartridge in it; running the change command for volume 1' w.err "it says what it does"
    expect_grep '^change: volume=1 mode=write' /run/lab/case/change.log "the command was asked for volume 1"
    read_back "$D0"; expect_eq "$rsha" "$(sha in)" "sha256 of the read-back"
}

an_empty_drive_with_a_change_command_ends_within_the_change_timeout() {
    random_file in 1000000
    t0=$(date +%s)
    st=0; timeout -k 5 60 "$TB" -i in -o "$D0" -A true --change-timeout 20 2>w.err || st=$?
    secs=$(( $(date +%s) - t0 ))
    show w.err; echo "ended after $secs s with status $st"
    [ "$st" != 124 ] || fail "still running after 60 s with --change-timeout 20"
    expect_nonzero "$st" "a backup to an empty drive that never gets a cartridge"
    [ "$secs" -le 40 ] || fail "took $secs s with --change-timeout 20"
    expect_grep "$D0" w.err "the message names the device"
}

sigint_mid_volume_reports_exactly_what_is_on_the_tape() {
    local seed; seed=$(seed250)
    load 4 0
    # A small ring, so the writer runs while the input trickles in.
    "$TB" -i "$seed" -r 4M -m 8M -o "$D0" 2>w.err &
    pid=$!
    sleep 5
    kill -INT "$pid"
    st=0; wait "$pid" || st=$?
    show w.err
    expect_status 130 "$st" "tapebuf stopped by SIGINT"
    n=$(summary_out w.err)
    [ -n "$n" ] && [ "$n" -gt 0 ] || fail "committed count '$n'"
    mt -f "$D0" rewind
    expect_eq "$(bytes_on "$D0")" "$n" "dd finds exactly the committed bytes as the first tape file"
    mt -f "$D0" rewind
    # The trailer says the backup was cut short: the restore passes on every
    # byte and fails, so a short stream never looks complete.
    read_back "$D0"
    expect_status 1 "$rs" "reading back a backup cut short"
    expect_grep 'cut short' r.err "the restore says the backup was cut short"
    expect_eq "$(summary_in r.err)" "$n" "bytes on the tape = bytes committed"
    expect_eq "$rsha" "$(prefix_sha "$seed" "$n")" "the tape holds the stream's first $n bytes"
}

# --- issue 33: tapebuf drives the library itself ------------------------------
# The cases below run tapebuf with --changer and no change command. What they
# read from tapebuf, in one place (the wiring must match, or this block
# changes with it):
#  - the manifest names each volume's cartridge: .volumes[].barcode and its
#    home slot, 1-based as mtx numbers it: .volumes[].slot;
#  - `tapebuf library DEV --json`: .drives[] with .element (0-based, as mtx's
#    "Data Transfer Element N"), .node (/dev/nstN) and .serial; .slots[] with
#    .slot (1-based), .barcode (null when empty) and .medium ("cleaning" for a cleaning cartridge); .import_export[];
#  - each robot move is said on stderr with the word "move"/"moving" and the
#    cartridge's barcode on one line;
#  - the stderr of a run that waits for the operator says "import/export";
#    one that stops says which volumes are safe ("volume N ... complete" or
#    "... safe") and names their barcodes.
# What the robot did comes from guest/robot.sh's log, not from tapebuf.

# Home slots by barcode (guest/setup.sh's layout; E01020L6 lives outside the
# library until an operator puts it in the import/export slot).
declare -A HOME=(
    [E01001L6]=1 [E01002L6]=2 [E01003L6]=3 [E01004L6]=4 [E01005L6]=5 [E01006L6]=6
    [E01007L6]=7 [W01008LW]=8 [CLN009L1]=9 [E01010L6]=10 [E01011L6]=11
    [E01012L6]=12 [E01013L6]=13 [E01014L3]=14
)
MAP_SLOT=19                 # mtx numbers the import/export element after the 18 slots
ROBOT_LOG=/run/lab/robot.log

# inventory: one line per full element, from mtx: "slot N BARCODE",
# "drive N BARCODE" or "portal N BARCODE".
inventory() {
    mtx -f "$CH" status | sed -n -E \
        -e 's/^Data Transfer Element ([0-9]+):Full.*VolumeTag ?= ?([^ ]+).*/drive \1 \2/p' \
        -e 's/^ *Storage Element ([0-9]+) IMPORT\/EXPORT:Full.*VolumeTag ?= ?([^ ]+).*/portal \1 \2/p' \
        -e 's/^ *Storage Element ([0-9]+):Full.*VolumeTag ?= ?([^ ]+).*/slot \1 \2/p'
}
# where_is BARCODE: "slot N", "drive N", "portal N", or nothing.
where_is() { inventory | awk -v b="$1" '$3 == b { print $1, $2 }'; }
expect_where() { # BARCODE WANT [OR-WANT]
    local got; got=$(where_is "$1")
    [ "$got" = "$2" ] || { [ -n "${3:-}" ] && [ "$got" = "$3" ]; } ||
        fail "$1 is in '$got', expected '$2'${3:+ or '$3'}"
    echo "ok: $1 is in $got"
}
free_slot() { # the first empty storage slot from 15 on
    local s; for s in 15 16 17 18; do
        inventory | grep -q "^slot $s " || { echo "$s"; return; }
    done
}
# Robot moves in this case (guest/robot.sh's log): "slot 4 drive 0 BARCODE",
# "drive 0 slot 4 BARCODE", "portal 1 drive 1 BARCODE"...
robot_moves() { cut -d' ' -f2- "$ROBOT_LOG" 2>/dev/null || true; }
manifest_barcodes() { jq -r '[.volumes[].barcode] | join(",")' "$1"; }
manifest_slots() { jq -r '[.volumes[].slot] | join(",")' "$1"; }
# wait_for_line FILE REGEX SECONDS PID: until FILE has a line matching REGEX;
# fails when PID ends first or the deadline passes.
wait_for_line() {
    local i
    for i in $(seq 1 $(( $3 * 5 ))); do
        grep -Eqi -- "$2" "$1" 2>/dev/null && { echo "ok: after ${i}/5 s, $1 says /$2/"; return 0; }
        kill -0 "$4" 2>/dev/null || { show "$1"; fail "the process ended before /$2/ appeared"; }
        sleep 0.2
    done
    show "$1"; fail "no /$2/ in $1 after $3 s"
}
# seed150: the sha256 of seed250's first 150000000 bytes (two 100 MB
# cartridges), which the cases feed from seed250 with `head -c`: no second
# copy in the guest's memory.
S150=150000000
seed150() {
    local seed; seed=$(seed250)
    [ -s "$DATA/seed150.sha" ] || prefix_sha "$seed" "$S150" >"$DATA/seed150.sha"
    echo "$seed"
}
# the_library_is_home: every cartridge of the layout is in its home slot.
the_library_is_home() {
    local b
    for b in "${!HOME[@]}"; do expect_where "$b" "slot ${HOME[$b]}"; done
}

# The lab's own check (no tapebuf): reset_library undoes what the issue 33
# cases do to the library: cartridges swapped between slots, left in
# drives, the operator's cartridge in the import/export slot or a slot.
reset_library_puts_every_cartridge_home() {
    mtx -f "$CH" transfer 1 15; mtx -f "$CH" transfer 2 1; mtx -f "$CH" transfer 15 2   # 1 and 2 swapped
    mtx -f "$CH" transfer 3 16; mtx -f "$CH" transfer 4 3                              # 4 in 3's home
    load 10 0; mtx -f "$CH" load 9 1                                                   # a drive each
    vtlcmd 10 open map; vtlcmd 10 load map E01020L6; vtlcmd 10 close map
    mtx -f "$CH" transfer "$MAP_SLOT" 17
    inventory | tee before
    expect_grep '^slot 17 E01020L6$' before "the operator's cartridge is in slot 17"
    expect_grep '^drive 1 CLN009L1$' before "the cleaning cartridge is in drive 1"
    reset_library
    inventory | tee after
    the_library_is_home
    expect_nogrep '^(drive|portal) ' after "drives and the import/export slot are empty"
    expect_nogrep 'E01020L6' after "the operator's cartridge is out of the library"
    expect_eq "$(grep -c '^slot ' after)" 14 "full slots"
}

tapebuf_library_names_each_drive_its_node_and_serial() {
    # Setup tied element N to its node by serial (sg_inq against READ ELEMENT
    # STATUS with DVCID) on this boot; the numbering changes between boots.
    st=0; "$TB" library "$CH" --json >lib.json 2>lib.err || st=$?
    show lib.err; show lib.json
    expect_status 0 "$st" "tapebuf library --json"
    expect_eq "$(jq '.drives | length' lib.json)" 2 "drives"
    expect_eq "$(jq -r '.drives[] | select(.element == 0) | .node' lib.json)" "$D0" "element 0's node"
    expect_eq "$(jq -r '.drives[] | select(.element == 1) | .node' lib.json)" "$D1" "element 1's node"
    expect_eq "$(jq -r '.drives[] | select(.element == 0) | .serial' lib.json)" "$LAB_DRIVE0_SERIAL" "element 0's serial"
    expect_eq "$(jq -r '.drives[] | select(.element == 1) | .serial' lib.json)" "$LAB_DRIVE1_SERIAL" "element 1's serial"
    expect_eq "$(jq '.slots | length' lib.json)" 18 "storage slots"
    expect_eq "$(jq '.import_export | length' lib.json)" 1 "import/export slots"
    local b
    for b in "${!HOME[@]}"; do
        expect_eq "$(jq -r --argjson s "${HOME[$b]}" '.slots[] | select(.slot == $s) | .barcode' lib.json)" "$b" "slot ${HOME[$b]}'s barcode"
    done
    expect_eq "$(jq -r '[.slots[] | select(.barcode == null) | .slot] | join(",")' lib.json)" "15,16,17,18" "the empty slots"
    expect_eq "$(jq -r '[.slots[] | select(.medium == "cleaning") | .barcode] | join(",")' lib.json)" CLN009L1 "the cleaning cartridges"
    st=0; "$TB" library "$CH" >lib.txt 2>lib.err || st=$?
    show lib.txt
    expect_status 0 "$st" "tapebuf library (the table)"
    expect_grep "$D0 .*$LAB_DRIVE0_SERIAL|$LAB_DRIVE0_SERIAL .*$D0" lib.txt "the table puts $D0 and its serial on one line"
    expect_grep "$D1 .*$LAB_DRIVE1_SERIAL|$LAB_DRIVE1_SERIAL .*$D1" lib.txt "the table puts $D1 and its serial on one line"
    expect_grep 'CLN009L1' lib.txt "the table lists the cleaning cartridge"
    expect_eq "$(robot_moves | wc -l)" 0 "robot moves for an inventory"
}

a_250mb_backup_spans_three_cartridges_through_the_changer_without_a_change_command() {
    local seed; seed=$(seed250)
    # Slots 1-3 get overwritten: the mtx backup of this boot is gone.
    rm -f "$DATA/multi.json" "$DATA/changer.json"
    st=0; tb w.err -i "$seed" -o "$D0" --changer "$CH" --slots 1-4 --manifest "$DATA/changer.json" \
        --stats stats.jsonl --summary-json summary.json || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "the 3-cartridge backup through the changer"
    # Every move is in the stats file: 3 loads and 2 returns, none failed.
    expect_eq "$(jq -r 'select(.kind == "move") | "\(.from)>\(.to) \(.barcode) \(.error)"' stats.jsonl | paste -sd,)" \
        "slot 1>drive 0 E01001L6 null,drive 0>slot 1 E01001L6 null,slot 2>drive 0 E01002L6 null,drive 0>slot 2 E01002L6 null,slot 3>drive 0 E01003L6 null" \
        "the stats file's move records"
    expect_eq "$(jq -r '.volume_bytes[0].barcodes | join(",")' summary.json)" E01001L6,E01002L6,E01003L6 "barcodes in --summary-json"
    expect_eq "$(jq -r '.volume_bytes[0].slots | map(tostring) | join(",")' summary.json)" 1,2,3 "slots in --summary-json"
    expect_grep 'volumes: #1 E01001L6 from slot 1 [0-9]+ bytes, #2 E01002L6 from slot 2 [0-9]+ bytes, #3 E01003L6 from slot 3 [0-9]+ bytes' w.err "the summary names each volume's cartridge"
    expect_eq "$(summary_out w.err)" 250000000 "committed bytes"
    expect_eq "$(jq '.volumes | length' "$DATA/changer.json")" 3 "volumes in the manifest"
    expect_eq "$(manifest_barcodes "$DATA/changer.json")" E01001L6,E01002L6,E01003L6 "barcodes in the manifest"
    expect_eq "$(manifest_slots "$DATA/changer.json")" 1,2,3 "home slots in the manifest"
    expect_eq "$(jq -r '[.volumes[].complete] | all' "$DATA/changer.json")" true "every volume complete"
    expect_eq "$(jq -r '.clean' "$DATA/changer.json")" true "a clean run"
    expect_eq "$(jq -r '[.volumes[].bytes] | add' "$DATA/changer.json")" 250000000 "the volumes' bytes add up"
    local b; for b in E01001L6 E01002L6 E01003L6; do expect_grep "$b" w.err "stderr names $b"; done
    expect_where E01001L6 "slot 1"; expect_where E01002L6 "slot 2"
    expect_where E01003L6 "slot 3" "drive 0"
    expect_where E01004L6 "slot 4"
    expect_nogrep ' E01004L6$' "$ROBOT_LOG" "slot 4 was never moved"
    sha "$DATA/changer.json" >"$DATA/changer.json.sha"
}

# The changer restore cases read that backup; run alone, they make it first.
needs_changer_backup() {
    [ -s "$DATA/changer.json" ] && return 0
    note "no changer backup yet in this boot: making it"
    a_250mb_backup_spans_three_cartridges_through_the_changer_without_a_change_command
    reset_library; : >"$ROBOT_LOG"
}

the_backup_restores_byte_exact_by_barcode_after_its_cartridges_were_shuffled() {
    needs_changer_backup
    mtx -f "$CH" transfer 1 15; mtx -f "$CH" transfer 3 1
    mtx -f "$CH" transfer 2 16; mtx -f "$CH" transfer 15 2
    : >"$ROBOT_LOG"
    expect_where E01001L6 "slot 2"; expect_where E01002L6 "slot 16"; expect_where E01003L6 "slot 1"
    read_back "$D0" --changer "$CH" --manifest "$DATA/changer.json"
    robot_moves
    expect_status 0 "$rs" "the restore by barcode"
    expect_eq "$(summary_in r.err)" 250000000 "bytes restored"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore"
    expect_eq "$(sha "$DATA/changer.json")" "$(cat "$DATA/changer.json.sha")" "the manifest is unchanged"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01001L6,E01002L6,E01003L6 "cartridges loaded, in volume order"
    expect_where E01001L6 "slot 2"; expect_where E01002L6 "slot 16"
    expect_where E01003L6 "slot 1" "drive 0"
}

tapebuf_verify_with_the_changer_finds_each_cartridge_by_barcode() {
    needs_changer_backup
    mtx -f "$CH" transfer 1 17; mtx -f "$CH" transfer 2 18
    : >"$ROBOT_LOG"
    st=0; tb v.err verify --manifest "$DATA/changer.json" --changer "$CH" || st=$?
    show v.err; robot_moves
    expect_status 0 "$st" "tapebuf verify --changer"
    local v; for v in 1 2 3; do expect_grep "volume $v .*: ok" v.err "volume $v ok"; done
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01001L6,E01002L6,E01003L6 "cartridges loaded, in volume order"
    expect_where E01001L6 "slot 17"; expect_where E01002L6 "slot 18"
    expect_where E01003L6 "slot 3" "drive 0"
}

two_copies_on_two_drives_from_two_pools_are_identical() {
    local seed; seed=$(seed150)
    st=0; head -c "$S150" "$seed" | tb w.err -o "$D0" -o "$D1" --changer "$CH" --slots 4-6 --slots 10-12 || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "two copies through the changer"
    expect_eq "$(summary_out w.err)" "$S150" "committed bytes"
    # Each copy took the first two cartridges of its own pool, into its own drive.
    expect_eq "$(robot_moves | awk '$3 == "drive" && $4 == 0 {print $5}' | paste -sd,)" E01004L6,E01005L6 "drive element 0's cartridges"
    expect_eq "$(robot_moves | awk '$3 == "drive" && $4 == 1 {print $5}' | paste -sd,)" E01010L6,E01011L6 "drive element 1's cartridges"
    expect_where E01006L6 "slot 6"; expect_where E01012L6 "slot 12"
    reset_library
    read_back "$D0" --changer "$CH" --slots 4-6
    expect_status 0 "$rs" "restore of the copy on slots 4-6"
    expect_eq "$rsha" "$(cat "$DATA/seed150.sha")" "sha256 of the first copy"
    reset_library
    read_back "$D1" --changer "$CH" --slots 10-12
    expect_status 0 "$rs" "restore of the copy on slots 10-12"
    expect_eq "$rsha" "$(cat "$DATA/seed150.sha")" "sha256 of the second copy"
}

cleaning_worm_write_protected_and_wrong_generation_cartridges_in_the_pool_are_skipped() {
    random_file in 20000000
    st=0; tb w.err -i in -o "$D0" --changer "$CH" --slots 7,8,9,14,5 --manifest m.json || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "a backup whose pool starts with four unusable cartridges"
    expect_eq "$(manifest_barcodes m.json)" E01005L6 "the backup is on the data cartridge"
    expect_eq "$(manifest_slots m.json)" 5 "from slot 5"
    local b; for b in E01007L6 W01008LW CLN009L1 E01014L3; do expect_grep "$b" w.err "stderr says why $b was skipped"; done
    expect_grep -i 'E01007L6.*write.protect|write.protect.*E01007L6' w.err "E01007L6 is write-protected"
    expect_grep -i 'W01008LW.*WORM|WORM.*W01008LW' w.err "W01008LW is WORM"
    expect_grep -i 'CLN009L1.*clean|clean.*CLN009L1' w.err "CLN009L1 is a cleaning cartridge"
    # Known without a load: never moved.
    expect_nogrep ' (W01008LW|CLN009L1)$' "$ROBOT_LOG" "the WORM and cleaning cartridges never left their slots"
    for b in E01007L6 W01008LW CLN009L1 E01014L3; do expect_where "$b" "slot ${HOME[$b]}"; done
    reset_library
    read_back "$D0" --changer "$CH" --manifest m.json
    expect_status 0 "$rs" "restore"
    expect_eq "$rsha" "$(sha in)" "sha256 of the restore"
}

a_pool_that_runs_out_takes_a_cartridge_from_the_import_export_slot() {
    local seed; seed=$(seed150)
    "$TB" -i <(head -c "$S150" "$seed") -o "$D0" --changer "$CH" --slots 13 --manifest m.json --change-timeout 120 2>w.err &
    pid=$!
    wait_for_line w.err 'import.export' 90 "$pid"
    # The operator: open the door, put the cartridge in, close the door.
    vtlcmd 10 open map; vtlcmd 10 load map E01020L6; vtlcmd 10 close map
    st=0; wait "$pid" || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "a backup that ran out of its pool and got a cartridge from the import/export slot"
    expect_eq "$(summary_out w.err)" "$S150" "committed bytes"
    expect_eq "$(manifest_barcodes m.json)" E01013L6,E01020L6 "barcodes in the manifest"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $1 ":" $5}' | paste -sd,)" "slot:E01013L6,portal:E01020L6" "what was loaded, from where"
    expect_where E01013L6 "slot 13"
    [ -n "$(where_is E01020L6)" ] || fail "E01020L6 is nowhere in the library"
    echo "ok: E01020L6 is in $(where_is E01020L6)"
    empty_drives    # (reset_library would take E01020L6 out of the library)
    read_back "$D0" --changer "$CH" --manifest m.json
    expect_status 0 "$rs" "restore"
    expect_eq "$rsha" "$(cat "$DATA/seed150.sha")" "sha256 of the restore"
}

a_pool_that_runs_out_ends_at_the_change_timeout() {
    local seed; seed=$(seed150)
    t0=$(date +%s)
    st=0; head -c "$S150" "$seed" | timeout -k 5 150 "$TB" -o "$D0" --changer "$CH" --slots 13 --manifest m.json --change-timeout 15 2>w.err || st=$?
    secs=$(( $(date +%s) - t0 ))
    show w.err; robot_moves; echo "ended after $secs s"
    expect_status 1 "$st" "a backup whose pool ran out and nobody came"
    expect_grep -i 'import.export' w.err "it said where to put a cartridge"
    expect_eq "$(jq '.volumes | length' m.json)" 1 "volumes in the manifest"
    expect_eq "$(jq -r '.volumes[0].barcode' m.json)" E01013L6 "volume 1's barcode"
    expect_eq "$(jq -r '.volumes[0].complete' m.json)" true "volume 1 is complete"
    expect_eq "$(jq -r '.clean' m.json)" false "the manifest says the run was not clean"
    expect_eq "$(summary_out w.err)" "$(jq -r '.volumes[0].bytes' m.json)" "committed bytes = volume 1's bytes"
    expect_grep 'safe on tape: volume 1 \(E01013L6, ' w.err "the summary says volume 1 is safe"
    expect_grep 'E01013L6' w.err "and names its cartridge"
    expect_where E01013L6 "slot 13" "drive 0"
}

# A cleaning request raised on drive element 0 while its first volume is
# written (mhvtl: `vtlcmd ID TapeAlert 80000` is TapeAlert flag 20, clean now).
raise_cleaning_request_once_loaded() {
    local i
    for i in $(seq 1 300); do
        grep -q ' drive 0 E01010L6$' "$ROBOT_LOG" 2>/dev/null && break
        sleep 0.2
    done
    sleep 2
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 80000
    echo "cleaning request raised on drive element 0"
}

a_cleaning_request_loads_the_cleaning_cartridge_between_volumes() {
    local seed; seed=$(seed150)
    raise_cleaning_request_once_loaded & rpid=$!
    st=0; head -c "$S150" "$seed" | tb w.err -o "$D0" --changer "$CH" --slots 10-12 --clean --manifest m.json || st=$?
    kill "$rpid" 2>/dev/null || true; wait "$rpid" 2>/dev/null || true
    show w.err; robot_moves
    expect_status 0 "$st" "a backup with --clean and a cleaning request"
    expect_grep 'TapeAlert 20 "clean now" during volume 1' w.err "the summary names the request"
    expect_nogrep 'DRIVE ALERT' w.err "answered by the library, it is no alert"
    expect_eq "$(manifest_barcodes m.json)" E01010L6,E01011L6 "barcodes in the manifest"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01010L6,CLN009L1,E01011L6 "the cleaning cartridge went in between the volumes"
    expect_grep -i 'clean.*CLN009L1|CLN009L1.*clean' w.err "stderr says the drive was cleaned with CLN009L1"
    expect_where CLN009L1 "slot 9"
    reset_library
    read_back "$D0" --changer "$CH" --manifest m.json
    expect_status 0 "$rs" "restore"
    expect_eq "$rsha" "$(cat "$DATA/seed150.sha")" "sha256 of the restore"
}

a_cleaning_request_without_clean_warns_and_exits_3() {
    local seed; seed=$(seed150)
    raise_cleaning_request_once_loaded & rpid=$!
    st=0; head -c "$S150" "$seed" | tb w.err -o "$D0" --changer "$CH" --slots 10-12 --manifest m.json || st=$?
    kill "$rpid" 2>/dev/null || true; wait "$rpid" 2>/dev/null || true
    show w.err; robot_moves
    expect_status 3 "$st" "a complete backup with a cleaning request nobody answered"
    expect_eq "$(summary_out w.err)" "$S150" "committed bytes"
    expect_grep 'DRIVE ALERT -o /dev/nst0: TapeAlert 20 "clean now"' w.err "the summary marks clean now critical"
    expect_eq "$(manifest_barcodes m.json)" E01010L6,E01011L6 "barcodes in the manifest"
    expect_grep -i 'clean' w.err "a warning that the drive asks for cleaning"
    expect_grep 'give --clean to let the library clean it' w.err "the warning names --clean"
    expect_nogrep ' CLN009L1$' "$ROBOT_LOG" "the cleaning cartridge never moved"
}

a_cartridge_whose_contents_do_not_match_the_manifest_is_refused_before_a_byte_goes_downstream() {
    needs_changer_backup
    # The manifest says volume 1 is on E01002L6, which holds volume 2.
    jq '.volumes[0].barcode = "E01002L6" | .volumes[1].barcode = "E01001L6"' "$DATA/changer.json" >m.json
    { "$TB" -i "$D0" --changer "$CH" --manifest m.json 2>r.err | wc -c >count; ps=("${PIPESTATUS[@]}"); } || true
    show r.err; robot_moves
    expect_status 1 "${ps[0]}" "a restore whose volume 1 is on the wrong cartridge"
    expect_eq "$(tr -d ' ' <count)" 0 "bytes downstream"
    expect_grep 'E01002L6' r.err "the message names the cartridge"
    expect_grep 'this is volume 2 of the backup, volume 1 was expected' r.err "the message says what the cartridge holds"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01002L6 "only that cartridge was loaded"
}

sigint_during_a_move_leaves_every_cartridge_in_a_slot_and_says_which_volumes_are_safe() {
    local seed; seed=$(seed150)
    # A slow robot: each MOVE MEDIUM takes 8 s once volume 1 is loaded.
    "$TB" -i <(head -c "$S150" "$seed") -o "$D0" --changer "$CH" --slots 10-12 --manifest m.json 2>w.err &
    pid=$!
    wait_for_line "$ROBOT_LOG" ' drive 0 E01010L6$' 60 "$pid"
    echo 8 >/run/lab/robot-delay
    # The next move is volume 1's cartridge going home: SIGINT once it began.
    n0=$(wc -l <"$ROBOT_LOG")
    for i in $(seq 1 600); do
        [ "$(wc -l <"$ROBOT_LOG")" -gt "$n0" ] && break
        kill -0 "$pid" 2>/dev/null || { show w.err; fail "tapebuf ended before its next move"; }
        sleep 0.2
    done
    # The robot is moving (for 8 s); tapebuf says so.
    wait_for_line w.err '(moving|returning|loading) E01010L6' 6 "$pid"
    tail -1 "$ROBOT_LOG"
    kill -INT "$pid"
    st=0; wait "$pid" || st=$?
    rm -f /run/lab/robot-delay
    show w.err; robot_moves
    expect_status 130 "$st" "tapebuf stopped by SIGINT during a move"
    inventory | tee inv
    expect_nogrep '^drive ' inv "no cartridge left in a drive"
    expect_where E01010L6 "slot 10"; expect_where E01011L6 "slot 11"
    expect_eq "$(jq -r '.volumes[0].barcode' m.json)" E01010L6 "volume 1's barcode"
    expect_eq "$(jq -r '.volumes[0].complete' m.json)" true "volume 1 is complete"
    expect_eq "$(jq '[.volumes[] | select(.complete)] | length' m.json)" 1 "complete volumes"
    expect_grep 'safe on tape: volume 1 \(E01010L6, ' w.err "the summary says volume 1 is safe"
    reset_library
    read_back "$D0" --changer "$CH" --slots 10 -n 1
    expect_status 1 "$rs" "reading back volume 1 alone (-n 1) of a backup that went on"
    expect_eq "$(summary_in r.err)" "$(jq -r '.volumes[0].bytes' m.json)" "bytes on the cartridge = volume 1's bytes"
    expect_eq "$rsha" "$(prefix_sha "$seed" "$(jq -r '.volumes[0].bytes' m.json)")" "the cartridge holds the stream's first bytes"
}

# Without CAP_SYS_RAWIO the kernel refuses SG_IO on /dev/sch0 and on the st
# nodes, so tapebuf drives the robot through ch's ioctls: barcodes and moves,
# but no drive identifiers, so --drive-element is needed and said.
without_cap_sys_rawio_the_ch_ioctls_drive_the_robot_and_drive_element_is_asked_for() {
    local seed; seed=$(seed150)
    chmod 666 "$CH" "$D0" "$D1"; chmod 777 .
    head -c 20000000 "$seed" >in.bin; chmod 644 in.bin
    st=0; as_nobody "$TB" library "$CH" --json >lib.json 2>lib.err || st=$?
    show lib.err
    expect_status 0 "$st" "tapebuf library as nobody"
    expect_eq "$(jq -r '[.slots[] | select(.slot <= 3) | .barcode] | join(",")' lib.json)" E01001L6,E01002L6,E01003L6 "barcodes through CHIOGELEM"
    expect_eq "$(jq -r '[.drives[].node] | map(tostring) | join(",")' lib.json)" null,null "no drive has a node without identifiers"
    st=0; as_nobody "$TB" -i in.bin -o "$D0" --changer "$CH" --slots 10 2>w1.err || st=$?
    show w1.err
    expect_status 1 "$st" "a backup as nobody without --drive-element"
    expect_grep 'name its drive element with --drive-element N' w1.err "the refusal names --drive-element"
    expect_eq "$(robot_moves | wc -l)" 0 "nothing moved"
    st=0; as_nobody "$TB" -i in.bin -o "$D0" --changer "$CH" --slots 10 --drive-element 0 --manifest m.json 2>w.err || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "a backup as nobody with --drive-element 0"
    expect_eq "$(summary_out w.err)" 20000000 "committed bytes"
    expect_eq "$(jq -r '.volumes[0].barcode' m.json)" E01010L6 "volume 1's barcode"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01010L6 "the robot loaded E01010L6"
    reset_library
    read_back "$D0" --changer "$CH" --manifest m.json
    expect_status 0 "$rs" "restore as root"
    expect_eq "$rsha" "$(sha in.bin)" "sha256 of the restore"
}

# --- drive and cartridge health (TapeAlert, MAM, counters) ----------------------
# mhvtl: `vtlcmd ID TapeAlert HEX` sets flags (bit n-1 is flag n: 8 is flag 4
# "media", critical; 2 is flag 2 "write warning"); reading page 0x2E clears them.

# raise_once_loaded BARCODE MASK: once the robot has put BARCODE in drive 0,
# raise the TapeAlert flags MASK on drive element 0.
raise_once_loaded() {
    local i
    for i in $(seq 1 600); do
        grep -q " drive 0 $1\$" "$ROBOT_LOG" 2>/dev/null && break
        sleep 0.2
    done
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert "$2"
    echo "TapeAlert $2 raised on drive element 0 after $1 was loaded"
}

a_critical_tapealert_flag_raised_during_volume_2_is_in_the_summary_json_stats_and_manifest_and_exits_3() {
    local seed; seed=$(seed150)
    raise_once_loaded E01011L6 8 & rpid=$!
    # -q, as a cron job runs it: exit status 3 still comes with its words.
    st=0; head -c "$S150" "$seed" | tb w.err -q -o "$D0" --changer "$CH" --slots 10-12 --manifest m.json \
        --stats stats.jsonl --summary-json summary.json || st=$?
    kill "$rpid" 2>/dev/null || true; wait "$rpid" 2>/dev/null || true
    show w.err
    expect_status 3 "$st" "a complete backup during which the drive raised TapeAlert 4 (media)"
    expect_eq "$(summary_out w.err)" "$S150" "committed bytes"
    expect_grep 'TapeAlert 4 "media" during volume 2' w.err "the summary names the flag and the volume"
    expect_grep 'DRIVE ALERT -o /dev/nst0: TapeAlert 4 "media"' w.err "the summary marks it critical"
    expect_grep 'E01010L6 \(LTO-6, [0-9]+(st|nd|rd|th) load\)' w.err "the summary names the cartridge, its kind and its load count"
    expect_eq "$(jq -r '.drive_health[0].volumes[1].tape_alerts | map(.flag) | join(",")' summary.json)" 4 "--summary-json: volume 2's flags"
    expect_eq "$(jq -r '.drive_health[0].critical[0].name' summary.json)" media "--summary-json: the critical flag's name"
    expect_eq "$(jq -r '.volumes[1].health.tape_alerts[0].name' m.json)" media "the manifest: volume 2's flag"
    expect_eq "$(jq -r '.volumes[0].health.tape_alerts | length' m.json)" 0 "the manifest: no flag on volume 1"
    expect_eq "$(jq -r 'select(.kind == "health" and .volume == 2) | .tape_alerts[0].flag' stats.jsonl)" 4 "the stats file's health record for volume 2"
    expect_eq "$(jq -r '.volumes[0].health.cartridge.barcode' m.json)" E01010L6 "the manifest: volume 1's barcode from the cartridge's memory"
    expect_grep '^E01010L6_' <(jq -r '.volumes[0].health.cartridge.serial' m.json) "the manifest: volume 1's medium serial number (mhvtl: BARCODE_TIME)"
    expect_grep '^E01011L6_' <(jq -r '.volumes[1].health.cartridge.serial' m.json) "the manifest: volume 2's medium serial number"
    expect_eq "$(jq -r '.volumes[0].health.cartridge.manufacturer' m.json)" linuxVTL "the manifest: the medium's manufacturer"
    expect_grep '^[1-9][0-9]*$' <(jq -r '.volumes[0].health.cartridge.load_count' m.json) "the manifest: the load count"
    expect_grep '^[0-9]+$' <(jq -r '.volumes[0].health.cartridge.lifetime_written_bytes' m.json) "the manifest: lifetime bytes written"
    expect_eq "$(jq -r '.volumes[0].health.records > 0' m.json)" true "the manifest: records counted"
    reset_library
    read_back "$D0" --changer "$CH" --manifest m.json
    expect_status 0 "$rs" "the restore, each cartridge checked by its serial number too"
    expect_eq "$rsha" "$(cat "$DATA/seed150.sha")" "sha256 of the restore"
}

a_warning_tapealert_flag_is_named_and_the_run_exits_0() {
    random_file in.bin 20000000
    load 10 0
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 2
    st=0; tb w.err -i in.bin -o "$D0" --manifest m.json || st=$?
    show w.err
    expect_status 0 "$st" "a backup on a drive that raised TapeAlert 2 (write warning)"
    expect_grep 'TapeAlert 2 "write warning" during volume 1' w.err "the summary names the flag"
    expect_nogrep 'DRIVE ALERT' w.err "a warning is no alert"
    expect_eq "$(jq -r '.volumes[0].health.tape_alerts[0].critical' m.json)" false "the manifest says it is not critical"
}

a_cartridge_holding_the_same_data_under_another_serial_number_is_refused() {
    random_file in.bin 20000000
    st=0; tb w1.err -i in.bin -o "$D0" --changer "$CH" --slots 10 --manifest m1.json || st=$?
    show w1.err; expect_status 0 "$st" "the backup on E01010L6"
    st=0; tb w2.err -i in.bin -o "$D0" --changer "$CH" --slots 11 --manifest m2.json || st=$?
    show w2.err; expect_status 0 "$st" "the same data on E01011L6"
    expect_eq "$(jq -r '.volumes[0].fingerprint.xxh3' m1.json)" "$(jq -r '.volumes[0].fingerprint.xxh3' m2.json)" "both volumes have the same fingerprint"
    # The manifest of the first backup, pointed at the second cartridge.
    jq '.volumes[0].barcode = "E01011L6"' m1.json >m.json
    reset_library
    { "$TB" -i "$D0" --changer "$CH" --manifest m.json 2>r.err | wc -c >count; ps=("${PIPESTATUS[@]}"); } || true
    show r.err
    expect_status 1 "${ps[0]}" "a restore from a cartridge with the same data and another serial number"
    expect_eq "$(cat count)" 0 "bytes that went downstream"
    expect_grep "serial number is E01011L6_[0-9]+, and volume 1 was written on the cartridge with serial number E01010L6_" r.err "the message names both serial numbers"
    reset_library
    read_back "$D0" --changer "$CH" --manifest m1.json
    expect_status 0 "$rs" "the restore from the right cartridge"
    expect_eq "$rsha" "$(sha in.bin)" "sha256 of the restore"
}

tapebuf_drive_reports_the_drive_the_cartridge_and_the_flags_raised() {
    random_file in.bin 20000000
    load 10 0
    st=0; tb w.err -i in.bin -o "$D0" || st=$?
    show w.err; expect_status 0 "$st" "a backup, which the drive's history keeps"
    expect_grep '"writing": true' "$XDG_STATE_HOME/tapebuf/drives/LABDRV01.json" "the history file of drive LABDRV01"
    vtlcmd "$LAB_DRIVE0_ID" TapeAlert 80000
    st=0; "$TB" drive "$D0" >d.txt 2>d.err || st=$?
    show d.txt; show d.err
    expect_status 3 "$st" "tapebuf drive with TapeAlert 20 (clean now) raised"
    expect_grep 'ULT3580-TD6' d.txt "the drive's product"
    expect_grep 'E01010L6' d.txt "the cartridge's barcode"
    expect_grep 'clean now \(critical\)' d.txt "the flag by name, marked critical"
    expect_grep 'Volumes on record: +[1-9]' d.txt "the drive's history"
    st=0; "$TB" drive "$D0" --json >d.json 2>d.err || st=$?
    expect_status 0 "$st" "tapebuf drive --json again: reading cleared the flag"
    expect_eq "$(jq -r '.identity.product' d.json)" ULT3580-TD6 "--json: the product"
    expect_eq "$(jq -r '.cartridge.barcode' d.json)" E01010L6 "--json: the barcode"
    expect_grep '^E01010L6_' <(jq -r '.cartridge.serial' d.json) "--json: the medium serial number"
    expect_eq "$(jq -r '.tape_alerts | length' d.json)" 0 "--json: no flag left"
    expect_eq "$(jq -r '.identity.serial' d.json)" LABDRV01 "--json: the drive's serial number"
    expect_grep '^[1-9][0-9]*$' <(jq -r '.history.volumes_on_record' d.json) "--json: volumes on record"
    expect_grep '^[0-9]+$' <(jq -r '.write_errors.corrected // 0' d.json) "--json: the write error counters"
    # The other drive is empty: answered at once, the sense decoded.
    t0=$(date +%s); st=0; "$TB" drive "$D1" >e.txt 2>e.err || st=$?
    show e.txt; show e.err
    expect_status 0 "$st" "tapebuf drive on an empty drive"
    expect_eq "$(( $(date +%s) - t0 < 10 ))" 1 "it did not wait for a cartridge"
    expect_grep 'Memory: +not read: not ready: medium not present \(sense 02/3A/00\)' e.txt "the drive's sense, decoded"
}

without_cap_sys_rawio_drive_health_is_read_through_the_drives_sg_node_or_said_unread() {
    random_file in.bin 20000000; chmod 644 in.bin; chmod 777 .
    load 10 0
    chmod 666 "$D0"
    local sg; sg=$(ls -d "/sys/class/scsi_tape/$(basename "$D0")/device/scsi_generic/"sg* | head -1)
    sg=/dev/$(basename "$sg"); echo "the drive's sg node: $sg"
    chmod 600 "$sg"
    st=0; as_nobody "$TB" -i in.bin -o "$D0" 2>w1.err || st=$?
    show w1.err
    expect_status 0 "$st" "a backup as nobody, the sg node closed to nobody"
    expect_grep 'drive health: not read: the kernel refused SG_IO' w1.err "the summary says why health was not read"
    mt -f "$D0" rewind
    chmod 666 "$sg"
    st=0; as_nobody "$TB" -i in.bin -o "$D0" --manifest m.json 2>w2.err || st=$?
    show w2.err
    expect_status 0 "$st" "a backup as nobody, the sg node open to nobody"
    expect_nogrep 'not read: the kernel' w2.err "health was read through the sg node"
    expect_eq "$(jq -r '.volumes[0].health.records > 0' m.json)" true "the manifest has the volume's health"
    st=0; as_nobody "$TB" drive "$D0" --json >d.json 2>d.err || st=$?
    show d.err; jq . d.json
    expect_status 0 "$st" "tapebuf drive as nobody through the sg node"
    expect_eq "$(jq -r '.identity.product' d.json)" ULT3580-TD6 "INQUIRY through the sg node"
    expect_eq "$(jq -r '.write_errors != null' d.json)" true "LOG SENSE through the sg node"
    echo "READ ATTRIBUTE as nobody through the sg node: $(jq -r '.cartridge_unread // "read"' d.json)"
    chmod 600 "$sg"
}

# --- the runner -----------------------------------------------------------------

# --- issue 35: a catalog from the stream, and seek-based restores ----------
# A tree of 240 files of 1 MB, archived by GNU tar (--sort=name), then zz/
# with a small file last: about 250 MB, three 100 MB cartridges.
catalog_tree() {
    [ -s "$DATA/tree.sha" ] && return 0
    local seed i; seed=$(seed250)
    rm -rf "$DATA/tree"; mkdir -p "$DATA/tree/a" "$DATA/tree/zz"
    for i in $(seq -w 0 239); do
        dd if="$seed" of="$DATA/tree/a/f$i" bs=1000000 skip="$i" count=1 status=none
    done
    head -c 300000 "$seed" | tail -c 123457 >"$DATA/tree/zz/last.bin"
    printf 'short\n' >"$DATA/tree/zz/note.txt"
    sha "$DATA/tree/zz/last.bin" >"$DATA/tree.sha"
}
catalog_tar() { tar -C "$DATA/tree" --sort=name -cf - a zz; }

a_catalogued_tar_backup_spans_three_cartridges_and_lists_its_members_by_cartridge() {
    catalog_tree
    rm -f "$DATA/catalog.json" "$DATA/catalog.catalog"
    st=0; catalog_tar | tb w.err -o "$D0" --changer "$CH" --slots 4-6 \
        --manifest "$DATA/catalog.json" --catalog || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "the catalogued 3-cartridge backup"
    expect_eq "$(jq '.volumes | length' "$DATA/catalog.json")" 3 "volumes"
    expect_eq "$(manifest_barcodes "$DATA/catalog.json")" E01004L6,E01005L6,E01006L6 "barcodes"
    expect_eq "$(jq -r '.catalog.members' "$DATA/catalog.json")" "$(catalog_tar | tar -tf - | wc -l)" "members catalogued = tar tf's lines"
    expect_eq "$(jq -r '.catalog.off // "none"' "$DATA/catalog.json")" none "the parser followed the whole stream"
    expect_eq "$(jq -r '[.volumes[].first_block] | map(tostring) | join(",")' "$DATA/catalog.json")" 0,0,0 "each volume's first block, from MTIOCPOS"
    expect_grep 'catalog: [0-9,]+ members' w.err "the summary names the catalog"
    st=0; "$TB" ls --manifest "$DATA/catalog.json" 'zz/*' >ls.out 2>ls.err || st=$?
    show ls.out; show ls.err
    expect_status 0 "$st" "tapebuf ls"
    expect_grep 'E01006L6 .*zz/last.bin' ls.out "zz/last.bin is on the third cartridge"
    expect_eq "$(wc -l <ls.out)" 2 "two members under zz/"
    # The tape describes itself: the catalog's copy is the last cartridge's
    # third tape file (data, trailer, catalog), read with mt and dd alone.
    expect_eq "$(jq -r '.catalog.on_tape' "$DATA/catalog.json")" true "the catalog is on the tape"
    [ "$(where_is E01006L6)" = "drive 0" ] || load 6 0
    mt -f "$D0" rewind; mt -f "$D0" fsf 2
    dd if="$D0" bs=256k of=tape.catalog status=none
    expect_eq "$(sha tape.catalog)" "$(sha "$DATA/catalog.catalog")" "the tape's copy equals the catalog file"
    st=0; "$TB" ls --catalog tape.catalog >ls2.out 2>&1 || st=$?
    expect_status 0 "$st" "tapebuf ls --catalog of the tape's copy"
    expect_eq "$(wc -l <ls2.out)" "$(jq -r '.catalog.members' "$DATA/catalog.json")" "every member listed from the tape's copy"
}

needs_catalog_backup() {
    [ -s "$DATA/catalog.json" ] && return 0
    note "no catalogued backup yet in this boot: making it"
    a_catalogued_tar_backup_spans_three_cartridges_and_lists_its_members_by_cartridge
    reset_library; : >"$ROBOT_LOG"
}

one_file_near_the_end_of_a_three_cartridge_backup_is_extracted_reading_under_1_percent() {
    needs_catalog_backup
    local total; total=$(jq '.stream.bytes' "$DATA/catalog.json")
    st=0; "$TB" extract --manifest "$DATA/catalog.json" --changer "$CH" zz/last.bin >sub.tar 2>x.err || st=$?
    show x.err; robot_moves
    expect_status 0 "$st" "tapebuf extract"
    mkdir out; tar -C out -xf sub.tar
    expect_eq "$(tar -tf sub.tar | paste -sd,)" zz/last.bin "the archive holds the one member"
    expect_eq "$(sha out/zz/last.bin)" "$(cat "$DATA/tree.sha")" "the file extracted is byte-exact"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01006L6 "only the third cartridge was loaded"
    # "extract: 1 member, 512.00 KiB read of the backup's 238.42 MiB (0.21%), ..."
    local pct; pct=$(sed -n 's/.*extract: .* read of the backup.s .* (\([0-9.]*\)%).*/\1/p' x.err)
    [ -n "$pct" ] || fail "the summary says the share of the backup read"
    awk -v p="$pct" 'BEGIN { exit !(p < 1) }' || fail "read $pct% of the backup, not under 1%"
    echo "ok: read $pct% of the $total-byte backup"
    expect_grep 'extract: 1 member, .* 1 volume, [12] seeks?' x.err "one volume, one or two seeks"
}

a_member_spanning_two_cartridges_is_followed_onto_the_second() {
    needs_catalog_backup
    local v1 path
    v1=$(jq '.volumes[0].bytes' "$DATA/catalog.json")
    "$TB" ls --manifest "$DATA/catalog.json" --json >ls.json
    path=$(jq -r --argjson v1 "$v1" '.members[] | select(.header_offset < $v1 and .end_offset > $v1 + 512) | .path' ls.json | head -1)
    [ -n "$path" ] || fail "no member spans cartridges 1 and 2"
    note "$path spans cartridges 1 and 2"
    st=0; "$TB" extract --manifest "$DATA/catalog.json" --changer "$CH" "$path" >sub.tar 2>x.err || st=$?
    show x.err; robot_moves
    expect_status 0 "$st" "tapebuf extract of the spanning member"
    mkdir out; tar -C out -xf sub.tar
    expect_eq "$(sha "out/$path")" "$(sha "$DATA/tree/$path")" "the spanning member is byte-exact"
    expect_eq "$(robot_moves | awk '$3 == "drive" {print $5}' | paste -sd,)" E01004L6,E01005L6 "cartridges 1 and 2 loaded, in order"
}

# --- logical block protection (issue 49) -------------------------------------
# The lab's drive 0 is an IBM LTO-6 (mhvtl offers the Reed-Solomon CRC), its
# drive 1 an LTO-7 (CRC32C too); tapebuf uses CRC32C where offered.

# crc32c FILE: the CRC32C of FILE's bytes, as the 4 bytes an LBP drive appends
# (least significant first), in hex.
crc32c() {
    perl -e '
        my @t; for my $n (0..255) { my $c = $n; for (1..8) { $c = $c & 1 ? ($c >> 1) ^ 0x82F63B78 : $c >> 1 } push @t, $c }
        local $/; open my $f, "<:raw", $ARGV[0] or die; my $d = <$f>; my $c = 0xFFFFFFFF;
        $c = $t[($c ^ $_) & 0xFF] ^ ($c >> 8) for unpack "C*", $d;
        print unpack("H*", pack("V", $c ^ 0xFFFFFFFF)), "\n"' "$1"
}
# lbp_page NODE METHOD: MODE SELECT (10) of the control data protection page
# by sg_raw, as another program would: METHOD 2 (CRC32C) on for writing and
# reading, or 0 off. mhvtl takes the page code without SPF (FINDINGS.md).
lbp_page() {
    local flags=00; [ "$2" = 0 ] || flags=c0
    { printf '\x00\x00\x00\x00\x00\x00\x00\x00\x0a\xf0\x00\x1c'
      printf "\\x0$2\\x04\\x$flags"; head -c 25 /dev/zero; } >lbp.page
    local sg; sg=$(ls -d "/sys/class/scsi_tape/$(basename "$1")/device/scsi_generic/"sg* | head -1)
    sg_raw -s 40 -i lbp.page "/dev/$(basename "$sg")" 55 10 00 00 00 00 00 00 28 00
}

an_lbp_backup_across_three_cartridges_restores_byte_exact_with_every_block_checked() {
    local seed; seed=$(seed250)
    st=0; tb w.err -i "$seed" -o "$D1" --changer "$CH" --slots 10-12 --manifest lbp.json || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "the LBP backup on the LTO-7"
    expect_eq "$(summary_out w.err)" 250000000 "committed bytes"
    expect_grep "-o $D1: every block checked by the drive's logical block protection \(CRC32C\)" w.err "the summary names the method"
    expect_eq "$(jq -r '[.volumes[].lbp] | join(",")' lbp.json)" CRC32C,CRC32C,CRC32C "the manifest records it for each cartridge"
    expect_eq "$(jq -r '.volumes | length' lbp.json)" 3 "three cartridges"
    reset_library
    read_back "$D1" --changer "$CH" --manifest lbp.json
    expect_status 0 "$rs" "the restore, every block's CRC checked"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore"
    expect_grep "-i $D1: every block checked by the drive's logical block protection \(CRC32C\)" r.err "the restore checked CRC32C"
    reset_library
    read_back "$D1" --changer "$CH" --manifest lbp.json --no-lbp
    expect_status 0 "$rs" "the restore with --no-lbp"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore with --no-lbp"
    expect_grep "volume 1 was written with logical block protection \(CRC32C\), which this drive does not check now \(--no-lbp\); its blocks are checked against the manifest's digests instead" r.err "a restore without LBP says what checks instead"
    # tapebuf left the drive as it found it: off. A block read by dd is the
    # data alone; with the page set by hand, the same block comes back with
    # 4 bytes more, the CRC32C of the data.
    reset_library; load 10 1; mt -f "$D1" rewind
    st=0; "$TB" drive "$D1" --json >d.json 2>d.err || st=$?
    show d.err; jq -c .lbp d.json
    expect_eq "$(jq -r '.lbp.offered | join(",")' d.json)" RS-CRC,CRC32C "tapebuf drive: the LTO-7's methods"
    expect_eq "$(jq -r '.lbp.now' d.json)" off "tapebuf drive: off after every run"
    dd if="$D1" of=plain.blk bs=300k count=1 2>/dev/null
    expect_eq "$(stat -c %s plain.blk)" 262144 "a block read without LBP"
    expect_eq "$(head -c 262144 "$seed" | sha256sum | cut -d' ' -f1)" "$(sha plain.blk)" "it is the backup's first block"
    lbp_page "$D1" 2 || fail "MODE SELECT by sg_raw"
    expect_eq "$("$TB" drive "$D1" --json 2>/dev/null | jq -r .lbp.now)" CRC32C "the page set by hand"
    mt -f "$D1" rewind
    dd if="$D1" of=crc.blk bs=300k count=1 2>/dev/null
    lbp_page "$D1" 0 || fail "MODE SELECT by sg_raw, off"
    expect_eq "$(stat -c %s crc.blk)" 262148 "the same block read with LBP: 4 bytes more"
    head -c 262144 crc.blk >crc.data
    expect_eq "$(sha crc.data)" "$(sha plain.blk)" "the same data"
    expect_eq "$(tail -c 4 crc.blk | od -An -tx1 | tr -d ' \n')" "$(crc32c plain.blk)" "the 4 bytes are its CRC32C"
}

a_byte_flipped_in_the_drives_stored_data_fails_the_restore_at_that_block() {
    random_file in 3145728
    load 4 0
    st=0; tb w.err -i in -o "$D0" --rewind || st=$?
    show w.err
    expect_status 0 "$st" "a 12-block backup on the LTO-6"
    expect_grep "every block checked by the drive's logical block protection \(RS-CRC\)" w.err "the LTO-6 checked RS-CRC"
    unload 0
    # Block 5's bytes start at the u64 at indx.0 offset 5 * 512 (FINDINGS.md).
    local dir=/run/mhvtl/tapes/E01004L6 off
    off=$(od -An -tu8 -j $((5 * 512)) -N 8 "$dir/indx.0" | tr -d ' ')
    perl -e 'open my $f, "+<:raw", $ARGV[0] or die; seek $f, $ARGV[1] + 1000, 0; read $f, my $b, 1;
        seek $f, $ARGV[1] + 1000, 0; print $f chr(ord($b) ^ 0x5a); close $f or die' "$dir/data.0" "$off"
    load 4 0
    st=0; "$TB" -i "$D0" -o out.bin 2>r.err || st=$?
    show r.err
    expect_status 1 "$st" "the restore of the damaged block"
    expect_grep "read failed at byte 1310720: volume 1, block 5: " r.err "the error names the byte offset, the volume and the block"
    expect_eq "$(stat -c %s out.bin)" 1310720 "nothing of block 5 or after was passed on"
    expect_eq "$(sha out.bin)" "$(prefix_sha in 1310720)" "the five blocks before it are exact"
    expect_eq "$(summary_out r.err)" 1310720 "the committed count is what the file holds"
    expect_eq "$("$TB" drive "$D0" --json 2>/dev/null | jq -r .lbp.now)" off "the drive left off after the failed restore"
}

# --- issue 49: hardware encryption ---------------------------------------------
# spin NODE PAGE: SECURITY PROTOCOL IN of tape data encryption's page PAGE
# (hex, e.g. 0021) by sg_raw, as another program would ask: the reply's
# bytes in hex on one line.
spin() {
    local sg; sg=$(ls -d "/sys/class/scsi_tape/$(basename "$1")/device/scsi_generic/"sg* | head -1)
    sg_raw -r 512 -o spin.bin "/dev/$(basename "$sg")" a2 20 "${2:0:2}" "${2:2:2}" 00 00 00 00 02 00 00 00 2>/dev/null ||
        fail "SECURITY PROTOCOL IN $2 by sg_raw"
    od -An -tx1 -v spin.bin | tr -d ' \n'
}
# no_key_in NODE: the drive (a cartridge of the encrypted backup at its
# start) neither encrypts nor decrypts, tapebuf drive says so, and the
# drive itself says it lacks the key for the first block (status 6).
no_key_in() {
    mt -f "$1" rewind
    local st; st=$(spin "$1" 0020)
    expect_eq "${st:10:4}" 0000 "$2: encryption and decryption modes off"
    "$TB" drive "$1" --json >d.json 2>d.err || true
    expect_eq "$(jq -r '.encryption.now' d.json)" off "$2: tapebuf drive says encryption is off"
    expect_eq "$(jq -r '.encryption.capable' d.json)" true "$2: tapebuf drive says the drive can encrypt"
    local nb; nb=$(spin "$1" 0021)
    expect_eq "${nb:25:1}" 6 "$2: the drive holds no key for the backup's first block (next block status 6)"
}
an_encrypted_backup_across_three_cartridges_restores_with_the_key_dir_and_fails_cleanly_without_it_or_with_a_wrong_one() {
    local seed print empty; seed=$(seed250); empty=$(: | sha256sum | cut -d' ' -f1)
    mkdir -p keys wrong
    "$TB" key new --tape keys/backup.key >key.line || fail "tapebuf key new --tape"
    "$TB" key new --tape wrong/other.key >/dev/null || fail "a second key"
    print=$(cut -d' ' -f1 key.line)
    expect_eq "$(stat -c %a keys/backup.key)" 600 "the key file's mode"
    # As a pattern: base64's + is a regex operator.
    local re; re=$(ere "$print")
    reset_library
    st=0; tb w.err -i "$seed" -o "$D1" --changer "$CH" --slots 10-12 --manifest enc.json --encrypt-key keys/backup.key || st=$?
    show w.err; robot_moves
    expect_status 0 "$st" "the encrypted backup"
    expect_eq "$(summary_out w.err)" 250000000 "committed bytes"
    expect_grep "-o $D1: every block encrypted by the drive \(AES-256-GCM\) with key $re" w.err "the summary names the key's fingerprint"
    expect_eq "$(jq -r '.volumes | length' enc.json)" 3 "three cartridges"
    expect_eq "$(jq -r '[.volumes[].key] | join(",")' enc.json)" "$print,$print,$print" "the manifest records the key's fingerprint for each cartridge"
    local hex; hex=$(head -c 64 keys/backup.key)
    expect_nogrep "$hex" enc.json "the key itself is not in the manifest"
    expect_nogrep "$hex" w.err "the key itself is not on stderr"
    # The drive's own word on what is on the cartridges: the first block of
    # each is encrypted, with the fingerprint as its U-KAD.
    local s code
    for s in 10 11 12; do
        reset_library; load "$s" 1; mt -f "$D1" rewind
        code=$(spin "$D1" 0021)
        expect_eq "${code:25:1}" 6 "slot $s: its first block is encrypted, for a key the drive does not hold"
        expect_eq "$(perl -e 'print pack("H*", $ARGV[0])' "${code:40:64}")" "$print" "slot $s: the block's U-KAD is the key's fingerprint"
    done
    no_key_in "$D1" "after the backup"
    reset_library
    read_back "$D1" --changer "$CH" --manifest enc.json --key-dir keys
    expect_status 0 "$rs" "the restore with --key-dir"
    expect_eq "$rsha" "$(cat "$DATA/seed250.sha")" "sha256 of the restore"
    expect_grep "-i $D1: every block decrypted by the drive \(AES-256-GCM\) with key $re" r.err "the restore names the key it used"
    reset_library; load 10 1; no_key_in "$D1" "after the restore"
    reset_library
    st=0; tb v.err verify --manifest enc.json --changer "$CH" --key-dir keys || st=$?
    show v.err
    expect_status 0 "$st" "tapebuf verify --key-dir across the three cartridges"
    for s in 1 2 3; do expect_grep "volume $s .*: ok" v.err "volume $s verified"; done
    reset_library; load 10 1; no_key_in "$D1" "after tapebuf verify"
    reset_library
    read_back "$D1" --changer "$CH" --manifest enc.json
    expect_status 1 "$rs" "the restore without a key"
    expect_grep "block 0 of cartridge E01010L6 is encrypted with key $re: no key was given \(--key-dir DIR or --encrypt-key FILE\); nothing of it was passed on" r.err "it names the fingerprint and the cartridge"
    expect_eq "$rsha" "$empty" "nothing was passed on"
    expect_eq "$(summary_out r.err)" 0 "the committed count is what the output holds"
    reset_library; load 10 1; no_key_in "$D1" "after the restore without a key"
    reset_library
    read_back "$D1" --changer "$CH" --manifest enc.json --key-dir wrong
    expect_status 1 "$rs" "the restore with a key dir of other keys"
    expect_grep "block 0 of cartridge E01010L6 is encrypted with key $re: it is not in --key-dir wrong" r.err "it says the key dir lacks it"
    expect_eq "$rsha" "$empty" "nothing was passed on"
    reset_library; load 10 1; no_key_in "$D1" "after the restore with other keys"
}
a_key_the_drive_cannot_decrypt_with_is_refused_before_a_byte_and_cleared() {
    # Another program (sg_raw here) writes a block with key B but labels it
    # with key A's fingerprint; tapebuf given key A must meet the drive's
    # own refusal, pass nothing on, and leave no key in the drive.
    mkdir -p keys
    "$TB" key new --tape keys/a.key >a.line || fail "key A"
    local print re; print=$(cut -d' ' -f1 a.line)
    re=$(ere "$print")
    load 5 0; mt -f "$D0" rewind
    local sg; sg=$(ls -d "/sys/class/scsi_tape/$(basename "$D0")/device/scsi_generic/"sg* | head -1)
    { printf '\x00\x10\x00\x54\x40\x00\x02\x02\x01\x00'; head -c 8 /dev/zero; printf '\x00\x20'
      head -c 32 /dev/urandom; printf '\x00\x00\x00\x20%s' "$print"; } >set.page
    sg_raw -s 88 -i set.page "/dev/$(basename "$sg")" b5 20 00 10 00 00 00 00 00 58 00 00 || fail "SPOUT by sg_raw"
    random_file in 262144
    dd if=in of="$D0" bs=256k 2>/dev/null || fail "dd under key B"
    mt -f "$D0" weof 1
    printf '\x00\x10\x00\x10\x40\x00\x00\x00\x01\x00' >clear.page; head -c 10 /dev/zero >>clear.page
    sg_raw -s 20 -i clear.page "/dev/$(basename "$sg")" b5 20 00 10 00 00 00 00 00 14 00 00 || fail "clearing by sg_raw"
    mt -f "$D0" rewind
    st=0; "$TB" -i "$D0" --encrypt-key keys/a.key -o out.bin 2>r.err || st=$?
    show r.err
    expect_status 1 "$st" "the restore with the key the block names but was not written with"
    expect_grep "block 0 of cartridge E01005L6 is encrypted with another key than $re from --encrypt-key keys/a.key: the drive cannot decrypt it with that key; nothing of it was passed on" r.err "the drive's refusal, said"
    [ ! -s out.bin ] || fail "nothing was passed on: out.bin holds $(stat -c %s out.bin) bytes"
    expect_grep "removed the empty file, since no byte arrived" r.err "nothing was passed on"
    expect_eq "$(summary_out r.err)" 0 "the committed count is what the output holds"
    no_key_in "$D0" "after the wrong key"
}
# encrypting_backup_under_way KEY ERR: starts a backup of slot 6's
# cartridge in drive 0 with --encrypt-key KEY (stderr to ERR) from a fifo
# held open on fd 3, and returns once encrypted blocks are on the tape; its
# pid is in $pid.
encrypting_backup_under_way() {
    load 6 0; mt -f "$D0" rewind
    rm -f in.fifo; mkfifo in.fifo
    # A small ring, so that blocks reach the tape while the input waits.
    "$TB" -i in.fifo -m 8M -o "$D0" --encrypt-key "$1" 2>"$2" &
    pid=$!
    exec 3>in.fifo
    head -c 16777216 "$(seed250)" >&3
    # Until encrypted blocks are on the tape: the drive's position (its next
    # block status names the block number) is past block 0 (at most 60 s).
    local i
    for i in $(seq 1 120); do
        [ "$((16#$(spin "$D0" 0021 | cut -c17-24)))" -gt 0 ] && break
        sleep 0.5
    done
    expect_eq "$(spin "$D0" 0020 | cut -c11-12)" 02 "the drive encrypts while the backup runs"
    [ "$((16#$(spin "$D0" 0021 | cut -c17-24)))" -gt 0 ] || fail "no block reached the tape"
}
a_backup_stopped_by_sigterm_leaves_no_key_in_the_drive() {
    mkdir -p keys
    "$TB" key new --tape keys/t.key >/dev/null || fail "a key"
    encrypting_backup_under_way keys/t.key w.err
    kill -TERM "$pid"
    st=0; wait "$pid" || st=$?
    exec 3>&-
    show w.err
    expect_status 143 "$st" "tapebuf stopped by SIGTERM"
    no_key_in "$D0" "after SIGTERM"
}

a_plain_backup_to_a_drive_a_killed_run_left_encrypting_says_so_and_restores_with_its_key() {
    mkdir -p keys
    "$TB" key new --tape keys/t.key >key.line || fail "a key"
    local print re; print=$(cut -d' ' -f1 key.line)
    re=$(ere "$print")
    encrypting_backup_under_way keys/t.key k.err
    kill -KILL "$pid"
    st=0; wait "$pid" || st=$?
    exec 3>&-
    expect_status 137 "$st" "tapebuf killed by SIGKILL"
    expect_eq "$(spin "$D0" 0020 | cut -c11-12)" 02 "the killed run left the drive encrypting"
    # A plain backup over it: the drive is left as found, and said to encrypt.
    head -c 4194304 "$(seed250)" >in.bin
    mt -f "$D0" rewind
    # With --verify: the volume is read back through the drive's key.
    st=0; "$TB" -i in.bin -o "$D0" --verify --manifest plain.json --summary-json plain.sum 2>p.err || st=$?
    show p.err
    expect_status 0 "$st" "the plain backup"
    expect_grep "warning: the drive encrypts every block with key $re, which was in it before this run" p.err "the plain run warns that the drive encrypts"
    expect_grep "every block encrypted by the drive with key $re, which was in the drive before this run" p.err "the summary says with which key"
    expect_grep 'volume 1 \(.*\): verified' p.err "read back and verified with the drive's key"
    expect_eq "$(jq -r '.volume_bytes[0].encryption_key_left' plain.sum)" "key $print" "--summary-json's encryption_key_left"
    expect_eq "$(jq -r '.volumes[0].key' plain.json)" "$print" "the manifest names the key the volume needs"
    expect_eq "$(spin "$D0" 0020 | cut -c11-12)" 02 "the drive is left as it was found"
    "$TB" drive "$D0" --clear-key >c.out 2>c.err || { show c.err; fail "tapebuf drive --clear-key"; }
    no_key_in "$D0" "after --clear-key"
    st=0; "$TB" -i "$D0" --manifest plain.json --key-dir keys >out.bin 2>r.err || st=$?
    show r.err
    expect_status 0 "$st" "the restore with the key dir"
    expect_eq "$(sha out.bin)" "$(sha in.bin)" "the restore is byte-exact"
    no_key_in "$D0" "after the restore"
}

ALL_CASES=(
    a_round_trip_at_64k_256k_and_512k_records_is_byte_exact
    a_tar_that_fails_leaves_the_real_tape_saying_cut
    a_1m_record_beyond_the_controller_limit_is_refused_naming_the_size_to_use
    a_restore_with_a_block_smaller_than_the_records_names_the_record_size
    fixed_block_mode_left_by_mt_setblk_is_switched_to_variable
    writing_past_the_end_of_one_cartridge_without_a_change_command_fails_and_counts_exactly
    a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command
    a_three_cartridge_restore_with_n_3_is_byte_exact
    a_three_cartridge_restore_with_the_manifest_is_byte_exact
    a_restore_without_n_or_manifest_reads_all_three_cartridges_by_their_trailers
    a_restore_with_n_smaller_than_the_backup_fails_instead_of_ending_short
    a_cartridge_out_of_order_fails_the_restore
    a_restore_with_the_manifest_to_a_file_leaves_the_manifest_unchanged
    a_backup_with_verify_reads_its_volume_back_and_passes
    tapebuf_verify_checks_a_backup_against_its_manifest
    tapebuf_verify_of_the_three_cartridge_backup_changes_cartridges_and_passes
    tapebuf_verify_finds_a_second_backup_appended_on_the_same_cartridge
    a_second_backup_appended_on_the_no_rewind_node_verifies_with_mtbsf
    probe_sweeps_a_real_drive_and_marks_1m_unsupported
    gnu_tar_writes_and_reads_a_real_drive_through_tapebuf_rmt
    tapebuf_writes_and_reads_a_real_drive_through_tapebuf_rmt_gnu_rmt_and_dump_rmt
    writing_to_the_rewinding_node_warns
    a_drive_slow_to_load_is_waited_for
    a_write_protected_cartridge_is_refused_and_another_asked_for
    a_write_protected_cartridge_offered_as_volume_2_is_refused_and_another_loaded
    a_worm_cartridge_refuses_an_overwrite_with_a_clear_message
    a_cleaning_cartridge_is_refused_with_a_clear_message
    an_empty_drive_fails_at_once_naming_the_device
    an_empty_drive_gets_its_cartridge_from_the_change_command
    an_empty_drive_with_a_change_command_ends_within_the_change_timeout
    sigint_mid_volume_reports_exactly_what_is_on_the_tape
    reset_library_puts_every_cartridge_home
    tapebuf_library_names_each_drive_its_node_and_serial
    a_250mb_backup_spans_three_cartridges_through_the_changer_without_a_change_command
    the_backup_restores_byte_exact_by_barcode_after_its_cartridges_were_shuffled
    tapebuf_verify_with_the_changer_finds_each_cartridge_by_barcode
    a_cartridge_whose_contents_do_not_match_the_manifest_is_refused_before_a_byte_goes_downstream
    two_copies_on_two_drives_from_two_pools_are_identical
    cleaning_worm_write_protected_and_wrong_generation_cartridges_in_the_pool_are_skipped
    a_pool_that_runs_out_takes_a_cartridge_from_the_import_export_slot
    a_pool_that_runs_out_ends_at_the_change_timeout
    a_cleaning_request_loads_the_cleaning_cartridge_between_volumes
    a_cleaning_request_without_clean_warns_and_exits_3
    sigint_during_a_move_leaves_every_cartridge_in_a_slot_and_says_which_volumes_are_safe
    without_cap_sys_rawio_the_ch_ioctls_drive_the_robot_and_drive_element_is_asked_for
    a_critical_tapealert_flag_raised_during_volume_2_is_in_the_summary_json_stats_and_manifest_and_exits_3
    a_warning_tapealert_flag_is_named_and_the_run_exits_0
    a_cartridge_holding_the_same_data_under_another_serial_number_is_refused
    tapebuf_drive_reports_the_drive_the_cartridge_and_the_flags_raised
    without_cap_sys_rawio_drive_health_is_read_through_the_drives_sg_node_or_said_unread
    a_catalogued_tar_backup_spans_three_cartridges_and_lists_its_members_by_cartridge
    one_file_near_the_end_of_a_three_cartridge_backup_is_extracted_reading_under_1_percent
    a_member_spanning_two_cartridges_is_followed_onto_the_second
    a_private_stream_runs_on_kernel_tls_byte_exact_both_ways_and_against_user_space
    an_lbp_backup_across_three_cartridges_restores_byte_exact_with_every_block_checked
    a_byte_flipped_in_the_drives_stored_data_fails_the_restore_at_that_block
    an_encrypted_backup_across_three_cartridges_restores_with_the_key_dir_and_fails_cleanly_without_it_or_with_a_wrong_one
    a_key_the_drive_cannot_decrypt_with_is_refused_before_a_byte_and_cleared
    a_backup_stopped_by_sigterm_leaves_no_key_in_the_drive
    a_plain_backup_to_a_drive_a_killed_run_left_encrypting_says_so_and_restores_with_its_key
)
# CI_CASES: the lab's part of CI (`.ci/run`, `lab.sh ci`), chosen to fit
# CI's budget (well under 30 minutes for tests, package and lab; under TCG
# on 2 cores the whole suite alone takes 25 minutes). One case for each
# path through a real driver: st's record sizes and limits, a volume change
# at the real end of medium, a restore by trailers, a cartridge out of
# order, --verify, probe, GNU tar through tapebuf rmt, SIGINT mid-volume,
# a backup across cartridges through ch, a mismatched cartridge refused,
# a TapeAlert flag read through sg, a private stream on kernel TLS
# (this machine's own kernel has no tls module), and logical block
# protection: CRC32C across three cartridges on the LTO-7 and a byte
# flipped in mhvtl's stored data (every other case runs with protection
# on too, RS-CRC on the LTO-6), and encryption: three cartridges under one
# key restored with a key dir, without and with other keys, a key the
# drive refuses, and SIGTERM, each leaving no key in the drive. The
# whole suite (`.ci/run lab`, `lab.sh`) is run before any change to tape
# code lands; docs/testing.md says so. Every name here must be in
# ALL_CASES (run_suite --ci fails the run otherwise).
CI_CASES=(
    a_round_trip_at_64k_256k_and_512k_records_is_byte_exact
    a_tar_that_fails_leaves_the_real_tape_saying_cut
    a_1m_record_beyond_the_controller_limit_is_refused_naming_the_size_to_use
    a_restore_with_a_block_smaller_than_the_records_names_the_record_size
    fixed_block_mode_left_by_mt_setblk_is_switched_to_variable
    a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command
    a_restore_without_n_or_manifest_reads_all_three_cartridges_by_their_trailers
    a_cartridge_out_of_order_fails_the_restore
    a_backup_with_verify_reads_its_volume_back_and_passes
    probe_sweeps_a_real_drive_and_marks_1m_unsupported
    gnu_tar_writes_and_reads_a_real_drive_through_tapebuf_rmt
    writing_to_the_rewinding_node_warns
    an_empty_drive_fails_at_once_naming_the_device
    sigint_mid_volume_reports_exactly_what_is_on_the_tape
    a_250mb_backup_spans_three_cartridges_through_the_changer_without_a_change_command
    a_cartridge_whose_contents_do_not_match_the_manifest_is_refused_before_a_byte_goes_downstream
    a_warning_tapealert_flag_is_named_and_the_run_exits_0
    a_private_stream_runs_on_kernel_tls_byte_exact_both_ways_and_against_user_space
    an_lbp_backup_across_three_cartridges_restores_byte_exact_with_every_block_checked
    a_byte_flipped_in_the_drives_stored_data_fails_the_restore_at_that_block
    an_encrypted_backup_across_three_cartridges_restores_with_the_key_dir_and_fails_cleanly_without_it_or_with_a_wrong_one
    a_key_the_drive_cannot_decrypt_with_is_refused_before_a_byte_and_cleared
    a_backup_stopped_by_sigterm_leaves_no_key_in_the_drive
)
declare -A CASE_TIMEOUT=(
    [an_encrypted_backup_across_three_cartridges_restores_with_the_key_dir_and_fails_cleanly_without_it_or_with_a_wrong_one]=900
    [an_lbp_backup_across_three_cartridges_restores_byte_exact_with_every_block_checked]=700
    [a_catalogued_tar_backup_spans_three_cartridges_and_lists_its_members_by_cartridge]=400
    [one_file_near_the_end_of_a_three_cartridge_backup_is_extracted_reading_under_1_percent]=400
    [a_member_spanning_two_cartridges_is_followed_onto_the_second]=400
    [a_critical_tapealert_flag_raised_during_volume_2_is_in_the_summary_json_stats_and_manifest_and_exits_3]=360
    [a_cartridge_holding_the_same_data_under_another_serial_number_is_refused]=240
    [a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command]=300
    [a_three_cartridge_restore_with_n_3_is_byte_exact]=240
    [a_three_cartridge_restore_with_the_manifest_is_byte_exact]=240
    [a_restore_without_n_or_manifest_reads_all_three_cartridges_by_their_trailers]=240
    [a_restore_with_n_smaller_than_the_backup_fails_instead_of_ending_short]=200
    [a_cartridge_out_of_order_fails_the_restore]=200
    [a_restore_with_the_manifest_to_a_file_leaves_the_manifest_unchanged]=240
    [tapebuf_verify_of_the_three_cartridge_backup_changes_cartridges_and_passes]=240
    [a_250mb_backup_spans_three_cartridges_through_the_changer_without_a_change_command]=300
    [the_backup_restores_byte_exact_by_barcode_after_its_cartridges_were_shuffled]=360
    [tapebuf_verify_with_the_changer_finds_each_cartridge_by_barcode]=360
    [a_cartridge_whose_contents_do_not_match_the_manifest_is_refused_before_a_byte_goes_downstream]=300
    [two_copies_on_two_drives_from_two_pools_are_identical]=360
    [a_pool_that_runs_out_takes_a_cartridge_from_the_import_export_slot]=300
    [a_pool_that_runs_out_ends_at_the_change_timeout]=200
    [a_cleaning_request_loads_the_cleaning_cartridge_between_volumes]=360
    [a_cleaning_request_without_clean_warns_and_exits_3]=240
    [sigint_during_a_move_leaves_every_cartridge_in_a_slot_and_says_which_volumes_are_safe]=240
)

# empty_drives: each drive's cartridge to its home slot, or to a free one
# (MTOFFL only to an ONLINE drive: st's blocking open of an empty or
# ejected drive waits 124 s).
empty_drives() {
    local e b s
    for e in 0 1; do
        b=$(inventory | awk -v e="$e" '$1 == "drive" && $2 == e {print $3}')
        [ -n "$b" ] || continue
        if mt -f "$(drive_node "$e")" status 2>/dev/null | grep -q ONLINE; then
            mt -f "$(drive_node "$e")" offline 2>/dev/null || true
        fi
        s=${HOME[$b]:-}
        if [ -z "$s" ] || inventory | grep -q "^slot $s "; then s=$(free_slot); fi
        mtx -f "$CH" unload "$s" "$e" >/dev/null || echo "empty_drives: cannot unload drive $e ($b) to slot $s" >&2
    done
}

# reset_library: both drives empty (MTOFFL only to an ONLINE drive), every
# cartridge back in its home slot (cases move them between slots),
# E01020L6 out through the import/export slot, the door closed, no robot or
# drive delays, no TapeAlert flags left over.
reset_library() {
    local e b kind n pass moved s
    rm -f /run/lab/robot-delay /run/lab/robot-fail
    vtlcmd 10 close map >/dev/null 2>&1 || true
    for e in 11 12; do
        vtlcmd "$e" delay load 0 >/dev/null 2>&1 || true
        vtlcmd "$e" TapeAlert 0 >/dev/null 2>&1 || true
    done
    empty_drives
    for pass in 1 2 3 4 5 6; do
        moved=0
        while read -r kind n b; do
            [ "$kind" = slot ] || continue
            s=${HOME[$b]:-}
            if [ -z "$s" ]; then
                # Not of the layout (the operator's cartridge): out through the MAP.
                mtx -f "$CH" transfer "$n" "$MAP_SLOT" >/dev/null &&
                    { vtlcmd 10 open map; vtlcmd 10 empty map; vtlcmd 10 close map; } >/dev/null 2>&1
                moved=1
            elif [ "$s" != "$n" ] && ! inventory | grep -q "^slot $s "; then
                mtx -f "$CH" transfer "$n" "$s" >/dev/null && moved=1
            fi
        done < <(inventory)
        if [ "$moved" = 0 ]; then
            # A cycle (two cartridges in each other's home): break it through a free slot.
            n=''
            read -r n b < <(inventory | awk '$1 == "slot" {print $2, $3}' |
                while read -r n b; do [ "${HOME[$b]:-$n}" = "$n" ] || echo "$n $b"; done | head -1) || true
            [ -n "${n:-}" ] || break
            mtx -f "$CH" transfer "$n" "$(free_slot)" >/dev/null || break
        fi
    done
    if inventory | grep -q '^portal '; then
        { vtlcmd 10 open map; vtlcmd 10 empty map; vtlcmd 10 close map; } >/dev/null 2>&1
    fi
}

run_suite() {
    local res=$LAB_OUT/results name t0 rc secs cases
    mkdir -p "$LAB_OUT/cases" "$DATA"
    if [ "${1:-}" = --ci ]; then
        cases=("${CI_CASES[@]}")
        for name in "${cases[@]}"; do
            printf '%s\n' "${ALL_CASES[@]}" | grep -qx -- "$name" ||
                { echo "FAIL $name 0" >>"$res"; echo "CI_CASES names $name, which ALL_CASES does not" >"$LAB_OUT/cases/$name.log"; }
        done
    elif [ $# -gt 0 ]; then cases=("$@"); else cases=("${ALL_CASES[@]}"); fi
    for name in "${cases[@]}"; do
        if ! declare -F "$name" >/dev/null; then
            echo "FAIL $name 0" >>"$res"
            echo "no such case: $name" >"$LAB_OUT/cases/$name.log"
            continue
        fi
        reset_library >/dev/null 2>&1
        : >"$ROBOT_LOG"
        rm -rf /run/lab/case; mkdir -p /run/lab/case
        t0=$(date +%s)
        echo "tapelab: running $name"
        (cd /run/lab/case && timeout -k 5 "${CASE_TIMEOUT[$name]:-150}" \
            bash -euo pipefail -c '. "$1"; "$2"' suite "$LAB_HERE/suite.sh" "$name") \
            >"$LAB_OUT/cases/$name.log" 2>&1
        rc=$?
        secs=$(( $(date +%s) - t0 ))
        # A case with keys that failed before clearing them must not leave
        # the drives encrypting the next cases' backups.
        if [ "$rc" != 0 ] && [ -d /run/lab/case/keys ]; then
            "$TB" drive "$D0" --clear-key >/dev/null 2>&1 || true
            "$TB" drive "$D1" --clear-key >/dev/null 2>&1 || true
        fi
        [ "$rc" = 124 ] && echo "TIMED OUT after ${CASE_TIMEOUT[$name]:-150} s" >>"$LAB_OUT/cases/$name.log"
        if [ "$rc" = 0 ]; then
            echo "PASS $name $secs" >>"$res"; echo "tapelab: PASS $name (${secs}s)"
        else
            echo "FAIL $name $secs" >>"$res"; echo "tapelab: FAIL $name (${secs}s, status $rc)"
        fi
    done
    reset_library >/dev/null 2>&1
    echo "DONE" >>"$res"
}

# run_bench: `lab.sh bench`, not a test. The 250 MB three-cartridge backup,
# 3 times through tapebuf's own changer (--changer --slots 1-4) and 3 times
# through today's mtx script (-A guest/change.sh, the first `mtx load`
# included in the time), alternating, in one boot; each run's seconds and
# the medians go to $LAB_OUT/bench.log, one line "BENCH changer|mtx SECS
# STATUS" per run to $LAB_OUT/results.
run_bench() {
    local res=$LAB_OUT/results log=$LAB_OUT/bench.log seed i t0 st secs how
    if [ "${1:-}" = ktls ]; then
        bench_ktls "$res" "$log"; echo "DONE" >>"$res"; return
    fi
    if [ "${1:-}" = lbp ]; then
        bench_lbp "$res" "$log"; echo "DONE" >>"$res"; return
    fi
    if [ "${1:-}" = encryption ]; then
        bench_encryption "$res" "$log"; echo "DONE" >>"$res"; return
    fi
    mkdir -p "$DATA"; seed=$(seed250)
    declare -A times=()
    for i in 1 2 3; do
        for how in changer mtx; do
            reset_library >/dev/null 2>&1; : >"$ROBOT_LOG"
            rm -rf /run/lab/case; mkdir -p /run/lab/case; cd /run/lab/case || return 1
            t0=$(date +%s.%N); st=0
            if [ "$how" = changer ]; then
                "$TB" -i "$seed" -o "$D0" --changer "$CH" --slots 1-4 2>w.err || st=$?
            else
                queue 2 3
                (mtx -f "$CH" load 1 0 && wait_ready "$D0" &&
                 "$TB" -i "$seed" -o "$D0" -A "$CHANGE" 2>w.err) || st=$?
            fi
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            times[$how]="${times[$how]:-} $secs"
            echo "BENCH $how $secs $st" >>"$res"
            echo "bench: run $i, $how: $secs s (status $st; $(summary_out w.err) bytes)" | tee -a "$log"
            [ "$st" = 0 ] || sed 's/^/    | /' w.err | tail -5 | tee -a "$log"
        done
    done
    for how in changer mtx; do
        # shellcheck disable=SC2086
        echo "bench: $how: median $(printf '%s\n' ${times[$how]} | sort -n | sed -n 2p) s of$(echo "${times[$how]}" | tr -s ' ' ' ')" | tee -a "$log"
    done
    bench_health "$res" "$log"
    bench_ktls "$res" "$log"
    bench_lbp "$res" "$log"
    bench_encryption "$res" "$log"
    reset_library >/dev/null 2>&1
    echo "DONE" >>"$res"
}

# bench_encryption RESULTS LOG: what hardware encryption costs tapebuf on
# the real st and sg drivers: 80 MB (one cartridge) written to the LTO-7
# from the guest's tmpfs and read back to /dev/null, with --encrypt-key
# (and --key-dir reading) and without, 3 runs each, alternating; wall and
# CPU seconds and their medians. mhvtl does not encrypt the bytes it
# stores, so this is tapebuf's side alone: the key set and cleared per
# volume and the next block status asked before the first read.
bench_encryption() {
    local res=$1 log=$2 i how dir mb=80 secs cpu st
    declare -A walls=() cpus=()
    mkdir -p "$DATA"
    [ -s "$DATA/in80" ] || head -c $((mb * 1000000)) /dev/urandom >"$DATA/in80"
    rm -rf /run/lab/enc; mkdir -p /run/lab/enc/keys && cd /run/lab/enc || return 1
    "$TB" key new --tape keys/bench.key >/dev/null || return 1
    reset_library >/dev/null 2>&1
    load 5 1
    for i in 1 2 3; do
        for how in on off; do
            for dir in write read; do
                mt -f "$D1" rewind
                local flag=()
                case "$how-$dir" in
                    on-write) flag=(--encrypt-key keys/bench.key) ;;
                    on-read) flag=(--key-dir keys) ;;
                esac
                if [ "$dir" = write ]; then
                    timed_tapebuf encryption "$dir-$how" -i "$DATA/in80" -o "$D1" "${flag[@]}"
                else
                    timed_tapebuf encryption "$dir-$how" -i "$D1" -o /dev/null "${flag[@]}"
                fi
                echo "bench: encryption run $i, $dir, encryption $how: $secs s, $cpu s CPU (status $st)" | tee -a "$log"
            done
        done
    done
    report_medians encryption "$mb"
    reset_library >/dev/null 2>&1
}

# bench_lbp RESULTS LOG: what logical block protection costs on the real
# st driver: 80 MB (one cartridge) written from the guest's tmpfs to each
# drive and read back to /dev/null, with protection (the LTO-6's RS-CRC,
# the LTO-7's CRC32C) and with --no-lbp, 3 runs each, alternating; the
# tapebuf process's CPU seconds (bash's `time`) and wall seconds, and the
# medians with CPU per GiB. Under TCG the absolute figures are the
# emulator's; the difference between the two is what the CRC costs there.
bench_lbp() {
    local res=$1 log=$2 i how d node dir mb=80 secs cpu st
    declare -A walls=() cpus=()
    mkdir -p "$DATA"
    [ -s "$DATA/in80" ] || head -c $((mb * 1000000)) /dev/urandom >"$DATA/in80"
    rm -rf /run/lab/lbp; mkdir -p /run/lab/lbp && cd /run/lab/lbp || return 1
    reset_library >/dev/null 2>&1
    load 4 0; load 5 1
    for i in 1 2 3; do
        for d in 0 1; do
            node=$(drive_node "$d")
            for how in on off; do
                local flag=(); [ "$how" = off ] && flag=(--no-lbp)
                for dir in write read; do
                    mt -f "$node" rewind
                    if [ "$dir" = write ]; then
                        timed_tapebuf lbp "$dir-$d-$how" -i "$DATA/in80" -o "$node" "${flag[@]}"
                    else
                        timed_tapebuf lbp "$dir-$d-$how" -i "$node" -o /dev/null "${flag[@]}"
                    fi
                    echo "bench: lbp run $i, $dir drive $d, protection $how: $secs s, $cpu s CPU (status $st)" | tee -a "$log"
                done
            done
        done
    done
    report_medians lbp "$mb"
    reset_library >/dev/null 2>&1
}

# timed_tapebuf NAME KEY ARGS...: one run of tapebuf -q ARGS, timed with
# bash's `time`; its wall and CPU seconds are added to the caller's
# walls[KEY] and cpus[KEY], and "BENCH NAME-KEY SECS STATUS" to the
# caller's $res; sets secs, cpu and st.
timed_tapebuf() {
    local name=$1 key=$2 t user sys
    shift 2
    TIMEFORMAT='%R %U %S'
    st=0
    t=$( { time "$TB" -q "$@" 2>e.err || echo failed >>e.err; } 2>&1 )
    grep -q failed e.err && st=1
    read -r secs user sys <<<"$(tail -n1 <<<"$t")"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    walls[$key]="${walls[$key]:-} $secs"; cpus[$key]="${cpus[$key]:-} $cpu"
    echo "BENCH $name-$key $secs $st" >>"$res"
}
# median "A B C": the middle of the figures.
median() {
    # shellcheck disable=SC2086
    printf '%s\n' $1 | sort -n | sed -n 2p
}
# report_medians NAME MB: for each key of the caller's walls and cpus, the
# median wall and CPU seconds and CPU per GiB of MB megabytes, to $log.
report_medians() {
    local name=$1 mb=$2 k w c
    for k in "${!walls[@]}"; do
        w=$(median "${walls[$k]}"); c=$(median "${cpus[$k]}")
        echo "bench: $name $k ($mb MB): median $w s, $c s CPU, $(awk -v c="$c" -v m="$mb" 'BEGIN { printf "%.2f", c * 1073.741824 / m }') s CPU per GiB; of$(echo "${walls[$k]}" | tr -s ' ' ' ') s" | tee -a "$log"
    done | sort
}

# bench_ktls RESULTS LOG: a private stream of 512 MiB from /dev/zero to
# /dev/null over the guest's loopback, both ends' records made by the
# kernel's tls module (--ktls on) and both in rustls (--ktls off), 3 runs
# each, alternating, in one boot; each run's wall seconds and the CPU
# seconds of both ends (bash's `time` of the pair), and the medians, with
# the CPU per GiB. A run whose receiver did not commit every byte, or
# whose ends did not say the records they were asked for, fails.
bench_ktls() {
    local res=$1 log=$2 i how st rx port t cpu secs user sys mib=512
    declare -A walls=() cpus=()
    ip link set lo up || return 1
    modprobe tls && modprobe -a gcm ghash_generic || return 1
    # The kernel loads no crypto module by itself here (FINDINGS.md): without
    # these its AES-GCM is generic C, while rustls uses AES-NI and PCLMULQDQ.
    modprobe -a aesni_intel ghash_clmulni_intel || echo "bench: kTLS: no aesni_intel or ghash_clmulni_intel module" | tee -a "$log"
    rm -rf /run/lab/ktls; mkdir -p /run/lab/ktls && cd /run/lab/ktls || return 1
    "$TB" key new rx.key --name vault >rx.txt && "$TB" key new tx.key --name db1 >tx.txt || return 1
    local rxfp txfp; rxfp=$(cut -d' ' -f1 rx.txt); txfp=$(cut -d' ' -f1 tx.txt)
    for i in 1 2 3; do
        for how in on off; do
            rm -f rx.err rx.json tx.json
            st=0
            TIMEFORMAT='%R %U %S'
            t=$( { time {
                "$TB" -q -s 1M -m 32M -I 127.0.0.1:0 -o /dev/null --key rx.key \
                    --allow-key "$txfp=db1" --ktls "$how" --summary-json rx.json 2>rx.err &
                rx=$!
                port=$(port_said rx.err)
                dd if=/dev/zero bs=1M count=$mib status=none |
                    "$TB" -q -s 1M -m 32M -O "127.0.0.1:$port" --key tx.key --pin "$rxfp" \
                        --ktls "$how" --summary-json tx.json 2>tx.err || echo "tx failed" >>rx.err
                wait "$rx" || echo "rx failed" >>rx.err
            } ; } 2>&1 )
            grep -q failed rx.err && st=1
            [ "$(jq -r '.out_bytes' rx.json)" = $((mib << 20)) ] || st=2
            [ "$(jq -r '.network[0].records' rx.json)" = "$(records_of "$how")" ] || st=3
            [ "$(jq -r '.network[0].records' tx.json)" = "$(records_of "$how")" ] || st=3
            # bash's `time` says "REAL USER SYS" last.
            read -r secs user sys <<<"$(tail -n1 <<<"$t")"
            cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
            walls[$how]="${walls[$how]:-} $secs"; cpus[$how]="${cpus[$how]:-} $cpu"
            echo "BENCH ktls-$how $secs $st" >>"$res"
            echo "bench: kTLS $mib MiB run $i, --ktls $how ($(records_of "$how")): $secs s, $cpu s CPU (status $st)" | tee -a "$log"
        done
    done
    # The AES-GCM the kernel's records used: the driver of gcm(aes).
    echo "bench: kTLS: the kernel's gcm(aes) is $(awk '/^name/ {n = $3} /^driver/ && n == "gcm(aes)" {print $3; exit}' /proc/crypto)" | tee -a "$log"
    for how in on off; do
        local w c
        # shellcheck disable=SC2086
        w=$(printf '%s\n' ${walls[$how]} | sort -n | sed -n 2p)
        # shellcheck disable=SC2086
        c=$(printf '%s\n' ${cpus[$how]} | sort -n | sed -n 2p)
        echo "bench: kTLS $mib MiB, --ktls $how ($(records_of "$how")): median $w s, $c s CPU, $(awk -v c="$c" -v m=$mib 'BEGIN { printf "%.2f", c * 1024 / m }') s CPU per GiB; of$(echo "${walls[$how]}" | tr -s ' ' ' ') s" | tee -a "$log"
    done
}

# bench_health RESULTS LOG: (1) one health report, `tapebuf drive --json`,
# against sg3-utils asking the same (sg_inq, its VPD 0x80 page, sg_logs -a,
# sg_read_attr), 5 runs each, alternating; (2) an 80 MB backup to one
# cartridge with tapebuf (health read at open and at the end; as it runs,
# paced, and with --no-pace) against mbuffer writing the same to the same
# drive, 3 runs each, alternating, each read back and its sha256 checked.
bench_health() {
    local res=$1 log=$2 i how t0 st secs want asking=
    declare -A times=()
    reset_library >/dev/null 2>&1
    cd /run/lab/case || return 1
    load 10 0
    for i in 1 2 3 4 5; do
        for how in drive sg3; do
            t0=$(date +%s.%N); st=0
            if [ "$how" = drive ]; then
                "$TB" drive "$D0" --json >h.json 2>h.err || st=$?
            else
                { sg_inq "$D0" && sg_inq -p 0x80 "$D0" && sg_logs -a "$D0" && sg_read_attr "$D0"; } >h.txt 2>&1 || st=$?
            fi
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
            times[$how]="${times[$how]:-} $secs"
            echo "BENCH health-$how $secs $st" >>"$res"
            echo "bench: health report run $i, $how: $secs s (status $st)" | tee -a "$log"
        done
    done
    random_file in80 80000000; want=$(sha in80)
    for i in 1 2 3; do
        for how in tapebuf nopace mbuffer; do
            mt -f "$D0" rewind
            t0=$(date +%s.%N); st=0
            if [ "$how" = tapebuf ]; then
                "$TB" -s 256k -m 64M -i in80 -o "$D0" --summary-json b.json 2>b.err || st=$?
                asking="$asking $(jq -r '.drive_health[0].asking_seconds' b.json)"
            elif [ "$how" = nopace ]; then
                "$TB" -s 256k -m 64M --no-pace -i in80 -o "$D0" 2>b.err || st=$?
            else
                mbuffer -q -s 256k -m 64M -i in80 -o "$D0" 2>b.err || st=$?
            fi
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
            mt -f "$D0" rewind
            got=$(dd if="$D0" bs=256k 2>/dev/null | head -c 80000000 | sha256sum | cut -d' ' -f1)
            [ "$got" = "$want" ] || st=99
            times[$how]="${times[$how]:-} $secs"
            echo "BENCH write-$how $secs $st" >>"$res"
            echo "bench: 80 MB write run $i, $how: $secs s (status $st, read back $([ "$st" = 99 ] && echo differs || echo byte-exact))" | tee -a "$log"
        done
    done
    for how in drive sg3; do
        # shellcheck disable=SC2086
        echo "bench: health report, $how: median $(printf '%s\n' ${times[$how]} | sort -n | sed -n 3p) s of$(echo "${times[$how]}" | tr -s ' ' ' ')" | tee -a "$log"
    done
    # shellcheck disable=SC2086
    echo "bench: 80 MB write, tapebuf's time asking the drive for its health: median $(printf '%s\n' $asking | sort -n | sed -n 2p) s of$asking" | tee -a "$log"
    for how in tapebuf nopace mbuffer; do
        # shellcheck disable=SC2086
        echo "bench: 80 MB write, $how: median $(printf '%s\n' ${times[$how]} | sort -n | sed -n 2p) s of$(echo "${times[$how]}" | tr -s ' ' ' ')" | tee -a "$log"
    done
}

# kTLS (issue 48): a private stream whose records the lab kernel's tls
# module makes and opens, both ends in the kernel, and each end in the
# kernel against the other in rustls. Each run is byte-exact, both ends
# exit 0, and each end's --summary-json says who made its records.
private_stream_on() { # RX_KTLS TX_KTLS RX_FP TX_FP
    local port="" i st=0
    "$TB" -q -s 1M -m 32M -I 127.0.0.1:0 -o out --key rx.key --allow-key "$4=db1" \
        --ktls "$1" --summary-json rx.json 2>rx.err &
    local rx=$!
    port=$(port_said rx.err)
    [ -n "$port" ] || fail "the receiver never said its port"
    "$TB" -q -s 1M -m 32M -i in -O "127.0.0.1:$port" --key tx.key --pin "$3" \
        --ktls "$2" --connect-timeout 10 --summary-json tx.json 2>tx.err || st=$?
    [ "$st" = 0 ] || show tx.err
    expect_status 0 "$st" "the sender (--ktls $2)"
    st=0; wait "$rx" || st=$?
    [ "$st" = 0 ] || show rx.err
    expect_status 0 "$st" "the receiver (--ktls $1)"
}

# port_said ERRFILE: the port a receiver on 127.0.0.1:0 says it listens
# on, once it says it (within 10 s); empty if it never does.
port_said() {
    local i port=""
    for i in $(seq 100); do
        port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$1")
        [ -n "$port" ] && break
        sleep 0.1
    done
    echo "$port"
}

records_of() { if [ "$1" = on ]; then echo kernel; else echo "user space"; fi; }

a_private_stream_runs_on_kernel_tls_byte_exact_both_ways_and_against_user_space() {
    # The guest boots with its loopback interface down.
    ip link set lo up || fail "ip link set lo up"
    modprobe tls || fail "modprobe tls"
    # The kernel cannot load its own crypto modules here: the initramfs
    # it would run modprobe from has none (FINDINGS.md).
    modprobe -a gcm ghash_generic || fail "modprobe gcm ghash_generic"
    grep -qw tls /proc/sys/net/ipv4/tcp_available_ulp || fail "no tls ULP after modprobe"
    "$TB" key new rx.key --name vault >rx.txt
    "$TB" key new tx.key --name db1 >tx.txt
    local rxfp txfp want pair
    rxfp=$(cut -d' ' -f1 rx.txt); txfp=$(cut -d' ' -f1 tx.txt)
    random_file in 8000000; want=$(sha in)
    for pair in "on on" "on off" "off on"; do
        # shellcheck disable=SC2086
        set -- $pair
        rm -f out
        private_stream_on "$1" "$2" "$rxfp" "$txfp"
        expect_eq "$(sha out)" "$want" "the stream arrived byte-exact (receiver $1, sender $2)"
        expect_eq "$(jq -r '.network[0].records' rx.json)" "$(records_of "$1")" "the receiver's records"
        expect_eq "$(jq -r '.network[0].records' tx.json)" "$(records_of "$2")" "the sender's records"
        expect_eq "$(jq -r ".out_bytes" rx.json)" 8000000 "the receiver committed every byte"
    done
    # With only the generic C AES-GCM loaded, --ktls auto (the default)
    # leaves the records to rustls, which is faster, and says why.
    rm -f out
    private_stream_on auto auto "$rxfp" "$txfp"
    expect_eq "$(sha out)" "$want" "the stream arrived byte-exact (--ktls auto, generic AES-GCM)"
    expect_eq "$(jq -r '.network[0].records' rx.json)" "user space" "auto's records with a generic AES-GCM"
    jq -r '.network[0].user_space_because' tx.json >why.txt
    expect_grep "generic C code" why.txt "the sender says why not the kernel"
    a_kernel_tls_sender_killed_mid_stream "$rxfp" "$txfp"
}

# A sender on kernel TLS killed mid-stream (no close_notify, no trailer)
# fails its receiver, which keeps an exact prefix and says how much.
a_kernel_tls_sender_killed_mid_stream() { # RX_FP TX_FP
    local port="" i st=0 held
    rm -f out p; mkfifo p
    { head -c 4000000 in; sleep 60; } >p &
    local feeder=$!
    "$TB" -s 1M -m 32M -I 127.0.0.1:0 -o out --key rx.key --allow-key "$2=db1" \
        --ktls on 2>rx.err &
    local rx=$!
    port=$(port_said rx.err)
    [ -n "$port" ] || fail "the receiver never said its port"
    "$TB" -q -s 1M -m 32M -i p -O "127.0.0.1:$port" --key tx.key --pin "$1" --ktls on 2>tx.err &
    local tx=$!
    for i in $(seq 200); do
        [ "$(stat -c %s out 2>/dev/null || echo 0)" -ge 2000000 ] && break
        sleep 0.1
    done
    kill -KILL "$tx"; wait "$tx" 2>/dev/null || true
    kill "$feeder" 2>/dev/null || true
    wait "$rx" || st=$?
    expect_status 1 "$st" "the receiver of a killed kernel-TLS sender"
    expect_grep "without tapebuf's end-of-stream trailer" rx.err "the receiver says the stream was cut"
    held=$(stat -c %s out)
    expect_eq "$(summary_out rx.err)" "$held" "the receiver's committed count is what its output holds"
    expect_eq "$(prefix_sha in "$held")" "$(sha out)" "the output is an exact prefix of the input"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ "${1:-}" = --bench ]; then run_bench "${@:2}"; exit; fi
    run_suite "$@"; exit   # exit on this line: the file may change during the run
fi
