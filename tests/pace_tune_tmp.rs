use tapebuf::pace::drive_model::DriveSpec;
use tapebuf::pace::sim::{run, Policy, Producer, Setup};
use tapebuf::pace::PaceSettings;
const MB: f64 = 1e6;
#[test]
fn tune() {
    let producers = [
        (
            "bursty",
            Producer::bursty((3.0, 200.0 * MB), (6.0, 20.0 * MB), 4000.0 * MB),
        ),
        (
            "burst2",
            Producer::bursty((2.0, 250.0 * MB), (4.0, 25.0 * MB), 4000.0 * MB),
        ),
        ("steady", Producer::steady(75.0 * MB, 3000.0 * MB)),
        ("slow", Producer::steady(25.0 * MB, 3000.0 * MB)),
    ];
    let drives = [
        ("match", DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9)),
        ("fixed", DriveSpec::fixed_speed(120.0 * MB)),
    ];
    let policies = [
        ("P90", Policy::Bursts { high_pct: 90 }),
        (
            "pace",
            Policy::Paced {
                high_pct: 90,
                range: PaceSettings::default(),
            },
        ),
        (
            "pace40:120",
            Policy::Paced {
                high_pct: 90,
                range: PaceSettings {
                    floor: Some(40_000_000),
                    ceiling: Some(120_000_000),
                },
            },
        ),
    ];
    for (dn, d) in &drives {
        for (pn, p) in &producers {
            for (qn, q) in &policies {
                let s = Setup {
                    drive: d.clone(),
                    producer: p.clone(),
                    ring_bytes: 512.0 * MB,
                    block_bytes: 1.0 * MB,
                    policy: *q,
                };
                let o = run(&s, 2000.0);
                let c = o.controller.as_ref();
                println!("{dn:6} {pn:7} {qn:11} stops {:4} elapsed {:7.1} written {:6.0}MB rwait {:6.1} underruns {:3} top {:?} floor {:?} stalls {} mode {:?} inside {:?} at_speed {:?}",
                    o.drive.stops, o.elapsed_s, o.bytes_written / MB, o.reader_wait_s, o.underruns,
                    c.and_then(|c| c.top()).map(|t| (t / MB).round()), c.and_then(|c| c.floor()).map(|t| (t / MB).round()),
                    c.map_or(0, |c| c.stalls().len()), c.map(|c| c.mode()), c.and_then(|c| c.inside_share()),
                    o.drive.seconds_at_speed.iter().map(|x| x.round() as i64).collect::<Vec<_>>());
            }
        }
    }
}
