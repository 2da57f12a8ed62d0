//! The error sink every parser reports into: it applies the shared byte-order-mark and
//! line-ending policy ([`super::lex`]) to the source, so parsers read their lines from it
//! and every located error counts lines the same way; it turns a (line, column, message)
//! into a [`ParseError`] showing the line, and stops collecting once enough has been said.
//!
//! Invariants: at most [`MAX_ERRORS`] errors, and at most [`MAX_ERROR_TEXT`] bytes of
//! quoted source lines, are kept (a file of one huge bad line cannot make a huge report);
//! lines and columns are 1-based and at least 1; control characters in messages are
//! escaped; building the sink and recording an error are linear in the source and the
//! line (the errors are sorted once, at the end).

use super::lex;
use super::source::{ParseError, ParseErrors, MAX_ERRORS};
use std::path::Path;

/// At most this many bytes of source lines (32 MiB) are quoted in one file's errors.
pub const MAX_ERROR_TEXT: usize = 32 * 1024 * 1024;

/// The lines of one source and the errors found in it so far.
#[derive(Debug)]
pub struct Sink<'a> {
    file: &'a Path,
    /// The source without its byte-order mark.
    text: &'a str,
    /// The lines, without their line ends ([`lex::lines`]).
    lines: Vec<&'a str>,
    /// The byte offset in `text` of each line's start.
    starts: Vec<usize>,
    errors: Vec<ParseError>,
    error_text: usize,
}

impl<'a> Sink<'a> {
    /// A sink for `src`, read from `file`: a leading byte-order mark is skipped and the
    /// rest split into lines by the shared policy ([`lex::line_spans`]).
    pub fn new(src: &'a str, file: &'a Path) -> Sink<'a> {
        let text = lex::strip_bom(src);
        let (starts, lines) = lex::line_spans(text).unzip();
        Sink {
            file,
            text,
            lines,
            starts,
            errors: Vec::new(),
            error_text: 0,
        }
    }

    /// A single error at a 1-based line and column of `src` (a whole-file problem found
    /// outside a parser), located by the same policy.
    pub fn one(src: &str, file: &Path, line: usize, col: usize, message: &str) -> ParseErrors {
        let mut s = Sink::new(src, file);
        s.err(line, col, message);
        ParseErrors(s.errors)
    }

    /// The source without its byte-order mark (what byte offsets and columns refer to).
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// How many lines the source has (at least 1).
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Whether no more errors are wanted.
    pub fn full(&self) -> bool {
        self.errors.len() >= MAX_ERRORS || self.error_text >= MAX_ERROR_TEXT
    }

    /// The text of a 1-based line, without its line end (empty past the end).
    pub fn line_text(&self, line: usize) -> &'a str {
        self.lines.get(line.wrapping_sub(1)).copied().unwrap_or("")
    }

    /// The 1-based line holding byte offset `offset` of [`Sink::text`], and the offset of
    /// that line's start (a line end belongs to the line it ends).
    pub fn line_at(&self, offset: usize) -> (usize, usize) {
        let i = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        (i + 1, self.starts[i])
    }

    /// Records an error at a 1-based line and column.
    pub fn err(&mut self, line: usize, col: usize, message: impl Into<String>) {
        if self.full() {
            return;
        }
        let message: String = message.into();
        let source_line = self.line_text(line).to_string();
        self.error_text += source_line.len();
        let message = if message.chars().any(char::is_control) {
            message.chars().flat_map(char::escape_debug).collect()
        } else {
            message
        };
        self.errors.push(ParseError {
            file: self.file.to_path_buf(),
            line: line.max(1),
            col: col.max(1),
            message,
            source_line,
        });
    }

    /// How many errors were recorded.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// The errors, in order of position, or `Ok` if there are none.
    pub fn finish(self) -> Result<(), ParseErrors> {
        if self.errors.is_empty() {
            return Ok(());
        }
        let mut errors = self.errors;
        errors.sort_by_key(|e| (e.line, e.col));
        Err(ParseErrors(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_located_sorted_and_bounded() {
        let file = Path::new("t.txt");
        let mut s = Sink::new("one\r\ntwo\n", file);
        s.err(2, 3, "second");
        s.err(1, 0, "first\tline");
        assert_eq!(s.line_text(1), "one");
        assert_eq!(s.line_text(9), "");
        let e = s.finish().unwrap_err().0;
        assert_eq!(
            (e[0].line, e[0].col, e[0].message.as_str()),
            (1, 1, "first\\tline")
        );
        assert_eq!(
            (e[1].line, e[1].col, e[1].source_line.as_str()),
            (2, 3, "two")
        );
        // The policy: BOM skipped, bare CR a line end, offsets located by it.
        let s = Sink::new("\u{FEFF}a\rbc\r\nd", file);
        assert_eq!(s.text(), "a\rbc\r\nd");
        assert_eq!(s.lines, ["a", "bc", "d"]);
        assert_eq!(s.line_count(), 3);
        assert_eq!(s.line_at(0), (1, 0));
        assert_eq!(s.line_at(1), (1, 0)); // the CR ends line 1
        assert_eq!(s.line_at(3), (2, 2));
        assert_eq!(s.line_at(5), (2, 2)); // the LF of the CRLF
        assert_eq!(s.line_at(6), (3, 6));
        assert_eq!(s.line_at(99), (3, 6));
        let one = Sink::one("x\ry", file, 2, 1, "whole file").0;
        assert_eq!((one[0].line, one[0].source_line.as_str()), (2, "y"));
        let mut many = Sink::new("x", file);
        for i in 0..100 {
            many.err(1, i, "again");
        }
        assert_eq!(many.finish().unwrap_err().0.len(), MAX_ERRORS);
        assert!(Sink::new("", file).finish().is_ok());
    }
}
