//! Site-list bodies for the four calls, id based or rule based.

use super::helpers::{known, positive_id, require, require_str};
use super::{SiteListOp, codes};
use crate::{
    SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED, SiteList, SiteRule, ValidationErrors,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    IdBased,
    RuleBased,
}

fn kind(type_id: Option<i64>) -> Option<Kind> {
    match type_id {
        Some(SITE_LIST_TYPE_ID_BASED) => Some(Kind::IdBased),
        Some(SITE_LIST_TYPE_RULE_BASED) => Some(Kind::RuleBased),
        _ => None,
    }
}

/// Site-list body for one of the four calls. `stored_type_id` is the list's type when it exists.
pub fn site_list(
    s: &SiteList,
    op: SiteListOp,
    stored_type_id: Option<i64>,
) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    if op != SiteListOp::Add {
        require(&mut e, "id", s.id.as_ref());
    }
    require_str(&mut e, "name", s.name.as_ref());

    match op {
        SiteListOp::Add => {
            let type_id = require(&mut e, "typeId", s.type_id.as_ref()).copied();
            let k = kind(type_id);
            if let (Some(t), None) = (type_id, k) {
                e.push(
                    "typeId",
                    codes::INVALID,
                    format!(
                        "must be {SITE_LIST_TYPE_ID_BASED} (id based) or {SITE_LIST_TYPE_RULE_BASED} (rule based) (got {t})"
                    ),
                );
            }
            match k {
                Some(Kind::IdBased) => {
                    not_applicable(&mut e, "strategy", s.strategy.is_some(), "rule-based");
                    contents(&mut e, s, Kind::IdBased);
                }
                Some(Kind::RuleBased) => {
                    let strategy = require(&mut e, "strategy", s.strategy.as_ref());
                    known(&mut e, "strategy", strategy);
                    contents(&mut e, s, Kind::RuleBased);
                }
                None => {}
            }
        }
        SiteListOp::Append | SiteListOp::Overwrite => match kind(stored_type_id) {
            Some(k) => contents(&mut e, s, k),
            None => {
                // Type unknown: one of the two is still needed, and what is sent must be well formed.
                if s.site_ids.is_none() && s.rules.is_none() {
                    e.push("siteIds", codes::REQUIRED, "siteIds or rules is required");
                }
                site_ids(&mut e, s.site_ids.as_deref());
                rules(&mut e, s.rules.as_deref());
            }
        },
        SiteListOp::Remove => {
            if kind(stored_type_id) == Some(Kind::RuleBased) {
                e.push(
                    "siteIds",
                    codes::INVALID,
                    "sites can only be removed from an id-based list",
                );
            } else {
                required_site_ids(&mut e, s.site_ids.as_deref());
            }
        }
    }
    e.into_result()
}

/// The members a list of kind `k` takes, and the other kind's member must be absent.
fn contents(e: &mut ValidationErrors, s: &SiteList, k: Kind) {
    match k {
        Kind::IdBased => {
            required_site_ids(e, s.site_ids.as_deref());
            not_applicable(e, "rules", s.rules.is_some(), "rule-based");
        }
        Kind::RuleBased => {
            match s.rules.as_deref() {
                None => e.push("rules", codes::REQUIRED, "is required"),
                Some([]) => e.push(
                    "rules",
                    codes::REQUIRED,
                    "is required: list at least one rule",
                ),
                Some(r) => rules(e, Some(r)),
            }
            not_applicable(e, "siteIds", s.site_ids.is_some(), "id-based");
        }
    }
}

fn not_applicable(e: &mut ValidationErrors, field: &str, sent: bool, owner: &str) {
    if sent {
        e.push(
            field,
            codes::NOT_APPLICABLE,
            format!("applies only to {owner} site lists"),
        );
    }
}

fn required_site_ids(e: &mut ValidationErrors, ids: Option<&[i64]>) {
    match ids {
        None => e.push("siteIds", codes::REQUIRED, "is required"),
        Some([]) => e.push(
            "siteIds",
            codes::REQUIRED,
            "is required: list at least one site",
        ),
        Some(ids) => site_ids(e, Some(ids)),
    }
}

fn site_ids(e: &mut ValidationErrors, ids: Option<&[i64]>) {
    for (i, id) in ids.unwrap_or_default().iter().enumerate() {
        positive_id(e, &format!("siteIds[{i}]"), *id);
    }
}

fn rules(e: &mut ValidationErrors, rules: Option<&[SiteRule]>) {
    for (i, rule) in rules.unwrap_or_default().iter().enumerate() {
        let name_field = format!("rules[{i}].name");
        if let Some(name) = require_str(e, &name_field, rule.name.as_ref())
            && name.chars().any(char::is_whitespace)
        {
            e.push(
                name_field,
                codes::INVALID,
                "must be a domain or app bundle without spaces",
            );
        }
        let field = format!("rules[{i}].type");
        let t = require(e, &field, rule.type_.as_ref());
        known(e, &field, t);
    }
}
