//! `--allow HOST_OR_CIDR`: which senders a listener accepts.
//!
//! A rule is an address (`10.0.0.5`, `fd00::7`), a network in CIDR form
//! (`10.0.0.0/24`, `fd00::/8`) or a host name, resolved once at start to
//! every address it has. A dual-stack listener sees IPv4 senders as
//! IPv4-mapped IPv6 addresses (`::ffff:10.0.0.5`); they are matched as the
//! IPv4 addresses they are. With no rule, every sender is accepted.

use std::net::{IpAddr, ToSocketAddrs};

use ipnet::{IpNet, Ipv4Net};

/// One `--allow` rule, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowRule {
    /// What the user typed, for messages.
    pub text: String,
    nets: Vec<IpNet>,
}

impl AllowRule {
    /// Parses an address, a CIDR network or a host name. A name is looked
    /// up now, so a typo is an error at start, not a refused backup later.
    pub fn parse(text: &str) -> Result<AllowRule, String> {
        let nets = if let Some((addr, len)) = text.split_once('/') {
            let ip = strip_brackets(addr)
                .parse::<IpAddr>()
                .map_err(|_| format!("'{addr}' is not an IP address"))?;
            let net = len
                .parse::<u8>()
                .ok()
                .and_then(|l| IpNet::new(ip, l).ok())
                .ok_or_else(|| {
                    let max = if ip.is_ipv4() { 32 } else { 128 };
                    format!("'/{len}' is not a prefix length (0 to {max})")
                })?;
            vec![canonical_net(net)]
        } else if let Ok(ip) = strip_brackets(text).parse::<IpAddr>() {
            vec![IpNet::from(canonical(ip))]
        } else {
            let addrs = (text, 0)
                .to_socket_addrs()
                .map_err(|e| format!("cannot resolve '{text}': {e}"))?;
            let mut nets: Vec<IpNet> = addrs.map(|a| IpNet::from(canonical(a.ip()))).collect();
            nets.dedup();
            if nets.is_empty() {
                return Err(format!("'{text}' has no addresses"));
            }
            nets
        };
        Ok(AllowRule {
            text: text.to_string(),
            nets,
        })
    }

    /// True when `peer` is covered by this rule.
    pub fn allows(&self, peer: IpAddr) -> bool {
        let peer = canonical(peer);
        self.nets.iter().any(|net| net.contains(&peer))
    }
}

/// True when no rule is given, or one of them covers `peer`.
pub fn allowed(rules: &[AllowRule], peer: IpAddr) -> bool {
    rules.is_empty() || rules.iter().any(|r| r.allows(peer))
}

fn strip_brackets(text: &str) -> &str {
    text.strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text)
}

/// An IPv4-mapped IPv6 address as the IPv4 address it carries.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// A network inside the IPv4-mapped range (`::ffff:10.0.0.0/120`) as the
/// IPv4 network it carries (`10.0.0.0/24`), so that it matches the senders
/// `allows` sees as IPv4. Any other network is kept as it is.
fn canonical_net(net: IpNet) -> IpNet {
    match (net, canonical(net.addr())) {
        (IpNet::V6(v6), IpAddr::V4(v4)) if v6.prefix_len() >= 96 => {
            Ipv4Net::new(v4, v6.prefix_len() - 96).map_or(net, IpNet::V4)
        }
        _ => net,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_single_address_allows_only_itself() {
        let r = AllowRule::parse("10.0.0.5").unwrap();
        assert!(r.allows(ip("10.0.0.5")));
        assert!(!r.allows(ip("10.0.0.6")));
        assert!(!r.allows(ip("::1")));
    }

    #[test]
    fn cidr_networks_match_their_prefix() {
        let r = AllowRule::parse("10.0.0.0/24").unwrap();
        assert!(r.allows(ip("10.0.0.255")));
        assert!(!r.allows(ip("10.0.1.0")));
        let r6 = AllowRule::parse("fd00::/8").unwrap();
        assert!(r6.allows(ip("fd12::1")));
        assert!(!r6.allows(ip("fe80::1")));
        let all = AllowRule::parse("0.0.0.0/0").unwrap();
        assert!(all.allows(ip("192.0.2.1")));
    }

    #[test]
    fn ipv4_senders_on_a_dual_stack_socket_match_ipv4_rules() {
        let r = AllowRule::parse("127.0.0.1").unwrap();
        assert!(r.allows(ip("::ffff:127.0.0.1")));
        let mapped = AllowRule::parse("::ffff:10.0.0.5").unwrap();
        assert!(mapped.allows(ip("10.0.0.5")));
    }

    #[test]
    fn ipv4_mapped_networks_match_as_their_ipv4_networks() {
        let r = AllowRule::parse("::ffff:10.0.0.0/120").unwrap();
        assert!(r.allows(ip("10.0.0.200")));
        assert!(r.allows(ip("::ffff:10.0.0.200")));
        assert!(!r.allows(ip("10.0.1.1")));
    }

    #[test]
    fn host_names_resolve_at_start() {
        let r = AllowRule::parse("localhost").unwrap();
        assert!(r.allows(ip("127.0.0.1")) || r.allows(ip("::1")));
        assert!(AllowRule::parse("no-such-host.invalid").is_err());
    }

    #[test]
    fn bad_rules_are_refused() {
        assert!(AllowRule::parse("10.0.0.0/33")
            .unwrap_err()
            .contains("prefix"));
        assert!(AllowRule::parse("10.0.0/8")
            .unwrap_err()
            .contains("not an IP"));
    }

    #[test]
    fn no_rules_allow_everyone() {
        assert!(allowed(&[], ip("192.0.2.1")));
    }
}
