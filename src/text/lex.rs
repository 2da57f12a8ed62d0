//! Small lexing helpers every format shares: the byte-order mark and line-ending policy,
//! names, whitespace-separated words with their columns, and character columns of byte
//! offsets.
//!
//! **The policy** (one for every format): a leading UTF-8 byte-order mark is not part of
//! the text ([`strip_bom`]; columns on line 1 are counted after it), and `\n`, `\r\n` and a
//! bare `\r` each end a line ([`lines`]). Every parser reads its lines, and every located
//! error counts its lines, by these two functions.

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

/// Whether `c` may appear in a name (`[A-Za-z0-9_.-]`).
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Whether `s` is a valid name: `[A-Za-z0-9_.-]+`.
pub fn is_valid_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_name_char)
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
        assert!(is_valid_name("a.b-c_9") && !is_valid_name("a b") && !is_valid_name(""));
        assert_eq!(strip_bom("\u{FEFF}x"), "x");
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
