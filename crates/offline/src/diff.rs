//! Field-by-field differences between two versions of an entity.
//!
//! Paths are written the way validation errors name fields (`frequencyCap.timePeriod`,
//! `flights[1].startDate`), so a pending change's diff and its errors line up in the UI.
//!
//! - Objects recurse by key. An absent key (`None`) and a `null` value (`Some(Value::Null)`)
//!   are different: the service treats an absent key as "keep" and `null` as "clear".
//! - Arrays of objects that carry an `id` (flights, audiences, flight caps) are matched by
//!   `id`, so inserting a flight does not show every later flight as changed. A new item
//!   is one diff for the whole item at its index in `after`; a removed item is one diff at
//!   its index in `base`. If the matched items changed relative order, or an id repeats,
//!   the array is compared index by index instead (still exact, just noisier).
//! - Other arrays of objects (`rules`, `dayParts`) are compared index by index.
//! - Arrays of scalars (`iabCategory`, `siteIds`, `channelsV2`) are one value: a diff
//!   carries the whole array, since "which element moved" means nothing to a buyer.
//! - Numbers compare by value: `1000` and `1000.0` are equal (see [`same`]).
//!
//! [`apply`] is the inverse: `apply(base, &fields(base, after))` is [`same`] as `after`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One field that differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FieldDiff {
    /// Wire path, as validation errors name fields (`flights[1].startDate`).
    pub path: String,
    /// Value in the base (`None`: absent).
    pub before: Option<Value>,
    /// Value now (`None`: absent).
    pub after: Option<Value>,
    /// `before` as the spreadsheet format writes it, where that differs from its JSON:
    /// a date in the advertiser's timezone, money with two decimals, a list as `a; b`.
    /// Set on the rows a preview shows ([`crate::workspace::Workspace::readable_diffs`]).
    #[serde(
        default,
        rename = "beforeText",
        skip_serializing_if = "Option::is_none"
    )]
    pub before_text: Option<String>,
    /// `after`, likewise.
    #[serde(default, rename = "afterText", skip_serializing_if = "Option::is_none")]
    pub after_text: Option<String>,
}

impl FieldDiff {
    /// A diff of the value at `path`, with no display texts.
    pub fn new(path: impl Into<String>, before: Option<Value>, after: Option<Value>) -> Self {
        FieldDiff {
            path: path.into(),
            before,
            after,
            before_text: None,
            after_text: None,
        }
    }
}

/// The fields that differ from `base` (every field of `after` when there is no base).
///
/// Without a base (a create), each top-level key of `after` is one diff; an array payload
/// gives one diff per item and a scalar one diff at the empty path.
pub fn fields(base: Option<&Value>, after: &Value) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    let mut path = String::new();
    match base {
        Some(base) => walk(&mut path, base, after, &mut out),
        None => match after {
            Value::Object(map) => {
                for (key, value) in map {
                    let len = push_key(&mut path, key);
                    out.push(added(&path, value));
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, value) in items.iter().enumerate() {
                    let len = push_index(&mut path, i);
                    out.push(added(&path, value));
                    path.truncate(len);
                }
            }
            other => out.push(added(&path, other)),
        },
    }
    out
}

/// JSON equality in which numbers compare by value (`1000 == 1000.0`) and object key
/// order does not matter. The service may echo an integer as a float; that is no change.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, xv)| y.get(k).is_some_and(|yv| same(xv, yv)))
        }
        _ => a == b,
    }
}

/// [`same`] for possibly absent values: absent equals only absent.
pub fn same_opt(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Applies `diffs` (as produced by [`fields`]) to `base`.
///
/// Inside an array, a diff whose path ends at an index and whose `after` is `None` removes
/// the item at that index of the *base*; every other index is in `after`'s numbering, and
/// a diff with `before: None` there inserts. That is exactly how [`fields`] numbers them,
/// so the order of `diffs` does not matter. Paths that do not fit the value (an index into
/// an object) replace what is there rather than fail: this is for display and tests.
pub fn apply(base: Option<&Value>, diffs: &[FieldDiff]) -> Value {
    let parsed: Vec<(Vec<Seg>, &FieldDiff)> = diffs.iter().map(|d| (parse(&d.path), d)).collect();
    let refs: Vec<Pending<'_>> = parsed.iter().map(|(p, d)| (p.as_slice(), *d)).collect();
    apply_node(base.cloned(), &refs).unwrap_or(Value::Null)
}

/// One step of a wire path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Renders segments as a wire path (`flights[1].startDate`).
pub(crate) fn render(segs: &[Seg]) -> String {
    let mut path = String::new();
    for seg in segs {
        match seg {
            Seg::Key(k) => {
                push_key(&mut path, k);
            }
            Seg::Index(i) => {
                push_index(&mut path, *i);
            }
        }
    }
    path
}

/// Parses a wire path. Keys are wire names (letters, digits, `_`), so `.` and `[` only
/// ever separate steps; a malformed index is read as a key rather than rejected.
pub(crate) fn parse(path: &str) -> Vec<Seg> {
    let mut segs = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after_dot) = rest.strip_prefix('.') {
            rest = after_dot;
            continue;
        }
        if let Some(inner) = rest.strip_prefix('[')
            && let Some(close) = inner.find(']')
            && let Ok(i) = inner[..close].parse::<usize>()
        {
            segs.push(Seg::Index(i));
            rest = &inner[close + 1..];
            continue;
        }
        let first = rest.chars().next().map_or(1, char::len_utf8);
        let end = rest[first..]
            .find(['.', '['])
            .map_or(rest.len(), |e| e + first);
        segs.push(Seg::Key(rest[..end].to_owned()));
        rest = &rest[end..];
    }
    segs
}

/// Identity of an array item, when it has one. Numbers are normalised so `12` and
/// `12.0` match.
pub(crate) fn item_id(item: &Value) -> Option<String> {
    match item.as_object()?.get("id")? {
        // `7` and `7.0` are one id, as they are one value everywhere else.
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            format!("n{i}")
        } else if let Some(u) = n.as_u64() {
            format!("n{u}")
        } else {
            match n.as_f64().unwrap_or(f64::NAN) {
                0.0 => "n0".to_owned(),
                f if f.fract() == 0.0 => format!("n{f}"),
                f => format!("f{f}"),
            }
        }),
        Value::String(s) => Some(format!("s{s}")),
        _ => None,
    }
}

/// True when every array holds only objects and at least one holds something: such
/// arrays are compared item by item, everything else as one value.
pub(crate) fn object_items(arrays: &[&[Value]]) -> bool {
    arrays.iter().any(|a| !a.is_empty()) && arrays.iter().all(|a| a.iter().all(Value::is_object))
}

/// Index of each item's id, or `None` when an id repeats (then ids identify nothing).
pub(crate) fn id_index(items: &[Value]) -> Option<HashMap<String, usize>> {
    let mut map = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Some(id) = item_id(item)
            && map.insert(id, i).is_some()
        {
            return None;
        }
    }
    Some(map)
}

fn push_key(path: &mut String, key: &str) -> usize {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    len
}

fn push_index(path: &mut String, i: usize) -> usize {
    let len = path.len();
    path.push('[');
    path.push_str(&i.to_string());
    path.push(']');
    len
}

fn added(path: &str, value: &Value) -> FieldDiff {
    FieldDiff::new(path, None, Some(value.clone()))
}

fn walk(path: &mut String, before: &Value, after: &Value, out: &mut Vec<FieldDiff>) {
    match (before, after) {
        // Member by member, without comparing the whole objects first: members that are
        // the same add nothing, so equal objects give no diff all the same.
        (Value::Object(b), Value::Object(a)) => {
            let mut kept = 0;
            for (key, av) in a {
                let len = push_key(path, key);
                match b.get(key) {
                    Some(bv) => {
                        kept += 1;
                        walk(path, bv, av, out);
                    }
                    None => out.push(added(path, av)),
                }
                path.truncate(len);
            }
            // Every member of `b` is in `a` when as many of them were found there.
            if kept == b.len() {
                return;
            }
            for (key, bv) in b {
                if !a.contains_key(key) {
                    let len = push_key(path, key);
                    out.push(FieldDiff::new(path.clone(), Some(bv.clone()), None));
                    path.truncate(len);
                }
            }
        }
        _ if same(before, after) => {}
        (Value::Array(b), Value::Array(a)) if object_items(&[b, a]) => walk_items(path, b, a, out),
        _ => out.push(FieldDiff::new(
            path.clone(),
            Some(before.clone()),
            Some(after.clone()),
        )),
    }
}

fn walk_items(path: &mut String, b: &[Value], a: &[Value], out: &mut Vec<FieldDiff>) {
    let removed_diff = |path: &str, v: &Value| FieldDiff::new(path, Some(v.clone()), None);
    if let Some(matches) = match_ids(b, a) {
        let mut matched = vec![false; b.len()];
        for (i, m) in matches.iter().enumerate() {
            let len = push_index(path, i);
            match m {
                Some(j) => {
                    matched[*j] = true;
                    walk(path, &b[*j], &a[i], out);
                }
                None => out.push(added(path, &a[i])),
            }
            path.truncate(len);
        }
        for (j, item) in b.iter().enumerate() {
            if !matched[j] {
                let len = push_index(path, j);
                out.push(removed_diff(path, item));
                path.truncate(len);
            }
        }
        return;
    }
    for (i, item) in a.iter().enumerate() {
        let len = push_index(path, i);
        match b.get(i) {
            Some(bv) => walk(path, bv, item, out),
            None => out.push(added(path, item)),
        }
        path.truncate(len);
    }
    for (j, item) in b.iter().enumerate().skip(a.len()) {
        let len = push_index(path, j);
        out.push(removed_diff(path, item));
        path.truncate(len);
    }
}

/// For each item of `a`, the index of the `b` item with the same id. `None` (compare by
/// index) when no item has an id, an id repeats, or matched items changed order.
fn match_ids(b: &[Value], a: &[Value]) -> Option<Vec<Option<usize>>> {
    if !b.iter().chain(a).any(|v| item_id(v).is_some()) {
        return None;
    }
    let b_ids = id_index(b)?;
    id_index(a)?;
    let matches: Vec<Option<usize>> = a
        .iter()
        .map(|v| item_id(v).and_then(|id| b_ids.get(&id).copied()))
        .collect();
    let mut last = None;
    for j in matches.iter().flatten() {
        if last.is_some_and(|l| l >= *j) {
            return None;
        }
        last = Some(*j);
    }
    Some(matches)
}

fn apply_node(current: Option<Value>, diffs: &[Pending<'_>]) -> Option<Value> {
    let mut current = current;
    let mut nested = Vec::with_capacity(diffs.len());
    for (segs, diff) in diffs {
        if segs.is_empty() {
            current = diff.after.clone();
        } else {
            nested.push((*segs, *diff));
        }
    }
    let Some((first, _)) = nested.first() else {
        return current;
    };
    match first[0] {
        Seg::Key(_) => {
            let mut map = match current {
                Some(Value::Object(map)) => map,
                _ => Map::new(),
            };
            for (key, group) in group_by_first(&nested) {
                let Seg::Key(key) = key else { continue };
                let child = map.get(&key).cloned();
                match apply_node(child, &group) {
                    Some(v) => {
                        map.insert(key, v);
                    }
                    None => {
                        map.shift_remove(&key);
                    }
                }
            }
            Some(Value::Object(map))
        }
        Seg::Index(_) => {
            let mut items = match current {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            };
            let is_removal = |(segs, d): &Pending<'_>| {
                segs.len() == 1 && d.after.is_none() && matches!(segs[0], Seg::Index(_))
            };
            let mut removals: Vec<usize> = nested
                .iter()
                .filter(|x| is_removal(x))
                .filter_map(|(segs, _)| match segs[0] {
                    Seg::Index(i) => Some(i),
                    Seg::Key(_) => None,
                })
                .collect();
            removals.sort_unstable_by(|x, y| y.cmp(x));
            removals.dedup();
            for i in removals {
                if i < items.len() {
                    items.remove(i);
                }
            }
            let rest: Vec<Pending<'_>> = nested.into_iter().filter(|x| !is_removal(x)).collect();
            let mut groups: Vec<(usize, Vec<Pending<'_>>)> = group_by_first(&rest)
                .into_iter()
                .filter_map(|(seg, g)| match seg {
                    Seg::Index(i) => Some((i, g)),
                    Seg::Key(_) => None,
                })
                .collect();
            groups.sort_by_key(|(i, _)| *i);
            for (i, group) in groups {
                let insert =
                    group.len() == 1 && group[0].0.is_empty() && group[0].1.before.is_none();
                if insert || i >= items.len() {
                    if let Some(v) = apply_node(None, &group) {
                        items.insert(i.min(items.len()), v);
                    }
                } else {
                    let child = Some(std::mem::take(&mut items[i]));
                    match apply_node(child, &group) {
                        Some(v) => items[i] = v,
                        None => {
                            items.remove(i);
                        }
                    }
                }
            }
            Some(Value::Array(items))
        }
    }
}

/// A diff with the part of its path still to walk.
type Pending<'a> = (&'a [Seg], &'a FieldDiff);

/// Groups diffs by their first step, in order of first appearance, with that step removed.
fn group_by_first<'a>(diffs: &[Pending<'a>]) -> Vec<(Seg, Vec<Pending<'a>>)> {
    let mut order: Vec<(Seg, Vec<Pending<'a>>)> = Vec::new();
    let mut at: HashMap<&Seg, usize> = HashMap::new();
    for (segs, diff) in diffs {
        let Some((head, tail)) = segs.split_first() else {
            continue;
        };
        match at.get(head) {
            Some(&k) => order[k].1.push((tail, *diff)),
            None => {
                at.insert(head, order.len());
                order.push((head.clone(), vec![(tail, *diff)]));
            }
        }
    }
    order
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn d(path: &str, before: Option<Value>, after: Option<Value>) -> FieldDiff {
        FieldDiff::new(path, before, after)
    }

    #[test]
    fn same_value_has_no_diffs() {
        let v = json!({"name": "a", "flights": [{"id": 1, "maxBudget": 5}]});
        assert!(fields(Some(&v), &v).is_empty());
    }

    #[test]
    fn numbers_compare_by_value() {
        let base = json!({"maxBudget": 1000, "x": 1.5});
        let after = json!({"maxBudget": 1000.0, "x": 1.5});
        assert!(fields(Some(&base), &after).is_empty());
        assert!(!same(&json!(1), &json!(1.5)));
        assert!(same(&json!(-3), &json!(-3.0)));
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
    }

    #[test]
    fn create_lists_every_top_level_field() {
        let after = json!({"name": "n", "frequencyCap": {"limit": 3}, "x": null});
        assert_eq!(
            fields(None, &after),
            vec![
                d("name", None, Some(json!("n"))),
                d("frequencyCap", None, Some(json!({"limit": 3}))),
                d("x", None, Some(Value::Null)),
            ]
        );
    }

    #[test]
    fn nested_keys_absent_and_null() {
        let base = json!({"name": "a", "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"}, "gone": 1, "cleared": 2});
        let after = json!({"name": "b", "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "HOUR"}, "cleared": null, "new": 7});
        assert_eq!(
            fields(Some(&base), &after),
            vec![
                d("name", Some(json!("a")), Some(json!("b"))),
                d(
                    "frequencyCap.timePeriod",
                    Some(json!("DAY")),
                    Some(json!("HOUR"))
                ),
                d("cleared", Some(json!(2)), Some(Value::Null)),
                d("new", None, Some(json!(7))),
                d("gone", Some(json!(1)), None),
            ]
        );
    }

    #[test]
    fn flights_match_by_id() {
        let base = json!({"flights": [
            {"id": 1, "startDate": 10},
            {"id": 2, "startDate": 20},
            {"id": 3, "startDate": 30},
        ]});
        let after = json!({"flights": [
            {"id": 1, "startDate": 10},
            {"id": null, "startDate": 15},
            {"id": 3, "startDate": 31},
        ]});
        assert_eq!(
            fields(Some(&base), &after),
            vec![
                d(
                    "flights[1]",
                    None,
                    Some(json!({"id": null, "startDate": 15}))
                ),
                d("flights[2].startDate", Some(json!(30)), Some(json!(31))),
                d("flights[1]", Some(json!({"id": 2, "startDate": 20})), None),
            ]
        );
        assert!(same(
            &apply(Some(&base), &fields(Some(&base), &after)),
            &after
        ));
    }

    #[test]
    fn nested_arrays_and_scalar_arrays() {
        let base = json!({"iabCategory": ["IAB1"], "audiences": [{"id": 9, "siteLists": {"include": [1]}}]});
        let after = json!({"iabCategory": ["IAB1", "IAB2"], "audiences": [{"id": 9, "siteLists": {"include": [1, 2]}}]});
        assert_eq!(
            fields(Some(&base), &after),
            vec![
                d(
                    "iabCategory",
                    Some(json!(["IAB1"])),
                    Some(json!(["IAB1", "IAB2"]))
                ),
                d(
                    "audiences[0].siteLists.include",
                    Some(json!([1])),
                    Some(json!([1, 2]))
                ),
            ]
        );
    }

    #[test]
    fn arrays_without_ids_go_by_index_and_reorders_stay_exact() {
        let base = json!({"rules": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
        let after = json!({"rules": [{"name": "a"}, {"name": "x"}]});
        assert_eq!(
            fields(Some(&base), &after),
            vec![
                d("rules[1].name", Some(json!("b")), Some(json!("x"))),
                d("rules[2]", Some(json!({"name": "c"})), None),
            ]
        );
        let base = json!([{"id": 1, "v": 1}, {"id": 2, "v": 2}]);
        let after = json!([{"id": 2, "v": 2}, {"id": 1, "v": 1}]);
        let diffs = fields(Some(&base), &after);
        assert_eq!(diffs[0].path, "[0].id");
        assert!(same(&apply(Some(&base), &diffs), &after));
    }

    #[test]
    fn paths_round_trip() {
        for p in [
            "name",
            "flights[1].startDate",
            "audiences[0].siteLists.include",
            "[0].flightId",
            "",
        ] {
            assert_eq!(render(&parse(p)), p);
        }
    }

    #[test]
    fn type_changes_are_one_diff() {
        let base = json!({"channelsV2": null, "a": {"b": 1}});
        let after = json!({"channelsV2": ["Display"], "a": [1]});
        let diffs = fields(Some(&base), &after);
        assert_eq!(diffs.len(), 2);
        assert!(same(&apply(Some(&base), &diffs), &after));
    }

    /// A deterministic generator for tests: proptest supplies the seed, so failures shrink
    /// and replay.
    pub(crate) struct Rng(u64);

    impl Rng {
        pub(crate) fn new(seed: u64) -> Self {
            Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
        }
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            if n == 0 {
                0
            } else {
                (self.0 % n as u64) as usize
            }
        }
    }

    const KEYS: &[&str] = &[
        "name",
        "maxBudget",
        "frequencyCap",
        "flights",
        "audiences",
        "siteIds",
        "status",
        "remainingBudget",
        "limit",
        "startDate",
    ];

    pub(crate) fn scalar(rng: &mut Rng) -> Value {
        match rng.below(7) {
            0 => Value::Null,
            1 => json!(rng.below(2) == 0),
            2 => json!(rng.below(5)),
            3 => json!(rng.below(5) as f64),
            4 => json!(rng.below(5) as f64 + 0.5),
            5 => json!(["a", "b", "c"][rng.below(3)]),
            _ => json!((0..rng.below(3)).map(|i| i as i64).collect::<Vec<_>>()),
        }
    }

    pub(crate) fn value(rng: &mut Rng, depth: usize) -> Value {
        if depth == 0 {
            return scalar(rng);
        }
        match rng.below(5) {
            0 | 1 => {
                let mut map = Map::new();
                for _ in 0..rng.below(5) {
                    map.insert(
                        KEYS[rng.below(KEYS.len())].to_owned(),
                        value(rng, depth - 1),
                    );
                }
                Value::Object(map)
            }
            2 => {
                // Server-style entity array: unique ids.
                let n = rng.below(4);
                let items = (0..n)
                    .map(|i| {
                        let mut item = match value(rng, depth - 1) {
                            Value::Object(m) => m,
                            _ => Map::new(),
                        };
                        item.insert("id".into(), json!(i * 10 + rng.below(10)));
                        Value::Object(item)
                    })
                    .collect();
                Value::Array(items)
            }
            3 => Value::Array(
                (0..rng.below(3))
                    .map(|_| {
                        let mut m = Map::new();
                        m.insert("name".into(), scalar(rng));
                        Value::Object(m)
                    })
                    .collect(),
            ),
            _ => scalar(rng),
        }
    }

    /// A random edit of `v`: changes, removals and insertions at any depth, reorders, and
    /// integer/float respellings that are not changes.
    pub(crate) fn mutate(v: &Value, rng: &mut Rng, depth: usize) -> Value {
        match v {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, x) in map {
                    match rng.below(8) {
                        0 => {}
                        1 => {
                            out.insert(k.clone(), value(rng, depth));
                        }
                        2 | 3 => {
                            out.insert(k.clone(), mutate(x, rng, depth.saturating_sub(1)));
                        }
                        _ => {
                            out.insert(k.clone(), x.clone());
                        }
                    }
                }
                if rng.below(4) == 0 {
                    out.insert(KEYS[rng.below(KEYS.len())].to_owned(), value(rng, depth));
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                let mut out: Vec<Value> = Vec::new();
                for x in items {
                    match rng.below(6) {
                        0 => {}
                        1 | 2 => out.push(mutate(x, rng, depth.saturating_sub(1))),
                        _ => out.push(x.clone()),
                    }
                    if rng.below(6) == 0 && x.is_object() {
                        let mut m = Map::new();
                        m.insert("name".into(), scalar(rng));
                        out.push(Value::Object(m));
                    }
                }
                if rng.below(10) == 0 && out.len() > 1 {
                    out.swap(0, 1);
                }
                Value::Array(out)
            }
            Value::Number(n) if rng.below(2) == 0 => {
                n.as_f64().map_or_else(|| v.clone(), |f| json!(f))
            }
            other => {
                if rng.below(3) == 0 {
                    scalar(rng)
                } else {
                    other.clone()
                }
            }
        }
    }

    proptest! {
        #[test]
        fn diff_of_itself_is_empty(seed in any::<u64>()) {
            let v = value(&mut Rng::new(seed), 4);
            prop_assert!(fields(Some(&v), &v).is_empty());
        }

        #[test]
        fn apply_reproduces_after(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let after = mutate(&base, &mut rng, 3);
            let diffs = fields(Some(&base), &after);
            let rebuilt = apply(Some(&base), &diffs);
            prop_assert!(same(&rebuilt, &after), "base {base}\nafter {after}\ndiffs {diffs:?}\nrebuilt {rebuilt}");
            // Order of diffs does not matter.
            let mut reversed = diffs.clone();
            reversed.reverse();
            prop_assert!(same(&apply(Some(&base), &reversed), &after));
        }

        #[test]
        fn apply_reproduces_unrelated_values(a in any::<u64>(), b in any::<u64>()) {
            let base = value(&mut Rng::new(a), 3);
            let after = value(&mut Rng::new(b), 3);
            prop_assert!(same(&apply(Some(&base), &fields(Some(&base), &after)), &after));
            let created = fields(None, &after);
            // An empty payload has no fields, so there is nothing to rebuild it from.
            if !created.is_empty() {
                prop_assert!(same(&apply(None, &created), &after));
            }
        }

        #[test]
        fn paths_are_unique_per_kind(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let after = mutate(&base, &mut rng, 3);
            let diffs = fields(Some(&base), &after);
            let mut seen = std::collections::HashSet::new();
            for d in &diffs {
                // A removal and an insertion may share an index (base vs after numbering).
                prop_assert!(seen.insert((d.path.clone(), d.after.is_none())), "duplicate {}", d.path);
                prop_assert!(!same_opt(d.before.as_ref(), d.after.as_ref()));
            }
        }
    }
}
