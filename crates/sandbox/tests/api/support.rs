//! A sandbox per test, and a small client that keeps status and body together.

use flightdeck_sandbox::{Config, Seed};
use reqwest::StatusCode;
use serde_json::{Value, json};

pub use crate::common::NOW;
use crate::common::{self, TestServer};

pub const DAY: i64 = 86_400_000;

/// A sandbox on the fixed clock [`NOW`], with a demo user's access token.
pub struct Api {
    pub server: TestServer,
    pub token: String,
}

impl std::ops::Deref for Api {
    type Target = TestServer;

    fn deref(&self) -> &TestServer {
        &self.server
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
}

impl Reply {
    /// The envelope's entity, after checking the call succeeded with no error message.
    pub fn entity(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "body: {}", self.body);
        &self.body["entity"]
    }

    /// The `ERROR` messages' texts, after checking the call was rejected with 400.
    pub fn errors(&self) -> Vec<String> {
        assert_eq!(self.status, StatusCode::BAD_REQUEST, "body: {}", self.body);
        assert_eq!(
            self.body["entity"],
            Value::Null,
            "rejected calls carry no entity"
        );
        self.body["messages"]
            .as_array()
            .expect("messages array")
            .iter()
            .map(|m| {
                assert_eq!(m["level"], "ERROR");
                m["message"].as_str().expect("message text").to_owned()
            })
            .collect()
    }

    /// True when some error message starts with `field: `.
    pub fn names_field(&self, field: &str) -> bool {
        let prefix = format!("{field}: ");
        self.errors().iter().any(|m| m.starts_with(&prefix))
    }

    /// The codes of the error messages.
    pub fn codes(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .expect("messages array")
            .iter()
            .map(|m| m["code"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

impl Api {
    /// A fresh in-memory sandbox with the demo seed, signed in as `demo`.
    pub async fn start() -> Api {
        let server = common::start_with(Config {
            seed: Seed::Demo,
            clock_start: Some(NOW),
            ..Config::default()
        })
        .await;
        let token = server.user_token("demo", "demo").await;
        Api { server, token }
    }

    /// An access token for a seeded user.
    pub async fn sign_in(&self, user: &str, password: &str) -> String {
        self.server.user_token(user, password).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.post_as(&self.token, path, body).await
    }

    pub async fn post_as(&self, token: &str, path: &str, body: Value) -> Reply {
        let resp = self
            .http
            .post(self.url(path))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.get_as(&self.token, path).await
    }

    pub async fn get_as(&self, token: &str, path: &str) -> Reply {
        let resp = self
            .http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        let resp = self
            .http
            .delete(self.url(path))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    /// Moves the service clock, keeping the access token.
    pub fn advance(&self, ms: i64) {
        self.sandbox.state().clock.advance(ms);
    }

    /// Moves the service clock and signs in again, as a user would after a day off.
    pub async fn travel(&mut self, ms: i64) {
        self.advance(ms);
        self.token = self.sign_in("demo", "demo").await;
    }

    /// Creates an advertiser and returns its id.
    pub async fn advertiser(&self, name: &str) -> i64 {
        let r = self
            .post(
                "/v1/advertiser/save",
                json!({"name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"}),
            )
            .await;
        r.entity()["id"].as_i64().expect("advertiser id")
    }

    /// Creates a campaign without flights for `advertiser` and returns its id.
    pub async fn campaign(&self, advertiser: i64) -> i64 {
        let r = self
            .post("/v1/campaign/save", campaign_body(advertiser))
            .await;
        r.entity()["id"].as_i64().expect("campaign id")
    }

    /// Creates an ad order under `campaign` and returns its body.
    pub async fn ad_order(&self, campaign: i64) -> Value {
        let r = self.post("/v1/adorder/save", ad_order_body(campaign)).await;
        r.entity().clone()
    }
}

async fn reply(resp: reqwest::Response) -> Reply {
    let status = resp.status();
    let text = resp.text().await.expect("body text");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply { status, body }
}

pub fn campaign_body(advertiser: i64) -> Value {
    json!({
        "advertiserId": advertiser,
        "name": "Spring sale",
        "domain": "example.com",
        "maxBudget": 10000.0,
        "startDate": NOW + DAY,
        "endDate": NOW + 31 * DAY,
        "iabCategory": ["IAB3"],
    })
}

pub fn ad_order_body(campaign: i64) -> Value {
    json!({
        "name": "Prospecting",
        "campaignId": campaign,
        "optimizationGoal": "CPM",
        "startDate": NOW + DAY,
        "endDate": NOW + 31 * DAY,
        "lifetimeBudget": 5000.0,
    })
}

/// The sorted keys of an object, to compare response shapes with the spec's.
pub fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
    k.sort();
    k
}

pub fn sorted(keys: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = keys.iter().map(|s| s.to_string()).collect();
    k.sort();
    k
}
