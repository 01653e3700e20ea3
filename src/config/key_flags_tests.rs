//! A network stream is private unless the user says otherwise: every
//! endpoint with every way to ask for clear text, and every key file the
//! defaults need, missing or present, in a tapebuf directory of its own.

use super::*;
use crate::keys::KeyPair;
use crate::net::addr::{ListenAddr, PeerAddr};
use crate::net::facts::Privacy;
use clap::Parser;

fn cli(args: &[&str]) -> Cli {
    let mut argv = vec!["tapebuf"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).unwrap()
}

/// A tapebuf directory under a fresh temporary one.
struct Home {
    _dir: tempfile::TempDir,
    home: KeyHome,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = KeyHome::from_vars(Some(dir.path().to_path_buf()), None).unwrap();
        home.make_dir().unwrap();
        Home { _dir: dir, home }
    }

    fn with_key(self) -> (Home, KeyPair) {
        let pair = KeyPair::generate().unwrap();
        pair.write_new(&self.home.key()).unwrap();
        (self, pair)
    }

    fn check(&self, args: &[&str]) -> Result<Option<TlsSettings>, ConfigError> {
        let c = cli(args);
        let input = match args.iter().position(|a| *a == "-I") {
            Some(i) => InputSpec::Listen(ListenAddr::parse(args[i + 1]).unwrap()),
            None => InputSpec::Stdin,
        };
        let outputs: Vec<OutputSpec> = (args.windows(2))
            .filter(|w| w[0] == "-O")
            .map(|w| OutputSpec::Connect(PeerAddr::parse(w[1]).unwrap()))
            .collect();
        let home = self.home.clone();
        check_keys(&c, &input, &outputs, &move || Ok(home.clone()))
    }
}

fn peer(text: &str) -> PeerAddr {
    PeerAddr::parse(text).unwrap()
}

/// Each endpoint, as typed.
const ENDPOINTS: [[&str; 2]; 2] = [["-I", "9090"], ["-O", "vault:9090"]];

/// The flags that ask for each kind of stream, for every kind there is.
fn asking_for(privacy: Privacy) -> &'static [&'static str] {
    match privacy {
        Privacy::Tls => &[],
        Privacy::Plain => &["--plain"],
        Privacy::Raw => &["--raw"],
    }
}

#[test]
fn no_endpoint_goes_out_in_clear_text_unless_asked() {
    for privacy in Privacy::ALL {
        for endpoint in ENDPOINTS {
            let home = Home::new();
            let args = [&endpoint[..], asking_for(privacy)].concat();
            let got = home.check(&args);
            match privacy {
                Privacy::Tls => {
                    let e = got.expect_err("refused without a key");
                    assert_eq!(e.flag, endpoint.join(" "), "{args:?}: {e}");
                    assert!(e.why.contains("private by default"), "{e}");
                    assert!(e.why.contains(&*home.home.key().to_string_lossy()), "{e}");
                    assert!(e.why.contains("tapebuf key new") && e.why.contains("--plain"));
                }
                Privacy::Plain | Privacy::Raw => {
                    assert_eq!(got.unwrap(), None, "{args:?}")
                }
            }
        }
    }
}

#[test]
fn a_sender_with_a_key_but_no_pin_names_the_receivers_file_and_the_line_to_add() {
    let (home, _) = Home::new().with_key();
    let e = home.check(&["-O", "vault:9090"]).unwrap_err();
    assert_eq!(e.flag, "-O vault:9090");
    assert!(e.why.contains("'vault:9090 FINGERPRINT'"), "{e}");
    assert!(
        e.why.contains(&*home.home.receivers().to_string_lossy()),
        "{e}"
    );
}

#[test]
fn a_sender_takes_its_pin_from_the_receivers_file_by_host_and_port() {
    let (home, _) = Home::new().with_key();
    let rx = KeyPair::generate().unwrap().fingerprint();
    let other = KeyPair::generate().unwrap().fingerprint();
    let lines = format!("# pins\nvault:9091 {other}\nvault:9090 {rx}\n");
    std::fs::write(home.home.receivers(), lines).unwrap();
    let both = ["-O", "vault:9090", "-O", "vault:9091"];
    let tls = home.check(&both).unwrap().expect("private");
    assert_eq!(tls.for_peer(&peer("vault:9090")).pin, Some(rx));
    assert_eq!(tls.for_peer(&peer("vault:9091")).pin, Some(other));
    assert_eq!(tls.key, home.home.key());
    // A --pin on the command line wins over the file.
    let given = other.to_string();
    let tls = home.check(&["-O", "vault:9090", "--pin", &given]).unwrap();
    assert_eq!(tls.unwrap().for_peer(&peer("vault:9090")).pin, Some(other));
}

#[test]
fn a_broken_receivers_file_is_refused_naming_its_line() {
    let (home, _) = Home::new().with_key();
    std::fs::write(home.home.receivers(), "vault:9090\n").unwrap();
    let e = home.check(&["-O", "vault:9090"]).unwrap_err();
    assert_eq!(e.flag, "--pin");
    assert!(e.why.contains("line 1"), "{e}");
}

#[test]
fn a_receiver_without_allowed_keys_names_the_file_to_list_them_in() {
    let (home, _) = Home::new().with_key();
    let e = home.check(&["-I", "9090"]).unwrap_err();
    assert_eq!(e.flag, "-I 9090");
    assert!(
        e.why.contains(&*home.home.allowed_keys().to_string_lossy()),
        "{e}"
    );
    assert!(
        e.why.contains("--allow-key") && e.why.contains("--plain"),
        "{e}"
    );
    // An empty list is a list: it is read again for every sender.
    std::fs::write(home.home.allowed_keys(), "").unwrap();
    let tls = home.check(&["-I", "9090"]).unwrap().expect("private");
    assert_eq!(tls.allow_file, Some(home.home.allowed_keys()));
    // A key on the command line needs no file.
    std::fs::remove_file(home.home.allowed_keys()).unwrap();
    let fp = KeyPair::generate().unwrap().fingerprint().to_string();
    let tls = home.check(&["-I", "9090", "--allow-key", &fp]).unwrap();
    assert_eq!(tls.unwrap().allow_file, None);
}

#[test]
fn the_default_files_are_kept_apart_from_every_output() {
    let (home, _) = Home::new().with_key();
    std::fs::write(home.home.allowed_keys(), "").unwrap();
    let tls = home.check(&["-I", "9090"]).unwrap();
    let files: Vec<_> = key_files(tls.as_ref())
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    assert_eq!(files, vec![home.home.key(), home.home.allowed_keys()]);
}

#[test]
fn clear_text_refuses_every_key_flag_naming_it() {
    let fp = KeyPair::generate().unwrap().fingerprint().to_string();
    let home = Home::new();
    for clear in ["--plain", "--raw"] {
        for (endpoint, flag, value) in [
            (["-O", "vault:9090"], "--key", "k"),
            (["-O", "vault:9090"], "--pin", fp.as_str()),
            (["-I", "9090"], "--allow-key", fp.as_str()),
            (["-I", "9090"], "--allow-keys", "f"),
            (["-I", "9090"], "--ktls", "on"),
        ] {
            let args = [&endpoint[..], &[clear, flag, value]].concat();
            let e = home.check(&args).unwrap_err();
            assert_eq!(e.flag, flag, "{args:?}: {e}");
        }
    }
    let e = home
        .check(&["-O", "vault:9090", "--plain", "--raw"])
        .unwrap_err();
    assert_eq!(e.flag, "--plain");
    let e = home.check(&["--plain"]).unwrap_err();
    assert_eq!(
        (e.flag.as_str(), e.why.as_str()),
        ("--plain", "only applies to -I and -O")
    );
}

#[test]
fn without_a_home_directory_the_endpoint_says_so() {
    let c = cli(&["-O", "vault:9090"]);
    let outputs = [OutputSpec::Connect(PeerAddr::parse("vault:9090").unwrap())];
    let locate = || KeyHome::from_vars(None, None);
    let e = check_keys(&c, &InputSpec::Stdin, &outputs, &locate).unwrap_err();
    assert_eq!(e.flag, "-O vault:9090");
    assert!(e.why.contains("HOME"), "{e}");
}
