//! Fixtures for tests and benchmarks of this and other crates: a demo-seeded sandbox and
//! bulk ad orders loaded below HTTP, so a large account takes seconds to build rather
//! than one request per order.

use serde_json::{Value, json};

use crate::{Config, Result, Sandbox, Seed, store};

const DAY: i64 = 86_400_000;

/// An in-memory sandbox with the demo accounts (see the README).
pub fn demo_sandbox() -> Result<Sandbox> {
    Sandbox::open(&Config {
        seed: Seed::Demo,
        ..Config::default()
    })
}

/// The first campaign (lowest id) of account 1, the `demo` user's account.
pub fn demo_campaign(sandbox: &Sandbox) -> Result<i64> {
    sandbox.state().db.blocking(|conn| {
        Ok(conn.query_row(
            "SELECT id FROM campaigns WHERE account_id = 1 ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )?)
    })
}

/// The body of ad order number `i` under `campaign`: valid, running from a day after
/// `now_ms` for a month, with a frequency cap and an audience so it is not trivially small.
pub fn ad_order_body(campaign: i64, i: usize, now_ms: i64) -> Value {
    json!({
        "name": format!("Order {i}"), "campaignId": campaign, "optimizationGoal": "CPM",
        "startDate": now_ms + DAY, "endDate": now_ms + 30 * DAY, "lifetimeBudget": 500.0,
        "frequencyCap": {"limit": 3, "duration": 1, "timePeriod": "DAY"},
        "audiences": [{"name": "A", "weight": 100, "exchanges": {"include": [1, 2], "exclude": []}}]
    })
}

/// Creates `count` ad orders ([`ad_order_body`] `0..count`) under `campaign` for account 1
/// through [`store::adorder_save`], the code `POST /v1/adorder/save` runs, in one
/// transaction (one disk sync): all or none are created.
pub fn load_ad_orders(sandbox: &Sandbox, campaign: i64, count: usize, now_ms: i64) -> Result<()> {
    sandbox.state().db.blocking(|conn| {
        let tx = conn.transaction()?;
        for i in 0..count {
            store::adorder_save(&tx, 1, ad_order_body(campaign, i, now_ms), now_ms)?;
        }
        tx.commit()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_ad_orders_under_the_demo_campaign() -> Result<()> {
        let sandbox = demo_sandbox()?;
        let campaign = demo_campaign(&sandbox)?;
        let count = |s: &Sandbox| {
            s.state().db.blocking(|c| {
                Ok(c.query_row(
                    "SELECT COUNT(*) FROM ad_orders WHERE campaign_id = ?1",
                    [campaign],
                    |r| r.get::<_, i64>(0),
                )?)
            })
        };
        let before = count(&sandbox)?;
        load_ad_orders(&sandbox, campaign, 3, sandbox.state().clock.now_ms())?;
        assert_eq!(count(&sandbox)?, before + 3);
        Ok(())
    }
}
