//! The byte-order-mark and line-ending policy every format shares: a leading UTF-8
//! byte-order mark is skipped, and `\n`, `\r\n` and a bare `\r` each end a line. The same
//! instance written with any of them (and with a BOM) parses to the same instance, in
//! every format; a located error counts lines by the same rule.

use gordian::{ar, ff8, fft, foeman, lancer, Error, ParseErrors};
use std::fmt::Debug;
use std::path::{Path, PathBuf};

/// The text's lines ended by `end` instead of `\n` (the text uses `\n` only).
fn with_ends(text: &str, end: &str) -> String {
    assert!(!text.contains('\r'));
    text.replace('\n', end)
}

/// Every way of writing `text` the policy reads as the same lines: LF, CRLF and bare-CR
/// line ends, mixed ends, each with and without a byte-order mark.
fn variants(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mixed: String = text
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| match (i % 3, l.strip_suffix('\n')) {
            (0, Some(l)) => format!("{l}\r"),
            (1, Some(l)) => format!("{l}\r\n"),
            _ => l.to_string(),
        })
        .collect();
    for (name, body) in [
        ("LF", text.to_string()),
        ("CRLF", with_ends(text, "\r\n")),
        ("CR", with_ends(text, "\r")),
        ("mixed", mixed),
    ] {
        out.push((format!("{name}, BOM"), format!("\u{FEFF}{body}")));
        out.push((name.to_string(), body));
    }
    out
}

/// Parses every variant of `text` and checks that each gives the LF parse's instance
/// (compared whole, by `Debug`: source positions included; ?AR nights, whose universe
/// holds hash maps, by their text).
fn same_in_every_variant<T: Debug + Instance>(
    what: &str,
    text: &str,
    parse: impl Fn(&str) -> Result<T, Error>,
) {
    let want = parse(text)
        .unwrap_or_else(|e| panic!("{what}: the LF text does not parse: {e}"))
        .view();
    for (name, v) in variants(text) {
        match parse(&v) {
            Ok(got) => assert_eq!(got.view(), want, "{what}, {name}"),
            Err(e) => panic!("{what}, {name}: {e}"),
        }
    }
}

/// How an instance is compared.
trait Instance {
    fn view(&self) -> String;
}

impl Instance for ar::Night {
    fn view(&self) -> String {
        self.to_text()
    }
}

macro_rules! by_debug {
    ($($t:ty),*) => {
        $(impl Instance for $t {
            fn view(&self) -> String {
                format!("{self:?}")
            }
        })*
    };
}

by_debug!(
    fft::Scenario,
    lancer::Scenario,
    foeman::Scenario,
    ff8::Scenario
);

fn shipped(system: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(system);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files in {}", dir.display());
    files
}

/// Every shipped instance of a system, in every variant.
fn shipped_same<T: Debug + Instance>(
    system: &str,
    ext: &str,
    parse: impl Fn(&str) -> Result<T, Error>,
) {
    for f in shipped(system, ext) {
        let text = std::fs::read_to_string(&f).unwrap();
        same_in_every_variant(&f.display().to_string(), &text, &parse);
    }
}

#[test]
fn every_shipped_instance_reads_the_same_whatever_its_line_ends_and_bom() {
    shipped_same("ar", "night", ar::Night::parse);
    shipped_same("fft", "fft", fft::Scenario::parse);
    shipped_same("lancer", "lancer", lancer::Scenario::parse);
    shipped_same("foeman", "foeman", foeman::Scenario::parse);
    shipped_same("ff8", "ff8", ff8::Scenario::parse);
}

#[test]
fn json_nights_read_the_same_whatever_their_line_ends_and_bom() {
    let json = "{\"players\": [\"R1\", \"R2\"],\n \"effects\": [\n  {\"actor\": \"R1\", \
                \"kind\": \"block\", \"targets\": [\"R2\"]},\n  {\"actor\": \"R2\", \"kind\": \
                \"bulletproof\"}\n]}\n";
    same_in_every_variant("JSON night", json, ar::Night::parse);
    // JSON and the night format give the same night.
    let night = ar::Night::parse("players: R1 R2\nR1 block R2\nR2 passive bulletproof\n");
    assert_eq!(
        night.unwrap().to_text(),
        ar::Night::parse(&format!("\u{FEFF}{}", with_ends(json, "\r")))
            .unwrap()
            .to_text()
    );
}

/// The located errors of a parse that must fail.
fn errors<T: Debug>(r: Result<T, Error>) -> ParseErrors {
    match r {
        Err(Error::Parse(e)) => e,
        other => panic!("expected located errors, got {other:?}"),
    }
}

/// `text` (LF line ends) fails with its first error at `line`:`col` saying `fragment`; so
/// does every variant, with the same line text quoted.
fn fails_at<T: Debug>(
    parse: impl Fn(&str) -> Result<T, Error>,
    text: &str,
    (line, col, fragment): (usize, usize, &str),
) {
    for (name, v) in variants(text) {
        let e = errors(parse(&v));
        let first = &e.0[0];
        assert_eq!((first.line, first.col), (line, col), "{name}: {e}");
        assert!(first.message.contains(fragment), "{name}: {e}");
        let want_line = text.split('\n').nth(line - 1).unwrap();
        assert_eq!(first.source_line, want_line, "{name}");
        assert!(
            e.to_string().contains(&format!("<text>:{line}:{col}")),
            "{name}: {e}"
        );
    }
}

#[test]
fn errors_after_cr_line_ends_name_the_right_line_in_every_format() {
    // Each third line has an error; its position is counted by hand (1-based columns).
    fails_at(
        ar::Night::parse,
        "R1 block R2\nR2 block R1\nR3 kil R1\n",
        (3, 4, "unknown kind `kil`"),
    );
    fails_at(
        ar::Night::parse,
        "{\"effects\": [\n{\"actor\": \"R1\", \"kind\": \"block\", \"targets\": [\"R2\"]},\n\
         {\"actor\": 5, \"kind\": \"kill\", \"targets\": [\"R1\"]}\n]}\n",
        (3, 11, "`actor` must be a string"),
    );
    fails_at(
        fft::Scenario::parse,
        "char A team x\nchar B team x\nchar C team y ct -1\n",
        (3, 18, "can not be negative"),
    );
    fails_at(
        lancer::Scenario::parse,
        "unit a side x hp 1 structure 1 at 0 0\nunit b side y hp 1 structure 1 at 1 0\n\
         weapon w damage 1 2 2\n",
        (3, 21, "damage value 2 is listed twice"),
    );
    fails_at(
        foeman::Scenario::parse,
        "side A ini 3\nside B ini 4\nside A ini 5\n",
        (3, 6, "side `A` declared twice"),
    );
    fails_at(
        ff8::Scenario::parse,
        "current: Balamb\ntrading: 3\npoints: 999\n",
        (3, 9, "trade rule points must be a whole number 0..=250"),
    );
}

#[test]
fn a_bom_is_not_a_token_and_line_1_columns_start_after_it() {
    // Before the policy was shared, these formats read the mark as part of the first word.
    fails_at(
        lancer::Scenario::parse,
        "polcy seed\n",
        (1, 1, "unknown declaration `polcy`"),
    );
    fails_at(
        foeman::Scenario::parse,
        "sid A ini 3\n",
        (1, 1, "unknown keyword `sid`"),
    );
    fails_at(
        ff8::Scenario::parse,
        "curent: Balamb\n",
        (1, 1, "unknown key `curent`"),
    );
    fails_at(
        fft::Scenario::parse,
        "chr A team x\n",
        (1, 1, "unknown keyword `chr`"),
    );
    fails_at(
        ar::Night::parse,
        "R1 blok R2\n",
        (1, 4, "unknown kind `blok`"),
    );
}

#[test]
fn a_bare_cr_night_is_several_lines_not_one() {
    // Three effects on three CR-ended lines: one effect per line, not one line with a
    // five-target block (the old reading, answered wrongly).
    let night = ar::Night::parse("A block B\rB block C\rC block A\r").unwrap();
    let text = night.to_text();
    assert_eq!(
        text,
        "players: A B C\ne1: A block B @2\ne2: B block C @2\ne3: C block A @2\n"
    );
}

/// The library's errors read well inside a caller's own message: displayed, a parse error
/// is `FILE:LINE:COL: MESSAGE` with no `error:` of its own (so "parse error: {e}" does not
/// say "error" twice), and the command line's rendering, with the line and a caret, is
/// there for whoever wants it.
#[test]
fn library_errors_display_without_their_own_error_prefix() {
    let e = ar::Night::parse("players: A B\nA fly B\n").unwrap_err();
    let shown = format!("parse error: {e}");
    assert!(shown.starts_with("parse error: <text>:2:3: "), "{shown}");
    assert!(!shown.contains("error: error"), "{shown}");
    assert_eq!(shown.lines().count(), 1, "{shown}");
    let Error::Parse(errs) = e else {
        panic!("not a parse error: {e:?}")
    };
    let rendered = errs.rendered();
    assert!(rendered.starts_with("error: "), "{rendered}");
    assert!(rendered.contains("--> <text>:2:3"), "{rendered}");
    assert!(rendered.trim_end().ends_with('^'), "{rendered}");
    let io = ar::Night::from_file("no/such/file.night").unwrap_err();
    assert!(
        io.to_string().starts_with("cannot read no/such/file.night"),
        "{io}"
    );
}
