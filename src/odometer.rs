//! The one odometer the direct engines count through choice sequences with: a run asks
//! for a choice at each choice point it meets ([`Odometer::pick`]: how many options there
//! are, which one this run takes), and [`Odometer::advance`] moves to the next sequence:
//! the last choice point of the run that has an option left takes its next option, and
//! the ones after it are dropped (the next run meets them afresh and starts them at 0).
//! The runs replay their prefix from the start (no state is saved between runs), so a
//! choice point's arity may depend on the choices before it. [`Product`] is the same
//! count over lists of fixed sizes.
//!
//! Invariants: the sequences are visited in lexicographic order (the last choice point
//! fastest), each exactly once, as long as a run is a function of its choices (the same
//! prefix meets the same choice points with the same arities); an arity is at least 1.
//! Knows nothing about games.

/// One choice point of the current sequence: the option taken, the number of options, and
/// what the caller keeps with it (a die's sides, a weight; `()` for nothing).
#[derive(Clone, Debug)]
struct Digit<P> {
    index: usize,
    arity: usize,
    payload: P,
}

/// A prefix odometer over choice sequences (see the module doc).
#[derive(Clone, Debug)]
pub struct Odometer<P = ()> {
    digits: Vec<Digit<P>>,
    /// The choice points met by the current run.
    at: usize,
}

impl<P> Default for Odometer<P> {
    fn default() -> Odometer<P> {
        Odometer {
            digits: Vec::new(),
            at: 0,
        }
    }
}

impl<P> Odometer<P> {
    /// An odometer at the first sequence (every choice 0).
    pub fn new() -> Odometer<P> {
        Odometer::default()
    }

    /// Starts the current sequence's run again from its first choice point.
    pub fn rewind(&mut self) {
        self.at = 0;
    }

    /// The option this run takes at its next choice point, of `arity` options; `payload`
    /// is kept with it (replacing what an earlier run of the same prefix kept).
    pub fn pick_with(&mut self, arity: usize, payload: P) -> usize {
        debug_assert!(arity >= 1, "a choice point has an option");
        let i = if self.at == self.digits.len() {
            self.digits.push(Digit {
                index: 0,
                arity,
                payload,
            });
            0
        } else {
            let d = &mut self.digits[self.at];
            debug_assert_eq!(
                d.arity, arity,
                "the same prefix meets the same choice point"
            );
            d.payload = payload;
            d.index
        };
        self.at += 1;
        i
    }

    /// The choice points this run has met so far: (option taken, arity, payload).
    pub fn run(&self) -> impl Iterator<Item = (usize, usize, &P)> + '_ {
        self.digits[..self.at]
            .iter()
            .map(|d| (d.index, d.arity, &d.payload))
    }

    /// The options this run has taken so far.
    pub fn choices(&self) -> Vec<usize> {
        self.run().map(|(i, _, _)| i).collect()
    }

    /// Moves to the next sequence after the current run's (and rewinds); false when every
    /// sequence was visited.
    pub fn advance(&mut self) -> bool {
        self.digits.truncate(self.at);
        self.at = 0;
        while let Some(d) = self.digits.last_mut() {
            if d.index + 1 < d.arity {
                d.index += 1;
                return true;
            }
            self.digits.pop();
        }
        false
    }
}

impl Odometer<()> {
    /// [`Odometer::pick_with`] with nothing kept.
    pub fn pick(&mut self, arity: usize) -> usize {
        self.pick_with(arity, ())
    }
}

/// Every choice of one index per list, for lists of the given sizes, last list fastest
/// (none at all if some size is 0; one empty choice for no lists).
#[derive(Clone, Debug)]
pub struct Product {
    sizes: Vec<usize>,
    odometer: Odometer,
    done: bool,
}

impl Product {
    /// The product of `sizes`.
    pub fn new(sizes: Vec<usize>) -> Product {
        let done = sizes.contains(&0);
        Product {
            sizes,
            odometer: Odometer::new(),
            done,
        }
    }
}

impl Iterator for Product {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        if self.done {
            return None;
        }
        let o = &mut self.odometer;
        let out: Vec<usize> = self.sizes.iter().map(|&n| o.pick(n)).collect();
        self.done = !o.advance();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose second choice point has as many options as the first choice plus one
    /// (so arities depend on the prefix), then a yes/no point only after a choice of 0.
    fn run(o: &mut Odometer) -> Vec<usize> {
        let a = o.pick(2);
        let _ = o.pick(a + 1);
        if a == 0 {
            let _ = o.pick(2);
        }
        o.choices()
    }

    #[test]
    fn every_sequence_once_in_lexicographic_order() {
        let mut o = Odometer::new();
        let mut seen = vec![];
        loop {
            seen.push(run(&mut o));
            if !o.advance() {
                break;
            }
        }
        // Worked by hand: a=0 gives one option then a yes/no; a=1 gives two options.
        assert_eq!(
            seen,
            vec![vec![0, 0, 0], vec![0, 0, 1], vec![1, 0], vec![1, 1]]
        );
    }

    #[test]
    fn payloads_are_this_runs() {
        let mut o: Odometer<char> = Odometer::new();
        assert_eq!(o.pick_with(2, 'a'), 0);
        assert!(o.advance());
        assert_eq!(o.pick_with(2, 'b'), 1);
        let run: Vec<_> = o.run().map(|(i, n, p)| (i, n, *p)).collect();
        assert_eq!(run, vec![(1, 2, 'b')]);
        assert!(!o.advance());
    }

    #[test]
    fn a_product_counts_last_list_fastest() {
        let all: Vec<_> = Product::new(vec![2, 1, 3]).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], vec![0, 0, 0]);
        assert_eq!(all[1], vec![0, 0, 1]);
        assert_eq!(all[3], vec![1, 0, 0]);
        assert_eq!(all[5], vec![1, 0, 2]);
        assert_eq!(Product::new(vec![2, 0]).count(), 0);
        assert_eq!(
            Product::new(vec![]).collect::<Vec<_>>(),
            vec![Vec::<usize>::new()]
        );
    }
}
