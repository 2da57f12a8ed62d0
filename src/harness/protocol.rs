//! The comparison of an outside resolver's JSON answer with gordian's (the protocol of
//! `docs/protocol.md`): gordian's answer, as `System::to_json` writes it, is the
//! reference, and the resolver's object is compared on the fields it gives.
//!
//! The rules, the same for every system, with the system's [`Shape`]:
//! * only fields present in both are compared; inside objects, only the keys the resolver
//!   gives (a resolver may give `{"classification": ...}` alone, or resolutions with only
//!   their `succeeded` sets); a field gordian does not know is reported as not compared;
//! * except *maps* (objects under a key the shape names in `maps`, whose keys are names
//!   such as effect ids, not fields): every key of a map is compared, a key missing on
//!   either side is a difference;
//! * arrays are sets (order and repetition do not matter; the reference's elements are
//!   first cut down to the keys the resolver's elements use), except arrays under a key
//!   the shape names in `sequences`, and everything inside them, which are compared in
//!   order; `key[]` there names a set under `key` whose elements are sequences;
//! * a *partial* set (`partial`: the set under a key with one entry per value of an id
//!   field, such as FFT's rule variants) is compared on the entries whose id the resolver
//!   gives, so a resolver may answer for one variant;
//! * an integer and a string of its digits are equal, and strings that are fractions
//!   (`2/4`) are compared as exact rationals (`1/2`).
//!
//! Invariant: a field missing on the resolver's side (outside maps) is never a
//! difference, a value present on both sides is always compared, and the first
//! difference is reported in the reference's field order.

use num_rational::BigRational;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

pub use crate::systems::spec::Shape;

/// The first field on which the two answers differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Its path (`classification`, `cuts.optimal`, `resolutions[2].ways`).
    pub field: String,
    /// gordian's value there (cut down to the resolver's shape).
    pub gordian: Value,
    /// The resolver's value there.
    pub theirs: Value,
    /// For sets and maps: what only one side has, in words.
    pub detail: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "first field that differs: {}", self.field)?;
        writeln!(f, "  gordian:  {}", self.gordian)?;
        write!(f, "  resolver: {}", self.theirs)?;
        if let Some(d) = &self.detail {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

/// What comparing gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compared {
    /// The first differing field, if any.
    pub difference: Option<Difference>,
    /// The top-level fields compared, in the reference's order.
    pub fields: Vec<String>,
    /// The resolver's top-level fields gordian's answer does not have (ignored).
    pub unknown: Vec<String>,
}

/// Compares the resolver's answer `theirs` with gordian's `reference` (see the module
/// doc).
pub fn compare(reference: &Value, theirs: &Map<String, Value>, shape: &Shape) -> Compared {
    let mut out = Compared::default();
    let empty = Map::new();
    let reference = reference.as_object().unwrap_or(&empty);
    for (key, r) in reference {
        let Some(t) = theirs.get(key) else { continue };
        out.fields.push(key.clone());
        if out.difference.is_none() {
            let cx = Cx {
                seq: shape.is_sequence(key),
                key: Some(key),
            };
            out.difference = diff(r, t, key, cx, shape);
        }
    }
    out.unknown = theirs
        .keys()
        .filter(|k| !reference.contains_key(*k))
        .cloned()
        .collect();
    out
}

/// Where a value is: inside a sequence or not, and the object key it is the value of.
#[derive(Clone, Copy)]
struct Cx<'a> {
    seq: bool,
    key: Option<&'a str>,
}

impl<'a> Cx<'a> {
    /// The context of the value under `k` of an object in this context.
    fn field(self, k: &'a str, shape: &Shape) -> Cx<'a> {
        Cx {
            seq: self.seq || shape.is_sequence(k),
            key: Some(k),
        }
    }
    /// The context of the elements of an array in this context.
    fn element(self, shape: &Shape) -> Cx<'a> {
        Cx {
            seq: self.seq || shape.elements_ordered(self.key),
            key: None,
        }
    }
}

/// A scalar in canonical form: integers and fraction strings as reduced fraction strings.
fn scalar(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => Value::String(n.to_string()),
        Value::String(s) => match fraction(s) {
            Some(q) => Value::String(q.to_string()),
            None => v.clone(),
        },
        _ => v.clone(),
    }
}

fn fraction(s: &str) -> Option<BigRational> {
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    let body = s.strip_prefix('-').unwrap_or(s);
    let ok = match body.split_once('/') {
        Some((n, d)) => digits(n) && digits(d) && d.bytes().any(|b| b != b'0'),
        None => digits(body),
    };
    if ok {
        s.parse().ok()
    } else {
        None
    }
}

/// `v` in canonical form: scalars canonical, object keys sorted (serde_json's map keeps
/// insertion order here), set arrays sorted and without repeats.
fn canon(v: &Value, cx: Cx, shape: &Shape) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canon(&m[k], cx.field(k, shape), shape)))
                    .collect(),
            )
        }
        Value::Array(a) => {
            let inner = cx.element(shape);
            let items: Vec<Value> = a.iter().map(|x| canon(x, inner, shape)).collect();
            if cx.seq {
                Value::Array(items)
            } else {
                let set: BTreeSet<String> = items.iter().map(|x| x.to_string()).collect();
                Value::Array(set.iter().map(|s| parse(s)).collect())
            }
        }
        _ => scalar(v),
    }
}

fn parse(s: &str) -> Value {
    serde_json::from_str(s).expect("written by serde_json")
}

/// `r` cut down to the shape of the values in `like` (the resolver's values in the same
/// place): objects that are not maps keep the keys some `like` object has; arrays are cut
/// down element by element to the shape of every element of the `like` arrays.
fn project(r: &Value, like: &[&Value], cx: Cx, shape: &Shape) -> Value {
    match r {
        Value::Object(m) if !like.is_empty() && like.iter().all(|l| l.is_object()) => {
            let keys: BTreeSet<&String> = if shape.is_map(cx.key) {
                m.keys().collect()
            } else {
                like.iter()
                    .flat_map(|l| l.as_object().expect("checked").keys())
                    .collect()
            };
            Value::Object(
                keys.into_iter()
                    .filter_map(|k| {
                        let sub: Vec<&Value> = like.iter().filter_map(|l| l.get(k)).collect();
                        m.get(k)
                            .map(|v| (k.clone(), project(v, &sub, cx.field(k, shape), shape)))
                    })
                    .collect(),
            )
        }
        Value::Array(a) if !like.is_empty() && like.iter().all(|l| l.is_array()) => {
            let elems: Vec<&Value> = like
                .iter()
                .flat_map(|l| l.as_array().expect("checked").iter())
                .collect();
            if elems.is_empty() {
                return r.clone();
            }
            let inner = cx.element(shape);
            Value::Array(a.iter().map(|x| project(x, &elems, inner, shape)).collect())
        }
        _ => r.clone(),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

const ENTRIES: (&str, &str) = ("entry", "entries");

/// "N entries only gordian has, e.g. ..." for the elements of `a` not in `b`.
fn only(
    a: &BTreeSet<String>,
    b: &BTreeSet<String>,
    who: &str,
    (one, many): (&str, &str),
) -> Option<String> {
    let only: Vec<&String> = a.difference(b).collect();
    if only.is_empty() {
        return None;
    }
    let eg: Vec<&str> = only.iter().take(3).map(|s| s.as_str()).collect();
    Some(format!(
        "{} {} only {who} has, e.g. {}",
        only.len(),
        if only.len() == 1 { one } else { many },
        eg.join(", ")
    ))
}

fn diff(r: &Value, t: &Value, path: &str, cx: Cx, shape: &Shape) -> Option<Difference> {
    let differ = |gordian: Value, theirs: Value, detail: Option<String>| {
        Some(Difference {
            field: path.to_string(),
            gordian,
            theirs,
            detail,
        })
    };
    match (r, t) {
        (Value::Object(rm), Value::Object(tm)) => {
            if shape.is_map(cx.key) {
                let rk: BTreeSet<String> = rm.keys().cloned().collect();
                let tk: BTreeSet<String> = tm.keys().cloned().collect();
                if rk != tk {
                    let words: Vec<String> = [
                        only(&rk, &tk, "gordian", ("key", "keys")),
                        only(&tk, &rk, "the resolver", ("key", "keys")),
                    ]
                    .into_iter()
                    .flatten()
                    .collect();
                    return differ(
                        canon(r, cx, shape),
                        canon(t, cx, shape),
                        Some(words.join("; ")),
                    );
                }
            }
            // The resolver's keys, in the reference's order.
            rm.iter().find_map(|(k, rv)| {
                let tv = tm.get(k)?;
                diff(rv, tv, &format!("{path}.{k}"), cx.field(k, shape), shape)
            })
        }
        (Value::Array(ra), Value::Array(ta)) if cx.seq => {
            if ra.len() != ta.len() {
                return differ(
                    canon(&project(r, &[t], cx, shape), cx, shape),
                    canon(t, cx, shape),
                    Some(format!(
                        "gordian's sequence has {} entries, the resolver's {}",
                        ra.len(),
                        ta.len()
                    )),
                );
            }
            let inner = cx.element(shape);
            ra.iter()
                .zip(ta)
                .enumerate()
                .find_map(|(i, (x, y))| diff(x, y, &format!("{path}[{i}]"), inner, shape))
        }
        (Value::Array(ra), Value::Array(ta)) => {
            let inner = cx.element(shape);
            let like: Vec<&Value> = ta.iter().collect();
            // A partial set: only the entries whose id the resolver answers for.
            let ra: Vec<&Value> = match shape.partial_id(cx.key) {
                Some(id) => {
                    let given: BTreeSet<String> = ta
                        .iter()
                        .filter_map(|t| t.get(id))
                        .map(|v| scalar(v).to_string())
                        .collect();
                    ra.iter()
                        .filter(|r| {
                            r.get(id)
                                .is_some_and(|v| given.contains(&scalar(v).to_string()))
                        })
                        .collect()
                }
                None => ra.iter().collect(),
            };
            let ours: BTreeSet<String> = ra
                .iter()
                .map(|x| {
                    let p = if like.is_empty() {
                        (*x).clone()
                    } else {
                        project(x, &like, inner, shape)
                    };
                    canon(&p, inner, shape).to_string()
                })
                .collect();
            let theirs: BTreeSet<String> = ta
                .iter()
                .map(|x| canon(x, inner, shape).to_string())
                .collect();
            if ours == theirs {
                return None;
            }
            let words: Vec<String> = [
                only(&ours, &theirs, "gordian", ENTRIES),
                only(&theirs, &ours, "the resolver", ENTRIES),
            ]
            .into_iter()
            .flatten()
            .collect();
            let list = |s: &BTreeSet<String>| Value::Array(s.iter().map(|x| parse(x)).collect());
            differ(list(&ours), list(&theirs), Some(words.join("; ")))
        }
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => {
            differ(
                r.clone(),
                t.clone(),
                Some(format!("gordian has {}, the resolver {}", kind(r), kind(t))),
            )
        }
        _ => {
            if scalar(r) == scalar(t) {
                None
            } else {
                differ(r.clone(), t.clone(), None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const AR: Shape = Shape {
        sequences: &["final_targets"],
        maps: &["final_targets"],
        partial: &[],
    };

    fn cmp(r: Value, t: Value) -> Compared {
        compare(&r, t.as_object().expect("object"), &AR)
    }

    #[test]
    fn only_the_fields_the_resolver_gives_are_compared() {
        let r = json!({"classification": "paradox", "resolutions": [], "extra": 1});
        let c = cmp(r.clone(), json!({"classification": "paradox", "mine": 2}));
        assert_eq!(c.difference, None);
        assert_eq!(c.fields, vec!["classification"]);
        assert_eq!(c.unknown, vec!["mine"]);
        let c = cmp(r, json!({"classification": "non-paradox"}));
        let d = c.difference.expect("differs");
        assert_eq!(d.field, "classification");
        assert_eq!(
            (d.gordian, d.theirs),
            (json!("paradox"), json!("non-paradox"))
        );
    }

    #[test]
    fn arrays_are_sets_of_the_resolvers_shape_except_sequences() {
        let r = json!({"resolutions": [
            {"succeeded": ["e1", "e2"], "failed": ["e3"], "ways": [{"final_targets": {"e1": ["A", "B"]}}]},
            {"succeeded": ["e3"], "failed": ["e1", "e2"], "ways": [{"final_targets": {"e1": ["B", "A"]}}]}
        ]});
        // Order of resolutions and of ids does not matter; keys not given are not compared.
        let t = json!({"resolutions": [{"succeeded": ["e3"]}, {"succeeded": ["e2", "e1"]}]});
        assert_eq!(cmp(r.clone(), t).difference, None);
        // A missing resolution is a difference, named with what only gordian has.
        let t = json!({"resolutions": [{"succeeded": ["e3"]}]});
        let d = cmp(r.clone(), t).difference.expect("differs");
        assert_eq!(d.field, "resolutions");
        assert!(d
            .detail
            .expect("detail")
            .contains(r#"1 entry only gordian has, e.g. {"succeeded":["e1","e2"]}"#));
        // Final targets are in slot order: swapping A and B is a difference.
        let t = json!({"resolutions": [
            {"ways": [{"final_targets": {"e1": ["B", "A"]}}]},
            {"ways": [{"final_targets": {"e1": ["B", "A"]}}]}
        ]});
        assert!(cmp(r.clone(), t).difference.is_some());
        let t = json!({"resolutions": [
            {"ways": [{"final_targets": {"e1": ["A", "B"]}}]},
            {"ways": [{"final_targets": {"e1": ["B", "A"]}}]}
        ]});
        assert_eq!(cmp(r.clone(), t).difference, None);
        // Final targets are a map: leaving a slot out is a difference.
        let t = json!({"resolutions": [
            {"ways": [{"final_targets": {"e1": ["A", "B"]}}]},
            {"ways": [{"final_targets": {}}]}
        ]});
        let d = cmp(r, t).difference.expect("a slot left out");
        assert_eq!(d.field, "resolutions");
    }

    #[test]
    fn a_map_lists_the_keys_only_one_side_has() {
        let r = json!({"final_targets": {"e1": ["A"], "e2": ["B"]}});
        let d = cmp(r, json!({"final_targets": {"e1": ["A"], "e3": ["B"]}}))
            .difference
            .expect("differs");
        assert_eq!(d.field, "final_targets");
        assert_eq!(
            d.detail.as_deref(),
            Some("1 key only gordian has, e.g. e2; 1 key only the resolver has, e.g. e3")
        );
    }

    #[test]
    fn a_set_of_sequences_is_named_with_brackets() {
        let seqs = Shape {
            sequences: &["side_orders[]", "at"],
            maps: &[],
            partial: &[],
        };
        let r = json!({"side_orders": [[0, 1], [1, 0]], "units": [{"at": [1, 2]}]});
        let same = json!({"side_orders": [[1, 0], [0, 1]], "units": [{"at": [1, 2]}]});
        let t = same.as_object().expect("object");
        assert_eq!(compare(&r, t, &seqs).difference, None);
        let swapped = json!({"side_orders": [[0, 1]]});
        let d = compare(&r, swapped.as_object().expect("object"), &seqs).difference;
        assert_eq!(d.expect("one order missing").field, "side_orders");
        let moved = json!({"units": [{"at": [2, 1]}]});
        let d = compare(&r, moved.as_object().expect("object"), &seqs).difference;
        assert_eq!(d.expect("x and y are not a set").field, "units");
    }

    #[test]
    fn a_partial_set_is_compared_on_the_entries_the_resolver_gives() {
        let shape = Shape {
            sequences: &[],
            maps: &[],
            partial: &[("variants", "variant")],
        };
        let r = json!({"variants": [{"variant": "final", "n": 1}, {"variant": "naive", "n": 2}]});
        let t = json!({"variants": [{"variant": "final", "n": 1}]});
        let c = compare(&r, t.as_object().expect("object"), &shape);
        assert_eq!(c.difference, None);
        let t = json!({"variants": [{"variant": "naive", "n": 1}]});
        let d = compare(&r, t.as_object().expect("object"), &shape).difference;
        assert_eq!(d.expect("naive differs").field, "variants");
        let t = json!({"variants": [{"variant": "other", "n": 1}]});
        let d = compare(&r, t.as_object().expect("object"), &shape).difference;
        assert!(d.is_some(), "an id gordian does not have is a difference");
    }

    #[test]
    fn numbers_and_fractions_compare_by_value() {
        let r = json!({"total": "12", "p": [{"deaths": ["A"], "probability": "1/2"}]});
        let t = json!({"total": 12, "p": [{"deaths": ["A"], "probability": "2/4"}]});
        assert_eq!(cmp(r.clone(), t).difference, None);
        let t = json!({"p": [{"deaths": ["A"], "probability": "1/3"}]});
        assert_eq!(cmp(r, t).difference.expect("differs").field, "p");
        assert_eq!(fraction("1/0"), None);
        assert_eq!(fraction("e1"), None);
    }

    #[test]
    fn a_value_of_another_type_is_a_difference() {
        let d = cmp(json!({"cut_cost": null}), json!({"cut_cost": []}))
            .difference
            .expect("differs");
        assert_eq!(
            d.detail.as_deref(),
            Some("gordian has null, the resolver an array")
        );
        let d = cmp(
            json!({"cuts": {"optimal": [["e1"]]}}),
            json!({"cuts": {"optimal": [["e2"]]}}),
        )
        .difference
        .expect("differs");
        assert_eq!(d.field, "cuts.optimal");
    }
}
