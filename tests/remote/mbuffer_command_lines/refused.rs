//! The mbuffer options tapebuf cannot honour, each from mbuffer(1)'s
//! OPTIONS, in a line of the shape a script might hold: each is refused
//! with exit status 2 (a usage error) and one line on stderr,
//! `tapebuf: <option>: <why>; use <the tapebuf way>`.

use crate::mbuffer_command_lines::scene::Scene;

#[test]
fn options_tapebuf_cannot_honour_are_refused_in_one_line_naming_its_way() {
    let cases = [
        (
            "mbuffer -u 1000 -o $TAPE",
            "tapebuf: -u: tapebuf does not pause after each write (asked: 1000); use -R/--output-rate RATE to slow the writer",
        ),
        (
            "mbuffer --tcptimeo 5000 -O $HOST:$PORT --plain",
            "tapebuf: --tcptimeo: '5000' has no unit, and mbuffer's own pages read it as microseconds or as milliseconds; use --timeout SECS",
        ),
        (
            "mbuffer -n 0 -i $TAPE",
            "tapebuf: -n/--volumes: 0 (mbuffer's 'ask for every volume') has no end tapebuf could tell; use -n N, or no -n for a backup tapebuf wrote, whose trailers say how many volumes follow",
        ),
        (
            "mbuffer -a never -o $TAPE",
            "tapebuf: -a: 'never' is not a number of seconds; use -A CMD to load the next volume",
        ),
    ];
    let s = Scene::new();
    for (line, message) in cases {
        s.expect_refused(line, message);
    }
}

#[test]
fn options_tapebuf_has_no_use_for_are_accepted_and_change_no_byte() {
    // -e, -d, -t, -T, --tapeaware, --no-direct, -0, -Q and --pid are
    // accepted; the bytes are the same as without them.
    let s = Scene::new();
    let ran = s.pipeline(
        &["mbuffer -e -d -t -T $TAPE.buffer --tapeaware --no-direct -0 -Q --pid"],
        crate::mbuffer_command_lines::scene::data(),
    );
    ran.all_succeed();
    assert_eq!(
        ran.stdout_digest(),
        crate::mbuffer_command_lines::scene::digest(&crate::mbuffer_command_lines::scene::data())
    );
    let said = &ran.ended[0].stderr;
    assert!(said.starts_with("tapebuf: PID is "), "{said}");
    let buffer_file = s.args("mbuffer $TAPE.buffer").remove(0);
    assert!(
        !std::path::Path::new(&buffer_file).exists(),
        "-T made {buffer_file}"
    );
}
