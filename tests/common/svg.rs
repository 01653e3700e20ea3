//! Reading back the pictures `tapebuf report -o` draws: the run that
//! draws one, and the points of an SVG polyline or polygon.

use std::path::Path;

use super::tapebuf;

/// Runs `tapebuf report FILE -o FILE.svg` and checks that it succeeded
/// and said nothing on stderr; returns the SVG's text and stdout.
pub fn report_svg(file: &Path) -> (String, String) {
    let svg = file.with_extension("svg");
    let out = tapebuf()
        .arg("report")
        .arg(file)
        .arg("-o")
        .arg(&svg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let text = std::fs::read_to_string(&svg).unwrap();
    (text, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `x,y x,y ...` of a `points` attribute.
pub fn points(text: &str) -> Vec<(i32, i32)> {
    text.split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}
