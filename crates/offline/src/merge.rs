//! Three-way, field-level merge of an entity.
//!
//! Before an update is posted, the server's current version (`theirs`) is compared with
//! the version the buyer's edit started from (`base`). Server changes to other fields
//! merge automatically; a field both sides changed to different values becomes a
//! [`FieldConflict`], held for the buyer with all three values.
//!
//! The merge walks the three versions together with the path rules of [`crate::diff`]:
//! objects by key, arrays of objects with ids by id (the buyer editing flight A while the
//! server edited flight B merges cleanly), other arrays of objects by index when no side
//! changed their length, and scalar arrays as one value.
//!
//! Fields the service owns ([`SERVER_OWNED`]) always take the server's value and never
//! conflict: the buyer cannot set them, and the service moves them on its own (a flight's
//! status follows the clock).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diff::{Seg, id_index, item_id, object_items, render, same, same_opt};

/// A field both sides changed differently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FieldConflict {
    /// Wire path of the field.
    pub path: String,
    /// Value in the common base.
    pub base: Option<Value>,
    /// The buyer's value.
    pub mine: Option<Value>,
    /// The server's value.
    pub theirs: Option<Value>,
}

/// Result of a merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    /// `theirs` with every non-conflicting change of `mine` applied.
    pub merged: Value,
    /// Fields held for the buyer.
    pub conflicts: Vec<FieldConflict>,
}

/// Output-only or server-derived fields: the server's value always wins.
///
/// A bare name matches that key at any depth; `parent[].key` matches `key` only inside the
/// items of the array `parent` (a flight's `status`, but not a creative's, which the buyer
/// sets to `DISABLED`).
pub const SERVER_OWNED: &[&str] = &[
    "flights[].status",
    "remainingBudget",
    "hasFlights",
    "io_number",
    "costOptimizationEnabled",
    "dataCount",
    "insertedCount",
];

/// Merges the buyer's version and the server's, both descended from `base`.
///
/// Paths in `conflicts` name fields of `merged`, which keeps the server's value there.
/// Two cases concern whole array items: the buyer removed an item the server changed
/// (`mine: None`, the item stays in `merged`), and the server removed an item the buyer
/// changed (`theirs: None`; the index is where the buyer's item would go back in).
pub fn three_way(base: &Value, mine: &Value, theirs: &Value) -> Merge {
    three_way_with(base, mine, theirs, SERVER_OWNED)
}

/// [`three_way`] with another list of server-owned fields (same syntax as [`SERVER_OWNED`]).
pub fn three_way_with(base: &Value, mine: &Value, theirs: &Value, server_owned: &[&str]) -> Merge {
    let owned = server_owned
        .iter()
        .map(|p| match p.split_once("[].") {
            Some((parent, key)) => Owned {
                parent: Some(parent),
                key,
            },
            None => Owned {
                parent: None,
                key: p,
            },
        })
        .collect();
    let mut walk = Walk {
        owned,
        path: Vec::new(),
        conflicts: Vec::new(),
    };
    let merged = walk
        .node(Some(base), Some(mine), Some(theirs))
        .unwrap_or_else(|| theirs.clone());
    Merge {
        merged,
        conflicts: walk.conflicts,
    }
}

struct Owned<'a> {
    parent: Option<&'a str>,
    key: &'a str,
}

struct Walk<'a> {
    owned: Vec<Owned<'a>>,
    path: Vec<Seg>,
    conflicts: Vec<FieldConflict>,
}

/// Where an item of a merged id-matched array comes from.
enum Slot {
    /// In mine and theirs (and maybe base): merged field by field.
    Both {
        b: Option<usize>,
        m: usize,
        t: usize,
    },
    /// Added by the buyer.
    Mine(usize),
    /// Added by the server, or removed by the buyer after the server changed it (`b`).
    Theirs { t: usize, b: Option<usize> },
    /// Removed by the server after the buyer changed it: a conflict, not in the result.
    Gone { b: usize, m: usize },
}

impl Walk<'_> {
    fn owned_here(&self) -> bool {
        let n = self.path.len();
        let Some(Seg::Key(key)) = self.path.last() else {
            return false;
        };
        self.owned.iter().any(|o| {
            o.key == key
                && match o.parent {
                    None => true,
                    Some(parent) => {
                        n >= 3
                            && matches!(self.path[n - 2], Seg::Index(_))
                            && matches!(&self.path[n - 3], Seg::Key(k) if k == parent)
                    }
                }
        })
    }

    fn conflict(&mut self, base: Option<&Value>, mine: Option<&Value>, theirs: Option<&Value>) {
        self.conflicts.push(FieldConflict {
            path: render(&self.path),
            base: base.cloned(),
            mine: mine.cloned(),
            theirs: theirs.cloned(),
        });
    }

    fn node(
        &mut self,
        base: Option<&Value>,
        mine: Option<&Value>,
        theirs: Option<&Value>,
    ) -> Option<Value> {
        if self.owned_here() || same_opt(mine, base) || same_opt(mine, theirs) {
            return theirs.cloned();
        }
        match (base, mine, theirs) {
            (Some(Value::Object(b)), Some(Value::Object(m)), Some(Value::Object(t))) => {
                return Some(Value::Object(self.objects(b, m, t)));
            }
            (Some(Value::Array(b)), Some(Value::Array(m)), Some(Value::Array(t)))
                if object_items(&[b, m, t]) =>
            {
                if let Some(items) = self.by_id(b, m, t) {
                    return Some(Value::Array(items));
                }
                if b.len() == m.len() && m.len() == t.len() {
                    let mut items = Vec::with_capacity(t.len());
                    for i in 0..t.len() {
                        self.path.push(Seg::Index(i));
                        if let Some(v) = self.node(b.get(i), m.get(i), t.get(i)) {
                            items.push(v);
                        }
                        self.path.pop();
                    }
                    return Some(Value::Array(items));
                }
            }
            _ => {}
        }
        if same_opt(theirs, base) {
            return mine.cloned();
        }
        self.conflict(base, mine, theirs);
        theirs.cloned()
    }

    /// Mine's keys in mine's order, then keys only the server has.
    fn objects(
        &mut self,
        b: &Map<String, Value>,
        m: &Map<String, Value>,
        t: &Map<String, Value>,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        let keys = m.keys().chain(t.keys().filter(|k| !m.contains_key(*k)));
        for key in keys {
            self.path.push(Seg::Key(key.clone()));
            if let Some(v) = self.node(b.get(key), m.get(key), t.get(key)) {
                out.insert(key.clone(), v);
            }
            self.path.pop();
        }
        out
    }

    /// Merges arrays of entities by id, in the buyer's order, with items only the server
    /// has placed after the item they follow on the server. `None` when ids cannot
    /// identify items: no server item at all, a server item without an id, or a repeated
    /// id. (Only the buyer's new items lack ids.)
    fn by_id(&mut self, b: &[Value], m: &[Value], t: &[Value]) -> Option<Vec<Value>> {
        if (b.is_empty() && t.is_empty()) || b.iter().chain(t).any(|v| item_id(v).is_none()) {
            return None;
        }
        let bi = id_index(b)?;
        let mi = id_index(m)?;
        let ti = id_index(t)?;
        let mut extras: Vec<Vec<Slot>> = (0..=m.len()).map(|_| Vec::new()).collect();
        let mut anchor = 0;
        for (ti_pos, item) in t.iter().enumerate() {
            let id = item_id(item);
            if let Some(mk) = id.as_ref().and_then(|id| mi.get(id)) {
                anchor = mk + 1;
                continue;
            }
            let in_base = id.as_ref().and_then(|id| bi.get(id)).copied();
            match in_base {
                // Removed by the buyer; the server's untouched copy goes with it.
                Some(bk) if self.item_unchanged(&b[bk], item) => {}
                Some(bk) => extras[anchor].push(Slot::Theirs {
                    t: ti_pos,
                    b: Some(bk),
                }),
                None => extras[anchor].push(Slot::Theirs { t: ti_pos, b: None }),
            }
        }
        let mut slots = Vec::with_capacity(m.len() + t.len());
        slots.append(&mut extras[0]);
        for (mk, item) in m.iter().enumerate() {
            let id = item_id(item);
            let in_theirs = id.as_ref().and_then(|id| ti.get(id)).copied();
            let in_base = id.as_ref().and_then(|id| bi.get(id)).copied();
            match (in_theirs, in_base) {
                (Some(tk), b) => slots.push(Slot::Both { b, m: mk, t: tk }),
                // Removed by the server; nothing of the buyer's is lost if untouched.
                (None, Some(bk)) if self.item_unchanged(&b[bk], item) => {}
                (None, Some(bk)) => slots.push(Slot::Gone { b: bk, m: mk }),
                (None, None) => slots.push(Slot::Mine(mk)),
            }
            slots.append(&mut extras[mk + 1]);
        }
        let mut out = Vec::with_capacity(slots.len());
        for slot in slots {
            self.path.push(Seg::Index(out.len()));
            match slot {
                Slot::Both {
                    b: bk,
                    m: mk,
                    t: tk,
                } => {
                    if let Some(v) = self.node(bk.map(|k| &b[k]), Some(&m[mk]), Some(&t[tk])) {
                        out.push(v);
                    }
                }
                Slot::Mine(mk) => out.push(m[mk].clone()),
                Slot::Theirs { t: tk, b: bk } => {
                    if let Some(bk) = bk {
                        self.conflict(Some(&b[bk]), None, Some(&t[tk]));
                    }
                    out.push(t[tk].clone());
                }
                Slot::Gone { b: bk, m: mk } => self.conflict(Some(&b[bk]), Some(&m[mk]), None),
            }
            self.path.pop();
        }
        Some(out)
    }

    /// [`Self::same_except_owned`] for an item of the array at the current path.
    fn item_unchanged(&mut self, a: &Value, b: &Value) -> bool {
        self.path.push(Seg::Index(0));
        let unchanged = self.same_except_owned(a, b);
        self.path.pop();
        unchanged
    }

    /// Equal apart from server-owned fields: a flight whose status moved with the clock
    /// is not "changed by the server" when the buyer removes it.
    fn same_except_owned(&mut self, a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: Vec<&String> = x
                    .keys()
                    .chain(y.keys().filter(|k| !x.contains_key(*k)))
                    .collect();
                keys.into_iter().all(|k| {
                    self.path.push(Seg::Key(k.clone()));
                    let ok = self.owned_here()
                        || match (x.get(k), y.get(k)) {
                            (Some(p), Some(q)) => self.same_except_owned(p, q),
                            (None, None) => true,
                            _ => false,
                        };
                    self.path.pop();
                    ok
                })
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => (0..x.len()).all(|i| {
                self.path.push(Seg::Index(i));
                let ok = self.same_except_owned(&x[i], &y[i]);
                self.path.pop();
                ok
            }),
            _ => same(a, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::{Rng, mutate, value};
    use proptest::prelude::*;
    use serde_json::json;

    fn conflict(
        path: &str,
        base: Option<Value>,
        mine: Option<Value>,
        theirs: Option<Value>,
    ) -> FieldConflict {
        FieldConflict {
            path: path.into(),
            base,
            mine,
            theirs,
        }
    }

    #[test]
    fn disjoint_edits_merge() {
        let base = json!({"name": "a", "maxBudget": 100, "domain": "x.com"});
        let mine = json!({"name": "b", "maxBudget": 100, "domain": "x.com"});
        let theirs = json!({"name": "a", "maxBudget": 200, "domain": "x.com"});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(
            m.merged,
            json!({"name": "b", "maxBudget": 200, "domain": "x.com"})
        );
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn same_field_conflicts_with_all_three_values() {
        let base = json!({"name": "a", "maxBudget": 100});
        let mine = json!({"name": "b", "maxBudget": 100});
        let theirs = json!({"name": "c", "maxBudget": 150});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(m.merged, theirs);
        assert_eq!(
            m.conflicts,
            vec![conflict(
                "name",
                Some(json!("a")),
                Some(json!("b")),
                Some(json!("c"))
            )]
        );
    }

    #[test]
    fn same_change_on_both_sides_is_not_a_conflict() {
        let base = json!({"name": "a", "iabCategory": ["IAB1"]});
        let mine = json!({"name": "b", "iabCategory": ["IAB1", "IAB2"]});
        let theirs = json!({"name": "b", "iabCategory": ["IAB1", "IAB2"]});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(m.merged, theirs);
        assert!(m.conflicts.is_empty());
        // 100 and 100.0 are the same change.
        let m = three_way(&json!({"x": 1}), &json!({"x": 100}), &json!({"x": 100.0}));
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn nested_members_merge_separately() {
        let base = json!({"frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"}});
        let mine = json!({"frequencyCap": {"limit": 5, "duration": 1, "timePeriod": "DAY"}});
        let theirs = json!({"frequencyCap": {"limit": 3, "duration": 2, "timePeriod": "DAY"}});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(
            m.merged,
            json!({"frequencyCap": {"limit": 5, "duration": 2, "timePeriod": "DAY"}})
        );
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn absent_and_null_differ() {
        // The buyer cleared the cap (null) while the server changed its limit: a conflict.
        let base = json!({"frequencyCap": {"limit": 3}});
        let mine = json!({"frequencyCap": null});
        let theirs = json!({"frequencyCap": {"limit": 4}});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(
            m.conflicts,
            vec![conflict(
                "frequencyCap",
                Some(json!({"limit": 3})),
                Some(Value::Null),
                Some(json!({"limit": 4}))
            )]
        );
        // The buyer removed a key the server left alone: it goes.
        let m = three_way(
            &json!({"a": 1, "b": 2}),
            &json!({"a": 1}),
            &json!({"a": 1, "b": 2, "c": 3}),
        );
        assert_eq!(m.merged, json!({"a": 1, "c": 3}));
    }

    #[test]
    fn flights_merge_by_id() {
        let base = json!({"flights": [
            {"id": 1, "maxBudget": 10, "endDate": 100},
            {"id": 2, "maxBudget": 20, "endDate": 200},
        ]});
        // The buyer edits flight 1 and adds a flight; the server edits flight 2 and has
        // gained a flight of its own.
        let mine = json!({"flights": [
            {"id": 1, "maxBudget": 15, "endDate": 100},
            {"id": 2, "maxBudget": 20, "endDate": 200},
            {"maxBudget": 5, "endDate": 400},
        ]});
        let theirs = json!({"flights": [
            {"id": 1, "maxBudget": 10, "endDate": 100},
            {"id": 2, "maxBudget": 20, "endDate": 250},
            {"id": 3, "maxBudget": 30, "endDate": 300},
        ]});
        let m = three_way(&base, &mine, &theirs);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        assert_eq!(
            m.merged,
            json!({"flights": [
                {"id": 1, "maxBudget": 15, "endDate": 100},
                {"id": 2, "maxBudget": 20, "endDate": 250},
                {"id": 3, "maxBudget": 30, "endDate": 300},
                {"maxBudget": 5, "endDate": 400},
            ]})
        );
        // Both edit flight 2's end date: one conflict, named in merged's numbering.
        let mine2 = json!({"flights": [
            {"id": 1, "maxBudget": 10, "endDate": 100},
            {"id": 2, "maxBudget": 20, "endDate": 220},
        ]});
        let m = three_way(&base, &mine2, &theirs);
        assert_eq!(
            m.conflicts,
            vec![conflict(
                "flights[1].endDate",
                Some(json!(200)),
                Some(json!(220)),
                Some(json!(250))
            )]
        );
        assert_eq!(m.merged, theirs);
    }

    #[test]
    fn flight_caps_payload_merges_by_id_at_the_top() {
        let base = json!([{"id": 7, "flightId": 1, "maxBudget": 10}, {"id": 8, "flightId": 2, "maxBudget": 20}]);
        let mine = json!([{"id": 7, "flightId": 1, "maxBudget": 11}, {"id": 8, "flightId": 2, "maxBudget": 20}]);
        let theirs = json!([{"id": 8, "flightId": 2, "maxBudget": 25}, {"id": 7, "flightId": 1, "maxBudget": 10}]);
        let m = three_way(&base, &mine, &theirs);
        assert!(m.conflicts.is_empty());
        assert_eq!(
            m.merged,
            json!([{"id": 7, "flightId": 1, "maxBudget": 11}, {"id": 8, "flightId": 2, "maxBudget": 25}])
        );
    }

    #[test]
    fn an_id_written_as_a_float_is_the_same_item() {
        // The server echoing `0` as `0.0` changed nothing: the buyer's removal stands.
        let base = json!({"audiences": [{"id": 0}, {"id": 10}]});
        let mine = json!({"audiences": [{}, {"id": 10}, {"name": 1.5}]});
        let theirs = json!({"audiences": [{"id": 0.0}, {"id": 10}]});
        let m = three_way_with(&base, &mine, &theirs, &[]);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        assert_eq!(m.merged, mine);
    }

    #[test]
    fn a_null_list_is_not_an_empty_one() {
        // A version-1 account's `channelsV2: null` stays null through a merge.
        let base = json!({"name": "a", "channelsV2": null});
        let mine = json!({"name": "b", "channelsV2": null});
        let m = three_way(&base, &mine, &base);
        assert_eq!(m.merged, mine);
        let theirs = json!({"name": "a", "channelsV2": ["Display"]});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(m.merged["channelsV2"], json!(["Display"]));
        // Unticking every channel ([]) is a change the buyer made, not a null.
        let m = three_way(&base, &json!({"name": "a", "channelsV2": []}), &base);
        assert_eq!(m.merged["channelsV2"], json!([]));
        assert_eq!(crate::diff::fields(Some(&base), &mine).len(), 1);
    }

    #[test]
    fn removed_items() {
        let base = json!({"audiences": [{"id": 1, "weight": 50}, {"id": 2, "weight": 50}]});
        // The buyer removed audience 2, the server did not touch it: it goes.
        let mine = json!({"audiences": [{"id": 1, "weight": 100}]});
        let m = three_way(&base, &mine, &base);
        assert_eq!(m.merged, mine);
        assert!(m.conflicts.is_empty());
        // The server changed audience 2 meanwhile: conflict, the server's copy stays.
        let theirs = json!({"audiences": [{"id": 1, "weight": 50}, {"id": 2, "weight": 60}]});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(
            m.merged,
            json!({"audiences": [{"id": 1, "weight": 100}, {"id": 2, "weight": 60}]})
        );
        assert_eq!(
            m.conflicts,
            vec![conflict(
                "audiences[1]",
                Some(json!({"id": 2, "weight": 50})),
                None,
                Some(json!({"id": 2, "weight": 60}))
            )]
        );
        // The server removed audience 1, which the buyer edited: conflict, stays removed.
        let theirs = json!({"audiences": [{"id": 2, "weight": 50}]});
        let m = three_way(&base, &mine, &theirs);
        assert_eq!(m.merged, json!({"audiences": []}));
        assert_eq!(
            m.conflicts,
            vec![conflict(
                "audiences[0]",
                Some(json!({"id": 1, "weight": 50})),
                Some(json!({"id": 1, "weight": 100})),
                None
            )]
        );
    }

    #[test]
    fn server_owned_fields_follow_the_server() {
        let base = json!({"hasFlights": false, "flights": [{"id": 1, "status": "PENDING", "remainingBudget": 10, "maxBudget": 10}]});
        let mine = json!({"hasFlights": true, "flights": [{"id": 1, "status": "COMPLETED", "remainingBudget": 3, "maxBudget": 12}]});
        let theirs = json!({"hasFlights": false, "flights": [{"id": 1, "status": "ACTIVE", "remainingBudget": 8, "maxBudget": 10}]});
        let m = three_way(&base, &mine, &theirs);
        assert!(m.conflicts.is_empty());
        assert_eq!(
            m.merged,
            json!({"hasFlights": false, "flights": [{"id": 1, "status": "ACTIVE", "remainingBudget": 8, "maxBudget": 12}]})
        );
        // A creative's status is the buyer's to set.
        let m = three_way(
            &json!({"status": "PENDING"}),
            &json!({"status": "DISABLED"}),
            &json!({"status": "APPROVED"}),
        );
        assert_eq!(m.conflicts.len(), 1);
        // Without the list, the flight status conflicts.
        let m = three_way_with(&base, &mine, &theirs, &[]);
        let paths: Vec<&str> = m.conflicts.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["flights[0].status", "flights[0].remainingBudget"]);
    }

    #[test]
    fn removing_a_flight_whose_status_moved_is_clean() {
        let base =
            json!({"flights": [{"id": 1, "status": "PENDING"}, {"id": 2, "status": "PENDING"}]});
        let mine = json!({"flights": [{"id": 1, "status": "PENDING"}]});
        let theirs =
            json!({"flights": [{"id": 1, "status": "ACTIVE"}, {"id": 2, "status": "ACTIVE"}]});
        let m = three_way(&base, &mine, &theirs);
        assert!(m.conflicts.is_empty());
        assert_eq!(
            m.merged,
            json!({"flights": [{"id": 1, "status": "ACTIVE"}]})
        );
    }

    #[test]
    fn arrays_without_ids() {
        // Same length: by index.
        let base = json!({"rules": [{"name": "a", "type": "web"}, {"name": "b", "type": "web"}]});
        let mine = json!({"rules": [{"name": "a2", "type": "web"}, {"name": "b", "type": "web"}]});
        let theirs = json!({"rules": [{"name": "a", "type": "web"}, {"name": "b", "type": "app"}]});
        let m = three_way(&base, &mine, &theirs);
        assert!(m.conflicts.is_empty());
        assert_eq!(
            m.merged,
            json!({"rules": [{"name": "a2", "type": "web"}, {"name": "b", "type": "app"}]})
        );
        // Lengths changed on both sides: one conflict for the whole array.
        let mine = json!({"rules": [{"name": "a", "type": "web"}]});
        let m = three_way(&base, &mine, &json!({"rules": []}));
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].path, "rules");
        // Scalar arrays are one value.
        let m = three_way(
            &json!({"siteIds": [1, 2]}),
            &json!({"siteIds": [1, 2, 3]}),
            &json!({"siteIds": [0, 1, 2]}),
        );
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].path, "siteIds");
    }

    /// Removes server-owned fields, to compare what the buyer controls.
    fn strip(v: &Value, parent: Option<&str>) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| {
                        !SERVER_OWNED.iter().any(|p| match p.split_once("[].") {
                            Some((par, key)) => key == k.as_str() && parent == Some(par),
                            None => p == k,
                        })
                    })
                    .map(|(k, x)| {
                        let inner = match x {
                            Value::Array(items) => {
                                Value::Array(items.iter().map(|i| strip(i, Some(k))).collect())
                            }
                            other => strip(other, None),
                        };
                        (k.clone(), inner)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|i| strip(i, None)).collect()),
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn unchanged_server_yields_mine(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let mine = mutate(&base, &mut rng, 3);
            let m = three_way(&base, &mine, &base);
            prop_assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
            prop_assert!(same(&strip(&m.merged, None), &strip(&mine, None)), "base {base}\nmine {mine}\nmerged {}", m.merged);
            let m = three_way_with(&base, &mine, &base, &[]);
            prop_assert!(same(&m.merged, &mine));
        }

        #[test]
        fn unchanged_buyer_yields_theirs(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let theirs = mutate(&base, &mut rng, 3);
            let m = three_way(&base, &base, &theirs);
            prop_assert!(m.conflicts.is_empty());
            prop_assert_eq!(m.merged, theirs);
        }

        #[test]
        fn equal_sides_yield_theirs(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let both = mutate(&base, &mut rng, 3);
            let m = three_way(&base, &both, &both);
            prop_assert!(m.conflicts.is_empty());
            prop_assert_eq!(m.merged, both);
        }

        #[test]
        fn conflicts_keep_theirs_and_are_real(seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let base = value(&mut rng, 4);
            let mine = mutate(&base, &mut rng, 3);
            let theirs = mutate(&base, &mut rng, 3);
            let m = three_way_with(&base, &mine, &theirs, &[]);
            for c in &m.conflicts {
                prop_assert!(!same_opt(c.mine.as_ref(), c.theirs.as_ref()));
                prop_assert!(!same_opt(c.mine.as_ref(), c.base.as_ref()));
                prop_assert!(!same_opt(c.theirs.as_ref(), c.base.as_ref()));
            }
            // Field by field: a side that left a field alone takes the other side's value.
            if let (Some(b), Some(mi), Some(t), Some(out)) =
                (base.as_object(), mine.as_object(), theirs.as_object(), m.merged.as_object())
            {
                for k in b.keys().chain(mi.keys()).chain(t.keys()) {
                    if same_opt(mi.get(k), b.get(k)) {
                        prop_assert!(same_opt(out.get(k), t.get(k)), "{k}");
                    } else if same_opt(t.get(k), b.get(k)) {
                        prop_assert!(same_opt(out.get(k), mi.get(k)), "{k}");
                    }
                }
            }
        }
    }
}
