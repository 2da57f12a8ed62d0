//! Shards: one of N deterministic partitions of a batch's sorted inputs, given as `K/N` or
//! taken from a cluster scheduler's environment (`auto`): a Slurm job array
//! (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`, and
//! `SLURM_ARRAY_TASK_STEP` / `SLURM_ARRAY_TASK_MAX` when set) or a Kubernetes Indexed Job
//! (`JOB_COMPLETION_INDEX`, 0-based, with the completions count in [`COUNT_VAR`], which
//! the Job's manifest sets: Kubernetes does not put the count in the environment).
//!
//! Invariants: the shard `K/N` of the sorted inputs is those at index `i` with
//! `i % N == K - 1`, so the N shards partition the inputs exactly; `auto` reads the
//! environment through a lookup function (tests pass a map), never guesses: a variable
//! missing, not a number, out of range or contradicting another is an error naming the
//! variables read and their values.

use std::fmt;
use std::str::FromStr;

/// The variable a Kubernetes Indexed Job's manifest sets to its `completions` count (also
/// checked against the Slurm array's size when set).
pub const COUNT_VAR: &str = "GORDIAN_SHARD_COUNT";

const SLURM_ID: &str = "SLURM_ARRAY_TASK_ID";
const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
const SLURM_STEP: &str = "SLURM_ARRAY_TASK_STEP";
const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";

/// One of N deterministic partitions of the sorted inputs: `K/N`, `1 <= K <= N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, 1-based.
    pub k: usize,
    /// N.
    pub n: usize,
}

/// The most shards a run may be split into (far past any cluster's job array; it keeps
/// the shard arithmetic away from overflow).
pub const MAX_SHARDS: usize = 1_000_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!("invalid shard `{s}`: expected K/N with 1 <= K <= N <= {MAX_SHARDS}, e.g. 2/4")
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n || n > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// The items of this shard: index `i` with `i % n == k - 1`.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k - 1)
            .map(|(_, x)| x)
            .collect()
    }
}

/// What `--shard` was given: `K/N`, or `auto` (from the environment, see [`from_env`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    /// `K/N` as given.
    Fixed(Shard),
    /// `auto`.
    Auto,
}

impl FromStr for ShardArg {
    type Err = String;

    fn from_str(s: &str) -> Result<ShardArg, String> {
        if s.trim() == "auto" {
            return Ok(ShardArg::Auto);
        }
        s.parse().map(ShardArg::Fixed).map_err(|_| {
            format!(
                "invalid shard `{s}`: expected K/N with 1 <= K <= N (e.g. 2/4), or `auto` \
                 (from a Slurm job array or a Kubernetes Indexed Job)"
            )
        })
    }
}

/// A shard found in the environment, and where from (the variables and their values,
/// e.g. `SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The shard.
    pub shard: Shard,
    /// The variables it comes from.
    pub source: String,
}

/// The shard of this process in a Slurm job array or a Kubernetes Indexed Job, read
/// through `var` (`std::env::var` in the CLI; unset variables are `None`).
///
/// Slurm: K = (`SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN`) / step + 1 and N =
/// `SLURM_ARRAY_TASK_COUNT`, the step `SLURM_ARRAY_TASK_STEP` (1 when unset); when
/// `SLURM_ARRAY_TASK_MAX` is set it must be MIN + step × (N - 1) (an array of
/// scattered ids, such as `--array=1,4,9`, cannot be shards). Kubernetes: K =
/// `JOB_COMPLETION_INDEX` + 1, N = [`COUNT_VAR`]. When [`COUNT_VAR`] is set beside a
/// Slurm array it must equal N. Both schedulers' variables at once must agree.
pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Found, String> {
    let slurm = var(SLURM_ID).map(|_| slurm(var));
    let k8s = var(K8S_INDEX).map(|_| kubernetes(var));
    let count = var(COUNT_VAR);
    let found = match (slurm, k8s) {
        (None, None) => {
            return Err(match count {
                Some(c) => format!(
                    "--shard auto: {COUNT_VAR}={c} is set but {K8S_INDEX} is not (and \
                     {SLURM_ID} is not either): run it as a Kubernetes Indexed Job \
                     (completionMode: Indexed) or a Slurm job array, or pass --shard K/N"
                ),
                None => format!(
                    "--shard auto: neither a Slurm job array ({SLURM_ID} is not set) nor a \
                     Kubernetes Indexed Job ({K8S_INDEX} is not set) was found: pass --shard \
                     K/N, or run under sbatch --array / an Indexed Job"
                ),
            })
        }
        (Some(s), None) => s?,
        (None, Some(k)) => k?,
        (Some(s), Some(k)) => {
            let (s, k) = (s?, k?);
            if s.shard != k.shard {
                return Err(format!(
                    "--shard auto: a Slurm job array and a Kubernetes Indexed Job disagree: \
                     shard {} (from {}) but {} (from {})",
                    s.shard, s.source, k.shard, k.source
                ));
            }
            Found {
                shard: s.shard,
                source: format!("{}; {}", s.source, k.source),
            }
        }
    };
    if let Some(c) = count {
        let n = number(COUNT_VAR, &c)?;
        if n != found.shard.n {
            return Err(format!(
                "--shard auto: {COUNT_VAR}={c} but the array has {} task(s) (from {}): \
                 {COUNT_VAR} must be the number of tasks",
                found.shard.n, found.source
            ));
        }
    }
    Ok(found)
}

fn number(name: &str, value: &str) -> Result<usize, String> {
    value
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("--shard auto: {name}=`{value}` is not a whole number (0 or more)"))
}

fn slurm(var: &dyn Fn(&str) -> Option<String>) -> Result<Found, String> {
    let get = |name: &str| -> Result<Option<(usize, String)>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => Ok(Some((number(name, &v)?, v))),
        }
    };
    let need = |name: &str| -> Result<(usize, String), String> {
        get(name)?.ok_or_else(|| {
            format!(
                "--shard auto: {SLURM_ID} is set but {name} is not (Slurm sets both in a job \
                 array; faking one, set {SLURM_ID}, {SLURM_MIN} and {SLURM_COUNT})"
            )
        })
    };
    let (id, id_s) = need(SLURM_ID)?;
    let (min, min_s) = need(SLURM_MIN)?;
    let (count, count_s) = need(SLURM_COUNT)?;
    let step = get(SLURM_STEP)?;
    let max = get(SLURM_MAX)?;
    let mut source = format!("{SLURM_ID}={id_s}, {SLURM_MIN}={min_s}, {SLURM_COUNT}={count_s}");
    if let Some((_, s)) = &step {
        source.push_str(&format!(", {SLURM_STEP}={s}"));
    }
    if let Some((_, m)) = &max {
        source.push_str(&format!(", {SLURM_MAX}={m}"));
    }
    let bad = |why: &str| Err(format!("--shard auto: {why} ({source})"));
    let step_n = step.as_ref().map_or(1, |(s, _)| *s);
    if count == 0 {
        return bad("the array has no tasks");
    }
    if count > MAX_SHARDS {
        return bad(&format!(
            "the array has more than {MAX_SHARDS} tasks, the most shards a run may have"
        ));
    }
    if step_n == 0 {
        return bad("the array's step is 0");
    }
    if let Some((max, _)) = max {
        let last = (count - 1)
            .checked_mul(step_n)
            .and_then(|span| span.checked_add(min));
        if last != Some(max) {
            return bad(&format!(
                "the array's ids are not a range of {count} task(s) from {min} by {step_n} \
                 (so they cannot number the shards): submit it with --array=1-N"
            ));
        }
    }
    if id < min || (id - min) % step_n != 0 {
        return bad(&format!(
            "the task id {id} is not one of the array's ({min}, {}, ...)",
            min.saturating_add(step_n)
        ));
    }
    let k = (id - min) / step_n + 1;
    if k > count {
        return bad(&format!(
            "the task id {id} is past the array's {count} task(s)"
        ));
    }
    Ok(Found {
        shard: Shard { k, n: count },
        source,
    })
}

fn kubernetes(var: &dyn Fn(&str) -> Option<String>) -> Result<Found, String> {
    let index_s = var(K8S_INDEX).unwrap_or_default();
    let index = number(K8S_INDEX, &index_s)?;
    let Some(count_s) = var(COUNT_VAR) else {
        return Err(format!(
            "--shard auto: {K8S_INDEX}={index_s} is set but {COUNT_VAR} is not: Kubernetes \
             does not put the Job's completions count in the environment, so the Job's \
             manifest must set {COUNT_VAR} to it (see deploy/kubernetes/)"
        ));
    };
    let count = number(COUNT_VAR, &count_s)?;
    let source = format!("{K8S_INDEX}={index_s}, {COUNT_VAR}={count_s}");
    if count == 0 {
        return Err(format!(
            "--shard auto: the Job has no completions ({source})"
        ));
    }
    if count > MAX_SHARDS {
        return Err(format!(
            "--shard auto: the Job has more than {MAX_SHARDS} completions, the most shards a \
             run may have ({source})"
        ));
    }
    if index >= count {
        return Err(format!(
            "--shard auto: the completion index {index} is not below the completions count \
             {count} ({source}): {COUNT_VAR} must equal the Job's spec.completions"
        ));
    }
    Ok(Found {
        shard: Shard {
            k: index + 1,
            n: count,
        },
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Result<Found, String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_env(&|name| map.get(name).cloned())
    }

    fn shard(pairs: &[(&str, &str)]) -> Shard {
        env(pairs)
            .unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
            .shard
    }

    #[test]
    fn shards_partition_exactly() {
        let items: Vec<usize> = (0..23).collect();
        for n in 1..6 {
            let mut all: Vec<usize> = (1..=n)
                .flat_map(|k| Shard { k, n }.select(items.clone()))
                .collect();
            all.sort();
            assert_eq!(all, items);
        }
        assert_eq!("2/3".parse(), Ok(Shard { k: 2, n: 3 }));
        assert!("1/18446744073709551615".parse::<Shard>().is_err());
        assert!("1/1000001".parse::<Shard>().is_err());
        assert_eq!("7/1000000".parse(), Ok(Shard { k: 7, n: 1_000_000 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!("auto".parse(), Ok(ShardArg::Auto));
        assert_eq!("1/2".parse(), Ok(ShardArg::Fixed(Shard { k: 1, n: 2 })));
        let e = "automatic".parse::<ShardArg>().unwrap_err();
        assert!(e.contains("or `auto`"), "{e}");
    }

    #[test]
    fn slurm_ids_from_any_minimum() {
        for min in [0, 1, 7] {
            let n = 4;
            let ks: Vec<usize> = (min..min + n)
                .map(|id| {
                    let (id, min, n) = (id.to_string(), min.to_string(), n.to_string());
                    let max = (min.parse::<usize>().unwrap() + 3).to_string();
                    let s = shard(&[
                        (SLURM_ID, &id),
                        (SLURM_MIN, &min),
                        (SLURM_MAX, &max),
                        (SLURM_COUNT, &n),
                    ]);
                    assert_eq!(s.n, 4);
                    s.k
                })
                .collect();
            assert_eq!(ks, [1, 2, 3, 4], "min {min}");
        }
        // A stepped array: --array=0-6:2 is ids 0, 2, 4, 6.
        let stepped = |id: &str| {
            shard(&[
                (SLURM_ID, id),
                (SLURM_MIN, "0"),
                (SLURM_MAX, "6"),
                (SLURM_STEP, "2"),
                (SLURM_COUNT, "4"),
            ])
        };
        assert_eq!(stepped("4"), Shard { k: 3, n: 4 });
        let found = env(&[(SLURM_ID, "5"), (SLURM_MIN, "3"), (SLURM_COUNT, "8")]).unwrap();
        assert_eq!(found.shard, Shard { k: 3, n: 8 });
        assert_eq!(
            found.source,
            "SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=3, SLURM_ARRAY_TASK_COUNT=8"
        );
        // GORDIAN_SHARD_COUNT beside Slurm: a check.
        assert_eq!(
            shard(&[
                (SLURM_ID, "1"),
                (SLURM_MIN, "1"),
                (SLURM_COUNT, "2"),
                (COUNT_VAR, "2")
            ]),
            Shard { k: 1, n: 2 }
        );
    }

    #[test]
    fn kubernetes_index_and_count() {
        let s = |i: &str| shard(&[(K8S_INDEX, i), (COUNT_VAR, "3")]);
        assert_eq!(
            [s("0"), s("1"), s("2")].map(|x| x.k),
            [1, 2, 3],
            "0-based index"
        );
        let found = env(&[(K8S_INDEX, "2"), (COUNT_VAR, "3")]).unwrap();
        assert_eq!(
            found.source,
            "JOB_COMPLETION_INDEX=2, GORDIAN_SHARD_COUNT=3"
        );
        // Both schedulers agreeing is fine.
        assert_eq!(
            shard(&[
                (K8S_INDEX, "1"),
                (COUNT_VAR, "3"),
                (SLURM_ID, "2"),
                (SLURM_MIN, "1"),
                (SLURM_COUNT, "3")
            ]),
            Shard { k: 2, n: 3 }
        );
    }

    #[test]
    fn missing_or_inconsistent_variables_are_errors_naming_them() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);
        let cases: &[Case] = &[
            (&[], &[SLURM_ID, K8S_INDEX]),
            (&[(COUNT_VAR, "4")], &[COUNT_VAR, K8S_INDEX]),
            (&[(SLURM_ID, "1")], &[SLURM_MIN]),
            (&[(SLURM_ID, "1"), (SLURM_MIN, "1")], &[SLURM_COUNT]),
            (
                &[(SLURM_ID, "x"), (SLURM_MIN, "1"), (SLURM_COUNT, "2")],
                &[SLURM_ID, "`x`"],
            ),
            (
                &[(SLURM_ID, "0"), (SLURM_MIN, "1"), (SLURM_COUNT, "2")],
                &["SLURM_ARRAY_TASK_ID=0", "not one of"],
            ),
            (
                &[(SLURM_ID, "3"), (SLURM_MIN, "1"), (SLURM_COUNT, "2")],
                &["past the array's 2 task(s)"],
            ),
            (
                &[(SLURM_ID, "2"), (SLURM_MIN, "1"), (SLURM_COUNT, "0")],
                &["no tasks"],
            ),
            (
                // --array=1,4,9: three scattered ids.
                &[
                    (SLURM_ID, "4"),
                    (SLURM_MIN, "1"),
                    (SLURM_MAX, "9"),
                    (SLURM_COUNT, "3"),
                ],
                &["not a range", "SLURM_ARRAY_TASK_MAX=9"],
            ),
            (
                &[
                    (SLURM_ID, "1"),
                    (SLURM_MIN, "1"),
                    (SLURM_COUNT, "2"),
                    (COUNT_VAR, "3"),
                ],
                &["GORDIAN_SHARD_COUNT=3", "2 task(s)"],
            ),
            (&[(K8S_INDEX, "0")], &[COUNT_VAR, "manifest"]),
            (&[(K8S_INDEX, "3"), (COUNT_VAR, "3")], &["not below"]),
            (&[(K8S_INDEX, "-1"), (COUNT_VAR, "3")], &[K8S_INDEX]),
            (&[(K8S_INDEX, "0"), (COUNT_VAR, "0")], &["no completions"]),
            // Values at the top of the integers: refused, never wrapped to shard 0.
            (
                &[
                    (SLURM_ID, "18446744073709551615"),
                    (SLURM_MIN, "0"),
                    (SLURM_COUNT, "18446744073709551615"),
                ],
                &["more than 1000000 tasks"],
            ),
            (
                &[
                    (K8S_INDEX, "18446744073709551614"),
                    (COUNT_VAR, "18446744073709551615"),
                ],
                &["more than 1000000 completions"],
            ),
            (
                &[
                    (K8S_INDEX, "0"),
                    (COUNT_VAR, "3"),
                    (SLURM_ID, "2"),
                    (SLURM_MIN, "1"),
                    (SLURM_COUNT, "3"),
                ],
                &["disagree", "1/3", "2/3"],
            ),
        ];
        for (pairs, words) in cases {
            let e = env(pairs).expect_err(&format!("{pairs:?}"));
            assert!(e.starts_with("--shard auto: "), "{e}");
            for w in *words {
                assert!(e.contains(w), "{pairs:?}: `{w}` not in: {e}");
            }
        }
    }
}
