//! The crate's layers only import downwards, and no files import each other
//! in a circle. Read from the source's own `use` lines (see
//! `layers/graph.rs`); ARCHITECTURE.md draws the same layers.

mod layers {
    pub mod graph;
    pub mod lexer;
}
use layers::graph;

use std::path::Path;

#[test]
fn no_files_import_each_other_in_a_circle() {
    let graph = graph::Graph::read(Path::new("src/lib.rs"));
    let cycles = graph.cycles();
    let text: Vec<String> = cycles
        .iter()
        .map(|files| {
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "{} import cycles:\n{}",
        cycles.len(),
        text.join("\n\n")
    );
}
