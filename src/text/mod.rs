//! Input text shared by every system's parser: located errors and their rendering
//! (annotate-snippets), size-limited reading and UTF-8 decoding ([`source`]), the error
//! sink parsers report into ([`sink`]), and small lexing helpers ([`lex`]).

pub mod lex;
pub mod sink;
pub mod source;

pub use sink::Sink;
pub use source::{
    decode_utf8, read_limited, LoadError, ParseError, ParseErrors, MAX_ERRORS, MAX_FILE_BYTES,
};
