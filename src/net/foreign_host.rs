//! `-I HOST:PORT` where HOST is not this machine's: mbuffer's reading.
//!
//! tapebuf's `-I ADDR:PORT` binds ADDR; mbuffer's `-I HOST:PORT` listens on
//! every address and takes only senders from HOST (`mbuffer -I master:8000`
//! on a clone). When none of HOST's addresses can be bound here
//! (EADDRNOTAVAIL), only mbuffer's reading can be meant, so the port is
//! opened on every address with HOST as the one sender admitted, as
//! `--allow HOST` would, and a line says so. A HOST of this machine is
//! bound as before: on loopback that admits the very senders mbuffer would.
//! With `--allow` given the command line is tapebuf's own, and a foreign
//! HOST stays an error.

use std::io;

use super::socket::{self, Listener};
use super::{AllowRule, ListenAddr, NetSettings};

/// A listener for `addr`, and the settings its senders are judged by: those
/// given, or with mbuffer's reading, those plus HOST as the only sender
/// allowed. The note says which reading was taken, when it was mbuffer's.
pub fn listen(
    addr: &ListenAddr,
    settings: &NetSettings,
) -> io::Result<(Listener, NetSettings, Option<String>)> {
    let err = match socket::listen(addr, settings) {
        Ok(listener) => return Ok((listener, settings.clone(), None)),
        Err(e) => e,
    };
    let host = match &addr.host {
        Some(host)
            if err.kind() == io::ErrorKind::AddrNotAvailable && settings.allow.is_empty() =>
        {
            host
        }
        _ => return Err(err),
    };
    let rule = AllowRule::parse(host).map_err(io::Error::other)?;
    let everywhere = ListenAddr {
        host: None,
        port: addr.port,
    };
    let mut admitting = settings.clone();
    admitting.allow = vec![rule];
    let listener = socket::listen(&everywhere, &admitting)?;
    let note = format!(
        "{host} is not an address of this machine, so, as mbuffer does, listening on port {} \
         of every address and taking senders from {host} only",
        addr.port
    );
    Ok((listener, admitting, Some(note)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[test]
    fn an_address_of_this_machine_is_bound_as_given() {
        let addr = ListenAddr::parse(&format!("127.0.0.1:{}", free_port())).unwrap();
        let (_l, settings, note) = listen(&addr, &NetSettings::default()).unwrap();
        assert!(note.is_none());
        assert!(settings.allow.is_empty());
    }

    #[test]
    fn a_foreign_host_listens_everywhere_and_admits_only_that_host() {
        // 192.0.2.0/24 is TEST-NET-1: never an address of a real machine.
        let addr = ListenAddr::parse(&format!("192.0.2.7:{}", free_port())).unwrap();
        let (_l, settings, note) = listen(&addr, &NetSettings::default()).unwrap();
        assert!(note.unwrap().contains("as mbuffer does"));
        assert_eq!(settings.allow.len(), 1);
        assert!(settings.allow[0].allows("192.0.2.7".parse().unwrap()));
        assert!(!settings.allow[0].allows("127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn with_allow_rules_a_foreign_host_stays_an_error() {
        let addr = ListenAddr::parse(&format!("192.0.2.7:{}", free_port())).unwrap();
        let settings = NetSettings {
            allow: vec![AllowRule::parse("127.0.0.1").unwrap()],
            ..NetSettings::default()
        };
        let e = listen(&addr, &settings).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::AddrNotAvailable);
    }
}
