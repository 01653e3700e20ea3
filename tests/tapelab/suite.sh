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

# --- the runner -----------------------------------------------------------------

ALL_CASES=(
    a_round_trip_at_64k_256k_and_512k_records_is_byte_exact
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
)
declare -A CASE_TIMEOUT=(
    [a_250mb_backup_spans_three_cartridges_through_an_mtx_change_command]=300
    [a_three_cartridge_restore_with_n_3_is_byte_exact]=240
    [a_three_cartridge_restore_with_the_manifest_is_byte_exact]=240
    [a_restore_without_n_or_manifest_reads_all_three_cartridges_by_their_trailers]=240
    [a_restore_with_n_smaller_than_the_backup_fails_instead_of_ending_short]=200
    [a_cartridge_out_of_order_fails_the_restore]=200
    [a_restore_with_the_manifest_to_a_file_leaves_the_manifest_unchanged]=240
    [tapebuf_verify_of_the_three_cartridge_backup_changes_cartridges_and_passes]=240
)

reset_library() {
    local e
    for e in 0 1; do unload "$e" 2>/dev/null || true; done
    vtlcmd 11 delay load 0 >/dev/null 2>&1 || true
    vtlcmd 12 delay load 0 >/dev/null 2>&1 || true
}

run_suite() {
    local res=$LAB_OUT/results name t0 rc secs cases
    mkdir -p "$LAB_OUT/cases" "$DATA"
    if [ $# -gt 0 ]; then cases=("$@"); else cases=("${ALL_CASES[@]}"); fi
    for name in "${cases[@]}"; do
        if ! declare -F "$name" >/dev/null; then
            echo "FAIL $name 0" >>"$res"
            echo "no such case: $name" >"$LAB_OUT/cases/$name.log"
            continue
        fi
        reset_library >/dev/null 2>&1
        rm -rf /run/lab/case; mkdir -p /run/lab/case
        t0=$(date +%s)
        echo "tapelab: running $name"
        (cd /run/lab/case && timeout -k 5 "${CASE_TIMEOUT[$name]:-150}" \
            bash -euo pipefail -c '. "$1"; "$2"' suite "$LAB_HERE/suite.sh" "$name") \
            >"$LAB_OUT/cases/$name.log" 2>&1
        rc=$?
        secs=$(( $(date +%s) - t0 ))
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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    run_suite "$@"; exit   # exit on this line: the file may change during the run
fi
