//! Real mbuffer command lines, taken from the tools and scripts that use
//! mbuffer, run with tapebuf in mbuffer's place: the bytes arrive exactly,
//! or tapebuf refuses the line in one line that names its own way.
//!
//! Each case names where its line came from. A line runs as written, with
//! the word `mbuffer` replaced by tapebuf and, where the line named them,
//! hosts replaced by 127.0.0.1 ($HOST), ports ($PORT, $PORT2) by 0 for a
//! receiver (any free port) and by the port it bound for a sender,
//! tapes by files ($TAPE) and log files by files ($LOG, $LOG2); both ends
//! of a transfer between tapebufs get `--plain`, tapebuf's framed stream
//! in clear text, as `-I` and `-O` without a key need. What
//! surrounded mbuffer in its pipeline (tar, zfs send, ssh, zfs receive) is
//! the test's own bytes on standard input and a digest of standard output.
//! Where a line was a template, its placeholders are filled with values
//! small enough for a test, and the case says so.

#[allow(dead_code)]
use crate::network::harness;
mod refused;
mod scene;

use scene::{mbuffer_md5_line, md5_hex, Scene};

#[test]
fn mbuffer_man_page_tape_backup_with_a_temporary_file_buffer() {
    // mbuffer(1), EXAMPLES: tar cf - mydirectory | gzip |
    // mbuffer -t -m 10M -P 80 -f -o $TAPE
    let s = Scene::new();
    s.old_tape();
    s.expect_through(&["mbuffer -t -m 10M -P 80 -f -o $TAPE"]);
}

#[test]
fn mbuffer_man_page_tape_backup_overwriting_the_tape() {
    // mbuffer(1), EXAMPLES: tar cf - /usr | mbuffer -f -o $TAPE
    let s = Scene::new();
    s.old_tape();
    s.expect_through(&["mbuffer -f -o $TAPE"]);
}

#[test]
fn mbuffer_man_page_restore_from_three_volumes() {
    // mbuffer(1), EXAMPLES: mbuffer -n 3 -i $TAPE | gzip -dc | tar xf -
    // The three cartridges are three numbered files.
    let s = Scene::new();
    let data = scene::data();
    s.volumes(&data, 3);
    let out = s.pipeline(&["mbuffer -n 3 -i $VOLUMES"], Vec::new());
    out.all_succeed();
    assert_eq!(out.stdout_digest(), scene::digest(&data));
}

#[test]
fn syncoid_local_replication_buffer() {
    // jimsalterjrs/sanoid, syncoid: $mbufferoptions = "-q -s 128k -m 16M",
    // and "$mbuffercmd $bwlimit $mbufferoptions" between zfs send and recv.
    Scene::new().expect_through(&["mbuffer -q -s 128k -m 16M"]);
}

#[test]
fn syncoid_local_replication_with_a_bandwidth_limit() {
    // jimsalterjrs/sanoid, syncoid: --source-bwlimit=10m becomes "-R 10m"
    // before $mbufferoptions.
    Scene::new().expect_through(&["mbuffer -R 10m -q -s 128k -m 16M"]);
}

#[test]
fn zfs_autobackup_send_and_receive_buffers_with_a_rate() {
    // psy0rz/zfs_autobackup, zfs_autobackup/ZfsAutobackup.py,
    // get_send_pipes and get_recv_pipes: "mbuffer -q -s{cs} -m{buffer}
    // -R{rate}" on the send side and "mbuffer -q -s{cs} -m{buffer}" on the
    // receive side; the defaults 128k and 16M, --rate 8M.
    Scene::new().expect_through(&["mbuffer -q -s128k -m16M -R8M", "mbuffer -q -s128k -m16M"]);
}

#[test]
fn ssh_and_mbuffer_on_both_ends() {
    // https://ben.akrin.com/zfs-sendreceive-accross-different-transport-mechanisms/
    // zfs send ... | mbuffer -q -v 0 -s 128k -m 1G | ssh root@receiver
    // 'mbuffer -s 128k -m 1G | zfs receive tank/new_volume' (ssh is a pipe).
    Scene::new().expect_through(&["mbuffer -q -v 0 -s 128k -m 1G", "mbuffer -s 128k -m 1G"]);
}

#[test]
fn pytp_tape_write_with_a_log_file_and_two_verbosity_levels() {
    // mnott/pytp, pytp/tape_backup.py: "cat {tar_path} | mbuffer -P
    // {memory_buffer_percent} -m {memory_buffer} -s {block_size} -v 1 -o
    // {device_path} -l {dd_log_path} -v 3"; percent 20 and block 524288 as
    // there, the memory 64M instead of its default 16G.
    let s = Scene::new();
    s.expect_through(&["mbuffer -P 20 -m 64M -s 524288 -v 1 -o $TAPE -l $LOG -v 3"]);
    let log = s.read_log("$LOG");
    let last = log.lines().last().unwrap_or_default();
    assert!(last.starts_with("tapebuf: summary: in "), "{log}");
}

#[test]
fn drive2ftp_reads_the_md5_hash_line_from_the_log_file() {
    // voron/drive2ftp, drive2ftp.sh: dd ... | $MBUFFER $SRC_MD5 -q -m
    // $DRIVE_BUF -l $DB_LOG | $GZIP ... | $MBUFFER --md5 -q -m $GZIP_BUF -l
    // $GB_LOG | $CURL -T - ..., then GZIP_HASH=$(awk '/MD5 hash/ {print $3}'
    // $GB_LOG); DRIVE_BUF=100M, GZIP_BUF=20M, SRC_MD5 empty, no gzip here.
    let s = Scene::new();
    s.expect_through(&[
        "mbuffer -q -m 100M -l $LOG",
        "mbuffer --md5 -q -m 20M -l $LOG2",
    ]);
    let want = md5_hex(&scene::data());
    assert_eq!(mbuffer_md5_line(&s.read_log("$LOG2")), Some(want));
    assert_eq!(mbuffer_md5_line(&s.read_log("$LOG")), None);
}

#[test]
fn mbuffer_man_page_network_backup_to_a_tape_server() {
    // mbuffer(1), EXAMPLES: tape server: mbuffer -I 8000 -f -o $TAPE;
    // backup client: tar zcf - /home | mbuffer -O tapeserver:8000
    let s = Scene::new();
    s.old_tape();
    s.expect_sent(&["mbuffer -I $PORT -f -o $TAPE"], "mbuffer -O $HOST:$PORT");
}

#[test]
fn mbuffer_man_page_distributing_a_tree_to_two_clones() {
    // mbuffer(1), EXAMPLES: master: tar cf - /tree_to_clone | mbuffer -O
    // clone0:8000 -O clone1:8000; clones: mbuffer -I master:8000 | tar xf -
    // (two clones on one machine: two ports).
    Scene::new().expect_sent(
        &["mbuffer -I $HOST:$PORT", "mbuffer -I $HOST:$PORT2"],
        "mbuffer -O $HOST:$PORT -O $HOST:$PORT2",
    );
}

#[test]
fn znapzend_port_to_port_transfer_over_ipv4_with_a_rate_limit() {
    // oetiker/znapzend, lib/ZnapZend/ZFS.pm: mbufferParam "-q -s 256k -W
    // 600 -m", the size (1G by default), then "-4 -I $port" to receive and
    // "-O $remote:$port" to send; README.md: --mbufferparam='-R 10M'.
    Scene::new().expect_sent(
        &["mbuffer -q -s 256k -W 600 -m 1G -4 -I $PORT"],
        "mbuffer -q -s 256k -W 600 -m 1G -R 10M -O $HOST:$PORT",
    );
}

#[test]
fn fast_zfs_send_receiver_names_its_sender() {
    // https://blog.gsheehan.xyz/2024/08/02/fast-zfs-send: mbuffer -s 128k
    // -m 1G -I backup-src:9001 | zfs recv tank/backup, and zfs send ... |
    // mbuffer -s 128k -m 1G -O backup-dest:9001
    Scene::new().expect_sent(
        &["mbuffer -s 128k -m 1G -I $HOST:$PORT"],
        "mbuffer -s 128k -m 1G -O $HOST:$PORT",
    );
}

#[test]
fn mbuffer_transport_between_two_hosts() {
    // https://ben.akrin.com/zfs-sendreceive-accross-different-transport-mechanisms/
    // receiver: mbuffer -s 128k -m 1G-I 1337 (sic: "-m 1G -I 1337");
    // sender: mbuffer -s 128k -m 1G -O receiver.domain.com:1337
    Scene::new().expect_sent(
        &["mbuffer -s 128k -m 1G -I $PORT"],
        "mbuffer -s 128k -m 1G -O $HOST:$PORT",
    );
}

#[test]
fn zfsrestore_prints_the_same_md5_hash_on_both_ends() {
    // zfsrestore.sh 1.1 (Tristram Scott, April 2018; a public script):
    // ssh ... "cat ... | mbuffer -q -H -s 128k -m 1G -O ${thishost}:${port}"
    // and mbuffer -q -H -s 128k -m 1G -4 -I ${port} | $ZFS receive ...
    let s = Scene::new();
    let (receivers, sender) = s.expect_sent(
        &["mbuffer -q -H -s 128k -m 1G -4 -I $PORT"],
        "mbuffer -q -H -s 128k -m 1G -O $HOST:$PORT",
    );
    let want = md5_hex(&scene::data());
    assert_eq!(mbuffer_md5_line(&sender), Some(want.clone()), "{sender}");
    assert_eq!(
        mbuffer_md5_line(&receivers[0]),
        Some(want),
        "{}",
        receivers[0]
    );
}

#[test]
fn syncoid_direct_connection_refuses_socat_and_names_raw() {
    // jimsalterjrs/sanoid, syncoid, --insecure-direct-connection=...,mbuffer:
    // "$mbuffercmd $args{'target-bwlimit'} -W $directtimeout -I
    // $directlisten $mbufferoptions" receives from "socat - TCP:...": a
    // sender without tapebuf's framing, taken only with --raw.
    let line = "mbuffer  -W 60 -I $HOST:$PORT -q -s 128k -m 16M";
    let s = Scene::new();
    let refusal = s.raw_sender_refused(line);
    assert!(refusal.starts_with("tapebuf: -I 127.0.0.1:"), "{refusal}");
    assert!(
        refusal.ends_with(
            ": it did not begin with a tapebuf stream header (to take a raw stream from mbuffer, nc or socat, start the receiver with --raw); still waiting for the sender"
        ),
        "{refusal}"
    );
    Scene::new().expect_raw_received(&format!("{line} --raw"));
}

#[test]
fn zfs_autobackup_test_buffer_of_4096_bytes_is_refused_naming_the_block_size() {
    // psy0rz/zfs_autobackup, tests/test_zfsautobackup.py:
    // ["mbuffer", "-R1M", "-m4096", "-o", "/dev/null"]
    Scene::new().expect_refused(
        "mbuffer -R1M -m4096 -o /dev/null",
        "tapebuf: -m/--memory: 4.00 KiB holds fewer than 2 blocks of the default 256.00 KiB; give a smaller -s/--block-size",
    );
}

#[test]
fn tapeaware_run_with_a_file_buffer_larger_than_memory_is_refused_naming_t() {
    // A public tape backup script (tar | age | mbuffer to an autoloader):
    // mbuffer --tapeaware -P 95 -m 800G -T /mnt/app2/home/autoloader -s
    // 524288 -o /dev/nst0 -A "/mnt/app2/home/tapeManagementScripts/autoLoaderNext.sh"
    let memory = tapebuf::config::MachineInfo::current().physical_memory_bytes;
    if memory >= 800 << 30 {
        return; // the ring would fit: nothing to refuse on this machine
    }
    Scene::new().expect_refused(
        "mbuffer --tapeaware -P 95 -m 800G -T $TAPE.buffer -s 524288 -o $TAPE -A /mnt/app2/home/tapeManagementScripts/autoLoaderNext.sh",
        &format!(
            "tapebuf: -T: tapebuf keeps its buffer in memory, never in a file, and -m/--memory: 800.00 GiB is more than this machine's {} of physical memory; use a -m that fits in memory",
            tapebuf::base::size::Bytes(memory)
        ),
    );
}
