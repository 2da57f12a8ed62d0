//! The lexing every format shares: the byte-order mark and line-ending policy, comments,
//! whitespace-separated words and separator-separated pieces with their columns, the
//! name rule, the number reader, and character columns of byte offsets.
//!
//! **The policy** (one for every format): a leading UTF-8 byte-order mark is not part of
//! the text ([`strip_bom`]; columns on line 1 are counted after it), and `\n`, `\r\n` and a
//! bare `\r` each end a line ([`lines`]). Every parser reads its lines, and every located
//! error counts its lines, by these two functions. `#` starts a comment ([`code`]); words
//! are separated by white space ([`words`], [`line_words`]); columns count characters,
//! from 1.
//!
//! **Names** follow one rule ([`NameRule`]): letters, digits, `_` and the punctuation a
//! format allows; each format names its letters and punctuation in one constant.
//! **Numbers** are read by one reader ([`number`], and [`count`] for unsigned digits
//! only); each format words its own message from the reader's verdict.

use std::ops::RangeBounds;
use std::str::FromStr;

/// A problem located on one line: its 1-based column and the message.
pub type Located = (usize, String);

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{FEFF}').unwrap_or(s)
}

/// The lines of `src` (after [`strip_bom`]), without their line ends, each with the byte
/// offset of its first character: `\n`, `\r\n` and a bare `\r` each end a line. As with
/// `str::split`, the text after the last line end is a last line (empty when the text
/// ends with a line end), so there is always at least one line. Linear in the text.
pub fn line_spans(src: &str) -> LineSpans<'_> {
    LineSpans { src, at: Some(0) }
}

/// The lines of `src` without their line ends (see [`line_spans`]).
pub fn lines(src: &str) -> impl Iterator<Item = &str> {
    line_spans(src).map(|(_, l)| l)
}

/// The iterator of [`line_spans`].
#[derive(Clone, Debug)]
pub struct LineSpans<'a> {
    src: &'a str,
    /// Byte offset of the next line's start; `None` once the last line was returned.
    at: Option<usize>,
}

impl<'a> Iterator for LineSpans<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let start = self.at?;
        let bytes = self.src.as_bytes();
        match bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            None => {
                self.at = None;
                Some((start, &self.src[start..]))
            }
            Some(i) => {
                let end = start + i;
                let next = if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                    end + 2
                } else {
                    end + 1
                };
                self.at = Some(next);
                Some((start, &self.src[start..end]))
            }
        }
    }
}

/// Character columns (1-based) of byte offsets in one line, in constant time whatever
/// the order they are asked in: an ASCII line answers at once; otherwise the number of
/// characters before every 64th byte is counted once, in one pass, and the rest of a
/// column is counted within its 64-byte block.
#[derive(Debug)]
pub struct Columns<'a> {
    line: &'a str,
    /// `blocks[k]`: the characters starting before byte `64 * k`, for every `k` up to
    /// `len / 64` (empty for ASCII).
    blocks: Vec<u32>,
}

/// Bytes per block of [`Columns`].
const BLOCK: usize = 64;

/// Whether `b` starts a UTF-8 character (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl<'a> Columns<'a> {
    /// Columns of `line`.
    pub fn new(line: &'a str) -> Columns<'a> {
        let blocks = if line.is_ascii() {
            Vec::new()
        } else {
            let mut n = 0u32;
            let mut blocks = Vec::with_capacity(line.len() / BLOCK + 1);
            for chunk in line.as_bytes().chunks(BLOCK) {
                blocks.push(n);
                n += chunk.iter().filter(|&&b| starts_char(b)).count() as u32;
            }
            // The end of a line whose length is a multiple of the block size.
            blocks.push(n);
            blocks
        };
        Columns { line, blocks }
    }

    /// The column of the character at byte offset `byte` (rounded down to a character
    /// boundary; past the end: the column just past the last character).
    pub fn col(&self, byte: usize) -> usize {
        let mut byte = byte.min(self.line.len());
        if self.blocks.is_empty() {
            return byte + 1;
        }
        while !self.line.is_char_boundary(byte) {
            byte -= 1;
        }
        let k = byte / BLOCK;
        let within = self.line.as_bytes()[k * BLOCK..byte]
            .iter()
            .filter(|&&b| starts_char(b))
            .count();
        self.blocks[k] as usize + within + 1
    }

    /// The column of `sub`, a slice of the line (its end when `sub` is not in it).
    pub fn col_of(&self, sub: &str) -> usize {
        let off = (sub.as_ptr() as usize).wrapping_sub(self.line.as_ptr() as usize);
        self.col(off)
    }
}

/// The name rule every format shares: a name is a non-empty word of letters, digits,
/// `_` and the punctuation its format allows in names. The formats differ only in these
/// two settings (each declares one constant): whether letters and digits beyond ASCII
/// count, and which punctuation (a format keeps the rest for its own notation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameRule {
    /// Whether any Unicode letter or digit counts (otherwise only `A-Z a-z 0-9`).
    pub unicode: bool,
    /// The punctuation allowed in names besides `_`.
    pub punct: &'static str,
}

impl NameRule {
    /// Whether `c` may appear in a name.
    pub fn allows(&self, c: char) -> bool {
        let alnum = if self.unicode {
            c.is_alphanumeric()
        } else {
            c.is_ascii_alphanumeric()
        };
        alnum || c == '_' || self.punct.contains(c)
    }

    /// The first character of `s` that may not appear in a name.
    pub fn first_bad(&self, s: &str) -> Option<char> {
        s.chars().find(|&c| !self.allows(c))
    }

    /// Whether `s` is a name: not empty, and every character allowed.
    pub fn is_name(&self, s: &str) -> bool {
        !s.is_empty() && self.first_bad(s).is_none()
    }
}

/// The name rule of ?AR nights (and of most formats): `[A-Za-z0-9_.-]+`.
pub const NAMES: NameRule = NameRule {
    unicode: false,
    punct: ".-",
};

/// The number reader every format shares: `s` as a decimal integer of type `T` (an
/// optional sign, `-` only for signed types, then ASCII digits; as `str::parse` reads
/// integers), if it is one and lies in `range`.
pub fn number<T: FromStr + PartialOrd>(s: &str, range: impl RangeBounds<T>) -> Option<T> {
    s.parse::<T>().ok().filter(|n| range.contains(n))
}

/// Why a word is not a count (see [`count`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotACount {
    /// Not ASCII digits (nor a minus sign and digits).
    NotDigits,
    /// A minus sign and digits.
    Negative,
    /// Digits, but more than the maximum.
    TooLarge,
}

/// A count: `s` written with ASCII digits only (no sign) and at most `max`, read by
/// [`number`]; otherwise why not.
pub fn count<T: FromStr + PartialOrd>(s: &str, max: T) -> Result<T, NotACount> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if digits(s) {
        number(s, ..=max).ok_or(NotACount::TooLarge)
    } else if s.strip_prefix('-').is_some_and(digits) {
        Err(NotACount::Negative)
    } else {
        Err(NotACount::NotDigits)
    }
}

/// The part of a line before its comment (`#` to the end of the line).
pub fn code(line: &str) -> &str {
    line.find('#').map_or(line, |p| &line[..p])
}

/// The words of a line before its comment ([`code`]), with their columns.
pub fn line_words(line: &str) -> Vec<Word<'_>> {
    words(code(line), 1)
}

/// A whitespace-separated word of a line, with its 1-based column (in characters) and
/// its byte offset in the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    /// 1-based column of its first character.
    pub col: usize,
    /// Byte offset of its first character.
    pub byte: usize,
    /// The word.
    pub text: &'a str,
}

impl Word<'_> {
    /// The column just past the word.
    pub fn end_col(&self) -> usize {
        self.col + self.text.chars().count()
    }
}

/// The whitespace-separated words of `line`, whose first character is at column `base`
/// (1 for a whole line), with their columns.
pub fn words(line: &str, base: usize) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    for (i, (byte, c)) in line.char_indices().enumerate() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some((base + i, byte)),
            (true, Some((col, b))) => {
                out.push(Word {
                    col,
                    byte: b,
                    text: &line[b..byte],
                });
                start = None;
            }
            _ => {}
        }
    }
    if let Some((col, b)) = start {
        out.push(Word {
            col,
            byte: b,
            text: &line[b..],
        });
    }
    out
}

/// The only word of `text` (first character at column `base`): `Ok(None)` when there is
/// none, `Err` with the second word when there are more.
pub fn single(text: &str, base: usize) -> Result<Option<Word<'_>>, Word<'_>> {
    let ws = words(text, base);
    match ws.get(1) {
        Some(&second) => Err(second),
        None => Ok(ws.first().copied()),
    }
}

/// A part of a text between separators, trimmed of white space (see [`pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece<'a> {
    /// Column of the separator before the piece (0 for the first piece).
    pub sep_col: usize,
    /// Column of the part's first character before trimming (for an empty part, of the
    /// next separator, or just past the end of the text).
    pub raw_col: usize,
    /// Column of the trimmed text; for an empty piece, of the next separator (or just
    /// past the end of the text).
    pub col: usize,
    /// The trimmed text.
    pub text: &'a str,
}

/// Splits `text` (first character at column `base`) at every `sep`, each part trimmed of
/// white space, with its columns. As with `str::split`, there is always one piece more
/// than separators. Linear in the text.
pub fn pieces(text: &str, base: usize, sep: char) -> Vec<Piece<'_>> {
    fn piece(raw: &str, start_col: usize, end_col: usize, sep_col: usize) -> Piece<'_> {
        let trimmed = raw.trim();
        let lead = raw.len() - raw.trim_start().len();
        let col = if trimmed.is_empty() {
            end_col
        } else {
            start_col + raw[..lead].chars().count()
        };
        Piece {
            sep_col,
            raw_col: start_col,
            col,
            text: trimmed,
        }
    }
    let mut out = Vec::new();
    let (mut start_b, mut start_col, mut sep_col) = (0, base, 0);
    let mut col = base;
    for (b, c) in text.char_indices() {
        if c == sep {
            out.push(piece(&text[start_b..b], start_col, col, sep_col));
            sep_col = col;
            start_b = b + c.len_utf8();
            start_col = col + 1;
        }
        col += 1;
    }
    out.push(piece(&text[start_b..], start_col, col, sep_col));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_carry_columns_in_characters() {
        let w = words("  é1 block\tR2 ", 1);
        let got: Vec<(usize, usize, &str)> = w.iter().map(|w| (w.col, w.byte, w.text)).collect();
        assert_eq!(got, [(3, 2, "é1"), (6, 6, "block"), (12, 12, "R2")]);
        assert_eq!(w[0].end_col(), 5);
        assert!(words(" \t ", 1).is_empty());
        assert_eq!(words("x", 5)[0].col, 5);
        assert_eq!(strip_bom("\u{FEFF}x"), "x");
    }

    #[test]
    fn comments_pieces_and_single_words() {
        assert_eq!(code("a b # c # d"), "a b ");
        assert_eq!(code("no comment"), "no comment");
        let got: Vec<(usize, &str)> = line_words(" x\ty # z")
            .iter()
            .map(|w| (w.col, w.text))
            .collect();
        assert_eq!(got, [(2, "x"), (4, "y")]);
        // "é, b ,, " from column 3 (commas at columns 4, 8 and 9): `é` at 3; `b` at 6
        // (its part starts at 5); an empty part at 9 (the next comma); and a blank part
        // starting at 10, located at 11, just past the end.
        let p = pieces("é, b ,, ", 3, ',');
        let got: Vec<(usize, usize, usize, &str)> = p
            .iter()
            .map(|p| (p.sep_col, p.raw_col, p.col, p.text))
            .collect();
        assert_eq!(
            got,
            [
                (0, 3, 3, "é"),
                (4, 5, 6, "b"),
                (8, 9, 9, ""),
                (9, 10, 11, "")
            ]
        );
        assert_eq!(pieces("", 1, ',')[0].col, 1);
        assert_eq!(single("  a ", 4).unwrap().unwrap().col, 6);
        assert_eq!(single(" ", 1), Ok(None));
        assert_eq!(single("a bc", 1).unwrap_err().text, "bc");
    }

    #[test]
    fn one_name_rule_one_number_reader() {
        let fft = NameRule {
            unicode: false,
            punct: "",
        };
        let lancer = NameRule {
            unicode: true,
            punct: "-'",
        };
        assert!(NAMES.is_name("a.b-c_9") && !NAMES.is_name("a b") && !NAMES.is_name(""));
        assert_eq!(NAMES.first_bad("Äb"), Some('Ä'));
        assert!(fft.is_name("A_1") && !fft.is_name("A-1") && !fft.is_name("A.1"));
        assert!(lancer.is_name("O'Brien-2") && lancer.is_name("Ärger") && !lancer.is_name("a.b"));
        assert_eq!(number::<u32>("+7", 0..=9), Some(7));
        assert_eq!(number::<u32>("-0", 0..=9), None);
        assert_eq!(number::<i32>("-0", -1..=1), Some(0));
        assert_eq!(number::<u8>("10", 1..=9), None);
        assert_eq!(number::<u8>("x", ..), None);
        assert_eq!(count::<u32>("007", 9), Ok(7));
        assert_eq!(count::<u32>("10", 9), Err(NotACount::TooLarge));
        assert_eq!(
            count::<u32>("4294967296", u32::MAX),
            Err(NotACount::TooLarge)
        );
        assert_eq!(count::<u32>("-3", 9), Err(NotACount::Negative));
        for bad in ["", "-", "+3", "3.0", " 3", "x"] {
            assert_eq!(count::<u32>(bad, 9), Err(NotACount::NotDigits), "{bad:?}");
        }
    }

    #[test]
    fn lf_crlf_and_bare_cr_each_end_a_line() {
        fn split(s: &str) -> Vec<&str> {
            lines(s).collect()
        }
        assert_eq!(split("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(split("a\n"), ["a", ""]);
        assert_eq!(split(""), [""]);
        // LF then CR: two line ends; CR then CRLF: two line ends; CRLF is one.
        assert_eq!(split("a\n\rb"), ["a", "", "b"]);
        assert_eq!(split("a\r\r\nb"), ["a", "", "b"]);
        assert_eq!(split("\r"), ["", ""]);
        let spans: Vec<(usize, &str)> = line_spans("ab\r\ncd\re").collect();
        assert_eq!(spans, [(0, "ab"), (4, "cd"), (7, "e")]);
        // The same lines as `str::lines` on text without bare CRs (bar the last empty one).
        let t = "x y\r\n\nz\r\n";
        let mine: Vec<&str> = lines(t).collect();
        let std: Vec<&str> = t.lines().collect();
        assert_eq!(mine[..mine.len() - 1], std[..]);
    }

    #[test]
    fn columns_count_characters_in_either_direction() {
        let line = "é1 block R2";
        let c = Columns::new(line);
        assert_eq!(c.col(0), 1);
        assert_eq!(c.col(4), 4); // after `é1 ` (é is two bytes)
        assert_eq!(c.col(1), 1); // inside `é`: its column
        assert_eq!(c.col(3), 3);
        assert_eq!(c.col(99), 12);
        assert_eq!(c.col_of(&line[10..]), 10);
        let a = Columns::new("abc");
        assert_eq!((a.col(2), a.col(0), a.col(7)), (3, 1, 4));
        // Across blocks, in any order: every column is one more than the characters
        // before it.
        let long: String = "aé€😀".repeat(50);
        let c = Columns::new(&long);
        let mut offsets: Vec<usize> = long.char_indices().map(|(b, _)| b).collect();
        offsets.push(long.len());
        for (i, &b) in offsets.iter().enumerate().rev() {
            assert_eq!(c.col(b), i + 1, "byte {b}");
        }
        let exact = "é".repeat(32); // 64 bytes: its end is past the last block
        assert_eq!(Columns::new(&exact).col(64), 33);
    }
}
