//! Advertisers, and the IAB category shape they share with campaigns.

use super::helpers::{known, require, require_str};
use super::identifiers::external_advertiser_id;
use super::{Op, codes};
use crate::{Advertiser, ValidationErrors};

/// Whether `s` has the shape of an IAB category code: `IAB<digits>` or
/// `IAB<digits>-<digits>`. The service's list of codes is not published, so only the
/// shape is checked.
pub fn is_iab_category(s: &str) -> bool {
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let Some(rest) = s.strip_prefix("IAB") else {
        return false;
    };
    match rest.split_once('-') {
        Some((tier1, tier2)) => digits(tier1) && digits(tier2),
        None => digits(rest),
    }
}

/// Advertiser `save` body.
pub fn advertiser(a: &Advertiser, op: Op) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    require_str(&mut e, "name", a.name.as_ref());

    // The service ignores agency, currency and timezone on update, so nothing sent
    // there can be wrong.
    if op == Op::Create {
        require(&mut e, "agencyId", a.agency_id.as_ref());
        let currency = require_str(&mut e, "currency", a.currency.as_ref());
        if let Some(cur) = currency
            && (cur.len() != 3 || !cur.bytes().all(|b| b.is_ascii_uppercase()))
        {
            e.push(
                "currency",
                codes::INVALID,
                format!("must be a three-letter currency code such as USD (got \"{cur}\")"),
            );
        }
        require_str(&mut e, "category", a.category.as_ref());
        known(&mut e, "timezoneName", a.timezone_name.as_ref());
    }
    if let Some(cat) = &a.category
        && !cat.trim().is_empty()
        && !is_iab_category(cat)
    {
        e.push(
            "category",
            codes::INVALID,
            format!("must be an IAB category code such as IAB1 or IAB1-2 (got \"{cat}\")"),
        );
    }

    if let Some(id) = &a.external_advertiser_id
        && let Err(errs) = external_advertiser_id("externalAdvertiserId", id)
    {
        e.0.extend(errs.0);
    }
    e.into_result()
}
