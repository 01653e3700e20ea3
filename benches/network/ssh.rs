//! The ssh pair of the network benchmark: what users do today to make a
//! stream private, `ssh -c aes128-gcm@openssh.com host 'cat > /dev/null'`,
//! against an sshd of the bench's own on a loopback port.
//!
//! The sshd runs in debug mode (`-d`): it serves one connection without
//! forking into the background and then exits, so the bench reaps it like
//! any receiver, and its CPU includes the session and `cat` it reaped.
//! It needs the `openssh-server` package; without it the pair is left
//! out and the table says so.

use std::path::{Path, PathBuf};
use std::process::Command;

const SSHD: &str = "/usr/sbin/sshd";

/// A host key, a client key allowed in, and an sshd configuration, in a
/// directory of the caller's.
pub struct Ssh {
    config: PathBuf,
    identity: PathBuf,
}

/// Makes an ed25519 key pair at `file` and `file.pub`.
fn keygen(file: &Path) {
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(file)
        .status()
        .expect("ssh-keygen runs");
    assert!(made.success(), "ssh-keygen -f {}", file.display());
}

/// The exit codes that end `program` normally as a receiver: sshd in
/// debug mode ends its one session with 255.
pub fn normal_ends(program: &str) -> &'static [i32] {
    match program == SSHD {
        true => &[0, 255],
        false => &[0],
    }
}

impl Ssh {
    /// The ssh fixtures in `dir`, or why the pair cannot run here.
    pub fn new(dir: &Path) -> Result<Ssh, String> {
        if !Path::new(SSHD).exists() {
            return Err(format!("no {SSHD} (apt-get install -y openssh-server)"));
        }
        // sshd refuses to start without its privilege-separation dir.
        std::fs::create_dir_all("/run/sshd").map_err(|e| format!("/run/sshd: {e}"))?;
        let (host, identity) = (dir.join("ssh-host"), dir.join("ssh-user"));
        keygen(&host);
        keygen(&identity);
        let allowed = dir.join("authorized_keys");
        std::fs::copy(identity.with_extension("pub"), &allowed).expect("authorized_keys");
        let config = dir.join("sshd_config");
        let text = format!(
            "ListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\n\
             StrictModes no\nUsePAM no\nPidFile none\nPermitRootLogin prohibit-password\n",
            host.display(),
            allowed.display()
        );
        std::fs::write(&config, text).expect("sshd_config");
        Ok(Ssh { config, identity })
    }

    /// The receiver's and the sender's command lines, with PORT for the
    /// port, as the bench's other pairs have them.
    pub fn commands(&self) -> (Vec<String>, Vec<String>) {
        let config = self.config.display().to_string();
        let identity = self.identity.display().to_string();
        let rx = [SSHD, "-d", "-e", "-f", &config, "-p", "PORT"];
        let tx = [
            "ssh",
            "-F",
            "/dev/null",
            "-c",
            "aes128-gcm@openssh.com",
            "-p",
            "PORT",
            "-i",
            &identity,
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "LogLevel=ERROR",
            "127.0.0.1",
            "cat > /dev/null",
        ];
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        (owned(&rx), owned(&tx))
    }
}
