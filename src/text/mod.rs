//! Input text shared by every system's parser: located errors and their rendering
//! (annotate-snippets), size-limited reading and UTF-8 decoding ([`source`]), the error
//! sink parsers report into ([`sink`]), the lexing every format shares: lines, comments,
//! words, pieces, names and numbers ([`lex`]), and, for tests, the one error-table helper
//! ([`test_util`]).

pub mod lex;
pub mod sink;
pub mod source;
#[cfg(test)]
pub mod test_util;

pub use sink::Sink;
#[cfg(test)]
pub use source::MAX_ERRORS;
pub use source::{decode_utf8, read_limited, LoadError, ParseError, ParseErrors, MAX_FILE_BYTES};
