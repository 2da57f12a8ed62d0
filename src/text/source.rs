//! Input text shared by every system's parser: located errors ([`ParseError`], shown with
//! the offending line and a caret), size-limited file reading and UTF-8 decoding.
//!
//! Invariants: every error names the file, a 1-based line and a 1-based column (in
//! characters); reading never loads more than [`MAX_FILE_BYTES`] + 1 bytes.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// At most this many errors are reported for one file.
pub const MAX_ERRORS: usize = 20;

/// Files larger than this (16 MiB) are rejected by [`read_limited`].
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Longer source lines are shown as a window around the column.
const SHOW_WIDTH: usize = 160;

/// One located error in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file the text came from (as given by the caller).
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// What is wrong (one line, no position).
    pub message: String,
    /// The offending line, without its line end.
    pub source_line: String,
}

impl fmt::Display for ParseError {
    /// One line, `FILE:LINE:COL: MESSAGE`, with no `error:` in front: a caller adds its
    /// own words (`parse error: {e}`). [`ParseError::rendered`] is the command line's form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

impl ParseError {
    /// The error as the command line shows it, rendered by annotate-snippets as rustc
    /// renders its errors: `error: MESSAGE`, then `--> FILE:LINE:COL`, the line and a caret
    /// under the column. Control characters are shown as `\u{FFFD}`; a line longer than 160
    /// characters is shown as a window around the column (the location still names the
    /// real column).
    pub fn rendered(&self) -> String {
        use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
        let chars: Vec<char> = self
            .source_line
            .chars()
            .map(|c| {
                if c == '\t' || !c.is_control() {
                    c
                } else {
                    '\u{FFFD}'
                }
            })
            .collect();
        let at = self.col.saturating_sub(1).min(chars.len());
        // A window around the column (marked `...`), so that huge lines render quickly;
        // the location line is corrected below to name the real column.
        let (start, end) = if chars.len() > SHOW_WIDTH {
            let start = at.saturating_sub(SHOW_WIDTH / 2);
            (start, (start + SHOW_WIDTH).min(chars.len()))
        } else {
            (0, chars.len())
        };
        let pre = if start > 0 { "..." } else { "" };
        let mut text: String = pre.to_string();
        text.extend(&chars[start..end]);
        if end < chars.len() {
            text.push_str("...");
        }
        let byte_at: usize = text
            .char_indices()
            .nth(at - start + pre.len())
            .map_or(text.len(), |(b, _)| b);
        let span_end = text[byte_at..]
            .chars()
            .next()
            .map_or(byte_at, |c| byte_at + c.len_utf8());
        let path = self.file.display().to_string();
        let report = &[Level::ERROR.primary_title(&self.message).element(
            Snippet::source(&text)
                .line_start(self.line)
                .path(&path)
                .annotation(AnnotationKind::Primary.span(byte_at..span_end)),
        )];
        let rendered = Renderer::plain().render(report);
        let mut out = rendered.trim_end().to_string();
        if start > 0 {
            // The renderer counted columns from the padded window: name the real one.
            let shown = format!(":{}:", self.line);
            if let Some(p) = out.find(&format!("{path}{shown}")) {
                let from = p + path.len() + shown.len();
                let to = out[from..]
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(out.len(), |i| from + i);
                out.replace_range(from..to, &self.col.to_string());
            }
        }
        out
    }
}

impl std::error::Error for ParseError {}

/// All the errors found in one file (at least one, at most 20), in order of position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseErrors(pub Vec<ParseError>);

impl fmt::Display for ParseErrors {
    /// Each error on its own line as `FILE:LINE:COL: MESSAGE` (no `error:` in front).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl ParseErrors {
    /// The errors as the command line shows them: each [`ParseError::rendered`]
    /// (separated by newlines), then `N errors` when there is more than one.
    pub fn rendered(&self) -> String {
        let mut out = self
            .0
            .iter()
            .map(ParseError::rendered)
            .collect::<Vec<_>>()
            .join("\n");
        let n = self.0.len();
        if n > 1 {
            out.push_str(&format!("\n{n} errors"));
            if n >= MAX_ERRORS {
                out.push_str(&format!(" (at most {MAX_ERRORS} are reported)"));
            }
        }
        out
    }
}

/// Failure to load an input file: it could not be read, or it is invalid.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read (missing, unreadable, or larger than
    /// [`MAX_FILE_BYTES`]).
    #[error("cannot read {}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not valid (invalid UTF-8 included, reported at the first
    /// bad byte).
    #[error(transparent)]
    Parse(#[from] ParseErrors),
}

/// Reads at most [`MAX_FILE_BYTES`] of `path`; a larger file is an [`LoadError::Io`]
/// error naming the limit for `what` (for example "night files").
pub fn read_limited(path: &Path, what: &str) -> Result<Vec<u8>, LoadError> {
    let io = |source| LoadError::Io {
        file: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the file is larger than {} MiB, the limit for {what}",
                MAX_FILE_BYTES >> 20
            ),
        )));
    }
    Ok(bytes)
}

/// The bytes as UTF-8 text, or a located error at the first invalid byte saying that
/// `what` (for example ".fft files") must be UTF-8 text. The error counts lines and
/// columns by the shared policy ([`super::lex`]: a leading byte-order mark skipped; `\n`,
/// `\r\n` and a bare `\r` each end a line).
pub fn decode_utf8<'a>(bytes: &'a [u8], file: &Path, what: &str) -> Result<&'a str, ParseErrors> {
    std::str::from_utf8(bytes).map_err(|e| {
        let bad = e.valid_up_to();
        let valid = super::lex::strip_bom(std::str::from_utf8(&bytes[..bad]).unwrap_or_default());
        // The bad byte is on the valid prefix's last line.
        let (line, before) = super::lex::lines(valid)
            .enumerate()
            .last()
            .map_or((1, ""), |(i, l)| (i + 1, l));
        let col = before.chars().count() + 1;
        let rest = &bytes[bad..];
        let line_end = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(rest.len());
        let mut text = before.to_string();
        text.push_str(&String::from_utf8_lossy(&rest[..line_end]));
        ParseErrors(vec![ParseError {
            file: file.to_path_buf(),
            line,
            col,
            message: format!(
                "invalid UTF-8 (byte 0x{:02x}); {what} must be UTF-8 text",
                bytes[bad]
            ),
            source_line: text,
        }])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line and column of the invalid byte in `bytes`, as `decode_utf8` locates it.
    fn at(bytes: &[u8]) -> (usize, usize, String) {
        let e = decode_utf8(bytes, Path::new("t"), "test files").unwrap_err();
        let e = &e.0[0];
        (e.line, e.col, e.source_line.clone())
    }

    #[test]
    fn invalid_utf8_is_located_by_the_shared_line_policy() {
        // Lines counted as every parser counts them: LF, CRLF and a bare CR end a line.
        assert_eq!(at(b"ab\xffc"), (1, 3, "ab\u{FFFD}c".into()));
        assert_eq!(at(b"a\nb\r\nc\rd\xff\re"), (4, 2, "d\u{FFFD}".into()));
        assert_eq!(at(b"a\r\xff"), (2, 1, "\u{FFFD}".into()));
        // A byte-order mark is not a column.
        assert_eq!(at(b"\xef\xbb\xbfx\xff"), (1, 2, "x\u{FFFD}".into()));
        assert_eq!(decode_utf8(b"ok\r", Path::new("t"), "t").unwrap(), "ok\r");
    }
}
