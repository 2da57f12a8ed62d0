//! Small lexing helpers every line-based format shares: the byte-order mark, names, and
//! whitespace-separated words with their columns.

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{FEFF}').unwrap_or(s)
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
}
