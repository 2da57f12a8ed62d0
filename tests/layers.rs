//! The ?AR system's layers stay layers: reads the source files under `src/systems/ar/`,
//! builds the file-level import graph and fails if it has a circle or if a layer imports
//! one it may not (see ARCHITECTURE.md and `src/systems/ar/mod.rs`).
//!
//! A file imports another when its code (comments and `#[cfg(test)] mod` blocks left
//! out) names an item or module of it through `crate::systems::ar::…`, `super::…`,
//! `self::…`, or, in a `mod.rs`, a child module by its bare name. A file inside a folder
//! is in that folder's layer; `engine.rs` and `system.rs` (and `mod.rs`) at the top
//! belong to none and may import every layer. The test files (`tests*.rs` and test
//! modules) cross-check the engines against each other and are not part of the graph.
//! Every name must be reached through the module that defines it: a path to an item of
//! `ar/mod.rs` (its re-exports, for the rest of the crate) from inside `ar` is an error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each layer (a folder of `src/systems/ar/`) and the layers it may import. Besides
/// these, a file may import files of its own folder (never around a circle).
const LAYERS: &[(&str, &[&str])] = &[
    ("night", &[]),
    ("judge", &["night"]),
    ("answer", &["night"]),
    ("direct", &["night", "answer"]),
    ("sat", &["night", "answer"]),
    ("why", &["night", "judge", "answer", "direct", "sat"]),
    ("setup", &["night", "answer", "why"]),
];

/// A source file: its path relative to `src/systems/ar/` (with `/`) and its text.
type Source = (String, String);

/// The module path of a file: `direct/mod.rs` is `[direct]`, `direct/cuts.rs` is
/// `[direct, cuts]`, `mod.rs` is `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut segs: Vec<String> = file.split('/').map(str::to_string).collect();
    let last = segs.pop().expect("a file name");
    if last != "mod.rs" {
        segs.push(last.trim_end_matches(".rs").to_string());
    }
    segs
}

/// The code of a file without comments and without `#[cfg(test)] mod … { … }` blocks
/// (or `pub(super) mod`)
/// (rustfmt closes such a block with a `}` alone on a line at the left margin).
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines.peek().is_some_and(|l| {
                // `mod`, or `pub(super) mod` (a test module others' tests share).
                let l = l.strip_prefix("pub(super) ").unwrap_or(l);
                l.starts_with("mod ") && l.trim_end().ends_with('{')
            })
        {
            for l in lines.by_ref() {
                if l == "}" {
                    break;
                }
            }
            continue;
        }
        let line = line.find("//").map_or(line, |i| &line[..i]);
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Parses a path tree (`a::b::{c, d::{e, F}}`, `x::*`) starting at `s`, appending every
/// full path (prefixed by `prefix`) to `out`.
fn tree(s: &[char], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        while i < s.len() && s[i].is_whitespace() {
            i += 1;
        }
        if i < s.len() && s[i] == '{' {
            i += 1;
            loop {
                while i < s.len() && (s[i].is_whitespace() || s[i] == ',') {
                    i += 1;
                }
                if i >= s.len() || s[i] == '}' {
                    return i + 1;
                }
                i = tree(s, i, path.clone(), out);
            }
        }
        let start = i;
        while i < s.len() && (is_ident(s[i]) || s[i] == '*') {
            i += 1;
        }
        let seg: String = s[start..i].iter().collect();
        if !seg.is_empty() && seg != "*" && seg != "self" || path.is_empty() {
            path.push(seg);
        }
        if i + 1 < s.len() && s[i] == ':' && s[i + 1] == ':' {
            i += 2;
            continue;
        }
        // `as name` and the rest of the expression do not matter.
        out.push(path);
        return i;
    }
}

/// Every path a file's code names, resolved to absolute module paths under `ar`:
/// `crate::systems::ar::x::y` is `[x, y]`, `super::y` in `[x, z]` is `[x, y]`.
fn paths(
    module: &[String],
    is_mod_rs: bool,
    children: &BTreeSet<String>,
    code: &str,
) -> Vec<Vec<String>> {
    let s: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if !is_ident(s[i]) || (i > 0 && (is_ident(s[i - 1]) || s[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < s.len() && is_ident(s[i]) {
            i += 1;
        }
        let word: String = s[start..i].iter().collect();
        if !(i + 1 < s.len() && s[i] == ':' && s[i + 1] == ':') {
            continue;
        }
        let mut raw = Vec::new();
        let end = tree(&s, start, Vec::new(), &mut raw);
        for p in raw {
            let resolved = match word.as_str() {
                "crate" => match p.get(..3) {
                    Some([a, b, c]) if a == "crate" && b == "systems" && c == "ar" => {
                        Some(p[3..].to_vec())
                    }
                    _ => None,
                },
                "super" => {
                    let ups = p.iter().take_while(|x| *x == "super").count();
                    // `super` of a mod.rs module is its parent, as for any file.
                    (ups <= module.len())
                        .then(|| [&module[..module.len() - ups], &p[ups..]].concat())
                }
                "self" => Some([module, &p[1..]].concat()),
                w if is_mod_rs && children.contains(w) => Some([module, &p[..]].concat()),
                _ => None,
            };
            found.extend(resolved);
        }
        i = end.max(i);
    }
    found
}

/// The import graph: for each file, the files it imports; and every path that names an
/// item of `ar/mod.rs` from inside `ar`.
fn graph(files: &[Source]) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(f, _)| (module_of(f), f.clone()))
        .collect();
    let mut edges = BTreeMap::new();
    let mut errors = Vec::new();
    for (file, text) in files {
        let module = module_of(file);
        let is_mod_rs = file.ends_with("mod.rs");
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(&module))
            .map(|m| m[module.len()].clone())
            .collect();
        let mut to = BTreeSet::new();
        for p in paths(&module, is_mod_rs, &children, &code(text)) {
            // The deepest module the path walks through is the file it imports.
            let mut depth = 0;
            while depth < p.len() && modules.contains_key(&p[..=depth]) {
                depth += 1;
            }
            if depth == 0 {
                if !p.is_empty() {
                    errors.push(format!(
                        "{file}: `{}` is a re-export of ar/mod.rs; name the module that defines it",
                        p.join("::")
                    ));
                }
                continue;
            }
            let target = &modules[&p[..depth]];
            if target != file {
                to.insert(target.clone());
            }
        }
        edges.insert(file.clone(), to);
    }
    (edges, errors)
}

/// The layer of a file: its folder, or `None` at the top.
fn layer(file: &str) -> Option<&str> {
    file.split_once('/').map(|(d, _)| d)
}

/// Every import a layer may not make, and every file in a folder that is not a layer.
fn layer_violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut out = Vec::new();
    for (from, tos) in edges {
        let Some(l) = layer(from) else { continue };
        let Some(may) = allowed.get(l) else {
            out.push(format!("{from}: folder `{l}` is not a layer of LAYERS"));
            continue;
        };
        for to in tos {
            match layer(to) {
                Some(m) if m == l || may.contains(&m) => {}
                m => out.push(format!(
                    "{from} (layer {l}) imports {to} (layer {})",
                    m.unwrap_or("top")
                )),
            }
        }
    }
    out
}

/// A circle of the graph, as its files in order, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Colours: absent = unvisited, 1 = on the stack, 2 = done. Iterative depth-first.
    let mut colour: BTreeMap<&str, u8> = BTreeMap::new();
    for root in edges.keys() {
        if colour.contains_key(root.as_str()) {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> = Vec::new();
        let succ = |v: &str| -> Vec<&str> {
            edges
                .get(v)
                .map_or(Vec::new(), |s| s.iter().map(String::as_str).collect())
        };
        colour.insert(root, 1);
        stack.push((root, succ(root)));
        while let Some((v, next)) = stack.last_mut() {
            let v = *v;
            match next.pop() {
                Some(w) => match colour.get(w) {
                    None => {
                        colour.insert(w, 1);
                        let s = succ(w);
                        stack.push((w, s));
                    }
                    Some(1) => {
                        let at = stack
                            .iter()
                            .position(|(x, _)| *x == w)
                            .expect("on the stack");
                        let mut c: Vec<String> =
                            stack[at..].iter().map(|(x, _)| x.to_string()).collect();
                        c.push(w.to_string());
                        return Some(c);
                    }
                    _ => {}
                },
                None => {
                    colour.insert(v, 2);
                    stack.pop();
                }
            }
        }
    }
    None
}

fn sources(dir: &Path, base: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable source folder")
        .map(|e| e.expect("readable entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, base, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(base).expect("under base");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let name = p.file_name().expect("a name").to_string_lossy().to_string();
            if name.starts_with("tests") {
                continue;
            }
            out.push((rel, std::fs::read_to_string(&p).expect("readable source")));
        }
    }
}

#[test]
fn ar_files_import_in_layers_without_a_circle() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/systems/ar");
    let mut files = Vec::new();
    sources(&base, &base, &mut files);
    let (edges, errors) = graph(&files);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The reader sees the imports (not a vacuous pass): a few known edges.
    for (from, to) in [
        ("direct/cuts.rs", "direct/frame.rs"),
        ("direct/mod.rs", "direct/split.rs"),
        ("sat/satsplit.rs", "answer/pieces.rs"),
        ("answer/mod.rs", "answer/report.rs"),
        ("why/core.rs", "direct/mod.rs"),
        ("engine.rs", "judge/brute.rs"),
    ] {
        assert!(
            edges[from].contains(to),
            "{from} should import {to}: {:?}",
            edges[from]
        );
    }
    let bad = layer_violations(&edges);
    assert!(bad.is_empty(), "imports across layers:\n{}", bad.join("\n"));
    if let Some(c) = circle(&edges) {
        panic!("an import circle: {}", c.join(" -> "));
    }
}

#[test]
fn the_reader_finds_circles_upward_imports_and_re_exports() {
    let file = |f: &str, t: &str| (f.to_string(), t.to_string());
    let files = vec![
        file("mod.rs", "pub mod night;\npub mod answer;\npub use night::a::X;\n"),
        file("night/mod.rs", "pub mod a;\n"),
        file("answer/mod.rs", "pub mod b;\nfn f() { b::g() }\n"),
        // An upward import, in a group, behind a comment that does not count.
        file(
            "night/a.rs",
            "// use crate::systems::ar::night::c;\nuse crate::systems::ar::{answer::b::{self, Y}};\n",
        ),
        file("answer/b.rs", "use super::super::night::a::X;\nuse crate::systems::ar::X;\n"),
        // A test module is not part of the graph.
        file("night/c.rs", "#[cfg(test)]\nmod tests {\n    use crate::systems::ar::answer;\n}\n"),
    ];
    let (edges, errors) = graph(&files);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("answer/b.rs: `X`"), "{errors:?}");
    assert!(edges["answer/mod.rs"].contains("answer/b.rs"));
    assert!(edges["night/c.rs"].is_empty());
    assert_eq!(
        edges["night/a.rs"],
        BTreeSet::from(["answer/b.rs".to_string()])
    );
    assert_eq!(
        layer_violations(&edges),
        ["night/a.rs (layer night) imports answer/b.rs (layer answer)"]
    );
    let c = circle(&edges).expect("a circle");
    assert_eq!(c.first(), c.last());
    assert!(c.contains(&"night/a.rs".to_string()) && c.contains(&"answer/b.rs".to_string()));
}
