//! Whether a network stream is private, and with which keys: `--key`,
//! `--pin`, `--allow-key(s)`, `--ca` and `--cert`, `--ktls`, and the two ways to send in clear
//! text, `--plain` (tapebuf's checked frames) and `--raw` (the bytes
//! alone).
//!
//! The invariant: `-I` and `-O` are private unless `--plain` or `--raw`
//! says otherwise. A key, pin or allowed-keys file that no flag names is
//! taken from this user's tapebuf directory (`keys::KeyHome`); one that is
//! missing there fails the run at start with one line naming the file and
//! the three ways on (make it, name another, or `--plain`), so a stream
//! never goes out in clear text because a file was missing.

use std::path::PathBuf;

use crate::base::errors::{needs, ConfigError};
use crate::cli::key_args::KtlsArg;
use crate::cli::Cli;
use crate::keys::{AllowList, Fingerprint, KeyHome, Receivers};
use crate::net::tls::pki::Pki;
use crate::net::tls::{Ktls, TlsSettings};
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// What to add to a refusal so the user knows the way to clear text.
const OR_PLAIN: &str = "or --plain for tapebuf's frames in clear text on a trusted network";

/// The keys of this run's private stream, or None for a stream in clear
/// text or a run without `-I` and `-O`; every key file is read once here,
/// so that a bad one fails before anything starts.
pub fn check_keys(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    locate: &dyn Fn() -> Result<KeyHome, String>,
) -> Result<Option<TlsSettings>, ConfigError> {
    let listen = match input {
        InputSpec::Listen(addr) => Some(format!("-I {addr}")),
        _ => None,
    };
    let peers: Vec<String> = (outputs.iter())
        .filter_map(|o| match o {
            OutputSpec::Connect(peer) => Some(peer.to_string()),
            _ => None,
        })
        .collect();
    let (listening, connecting) = (listen.is_some(), !peers.is_empty());
    let clear = check_clear(cli, listening || connecting)?;
    check_key_flags(cli, listening, connecting, clear)?;
    if clear || !(listening || connecting) {
        return Ok(None);
    }
    let endpoint = listen.unwrap_or_else(|| format!("-O {}", peers[0]));
    let home = || locate().map_err(|why| ConfigError::new(&endpoint, why));
    let key = match &cli.keys.key {
        Some(key) => key.clone(),
        None => default_key(&home()?, &endpoint)?,
    };
    let pki = check_pki(cli)?;
    let vouched = pki.is_some();
    let (pin, pinned) = match (&cli.keys.pin, connecting) {
        (Some(text), _) => {
            let pin = text.parse().map_err(|why| ConfigError::new("--pin", why))?;
            (Some(pin), Vec::new())
        }
        (None, true) if !vouched => (None, pinned(&home()?, &peers)?),
        (None, _) => (None, Vec::new()),
    };
    let allow = allowed_on_the_command_line(cli)?;
    let allow_file = match &cli.keys.allow_keys {
        Some(file) => Some(file.clone()),
        None if listening && allow.is_empty() && !vouched => {
            Some(default_allowed(&home()?, &endpoint)?)
        }
        None => None,
    };
    let tls = TlsSettings {
        key,
        pin,
        pinned,
        allow,
        allow_file,
        pki,
        ktls: match cli.keys.ktls {
            KtlsArg::Auto => Ktls::Auto,
            KtlsArg::On => Ktls::On,
            KtlsArg::Off => Ktls::Off,
        },
    };
    read_once(&tls, listening)?;
    Ok(Some(tls))
}

/// Reads this end's key, its certificate and CA, and the allowed keys,
/// so that a bad one fails at start, naming its flag.
fn read_once(tls: &TlsSettings, listening: bool) -> Result<(), ConfigError> {
    let pair = (tls.key_pair())
        .map_err(|why| ConfigError::new("--key", why.trim_start_matches("--key: ").to_string()))?;
    match &tls.pki {
        Some(pki) => (pki.load(&pair).map(|_| ())).map_err(|e| ConfigError::new(e.flag, e.why)),
        None if listening => {
            (tls.allowed().map(|_| ())).map_err(|why| ConfigError::new("--allow-keys", why))
        }
        None => Ok(()),
    }
}

/// `--allow-key FINGERPRINT[=NAME]`, each checked.
fn allowed_on_the_command_line(cli: &Cli) -> Result<Vec<(Fingerprint, String)>, ConfigError> {
    (cli.keys.allow_key.iter())
        .map(|text| {
            AllowList::entry(text, "--allow-key")
                .map_err(|why| ConfigError::new("--allow-key", why))
        })
        .collect()
}

/// The files a private stream reads, each with the flag that names it
/// (its default included), so that no output or report can be one of them.
pub fn key_files(tls: Option<&TlsSettings>) -> Vec<(&'static str, PathBuf)> {
    let Some(tls) = tls else {
        return Vec::new();
    };
    let mut files = vec![("--key", tls.key.clone())];
    files.extend(tls.allow_file.clone().map(|f| ("--allow-keys", f)));
    if let Some(pki) = &tls.pki {
        files.extend([("--ca", pki.ca.clone()), ("--cert", pki.cert.clone())]);
    }
    files
}

/// True for a stream in clear text (`--plain` or `--raw`), refusing the
/// two together and `--plain` where there is no network.
fn check_clear(cli: &Cli, network: bool) -> Result<bool, ConfigError> {
    needs("--plain", !cli.plain || network, "to -I and -O")?;
    if cli.plain && cli.raw {
        return Err(ConfigError::new(
            "--plain",
            "--raw sends in clear text already, without frames; drop one of them",
        ));
    }
    Ok(cli.plain || cli.raw)
}

/// The key flags apply only to a private stream's ends.
fn check_key_flags(
    cli: &Cli,
    listening: bool,
    connecting: bool,
    clear: bool,
) -> Result<(), ConfigError> {
    let keyed = cli.keys.key.is_some();
    needs("--key", !keyed || listening || connecting, "to -I and -O")?;
    if keyed && clear {
        let why = match cli.raw {
            true => "a raw stream (--raw) has no framing to make private; drop one of them",
            false => "--plain sends in clear text, without keys; drop one of them",
        };
        return Err(ConfigError::new("--key", why));
    }
    let private = !clear;
    needs(
        "--pin",
        cli.keys.pin.is_none() || (connecting && private),
        "to -O, without --plain or --raw",
    )?;
    needs(
        "--allow-key",
        cli.keys.allow_key.is_empty() || (listening && private),
        "to -I, without --plain or --raw",
    )?;
    needs(
        "--allow-keys",
        cli.keys.allow_keys.is_none() || (listening && private),
        "to -I, without --plain or --raw",
    )?;
    for (flag, given) in [
        ("--ca", cli.keys.ca.is_some()),
        ("--cert", cli.keys.cert.is_some()),
    ] {
        needs(
            flag,
            !given || ((listening || connecting) && private),
            "to -I and -O, without --plain or --raw",
        )?;
    }
    needs(
        "--ktls",
        cli.keys.ktls == KtlsArg::Auto || ((listening || connecting) && private),
        "to -I and -O, without --plain or --raw",
    )
}

/// `--ca` and `--cert`, which come together, and in place of pins and
/// allowed keys.
fn check_pki(cli: &Cli) -> Result<Option<Pki>, ConfigError> {
    let k = &cli.keys;
    let (ca, cert) = match (&k.ca, &k.cert) {
        (None, None) => return Ok(None),
        (Some(ca), Some(cert)) => (ca.clone(), cert.clone()),
        (Some(_), None) => {
            return Err(ConfigError::new(
                "--ca",
                "needs this end's certificate too: --cert FILE, issued by the CA for --key",
            ))
        }
        (None, Some(_)) => {
            return Err(ConfigError::new(
                "--cert",
                "needs the CA that vouches for the peer: --ca FILE",
            ))
        }
    };
    for (flag, given) in [
        ("--pin", k.pin.is_some()),
        ("--allow-key", !k.allow_key.is_empty()),
        ("--allow-keys", k.allow_keys.is_some()),
    ] {
        if given {
            return Err(ConfigError::new(
                flag,
                "--ca vouches for the peer in place of pins and allowed keys; drop one of them",
            ));
        }
    }
    Ok(Some(Pki {
        ca,
        cert,
        server_name: None,
    }))
}

/// The tapebuf directory's key, which must exist.
fn default_key(home: &KeyHome, endpoint: &str) -> Result<PathBuf, ConfigError> {
    existing(
        home.key(),
        endpoint,
        (
            "this end has no key",
            "make it with 'tapebuf key new', give --key FILE",
        ),
    )
}

/// The tapebuf directory's allowed keys, which must exist (empty is
/// allowed: it is read again for every sender).
fn default_allowed(home: &KeyHome, endpoint: &str) -> Result<PathBuf, ConfigError> {
    let ways = "list each sender's 'FINGERPRINT NAME' line there (what 'tapebuf key new' \
                prints on it), give --allow-key FINGERPRINT[=NAME] or --allow-keys FILE";
    existing(
        home.allowed_keys(),
        endpoint,
        ("no sender is allowed", ways),
    )
}

/// `file`, a default of the tapebuf directory, if it exists; else the
/// refusal of `endpoint` that says what its absence means and the ways on.
fn existing(
    file: PathBuf,
    endpoint: &str,
    (lacking, ways): (&str, &str),
) -> Result<PathBuf, ConfigError> {
    if file.exists() {
        return Ok(file);
    }
    Err(ConfigError::new(
        endpoint,
        format!(
            "private by default, and {lacking}: {} does not exist; {ways}, {OR_PLAIN}",
            file.display()
        ),
    ))
}

/// Each `-O`'s receiver key from the tapebuf directory's `receivers`
/// file, which must pin every one.
fn pinned(home: &KeyHome, peers: &[String]) -> Result<Vec<(String, Fingerprint)>, ConfigError> {
    let file = home.receivers();
    let pins = match file.exists() {
        true => Receivers::read(&file).map_err(|why| ConfigError::new("--pin", why))?,
        false => Receivers::default(),
    };
    (peers.iter())
        .map(|peer| match pins.pin_of(peer) {
            Some(print) => Ok((peer.clone(), print)),
            None => Err(ConfigError::new(
                format!("-O {peer}"),
                format!(
                    "private by default, and the receiver's key is not pinned: give --pin \
                     FINGERPRINT (what 'tapebuf key show' prints on the receiver) or add the \
                     line '{peer} FINGERPRINT' to {}, {OR_PLAIN}",
                    file.display()
                ),
            )),
        })
        .collect()
}

#[cfg(test)]
#[path = "key_flags_tests.rs"]
mod tests;
