#!/bin/bash
# tests/tapelab/lab.sh: the host entry point of the tape lab.
#
# Builds mhvtl (a virtual tape library: a pseudo SCSI host adapter module and
# the daemons that answer as IBM LTO drives and an STK L700 library), a
# busybox initramfs, and boots a QEMU VM on a stock Debian kernel whose real
# st, ch and sg drivers drive the emulated hardware. Inside, the suite
# (suite.sh) runs tapebuf against /dev/nst* and /dev/sch0 and writes its
# results to a writable share; this script prints them and sets the exit
# status.
#
#   tests/tapelab/lab.sh            run every case
#   tests/tapelab/lab.sh CASE...    run only the named cases
#   tests/tapelab/lab.sh ci         run suite.sh's CI_CASES (what .ci/run runs)
#   tests/tapelab/lab.sh shell      set the lab up, then an interactive shell
#   tests/tapelab/lab.sh findings [st|changer]   what the drivers answer (FINDINGS.md)
#   tests/tapelab/lab.sh bench      tapebuf's changer against an mtx script; tapebuf drive against
#                                   sg3-utils; an 80 MB write against mbuffer (all timed)
#   tests/tapelab/lab.sh source     only find mhvtl's source (cloning it into the cache when it
#                                   must) and print its path; .ci/run asks this first, before
#                                   anything long runs
#
# Exit status: 0 when every case passed, 1 when one failed or the lab broke
# (a source that is not the pinned one among them), 3 when there is no mhvtl
# source and none could be cloned (the lines before say what to do).
#
# Environment: MHVTL_SRC (tarball or unpacked tree, used unchecked),
# TAPEBUF_MHVTL_URL (a repository to clone instead of mhvtl.pin's url, say a
# local mirror), XDG_CACHE_HOME (the cache is its tapebuf/), TAPEBUF_BIN
# (binary under test), LAB_KERNEL (kernel version), LAB_TIMEOUT (seconds,
# default 2700; 1200 for ci).
# The body is one compound command, read whole before it runs, so editing
# this file during a run cannot change the run.
{
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$repo/target/tapelab
mkdir -p "$work"

say() { printf 'tapelab: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; say "0 passed, 0 failed"; exit 1; }

# --- mhvtl source ---------------------------------------------------------
# The first of these is used:
#   1. $MHVTL_SRC, a tarball or an unpacked tree, as it is;
#   2. ../shared/tapelab/mhvtl-*.tar.gz beside the repository, whose sha256
#      must be the pin's (one that differs is an error);
#   3. the cache, $XDG_CACHE_HOME/tapebuf/mhvtl-COMMIT.tar.gz, which must be
#      a git archive of the pinned commit;
#   4. a clone of the pinned url ($TAPEBUF_MHVTL_URL instead, when set),
#      given at most 120 s, archived at the pinned commit into the cache.
# The pin is mhvtl.pin; README.md says why a clone and not a download. With
# none of them it says what to do and exits 3.
pin() { sed -n "s/^$1=//p" "$here/mhvtl.pin"; }
pin_commit=$(pin commit)
pin_sha256=$(pin sha256)
[[ $pin_commit =~ ^[0-9a-f]{40}$ ]] || die "$here/mhvtl.pin: commit= is '$pin_commit', not 40 hex digits"
[[ $pin_sha256 =~ ^[0-9a-f]{64}$ ]] || die "$here/mhvtl.pin: sha256= is '$pin_sha256', not 64 hex digits"
url=${TAPEBUF_MHVTL_URL:-$(pin url)}
shared=$(cd "$repo/.." && pwd)/shared/tapelab
cache=${XDG_CACHE_HOME:-${HOME:?}/.cache}/tapebuf
cached=$cache/mhvtl-$pin_commit.tar.gz
fetch_limit=120

# The commit a git archive names in its first header, or nothing.
tar_commit() { gzip -dc "$1" 2>/dev/null | git get-tar-commit-id 2>/dev/null || true; }

# Clones $url and archives the pinned commit from it into $cached. Git names
# every object by the hash of its content, so the archive holds exactly the
# pinned commit's tree. Returns 1, with $fetch_failed saying why, when the
# clone fails; dies when the clone has no such commit.
fetch_mhvtl() {
    command -v git >/dev/null || { fetch_failed="git is not installed (apt-get install git)"; return 1; }
    mkdir -p "$cache" 2>/dev/null || { fetch_failed="cannot create $cache"; return 1; }
    local tmp rc=0
    tmp=$(mktemp -d "$cache/.clone.XXXXXX")
    say "cloning $url (at most $fetch_limit s)"
    GIT_TERMINAL_PROMPT=0 timeout -k 5 "$fetch_limit" git clone --quiet --bare -- "$url" "$tmp/mhvtl.git" \
        </dev/null >&2 || rc=$?
    if [ "$rc" != 0 ]; then
        rm -rf "$tmp"
        fetch_failed="git clone $url failed (status $rc)"
        [ "$rc" = 124 ] && fetch_failed="git clone $url took longer than $fetch_limit s"
        return 1
    fi
    if ! git -C "$tmp/mhvtl.git" cat-file -e "$pin_commit^{commit}" 2>/dev/null; then
        rm -rf "$tmp"
        die "$url has no commit $pin_commit, which $here/mhvtl.pin pins"
    fi
    git -C "$tmp/mhvtl.git" archive --format=tar.gz --prefix="mhvtl-$pin_commit/" \
        -o "$tmp/mhvtl.tar.gz" "$pin_commit"
    mv "$tmp/mhvtl.tar.gz" "$cached"
    rm -rf "$tmp"
}

src='' from=''
if [ -n "${MHVTL_SRC:-}" ]; then
    [ -e "$MHVTL_SRC" ] || die "\$MHVTL_SRC is $MHVTL_SRC, which does not exist"
    src=$MHVTL_SRC from="\$MHVTL_SRC, used unchecked"
fi
if [ -z "$src" ]; then
    mismatches=()
    for f in "$shared"/mhvtl-*.tar.gz; do
        [ -e "$f" ] || continue
        digest=$(sha256sum "$f" | cut -d' ' -f1)
        if [ "$digest" = "$pin_sha256" ]; then
            src=$f from="sha256 as pinned"
            break
        fi
        mismatches+=("$f has sha256 $digest; $here/mhvtl.pin says $pin_sha256")
    done
    if [ -z "$src" ] && [ "${#mismatches[@]}" -gt 0 ]; then
        for m in "${mismatches[@]}"; do say "ERROR: $m"; done
        die "no mhvtl tarball in $shared is the pinned one (to build another mhvtl, set \$MHVTL_SRC to it)"
    fi
fi
if [ -z "$src" ] && [ -e "$cached" ]; then
    command -v git >/dev/null || die "git is missing (apt-get install git); it checks $cached"
    got=$(tar_commit "$cached")
    [ "$got" = "$pin_commit" ] ||
        die "$cached is no git archive of the pinned commit $pin_commit (it names '${got:-no commit}'); remove it"
    src=$cached from="cached, a git archive of the pinned commit"
fi
fetch_failed=''
if [ -z "$src" ] && fetch_mhvtl; then
    src=$cached from="cloned from $url at the pinned commit"
fi
if [ -z "$src" ]; then
    q() { printf '%q' "$1"; }
    cat >&2 <<MSG
tapelab: ERROR: no mhvtl source. Looked for, in order:
tapelab:   \$MHVTL_SRC: unset
tapelab:   $shared/mhvtl-*.tar.gz: none
tapelab:   $cached: none
tapelab:   a clone of $url: $fetch_failed
tapelab: The lab builds mhvtl (GPL-2) at the commit in $here/mhvtl.pin. On a
tapelab: machine that reaches $url, run:
tapelab:   git clone $url mhvtl
tapelab:   git -C mhvtl archive --format=tar.gz --prefix=mhvtl/ -o mhvtl-$pin_commit.tar.gz $pin_commit
tapelab: copy mhvtl-$pin_commit.tar.gz to this machine, and here run:
tapelab:   mkdir -p $(q "$cache") && cp mhvtl-$pin_commit.tar.gz $(q "$cache")/
tapelab: then run this again. (Or set \$MHVTL_SRC to any mhvtl tree or tarball; it is used unchecked.)
tapelab: The lab never skips; exit status 3 says it could not start.
tapelab: 0 passed, 0 failed
MSG
    exit 3
fi
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
say "mhvtl: $src ($from)"
if [ "${1:-}" = source ]; then
    echo "$src"
    exit 0
fi

# --- kernel -----------------------------------------------------------------
kver=${LAB_KERNEL:-}
if [ -z "$kver" ]; then
    for v in $(ls /lib/modules 2>/dev/null | sort -V); do
        if [ -r "/boot/vmlinuz-$v" ] && [ -d "/lib/modules/$v/build" ] &&
           ls /lib/modules/"$v"/kernel/drivers/scsi/st.ko* >/dev/null 2>&1; then
            kver=$v
        fi
    done
fi
[ -n "$kver" ] || die "no kernel with st.ko, readable /boot/vmlinuz-VER and headers (install linux-image-6.12-amd64 and linux-headers-6.12-amd64; /boot/vmlinuz-* must be readable, run as root)"
kimg=/boot/vmlinuz-$kver
kmods=/lib/modules/$kver
for tool in qemu-system-x86_64 busybox make gcc mtx mt sg_inq sg_raw; do
    command -v "$tool" >/dev/null || die "$tool is missing (see tests/tapelab/README.md for the packages)"
done

# --- build mhvtl, cached on the source checksum and the kernel -------------
# Its configuration and cartridges live under /run/mhvtl (a tmpfs in the
# guest), since the guest's / is the host's, read-only, without /etc/mhvtl.
if [ -d "$src" ]; then
    sum=$(cd "$src" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '*.d' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
else
    sum=$(sha256sum "$src" | cut -c1-16)
fi
mh=$work/mhvtl-$sum-run1-$kver
if [ ! -e "$mh/.built" ]; then
    say "building mhvtl from $src for $kver"
    rm -rf "$mh"
    mkdir -p "$mh/src"
    if [ -d "$src" ]; then
        cp -a "$src/." "$mh/src/"
    else
        tar -xzf "$src" -C "$mh/src" --strip-components=1
    fi
    (
        make -C "$mh/src/kernel" KDIR="$kmods/build" >"$mh/build-kernel.log" 2>&1 &&
        make -C "$mh/src/usr" -j"$(nproc)" \
            MHVTL_CONFIG_PATH=/run/mhvtl/etc MHVTL_HOME_PATH=/run/mhvtl/tapes >"$mh/build-usr.log" 2>&1
    ) || { tail -30 "$mh"/build-*.log >&2; die "mhvtl did not build (logs in $mh)"; }
    mkdir -p "$mh/bin" "$mh/lib"
    cp "$mh/src/kernel/mhvtl.ko" "$mh/"
    cp "$mh/src/usr/libvtlscsi.so" "$mh/lib/"
    for b in vtltape vtllibrary vtlcmd mktape edit_tape dump_tape; do
        cp "$mh/src/usr/bin/$b" "$mh/bin/"
    done
    touch "$mh/.built"
fi

# --- tapebuf ---------------------------------------------------------------
bin=${TAPEBUF_BIN:-$repo/target/release/tapebuf}
if [ ! -x "$bin" ]; then
    say "building tapebuf (cargo build --release --locked)"
    (cd "$repo" && cargo build --release --locked) >&2 || die "tapebuf did not build"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# --- initramfs --------------------------------------------------------------
ird=$work/initramfs-$kver
irf=$work/initramfs-$kver.cpio
if [ ! -e "$irf" ] || [ "$here/guest/init" -nt "$irf" ]; then
    rm -rf "$ird"
    mkdir -p "$ird/bin" "$ird/lib/modules" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/host"
    cp "$(command -v busybox)" "$ird/bin/busybox"
    ln -s busybox "$ird/bin/sh"
    for m in netfs 9pnet 9pnet_virtio 9p; do
        f=$(modinfo -k "$kver" -n "$m")
        case "$f" in
            *.xz) xz -dc "$f" >"$ird/lib/modules/$m.ko" ;;
            *.zst) zstd -qdc "$f" >"$ird/lib/modules/$m.ko" ;;
            *.gz) gzip -dc "$f" >"$ird/lib/modules/$m.ko" ;;
            *) cp "$f" "$ird/lib/modules/$m.ko" ;;
        esac
    done
    cp "$here/guest/init" "$ird/init"
    chmod 755 "$ird/init"
    (cd "$ird" && find . | busybox cpio -o -H newc 2>/dev/null) >"$irf.tmp"
    mv "$irf.tmp" "$irf"
fi

# --- run ------------------------------------------------------------------
out=$work/out
rm -rf "$out"
mkdir -p "$out"
mode=suite
cases=("$@")
if [ "${1:-}" = shell ]; then mode=shell; cases=(); fi
# `findings [SECTION...]`: all of guest/findings.sh, or only its named
# sections (st, changer).
if [ "${1:-}" = findings ]; then mode=findings; cases=("${@:2}"); fi
# `bench [ktls|lbp|encryption]`: every benchmark, or only the kernel-TLS,
# the logical block protection or the encryption one.
if [ "${1:-}" = bench ]; then mode=bench; cases=("${@:2}"); fi
# `ci`: only suite.sh's CI_CASES, the part of the lab that CI runs.
if [ "${1:-}" = ci ]; then cases=(--ci); fi
# The guest sees the repository (read-only) at /mnt/repo and this work
# directory (writable) at /mnt/lab, wherever they are on the host: its own
# /tmp, /run, /var/tmp and /root would hide a checkout under those.
{
    echo "LAB_MODE=$mode"
    echo "LAB_CASES='${cases[*]:-}'"
    echo "LAB_MHVTL=/mnt/lab/${mh#"$work"/}"
    echo "LAB_HERE=/mnt/repo/${here#"$repo"/}"
    echo "LAB_OUT=/mnt/lab/out"
    echo "TAPEBUF_BIN=/mnt/lab/out/tapebuf"
} >"$out/env"
gcc -O2 -Wall -o "$out/mtprobe" "$here/guest/mtprobe.c" || die "mtprobe did not build"
gcc -O2 -Wall -o "$out/chprobe" "$here/guest/chprobe.c" || die "chprobe did not build"
# A copy: the binary under test may be anywhere, and the guest sees only
# the repository and the work directory for sure.
cp "$bin" "$out/tapebuf"

say "booting $kver under TCG (mhvtl $sum, tapebuf $bin)"
# The whole suite takes about 20 minutes under TCG here, more on a slower
# machine; the CI set about 5.
if [ "${cases[*]:-}" = --ci ]; then limit=${LAB_TIMEOUT:-1200}; else limit=${LAB_TIMEOUT:-2700}; fi
qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 3G -smp 2 -nographic -no-reboot -nic none
      -kernel "$kimg" -initrd "$irf"
      -append "console=ttyS0 quiet panic=-1"
      -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap
      -virtfs local,path="$repo",mount_tag=repo,security_model=none,readonly=on,multidevs=remap
      -virtfs local,path="$work",mount_tag=lab,security_model=none,multidevs=remap)
start=$(date +%s)
set +e
if [ "$mode" = shell ]; then
    "${qemu[@]}"
    exit $?
fi
timeout --foreground -k 10 "$limit" "${qemu[@]}" </dev/null >"$out/console.log" 2>&1
qrc=$?
set -e
say "VM ended after $(( $(date +%s) - start )) s (qemu status $qrc); console in $out/console.log"
[ "$qrc" = 124 ] && say "ERROR: the VM was stopped by the $limit s timeout"

res=$out/results
if [ "$mode" = findings ]; then
    cat "$out/findings.log" 2>/dev/null || die "no findings.log"
    exit 0
fi
if [ "$mode" = bench ]; then
    cat "$out/bench.log" 2>/dev/null || die "no bench.log"
    grep -q '^DONE' "$res" 2>/dev/null || die "the benchmark did not finish (see $out/console.log)"
    ! awk '$1 == "BENCH" && $4 != 0 {bad = 1} END {exit !bad}' "$res" || die "a benchmark run failed"
    exit 0
fi
if [ ! -s "$res" ]; then
    tail -40 "$out/console.log" >&2 || true
    die "the VM never reported results"
fi
pass=0 fail=0
while read -r verdict name secs; do
    case "$verdict" in
        PASS) pass=$((pass + 1)); printf 'ok   %-70s %ss\n' "$name" "$secs" ;;
        FAIL) fail=$((fail + 1)); printf 'FAIL %-70s %ss\n' "$name" "$secs" ;;
    esac
done <"$res"
for name in $(awk '$1 == "FAIL" {print $2}' "$res"); do
    echo "----- log of $name -----"
    cat "$out/cases/$name.log" 2>/dev/null || echo "(no log)"
done
if ! grep -q '^DONE' "$res"; then
    say "ERROR: the suite did not finish (see $out/console.log)"
    fail=$((fail + 1))
fi
[ "$qrc" = 0 ] || [ "$qrc" = 124 ] || say "note: qemu exited with $qrc"
echo "tapelab: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
exit
}
