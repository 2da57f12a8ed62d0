//! Input text shared by every system's parser: located errors and their rendering
//! (annotate-snippets), size-limited reading and UTF-8 decoding ([`source`]), the error
//! sink parsers report into ([`sink`]), and small lexing helpers ([`lex`]).

pub mod lex;
pub mod sink;
pub mod source;

pub use sink::Sink;
#[cfg(test)]
pub use source::MAX_ERRORS;
pub use source::{decode_utf8, read_limited, LoadError, ParseError, ParseErrors, MAX_FILE_BYTES};
