//! The rmt benchmark's contenders: who writes the stream to the far end
//! (tapebuf, GNU tar's rmt client, or the raw stream with no rmt at all),
//! the command lines that do it, and the bytes the server must then hold.
//! The command lines shown in the table's header are the ones run.

use std::path::{Path, PathBuf};

use crate::settings::Settings;

pub const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// The real server, GNU tar's rmt.
pub const RMT_SERVER: &str = "/usr/sbin/rmt-tar";
/// tar's record with `-b 20`.
pub const TAR_RECORD_BYTES: u64 = 20 * 512;

/// What writes the stream to the far end.
pub enum Client {
    /// tapebuf, with these arguments besides the common ones.
    Tapebuf(Vec<String>),
    /// GNU tar's own rmt client, `-b 20`.
    Tar,
    /// No rmt at all: `dd | relay HOST 'cat > OUT'`, or with tapebuf
    /// writing to its standard output in place of dd.
    Raw(Sender),
}

/// What feeds the raw stream.
#[derive(Clone, Copy)]
pub enum Sender {
    /// dd, with the same block size: the stream with no buffer at all.
    Dd,
    /// tapebuf with the same ring, to its standard output: the stream with
    /// the buffer's own cost and none of the protocol's.
    Tapebuf,
}

/// One row of the table: a client writing one input.
pub struct Contender {
    pub name: String,
    pub client: Client,
    pub input: PathBuf,
    pub input_bytes: u64,
}

/// What every run shares.
pub struct Setup {
    /// This binary, which is also the relay.
    pub exe: String,
    /// A one-word remote shell for tar, which execs the relay.
    pub tar_rsh: PathBuf,
    pub memory: String,
    pub block: String,
}

impl Contender {
    /// The bytes the server must have written.
    pub fn output_bytes(&self) -> u64 {
        match self.client {
            // A header block, the data padded to 512, two zero blocks, all
            // padded to whole records.
            Client::Tar => (512 + self.input_bytes.next_multiple_of(512) + 1024)
                .next_multiple_of(TAR_RECORD_BYTES),
            _ => self.input_bytes,
        }
    }

    /// The command line that writes `out`, as a shell would read it.
    pub fn shown(&self, setup: &Setup, out: &Path) -> String {
        let quote = |words: &[String]| -> String {
            let quoted: Vec<String> = words
                .iter()
                .map(|w| {
                    if w.contains(|c: char| c.is_whitespace() || "'>|;&$".contains(c)) {
                        format!("'{w}'")
                    } else {
                        w.clone()
                    }
                })
                .collect();
            quoted.join(" ")
        };
        match self.client {
            Client::Raw(sender) => {
                let (dd, relay) = self.raw_commands(sender, setup, out);
                format!("{} | {}", quote(&dd), quote(&relay))
            }
            _ => quote(&self.command(setup, out)),
        }
    }

    /// The command line that writes `out` (not for the raw stream, which
    /// is two: see `raw_commands`).
    pub fn command(&self, setup: &Setup, out: &Path) -> Vec<String> {
        let input = self.input.display().to_string();
        let remote = format!("localhost:{}", out.display());
        match &self.client {
            Client::Tapebuf(extra) => {
                let common = [
                    TAPEBUF,
                    "-q",
                    "-f",
                    "-i",
                    &input,
                    "-o",
                    &remote,
                    "-m",
                    &setup.memory,
                    "--rsh-command",
                    &format!("{} relay", setup.exe),
                    "--rmt-command",
                    RMT_SERVER,
                ];
                common
                    .iter()
                    .map(|s| s.to_string())
                    .chain(extra.clone())
                    .collect()
            }
            Client::Tar => {
                let (dir, name) = split_path(&self.input);
                [
                    "tar",
                    "cf",
                    &remote,
                    &format!("--rsh-command={}", setup.tar_rsh.display()),
                    &format!("--rmt-command={RMT_SERVER}"),
                    "-b",
                    "20",
                    "-C",
                    &dir,
                    &name,
                ]
                .iter()
                .map(|s| s.to_string())
                .collect()
            }
            Client::Raw(_) => unreachable!("the raw stream is two commands"),
        }
    }

    /// For the raw stream: the sender's and the relay's command lines.
    pub fn raw_commands(
        &self,
        sender: Sender,
        setup: &Setup,
        out: &Path,
    ) -> (Vec<String>, Vec<String>) {
        let input = self.input.display().to_string();
        let words: &[&str] = match sender {
            Sender::Dd => &[
                "dd",
                &format!("if={input}"),
                &format!("bs={}", setup.block),
                "status=none",
            ],
            Sender::Tapebuf => &[
                TAPEBUF,
                "-q",
                "-i",
                &input,
                "-m",
                &setup.memory,
                "-s",
                &setup.block,
            ],
        };
        let dd = words.iter().map(|w| w.to_string()).collect();
        let relay = vec![
            setup.exe.clone(),
            "relay".to_string(),
            "localhost".to_string(),
            format!("cat > {}", out.display()),
        ];
        (dd, relay)
    }
}

pub fn split_path(path: &Path) -> (String, String) {
    let dir = path.parent().unwrap().display().to_string();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (dir, name)
}

/// Where each contender stands in `lineup`, for the ratios and targets.
pub const TB: usize = 0;
pub const LOCK_STEP: usize = 2;
pub const TAR: usize = 3;
pub const RAW: usize = 4;
pub const RAW_TAPEBUF: usize = 5;

/// The contenders, in the table's order: tapebuf pipelined (with the
/// window asked for), with tar's 10 KiB blocks and in lock-step, tar, and
/// the raw stream from dd and from tapebuf. The lock-step ones write `slow`.
pub fn lineup(settings: &Settings, full: &Path, slow: &Path) -> Vec<Contender> {
    let (block, window) = (&settings.block, &settings.window);
    let (mib, slow_mib) = (settings.mib, settings.slow_mib);
    let mut pipelined = vec!["-s".to_string(), block.clone()];
    let mut name = "tapebuf".to_string();
    if !window.is_empty() {
        pipelined.extend(["--rmt-window".to_string(), window.clone()]);
        name = format!("tapebuf w{window}");
    }
    let tapebuf = |name: &str, args: &[String], input: &Path, mib: u64| Contender {
        name: name.to_string(),
        client: Client::Tapebuf(args.to_vec()),
        input: input.to_path_buf(),
        input_bytes: mib << 20,
    };
    vec![
        tapebuf(&name, &pipelined, full, mib),
        tapebuf("tb -s 10k", &["-s".into(), "10k".into()], full, mib),
        tapebuf(
            "lock-step",
            &[
                "-s".into(),
                block.clone(),
                "--rmt-window".into(),
                "1".into(),
            ],
            slow,
            slow_mib,
        ),
        Contender {
            name: "tar -b 20".into(),
            client: Client::Tar,
            input: slow.to_path_buf(),
            input_bytes: slow_mib << 20,
        },
        Contender {
            name: "raw relay".into(),
            client: Client::Raw(Sender::Dd),
            input: full.to_path_buf(),
            input_bytes: mib << 20,
        },
        Contender {
            name: "raw tapebuf".into(),
            client: Client::Raw(Sender::Tapebuf),
            input: full.to_path_buf(),
            input_bytes: mib << 20,
        },
    ]
}
