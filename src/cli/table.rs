//! The one table printer: left-aligned columns separated by two spaces, a header row,
//! trailing spaces trimmed.

/// Prints `header` and `rows` as aligned columns on standard output.
pub fn print_table(header: &[String], rows: &[Vec<String>]) {
    let mut width = vec![0; header.len()];
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(c);
            let pad = width
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(c.chars().count());
            line.extend(std::iter::repeat_n(' ', pad));
        }
        println!("{}", line.trim_end());
    }
}
