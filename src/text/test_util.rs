//! Test helpers every parser's tests share (compiled for tests only): the one table
//! helper for error tests ([`error_table`]: rows of input, line, column and message
//! fragment), and the checks any error report must pass ([`assert_errors_well_formed`],
//! [`assert_invalid_utf8_error`], [`assert_well_rendered`]).
//!
//! Invariant: a failing row names its input, so a table's failure says which case broke.

use super::source::{ParseError, ParseErrors, MAX_ERRORS};
use std::fmt::Debug;

/// One row of an error table: the input, then the 1-based line, the 1-based column and a
/// fragment of the message of the one error it must give.
pub type Case = (&'static str, usize, usize, &'static str);

/// Checks every row of `cases`: `parse` (the format's parser, which may put the row's
/// input into a larger text) fails with exactly one error, at the row's line and column,
/// whose message contains the row's fragment and which renders well.
pub fn error_table<T: Debug>(cases: &[Case], parse: impl Fn(&str) -> Result<T, ParseErrors>) {
    for &(input, line, col, fragment) in cases {
        let errs = match parse(input) {
            Ok(v) => panic!("{input:?}: expected an error, got {v:#?}"),
            Err(e) => e.0,
        };
        assert_eq!(
            errs.len(),
            1,
            "{input:?}: expected one error, got {errs:#?}"
        );
        let e = &errs[0];
        assert_eq!(
            (e.line, e.col),
            (line, col),
            "{input:?}: position of {e:#?}"
        );
        assert!(
            e.message.contains(fragment),
            "{input:?}: {:?} lacks {fragment:?}",
            e.message
        );
        assert_well_rendered(e);
    }
}

/// `e` renders as `error: MESSAGE`, a `--> FILE:LINE:COL` line naming its real position,
/// and a caret; displayed, it is the one line `FILE:LINE:COL: MESSAGE`.
pub fn assert_well_rendered(e: &ParseError) {
    let line = e.to_string();
    let at = format!("{}:{}:{}: ", e.file.display(), e.line, e.col);
    assert!(line.starts_with(&at) && !line.contains('\n'), "{line}");
    let shown = e.rendered();
    assert!(shown.starts_with("error: "), "{shown}");
    let at = format!("--> {}:{}:{}", e.file.display(), e.line, e.col);
    assert!(shown.contains(&at), "{shown}");
    assert!(shown.trim_end().ends_with('^'), "{shown}");
}

/// The invariants of every error report for `src`: between 1 and [`MAX_ERRORS`] errors,
/// in order of position, each on a line of the text (read by the shared policy) that it
/// quotes, at a column on that line or just past its end, and well rendered.
pub fn assert_errors_well_formed(src: &str, errs: &ParseErrors) {
    let src = super::lex::strip_bom(src);
    assert!(!errs.0.is_empty() && errs.0.len() <= MAX_ERRORS);
    let lines: Vec<&str> = super::lex::lines(src).collect();
    let mut last = (0, 0);
    for e in &errs.0 {
        assert!(e.line >= 1 && e.line <= lines.len() && e.col >= 1, "{e:?}");
        let text = lines[e.line - 1];
        assert_eq!(e.source_line, text);
        assert!(e.col <= text.chars().count() + 1, "{e:?}");
        assert!((e.line, e.col) >= last, "errors out of order");
        last = (e.line, e.col);
        assert_well_rendered(e);
    }
    let _ = errs.rendered();
}

/// What any parser must say about `bytes` that are not UTF-8: exactly one error, located
/// on a line of the (lossily decoded) text, and renderable.
pub fn assert_invalid_utf8_error(bytes: &[u8], errs: &ParseErrors) {
    assert_eq!(errs.0.len(), 1, "{errs}");
    let e = &errs.0[0];
    let lossy = String::from_utf8_lossy(bytes);
    assert!(e.line >= 1 && e.col >= 1, "{e:?}");
    assert!(e.line <= super::lex::lines(&lossy).count(), "{e:?}");
    assert_well_rendered(e);
}
