//! The crate's import graph, read from its source: which file's `use`
//! lines and `crate::`/`super::` paths name which other file.
//!
//! The module tree is followed from `src/lib.rs` through its `mod`
//! declarations (with `#[path]`), inline `mod name { .. }` blocks are kept as
//! modules of their file, and a path through a `pub use` re-export is
//! followed to the file that defines the item, so that a folder's `mod.rs`
//! re-exporting a child does not look like the child importing its parent.

use super::{creation, lexer};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: the file it lives in, its children and its re-exports.
#[derive(Default)]
struct Module {
    file: PathBuf,
    children: BTreeMap<String, Vec<String>>,
    reexports: BTreeMap<String, Vec<String>>,
}

/// Every module, by its path from the crate root.
type Tree = BTreeMap<Vec<String>, Module>;

/// The crate's files and the import edges between them.
pub struct Graph {
    /// File -> the files it imports from (never itself).
    pub edges: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

/// One `use` path or inline path, found in `module` of a file.
struct Found {
    module: Vec<String>,
    path: Vec<String>,
    reexport_as: Option<String>,
}

impl Graph {
    /// Reads the crate whose root is `lib` (e.g. `src/lib.rs`), test code
    /// included.
    pub fn read(lib: &Path) -> Graph {
        Graph::build(walk(lib, false))
    }

    /// Reads the crate as a release build compiles it: what is gated to
    /// tests (`#[cfg(test)]`, `#[cfg(any(test, feature = "test-support"))]`)
    /// is left out, so a test may use a double from a higher layer.
    pub fn read_production(lib: &Path) -> Graph {
        Graph::build(walk(lib, true))
    }

    /// The edges between the files of a walked tree.
    fn build((mut modules, found): (Tree, Vec<(PathBuf, Found)>)) -> Graph {
        // Each path made absolute, with the file and module it was found in.
        type Absolute = (PathBuf, Vec<String>, Option<String>, Vec<String>);
        let absolute: Vec<Absolute> = found
            .into_iter()
            .filter_map(|(file, f)| {
                absolute(&modules, &f.module, &f.path)
                    .map(|abs| (file, f.module, f.reexport_as, abs))
            })
            .collect();
        for (_, module, alias, abs) in &absolute {
            if let Some(name) = alias {
                modules
                    .entry(module.clone())
                    .or_default()
                    .reexports
                    .insert(name.clone(), abs.clone());
            }
        }
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for module in modules.values() {
            edges.entry(module.file.clone()).or_default();
        }
        for (file, _, _, abs) in absolute {
            let target = resolve(&modules, &abs, 0);
            if target != file {
                edges.entry(file).or_default().insert(target);
            }
        }
        Graph { edges }
    }

    /// The same graph with each file standing for its path's first
    /// `depth` components under `root` (a folder, or the file itself when
    /// it lies higher): the imports between folders at that depth.
    pub fn folders(&self, root: &Path, depth: usize) -> Graph {
        let key = |file: &Path| -> PathBuf {
            let relative = file.strip_prefix(root).unwrap_or(file);
            relative.components().take(depth).collect()
        };
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (file, targets) in &self.edges {
            let from = key(file);
            let entry = edges.entry(from.clone()).or_default();
            entry.extend(targets.iter().map(|t| key(t)).filter(|t| *t != from));
        }
        Graph { edges }
    }

    /// How many components the deepest file has under `root`.
    pub fn depth(&self, root: &Path) -> usize {
        self.edges
            .keys()
            .map(|f| f.strip_prefix(root).unwrap_or(f).components().count())
            .max()
            .unwrap_or(0)
    }

    /// The groups of files that import each other in a circle (Tarjan's
    /// strongly connected components with more than one file).
    pub fn cycles(&self) -> Vec<Vec<PathBuf>> {
        let names: Vec<&PathBuf> = self.edges.keys().collect();
        let index: BTreeMap<&PathBuf, usize> =
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let next: Vec<Vec<usize>> = names
            .iter()
            .map(|n| {
                self.edges[*n]
                    .iter()
                    .filter_map(|t| index.get(t).copied())
                    .collect()
            })
            .collect();
        let mut tarjan = Tarjan {
            next: &next,
            order: vec![None; names.len()],
            low: vec![0; names.len()],
            stack: Vec::new(),
            on_stack: vec![false; names.len()],
            counter: 0,
            groups: Vec::new(),
        };
        for v in 0..names.len() {
            if tarjan.order[v].is_none() {
                tarjan.visit(v);
            }
        }
        tarjan
            .groups
            .into_iter()
            .filter(|g| g.len() > 1)
            .map(|g| {
                let mut files: Vec<PathBuf> = g.into_iter().map(|i| names[i].clone()).collect();
                files.sort();
                files
            })
            .collect()
    }
}

/// The module tree from `lib` down, and every path each file names;
/// without what is compiled only for tests when `production` is set.
fn walk(lib: &Path, production: bool) -> (Tree, Vec<(PathBuf, Found)>) {
    let mut modules: Tree = BTreeMap::new();
    let mut found: Vec<(PathBuf, Found)> = Vec::new();
    let mut todo = vec![(Vec::<String>::new(), lib.to_path_buf())];
    while let Some((module, file)) = todo.pop() {
        let raw =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut code = lexer::clean(&raw);
        if production {
            code = creation::without_test_items(&raw, &code);
        }
        for decl in lexer::mod_files(&raw, &code) {
            let child: Vec<String> = module.iter().cloned().chain([decl.name.clone()]).collect();
            let path = child_file(&file, &decl.name, decl.path.as_deref());
            todo.push((child.clone(), path));
            modules
                .entry(module.clone())
                .or_default()
                .children
                .insert(decl.name, child);
        }
        modules.entry(module.clone()).or_default().file = file.clone();
        for item in lexer::scan(&code) {
            let inner: Vec<String> = module.iter().cloned().chain(item.inline.clone()).collect();
            // Inline modules are modules of the same file.
            for depth in 0..item.inline.len() {
                let parent: Vec<String> = module
                    .iter()
                    .cloned()
                    .chain(item.inline[..depth].iter().cloned())
                    .collect();
                let child: Vec<String> = module
                    .iter()
                    .cloned()
                    .chain(item.inline[..=depth].iter().cloned())
                    .collect();
                modules
                    .entry(parent)
                    .or_default()
                    .children
                    .insert(item.inline[depth].clone(), child.clone());
                modules.entry(child).or_default().file = file.clone();
            }
            found.push((
                file.clone(),
                Found {
                    module: inner,
                    path: item.path,
                    reexport_as: item.reexport_as,
                },
            ));
        }
    }
    (modules, found)
}

/// Tarjan's algorithm's state.
struct Tarjan<'a> {
    next: &'a [Vec<usize>],
    order: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: Vec<bool>,
    counter: usize,
    groups: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.order[v] = Some(self.counter);
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.next[v] {
            match self.order[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(o) if self.on_stack[w] => self.low[v] = self.low[v].min(o),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.order[v] {
            let mut group = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            self.groups.push(group);
        }
    }
}

/// The file of child module `name` declared in `file`.
fn child_file(file: &Path, name: &str, attr: Option<&str>) -> PathBuf {
    let dir = file.parent().expect("a source file has a directory");
    if let Some(path) = attr {
        return dir.join(path);
    }
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let base = if stem == "lib" || stem == "mod" || stem == "main" {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    let flat = base.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        base.join(name).join("mod.rs")
    }
}

/// `path` as seen from `module`, made absolute; `None` for other crates.
fn absolute(modules: &Tree, module: &[String], path: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        name if modules
            .get(module)
            .is_some_and(|m| m.children.contains_key(name)) =>
        {
            let mut m = module.to_vec();
            m.push(name.to_string());
            m
        }
        _ => return None,
    };
    let mut rest = rest;
    while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
        base.pop();
        rest = tail;
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file that defines what the absolute `path` names.
fn resolve(modules: &Tree, path: &[String], depth: usize) -> PathBuf {
    let mut at: Vec<String> = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let module = &modules[&at];
        if let Some(child) = module.children.get(segment) {
            at = child.clone();
        } else if let Some(target) = module.reexports.get(segment).filter(|_| depth < 8) {
            let mut next = target.clone();
            next.extend(path[i + 1..].iter().cloned());
            return resolve(modules, &next, depth + 1);
        } else {
            break;
        }
    }
    modules[&at].file.clone()
}
