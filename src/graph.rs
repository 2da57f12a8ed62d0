//! Graph algorithms the engines share, over plain adjacency lists (node `v`'s successors
//! are `succ[v]`).
//!
//! Invariant: nothing here recurses. Graphs come from the input (a night of 200,000
//! blocks in a cycle is one path of 200,000 nodes), so a traversal keeps its own stack
//! on the heap instead of the thread's; their depth is never bounded by the thread's
//! stack size. Knows nothing about games.

/// The strongly connected components of the graph with `succ.len()` nodes, in reverse
/// topological order: a component comes after every component it reaches (sinks first,
/// as Tarjan's algorithm finds them). Within a component, nodes come in no particular
/// order. Linear time; iterative (Tarjan's algorithm with an explicit call stack).
pub fn scc(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    // The call stack of the depth-first search: (node, next successor to look at).
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, 0));
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            // Every successor of v is done: return to the caller.
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `a` reaches `b` (in zero or more steps), for every pair: the transitive
    /// closure by Floyd-Warshall, the brute-force reference.
    fn reaches(succ: &[Vec<usize>]) -> Vec<Vec<bool>> {
        let n = succ.len();
        let mut r = vec![vec![false; n]; n];
        for (a, ws) in succ.iter().enumerate() {
            r[a][a] = true;
            for &b in ws {
                r[a][b] = true;
            }
        }
        for k in 0..n {
            let via = r[k].clone();
            for row in r.iter_mut().filter(|row| row[k]) {
                for (to, &reached) in row.iter_mut().zip(&via) {
                    *to |= reached;
                }
            }
        }
        r
    }

    fn graph() -> impl Strategy<Value = Vec<Vec<usize>>> {
        (1usize..12).prop_flat_map(|n| prop::collection::vec(prop::collection::vec(0..n, 0..4), n))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The components partition the nodes, two nodes share one exactly when each
        /// reaches the other, and a component comes after every component it reaches.
        #[test]
        fn matches_brute_force(succ in graph()) {
            let n = succ.len();
            let r = reaches(&succ);
            let comps = scc(&succ);
            let mut of = vec![usize::MAX; n];
            for (k, c) in comps.iter().enumerate() {
                prop_assert!(!c.is_empty());
                for &v in c {
                    prop_assert_eq!(of[v], usize::MAX, "node {} in two components", v);
                    of[v] = k;
                }
            }
            prop_assert!(of.iter().all(|&k| k != usize::MAX), "a node in no component");
            for a in 0..n {
                for b in 0..n {
                    prop_assert_eq!(of[a] == of[b], r[a][b] && r[b][a]);
                    if r[a][b] && of[a] != of[b] {
                        prop_assert!(of[b] < of[a], "{} reaches {} but comes first", a, b);
                    }
                }
            }
        }
    }

    #[test]
    fn small_graphs_by_hand() {
        // 0 -> 1 -> 2 -> 0 is one component, reaching 3 (a sink), which comes first.
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![]];
        let mut comps = scc(&succ);
        for c in &mut comps {
            c.sort_unstable();
        }
        assert_eq!(comps, [vec![3], vec![0, 1, 2]]);
        // A path 0 -> 1 -> 2: three components, the end first.
        assert_eq!(scc(&[vec![1], vec![2], vec![]]), [[2], [1], [0]]);
        assert!(scc(&[]).is_empty());
        // A self-loop is a component of one node.
        assert_eq!(scc(&[vec![0]]), [[0]]);
    }

    /// A cycle and a path of a million nodes: far deeper than any thread's stack would
    /// allow a recursive search to go.
    #[test]
    fn a_million_nodes_deep() {
        let n = 1_000_000;
        let cycle: Vec<Vec<usize>> = (0..n).map(|v| vec![(v + 1) % n]).collect();
        let comps = scc(&cycle);
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].len(), n);
        let path: Vec<Vec<usize>> = (0..n)
            .map(|v| if v + 1 < n { vec![v + 1] } else { vec![] })
            .collect();
        let comps = scc(&path);
        assert_eq!(comps.len(), n);
        assert!(comps.iter().rev().enumerate().all(|(i, c)| c == &[i]));
    }
}
