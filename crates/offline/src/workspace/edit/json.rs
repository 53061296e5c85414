//! JSON helpers of edits: references by pointer, remote ids, and a site-list call applied
//! to the list the workspace keeps.

use flightdeck_model::SiteList;
use serde_json::Value;

use super::*;
use crate::change::{EntityRef, Key, Kind, Op, ParentRef};

pub(in crate::workspace) fn numeric_id(key: &Key) -> Option<i64> {
    match key {
        Key::Id(id) => Some(*id),
        _ => None,
    }
}

/// Each reference whose target has a remote key gets it; others stay empty until it lands.
pub(in crate::workspace) fn fill_parents(payload: &mut Value, parents: &[ParentRef]) {
    for p in parents {
        set_pointer(payload, &p.pointer, remote_value(&p.target));
    }
}

/// What a reference to `target` holds: its numeric id, its segment id, or (a draft) null,
/// or the empty text a record's `serviceSegmentId` must be until its segment lands.
pub(in crate::workspace) fn remote_value(target: &EntityRef) -> Value {
    match &target.key {
        Key::Id(id) => Value::from(*id),
        Key::Segment(s) => Value::from(s.clone()),
        Key::Local(_) if target.kind == Kind::AudienceSegment => Value::from(""),
        Key::Local(_) => Value::Null,
    }
}

/// Sets a member by JSON pointer, creating the last object member if absent.
pub(in crate::workspace) fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    let Some(rest) = pointer.strip_prefix('/') else {
        return;
    };
    let tokens: Vec<String> = rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = tokens.split_last() else {
        return;
    };
    let mut node = root;
    for t in path {
        let next = match node {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return,
        }
    }
    match node {
        Value::Object(m) => {
            m.insert(last.clone(), value);
        }
        Value::Array(a) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = value;
            }
        }
        _ => {}
    }
}

/// The list as it will be once `body` is applied, so the workspace (the list's only
/// record) shows its sites.
pub(in crate::workspace) fn apply_site_op(working: &mut SiteList, op: Op, body: &SiteList) {
    if let Some(name) = &body.name {
        working.name = Some(name.clone());
    }
    match op {
        Op::SiteListAppend => {
            if let Some(ids) = &body.site_ids {
                let list = working.site_ids.get_or_insert_with(Vec::new);
                let mut seen: HashSet<i64> = list.iter().copied().collect();
                list.extend(ids.iter().copied().filter(|id| seen.insert(*id)));
            }
            if let Some(rules) = &body.rules {
                let list = working.rules.get_or_insert_with(Vec::new);
                for r in rules {
                    if !list.contains(r) {
                        list.push(r.clone());
                    }
                }
            }
        }
        Op::SiteListOverwrite => {
            if body.site_ids.is_some() {
                working.site_ids.clone_from(&body.site_ids);
            }
            if body.rules.is_some() {
                working.rules.clone_from(&body.rules);
            }
        }
        Op::SiteListRemoveSites => {
            if let (Some(list), Some(ids)) = (working.site_ids.as_mut(), &body.site_ids) {
                let gone: HashSet<i64> = ids.iter().copied().collect();
                list.retain(|id| !gone.contains(id));
            }
        }
        _ => {}
    }
}
