//! Network endpoint names as users type them: `-I [ADDR:]PORT` and
//! `-O HOST:PORT`, with IPv6 literals in brackets (`[fd00::7]:9090`).
//!
//! Parsing is pure; names are resolved only when a socket is made, so a
//! receiver whose DNS entry appears a little late is still reached by the
//! connect retries.

use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// `-4` or `-6`: the one address family `-I` and `-O` use, as mbuffer's
/// options of those names choose it. Without either, both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

impl Family {
    fn keeps(self, addr: &SocketAddr) -> bool {
        match self {
            Family::V4 => addr.is_ipv4(),
            Family::V6 => addr.is_ipv6(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Family::V4 => "IPv4 (-4)",
            Family::V6 => "IPv6 (-6)",
        }
    }
}

/// Where `-I` listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddr {
    /// None: every address, IPv6 and IPv4 (a dual-stack socket).
    pub host: Option<String>,
    pub port: u16,
}

/// Where `-O` connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerAddr {
    pub host: String,
    pub port: u16,
}

impl ListenAddr {
    /// Parses `PORT`, `ADDR:PORT` or `[IPV6]:PORT`. Port 0 asks for any
    /// free port, which the listener says once it is bound.
    pub fn parse(text: &str) -> Result<ListenAddr, String> {
        if !text.contains(':') {
            return Ok(ListenAddr {
                host: None,
                port: parse_listen_port(text)?,
            });
        }
        let (host, port) = split_host_port(text, parse_listen_port)?;
        Ok(ListenAddr {
            host: Some(host),
            port,
        })
    }

    /// The addresses to bind, best first. A named host may resolve to
    /// several; the first that binds is used.
    pub fn resolve(&self) -> std::io::Result<Vec<SocketAddr>> {
        self.resolve_in(None)
    }

    /// As [`ListenAddr::resolve`], in `family` only: without a host, every
    /// address of that family.
    pub fn resolve_in(&self, family: Option<Family>) -> std::io::Result<Vec<SocketAddr>> {
        let any = match family {
            Some(Family::V4) => IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
            _ => IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED),
        };
        match &self.host {
            None => Ok(vec![SocketAddr::new(any, self.port)]),
            Some(host) => resolve(host, self.port, family),
        }
    }
}

impl fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            None => write!(f, "{}", self.port),
            Some(h) => write!(f, "{}:{}", bracket(h), self.port),
        }
    }
}

impl PeerAddr {
    /// Parses `HOST:PORT` or `[IPV6]:PORT`.
    pub fn parse(text: &str) -> Result<PeerAddr, String> {
        let (host, port) = split_host_port(text, parse_port)?;
        Ok(PeerAddr { host, port })
    }

    /// Every address the name resolves to, IPv6 and IPv4 alike, in the
    /// resolver's order.
    pub fn resolve(&self) -> std::io::Result<Vec<SocketAddr>> {
        self.resolve_in(None)
    }

    /// As [`PeerAddr::resolve`], in `family` only.
    pub fn resolve_in(&self, family: Option<Family>) -> std::io::Result<Vec<SocketAddr>> {
        resolve(&self.host, self.port, family)
    }
}

impl fmt::Display for PeerAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", bracket(&self.host), self.port)
    }
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

fn resolve(host: &str, port: u16, family: Option<Family>) -> std::io::Result<Vec<SocketAddr>> {
    let mut addrs: Vec<SocketAddr> = (host, port).to_socket_addrs()?.collect();
    addrs.dedup();
    if let Some(f) = family {
        addrs.retain(|a| f.keeps(a));
        if addrs.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the name has no {} address", f.name()),
            ));
        }
    }
    if addrs.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the name has no addresses",
        ));
    }
    Ok(addrs)
}

/// Splits `host:port`, where an IPv6 host must be in brackets, and reads
/// the port with `parse_port`.
fn split_host_port(
    text: &str,
    parse_port: fn(&str) -> Result<u16, String>,
) -> Result<(String, u16), String> {
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("'{text}' has '[' without a closing ']'"))?;
        host.parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("'{host}' in brackets is not an IPv6 address"))?;
        let port = after
            .strip_prefix(':')
            .ok_or_else(|| format!("'{text}' needs a port after the ']', as [{host}]:9090"))?;
        return Ok((host.to_string(), parse_port(port)?));
    }
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("'{text}' needs HOST:PORT"))?;
    if host.contains(':') {
        return Err(format!(
            "'{text}': put an IPv6 address in brackets, as [{host}]:{port}"
        ));
    }
    if host.is_empty() {
        return Err(format!("'{text}' has no host before the ':'"));
    }
    Ok((host.to_string(), parse_port(port)?))
}

fn parse_port(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(0) | Err(_) => Err(format!("'{text}' is not a port number (1 to 65535)")),
        Ok(p) => Ok(p),
    }
}

/// A port to listen on: 0 too, for any free port.
fn parse_listen_port(text: &str) -> Result<u16, String> {
    text.parse::<u16>()
        .map_err(|_| format!("'{text}' is not a port number (1 to 65535, or 0 for any free port)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_port_listens_on_every_address() {
        let a = ListenAddr::parse("9090").unwrap();
        assert_eq!(a.host, None);
        assert_eq!(a.port, 9090);
        assert_eq!(a.resolve().unwrap(), vec!["[::]:9090".parse().unwrap()]);
    }

    #[test]
    fn a_bind_address_restricts_the_listener() {
        let a = ListenAddr::parse("127.0.0.1:9090").unwrap();
        assert_eq!(a.host.as_deref(), Some("127.0.0.1"));
        assert_eq!(
            a.resolve().unwrap(),
            vec!["127.0.0.1:9090".parse().unwrap()]
        );
        let b = ListenAddr::parse("[::1]:9090").unwrap();
        assert_eq!(b.resolve().unwrap(), vec!["[::1]:9090".parse().unwrap()]);
        assert_eq!(b.to_string(), "[::1]:9090");
    }

    #[test]
    fn bracketed_ipv6_peers_parse_and_print_back() {
        let p = PeerAddr::parse("[fd00::7]:9090").unwrap();
        assert_eq!(p.host, "fd00::7");
        assert_eq!(p.to_string(), "[fd00::7]:9090");
        let v4 = PeerAddr::parse("vault:9090").unwrap();
        assert_eq!((v4.host.as_str(), v4.port), ("vault", 9090));
    }

    #[test]
    fn bad_endpoints_say_what_is_wrong() {
        let cases = [
            ("fd00::7:9090", "brackets"),
            ("[fd00::7]9090", "port after"),
            ("[fd00::7:9090", "closing"),
            ("[vault]:9090", "not an IPv6"),
            ("vault", "HOST:PORT"),
            ("vault:0", "not a port"),
            ("vault:70000", "not a port"),
            (":9090", "no host"),
        ];
        for (text, why) in cases {
            let e = PeerAddr::parse(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
        assert!(ListenAddr::parse("x").unwrap_err().contains("not a port"));
    }

    #[test]
    fn a_listener_takes_port_0_for_any_free_port() {
        assert_eq!(ListenAddr::parse("0").unwrap().port, 0);
        assert_eq!(ListenAddr::parse("127.0.0.1:0").unwrap().port, 0);
        assert!(PeerAddr::parse("127.0.0.1:0").is_err());
    }

    #[test]
    fn a_family_keeps_only_its_own_addresses() {
        let any = ListenAddr::parse("9090").unwrap();
        assert_eq!(
            any.resolve_in(Some(Family::V4)).unwrap(),
            vec!["0.0.0.0:9090".parse().unwrap()]
        );
        assert_eq!(
            any.resolve_in(Some(Family::V6)).unwrap(),
            vec!["[::]:9090".parse().unwrap()]
        );
        let v4 = PeerAddr::parse("127.0.0.1:9").unwrap();
        assert!(v4.resolve_in(Some(Family::V4)).is_ok());
        let e = v4.resolve_in(Some(Family::V6)).unwrap_err();
        assert!(e.to_string().contains("no IPv6 (-6) address"), "{e}");
    }

    #[test]
    fn localhost_resolves_to_its_addresses() {
        let p = PeerAddr::parse("localhost:9").unwrap();
        let addrs = p.resolve().unwrap();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
    }
}
