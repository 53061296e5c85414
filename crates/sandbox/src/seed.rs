//! Initial data for a fresh database (one without accounts).
//!
//! * [`Seed::None`] adds nothing.
//! * [`Seed::Demo`] loads the demo data set below ([`DEMO_SUMMARY`] is what `--help` prints).
//! * [`Seed::File`] loads a JSON [`SeedFile`].
//!
//! Both the demo set and seed files go through one loader: accounts, users and OAuth
//! clients are inserted directly (passwords and secrets as argon2 hashes, never printed),
//! and business data is created through [`crate::store`], so seeded entities are shaped
//! exactly like entities created over HTTP.
//!
//! # The demo seed
//!
//! Account 1, **Demo Agency** (timezone ET, channel version 2):
//!
//! | username | password | role |
//! |---|---|---|
//! | `demo` | `demo` | editor (read and write) |
//! | `viewer` | `viewer` | viewer (read only: writes answer 403) |
//! | `partner` | `partner` | editor; the user who signs in on the data partner's login page |
//!
//! Data-partner client `demo-partner`, secret `demo-partner-secret`, on account 1, with
//! redirect URIs `com.flightdeck.desktop:/oauth/callback` and `http://127.0.0.1:*/callback` (any port).
//!
//! Business data, with dates relative to the service clock at seeding time: three
//! advertisers (Acme Outdoor, Bluebird Coffee, Northwind Travel), four campaigns (Acme
//! Spring Launch has two flights, one running and one in the future), and two or three
//! ad orders per campaign. Running ad orders are Active (status 1), the others Inactive.
//! Creatives: three on Acme Spring Launch (an approved tag on two ad orders, an approved
//! hosted video, a pending hosted banner) and a tag in violation on Bluebird Holiday
//! Blend, each associated with ad orders of its campaign.
//!
//! Account 2, **Rival Media**: user `rival` / `rival` (editor), one advertiser (Rival
//! Motors) with one campaign, one ad order and one approved creative on it. It exists
//! to show that accounts cannot see each other's data.
//!
//! # Seed files
//!
//! ```json
//! {"accounts": [{
//!   "name": "My Agency", "timezone": "ET", "channelVersion": 2, "costOptimization": false,
//!   "users": [{"username": "me", "password": "secret", "role": "editor"}],
//!   "clients": [{"clientId": "my-app", "secret": "s", "redirectUris": ["http://127.0.0.1:*/callback"]}],
//!   "advertisers": [{
//!     "name": "Acme", "currency": "USD", "category": "IAB3",
//!     "campaigns": [{
//!       "name": "Launch", "domain": "acme.example", "maxBudget": 1000,
//!       "startDate": 1800000000000, "endDate": 1802592000000, "iabCategory": ["IAB3"],
//!       "adOrders": [{"name": "Display", "optimizationGoal": "CPM",
//!                     "startDate": 1800000000000, "endDate": 1802592000000,
//!                     "lifetimeBudget": 500}]
//!     }]
//!   }]
//! }]}
//! ```
//!
//! Advertisers, campaigns, ad orders and creatives (a campaign's `creatives`) are the
//! service's `save` request bodies; `agencyId` (the account), `advertiserId` and
//! `campaignId` are filled in by the loader. A creative may also carry `status` (its
//! review status) and `adOrders` (indexes of the campaign's ad orders it serves on).
//! Everything but `name` is optional at the account level; `role` is `editor` (default)
//! or `viewer`.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{Transaction, params};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use flightdeck_model::AdOrderStatus;

use crate::Seed;
use crate::auth::hash_secret;
use crate::db::Db;
use crate::error::{Error, Result};

/// The demo seed's sign-ins, for the app's sign-in screen on the embedded sandbox.
/// Public knowledge by design: they open only a loopback sandbox.
pub mod demo {
    /// The agency user.
    pub const USERNAME: &str = "demo";
    /// Its password.
    pub const PASSWORD: &str = "demo";
    /// The data-partner OAuth client.
    pub const PARTNER_CLIENT_ID: &str = "demo-partner";
    /// Its client secret.
    pub const PARTNER_CLIENT_SECRET: &str = "demo-partner-secret";
    /// The user who signs in on the data partner's login page.
    pub const PARTNER_LOGIN: &str = "partner";
    /// Its password.
    pub const PARTNER_PASSWORD: &str = "partner";
}

/// What the demo seed contains, for the CLI's `--help`.
pub const DEMO_SUMMARY: &str = "\
Demo seed (--seed demo, the default on a fresh database):
  Account 1 \"Demo Agency\" (timezone ET):
    user demo, password demo        read and write
    user viewer, password viewer    read only (writes answer 403)
    user partner, password partner  signs in on the data-partner login page
    data-partner client demo-partner, secret demo-partner-secret,
      redirect URIs com.flightdeck.desktop:/oauth/callback and http://127.0.0.1:*/callback
    3 advertisers, 4 campaigns (one with a running and a future flight), 2-3 ad orders each,
      4 creatives on 2 campaigns, associated with their ad orders
  Account 2 \"Rival Media\":
    user rival, password rival; 1 advertiser, 1 campaign, 1 ad order, 1 creative
  Call /v1 with HTTP Basic (demo:demo) or a token from POST /v1/oauth2/authenticate.";

/// Timezones an account may have (the advertiser `timezoneName` values).
const TIMEZONES: [&str; 8] = ["AKT", "CT", "ET", "GMT", "HST", "MT", "N", "PT"];

/// A seed file: `{"accounts": [...]}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedFile {
    /// Accounts, created in order (the first gets id 1 in a fresh database).
    pub accounts: Vec<SeedAccount>,
}

/// One account with its users, data-partner clients and business data.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeedAccount {
    /// Account name.
    pub name: String,
    /// Default advertiser timezone; `ET` when absent.
    #[serde(default)]
    pub timezone: Option<String>,
    /// 1 or 2 (how `channelsV2` is listed); 2 when absent.
    #[serde(default)]
    pub channel_version: Option<i64>,
    /// Whether ad-order listings carry `costOptimizationEnabled`; false when absent.
    #[serde(default)]
    pub cost_optimization: Option<bool>,
    /// Users who sign in to this account.
    #[serde(default)]
    pub users: Vec<SeedUser>,
    /// Data partners whose login flow signs users of this account in.
    #[serde(default)]
    pub clients: Vec<SeedClient>,
    /// Advertisers, each with its campaigns.
    #[serde(default)]
    pub advertisers: Vec<SeedAdvertiser>,
}

/// A user. The password is hashed on load and never printed.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedUser {
    /// Login name, unique across accounts.
    pub username: String,
    /// Plain password.
    pub password: String,
    /// `editor` (default) or `viewer`.
    #[serde(default)]
    pub role: Option<String>,
}

impl std::fmt::Debug for SeedUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeedUser")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .field("role", &self.role)
            .finish()
    }
}

/// A data-partner OAuth client. The secret is hashed on load and never printed.
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeedClient {
    /// Client id, unique.
    pub client_id: String,
    /// Plain client secret.
    pub secret: String,
    /// Allowed redirect URIs; `http://127.0.0.1:*/callback` allows any port.
    pub redirect_uris: Vec<String>,
}

impl std::fmt::Debug for SeedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeedClient")
            .field("client_id", &self.client_id)
            .field("secret", &"<redacted>")
            .field("redirect_uris", &self.redirect_uris)
            .finish()
    }
}

/// An advertiser `save` body (without `agencyId`, filled in) plus its campaigns.
#[derive(Debug, Clone, Deserialize)]
pub struct SeedAdvertiser {
    /// The request body.
    #[serde(flatten)]
    pub body: Map<String, Value>,
    /// Campaigns of this advertiser.
    #[serde(default)]
    pub campaigns: Vec<SeedCampaign>,
}

/// A campaign `save` body (without `advertiserId`, filled in) plus its ad orders and
/// creatives.
#[derive(Debug, Clone, Deserialize)]
pub struct SeedCampaign {
    /// The request body.
    #[serde(flatten)]
    pub body: Map<String, Value>,
    /// Ad-order `save` bodies (without `campaignId`, filled in).
    #[serde(default, rename = "adOrders")]
    pub ad_orders: Vec<Map<String, Value>>,
    /// Creative `save` bodies (without `campaignId`, filled in), each with two seed-only
    /// members: `status` (the review status it ends in) and `adOrders` (indexes into this
    /// campaign's `adOrders`, the ad orders it is associated with).
    #[serde(default)]
    pub creatives: Vec<Map<String, Value>>,
}

impl SeedFile {
    /// Parses a seed file's text, naming the field that does not fit.
    pub fn parse(text: &str) -> Result<Self> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            Error::Malformed(format!("{path}: {}", e.into_inner()))
        })
    }

    /// Reads and parses a seed file; errors name the path.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Malformed(format!("reading seed file {}: {e}", path.display())))?;
        Self::parse(&text)
            .map_err(|e| Error::Malformed(format!("seed file {}: {e}", path.display())))
    }
}

/// Loads `seed` when the database has no account yet; does nothing otherwise.
pub fn apply_if_fresh(db: &Db, seed: &Seed, now_ms: i64) -> Result<()> {
    let fresh = db.blocking(|c| {
        Ok(
            c.query_row("SELECT NOT EXISTS (SELECT 1 FROM accounts)", [], |r| {
                r.get::<_, bool>(0)
            })?,
        )
    })?;
    if !fresh {
        return Ok(());
    }
    match seed {
        Seed::None => Ok(()),
        Seed::Demo => load(db, &demo(now_ms)?, now_ms),
        Seed::File(path) => load(db, &SeedFile::read(path)?, now_ms)
            .map_err(|e| Error::Malformed(format!("seed file {}: {e}", path.display()))),
    }
}

/// Loads `seed` into the database in one transaction.
pub fn load(db: &Db, seed: &SeedFile, now_ms: i64) -> Result<()> {
    check(seed)?;
    // Hash every password and secret first (in parallel: argon2 is slow on purpose),
    // outside the database lock.
    let secrets: Vec<&str> = seed
        .accounts
        .iter()
        .flat_map(|a| {
            a.users
                .iter()
                .map(|u| u.password.as_str())
                .chain(a.clients.iter().map(|c| c.secret.as_str()))
        })
        .collect();
    let mut hashes = hash_all(&secrets)?.into_iter();
    let mut next_hash = move || {
        hashes
            .next()
            .ok_or_else(|| Error::Internal("seed: missing hash".into()))
    };
    db.blocking(|conn| {
        let tx = conn.transaction()?;
        for account in &seed.accounts {
            tx.execute(
                "INSERT INTO accounts (name, timezone, channel_version, cost_optimization)
                 VALUES (?1, ?2, ?3, ?4)",
                params![
                    account.name,
                    account.timezone.as_deref().unwrap_or("ET"),
                    account.channel_version.unwrap_or(2),
                    account.cost_optimization.unwrap_or(false),
                ],
            )?;
            let account_id = tx.last_insert_rowid();
            for user in &account.users {
                tx.execute(
                    "INSERT INTO users (account_id, username, password_hash, role)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![
                        account_id,
                        user.username,
                        next_hash()?,
                        user.role.as_deref().unwrap_or("editor"),
                    ],
                )?;
            }
            for client in &account.clients {
                let uris = serde_json::to_string(&client.redirect_uris).map_err(Error::Json)?;
                tx.execute(
                    "INSERT INTO oauth_clients (client_id, secret_hash, account_id, redirect_uris)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![client.client_id, next_hash()?, account_id, uris],
                )?;
            }
            business(&tx, account_id, account, now_ms)?;
        }
        tx.commit()?;
        Ok(())
    })
}

/// Rules the database would enforce less readably, checked before anything is written.
fn check(seed: &SeedFile) -> Result<()> {
    let bad = |msg: String| Err(Error::Malformed(msg));
    let mut usernames = HashSet::new();
    let mut client_ids = HashSet::new();
    for (i, a) in seed.accounts.iter().enumerate() {
        let at = format!("accounts[{i}]");
        if a.name.trim().is_empty() {
            return bad(format!("{at}.name: must not be empty"));
        }
        if let Some(tz) = &a.timezone
            && !TIMEZONES.contains(&tz.as_str())
        {
            return bad(format!(
                "{at}.timezone: must be one of {} (got \"{tz}\")",
                TIMEZONES.join(", ")
            ));
        }
        if let Some(v) = a.channel_version
            && !(1..=2).contains(&v)
        {
            return bad(format!("{at}.channelVersion: must be 1 or 2 (got {v})"));
        }
        for (j, u) in a.users.iter().enumerate() {
            let at = format!("{at}.users[{j}]");
            if u.username.is_empty() || u.username.contains(':') {
                return bad(format!(
                    "{at}.username: must be non-empty and contain no \":\""
                ));
            }
            if u.password.is_empty() {
                return bad(format!("{at}.password: must not be empty"));
            }
            if let Some(role) = &u.role
                && role != "editor"
                && role != "viewer"
            {
                return bad(format!(
                    "{at}.role: must be editor or viewer (got \"{role}\")"
                ));
            }
            if !usernames.insert(u.username.as_str()) {
                return bad(format!("{at}.username: \"{}\" is used twice", u.username));
            }
        }
        for (j, c) in a.clients.iter().enumerate() {
            let at = format!("{at}.clients[{j}]");
            if c.client_id.is_empty() || c.client_id.contains(':') {
                return bad(format!(
                    "{at}.clientId: must be non-empty and contain no \":\""
                ));
            }
            if c.secret.is_empty() {
                return bad(format!("{at}.secret: must not be empty"));
            }
            if c.redirect_uris.is_empty() || c.redirect_uris.iter().any(|u| u.is_empty()) {
                return bad(format!(
                    "{at}.redirectUris: list at least one non-empty URI"
                ));
            }
            if !client_ids.insert(c.client_id.as_str()) {
                return bad(format!("{at}.clientId: \"{}\" is used twice", c.client_id));
            }
        }
    }
    Ok(())
}

/// Argon2 hashes of the demo seed's published passwords and secret. The embedded sandbox
/// seeds on the app's first launch while its window opens, and hashing these there took
/// both cores for about 60 ms. A salt shared by every install hides nothing here: the
/// passwords themselves are in the README and on the sign-in screen.
const PUBLISHED_HASHES: [(&str, &str); 4] = [
    (
        demo::PASSWORD,
        "$argon2id$v=19$m=19456,t=2,p=1$dwPWlg2FwVs+AtReGimUmA$G7E/dB10ooOlzCeCf7T0HB2ShTINA5fmyzvrpmzbPRs",
    ),
    (
        "viewer",
        "$argon2id$v=19$m=19456,t=2,p=1$7Fu8zRH1WrmzgWv8tythMA$zMkXctRm21OZ8x8SxA5rTnu9xWBe8SwRj2EvrGbY2LE",
    ),
    (
        demo::PARTNER_PASSWORD,
        "$argon2id$v=19$m=19456,t=2,p=1$Zom7LL3cxaLNG6Ig8LKBNw$vdMtDbf/9c1oPKhLf0egqigXPPvZgrYkp6vnHIK5iX4",
    ),
    (
        demo::PARTNER_CLIENT_SECRET,
        "$argon2id$v=19$m=19456,t=2,p=1$/0U03gLZ6abQpCkptzFNWA$XWtGWUnq+6R13N/juStmgUyR+Jsf6yFbg7+zgSJhAAA",
    ),
];

/// Argon2 hashes of `secrets`, in order: published ones from [`PUBLISHED_HASHES`], the
/// others computed on a few threads.
fn hash_all(secrets: &[&str]) -> Result<Vec<String>> {
    let published = |s: &str| {
        PUBLISHED_HASHES
            .iter()
            .find(|(plain, _)| *plain == s)
            .map(|(_, phc)| (*phc).to_owned())
    };
    let unknown: Vec<&str> = secrets
        .iter()
        .copied()
        .filter(|s| published(s).is_none())
        .collect();
    let mut computed = hash_each(&unknown)?.into_iter();
    secrets
        .iter()
        .map(|s| match published(s) {
            Some(phc) => Ok(phc),
            None => computed
                .next()
                .ok_or_else(|| Error::Internal("seed: missing hash".into())),
        })
        .collect()
}

/// Argon2 hashes of `secrets`, in order, computed on a few threads.
fn hash_each(secrets: &[&str]) -> Result<Vec<String>> {
    if secrets.is_empty() {
        return Ok(Vec::new());
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8);
    let chunk = secrets.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = secrets
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|p| hash_secret(p)).collect::<Vec<_>>()))
            .collect();
        let mut out = Vec::with_capacity(secrets.len());
        for h in handles {
            let part = h
                .join()
                .map_err(|_| Error::Internal("seed: a hashing thread panicked".into()))?;
            for hash in part {
                out.push(hash?);
            }
        }
        Ok(out)
    })
}

/// The `id` of a saved entity.
fn saved_id(entity: &Value, what: &str) -> Result<i64> {
    entity
        .get("id")
        .and_then(Value::as_i64)
        .ok_or_else(|| Error::Internal(format!("seed: saved {what} has no id")))
}

/// Prefixes a store error with where in the seed it happened.
fn at(where_: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        e if e.is_internal() => e,
        e => Error::Malformed(format!("{where_}: {e}")),
    }
}

/// Advertisers, campaigns and ad orders of one account, through the store.
fn business(tx: &Transaction, account_id: i64, account: &SeedAccount, now: i64) -> Result<()> {
    for (i, adv) in account.advertisers.iter().enumerate() {
        let where_ = format!("{}.advertisers[{i}]", account.name);
        let mut body = adv.body.clone();
        body.entry("agencyId").or_insert(json!(account_id));
        let saved = crate::store::advertiser_save(tx, account_id, Value::Object(body), now)
            .map_err(at(&where_))?;
        let advertiser_id = saved_id(&saved.entity, "advertiser")?;
        for (j, campaign) in adv.campaigns.iter().enumerate() {
            let where_ = format!("{where_}.campaigns[{j}]");
            let mut body = campaign.body.clone();
            body.insert("advertiserId".into(), json!(advertiser_id));
            let saved = crate::store::campaign_save(tx, account_id, Value::Object(body), now)
                .map_err(at(&where_))?;
            let campaign_id = saved_id(&saved.entity, "campaign")?;
            let mut orders = Vec::new();
            for (k, order) in campaign.ad_orders.iter().enumerate() {
                let where_ = format!("{where_}.adOrders[{k}]");
                let mut body = order.clone();
                body.insert("campaignId".into(), json!(campaign_id));
                let saved = crate::store::adorder_save(tx, account_id, Value::Object(body), now)
                    .map_err(at(&where_))?;
                let order_id = saved_id(&saved.entity, "ad order")?;
                let date = |k: &str| saved.entity.get(k).and_then(Value::as_i64);
                // Running ad orders are live; the others wait, as new ones do.
                if date("startDate").is_some_and(|s| s <= now)
                    && date("endDate").is_some_and(|e| now < e)
                {
                    crate::store::set_ad_order_status(tx, order_id, AdOrderStatus::Active)?;
                }
                orders.push(order_id);
            }
            for (k, creative) in campaign.creatives.iter().enumerate() {
                let where_ = format!("{where_}.creatives[{k}]");
                seed_creative(tx, account_id, campaign_id, &orders, creative, now)
                    .map_err(at(&where_))?;
            }
        }
    }
    Ok(())
}

/// One seeded creative: saved through the store, then reviewed and associated as its
/// seed-only `status` and `adOrders` say.
fn seed_creative(
    tx: &Transaction,
    account_id: i64,
    campaign_id: i64,
    orders: &[i64],
    creative: &Map<String, Value>,
    now: i64,
) -> Result<()> {
    let mut body = creative.clone();
    let status = body.remove("status");
    let associated = body.remove("adOrders");
    body.insert("campaignId".into(), json!(campaign_id));
    let saved = crate::store::creative_save(tx, account_id, Value::Object(body), now)?;
    let id = saved_id(&saved.entity, "creative")?;
    if let Some(status) = status {
        let status = status
            .as_str()
            .ok_or_else(|| Error::Malformed("status: expected a string".into()))?;
        crate::store::admin_creative_status(tx, id, status)?;
    }
    for index in associated
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let order = index
            .as_u64()
            .and_then(|i| orders.get(usize::try_from(i).ok()?))
            .ok_or_else(|| {
                Error::Malformed(format!(
                    "adOrders: {index} is not an index into the campaign's {} ad orders",
                    orders.len()
                ))
            })?;
        crate::store::admin_associate(tx, id, *order)?;
    }
    Ok(())
}

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// An ad order `save` body. It sends no bid: the default `max_bid` applies (DECISIONS.md,
/// "Demo ad orders carry a max bid"), and only fields of the interface are written.
fn order(name: &str, goal: &str, start: i64, end: i64, budget: f64) -> Value {
    json!({
        "name": name,
        "optimizationGoal": goal,
        "startDate": start,
        "endDate": end,
        "lifetimeBudget": budget,
        "hourlyPacingMode": "ASAP",
    })
}

/// A seeded third-party tag creative, reviewed to `status` and associated with the
/// campaign's ad orders at `orders`.
fn tag(name: &str, width: i64, height: i64, status: &str, orders: &[usize]) -> Value {
    json!({
        "name": name,
        "creativeType": "BANNER",
        "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"},
        "size": {"width": width, "height": height},
        "htmlAsset": format!("<div class=\"ad\">{name}</div>"),
        "channels": ["MOBILE", "DESKTOP"],
        "status": status,
        "adOrders": orders,
    })
}

/// The demo data set, with dates relative to `now_ms` (on whole hours).
pub fn demo(now_ms: i64) -> Result<SeedFile> {
    let t = now_ms - now_ms.rem_euclid(HOUR);
    let d = |days: i64| t + days * DAY;
    let mut paced = order("Bluebird - Morning Commute", "CPM", d(-7), d(45), 4_000.0);
    paced["hourlyPacingMode"] = json!("SPEND_EVENLY");
    paced["hourlyFrontload"] = json!(20.0);
    let mut capped = order("Acme Always-On - Display", "CPM", d(-30), d(90), 20_000.0);
    capped["frequencyCap"] = json!({"limit": 3, "duration": 1, "timePeriod": "DAY"});
    capped["channelsV2"] = json!(["Display"]);
    let mut cpc = order(
        "Northwind - Search Retargeting",
        "CPC",
        d(10),
        d(70),
        6_000.0,
    );
    cpc["ctrGoal"] = json!(0.002);
    let video = json!({
        "name": "Acme Spring - 15s Video",
        "creativeType": "VIDEO",
        "creativeSubtype": "HOSTED",
        "type": {"mediaType": "VAST"},
        "landingPageUrl": "https://acme-outdoor.example/spring",
        "video": {
            "mediaUrls": ["https://cdn.acme-outdoor.example/spring-15s.mp4"],
            "duration": 15,
            "bitRate": 2500,
        },
        "externalCreativeid": "ACME-SPRING-VID",
        "status": "APPROVED",
        "adOrders": [1],
    });
    let banner = json!({
        "name": "Acme Spring - 728x90",
        "creativeType": "BANNER",
        "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"},
        "size": {"width": 728, "height": 90},
        "imageUrl": "https://cdn.acme-outdoor.example/spring-728x90.png",
        "landingPageUrl": "https://acme-outdoor.example/spring",
        "adOrders": [0],
    });
    let spring_creatives = json!([
        tag("Acme Spring - 300x250", 300, 250, "APPROVED", &[0, 2]),
        video,
        banner,
    ]);
    let value = json!({"accounts": [
        {
            "name": "Demo Agency",
            "timezone": "ET",
            "channelVersion": 2,
            "users": [
                {"username": demo::USERNAME, "password": demo::PASSWORD, "role": "editor"},
                {"username": "viewer", "password": "viewer", "role": "viewer"},
                {"username": demo::PARTNER_LOGIN, "password": demo::PARTNER_PASSWORD, "role": "editor"},
            ],
            "clients": [{
                "clientId": demo::PARTNER_CLIENT_ID,
                "secret": demo::PARTNER_CLIENT_SECRET,
                "redirectUris": ["com.flightdeck.desktop:/oauth/callback", "http://127.0.0.1:*/callback"],
            }],
            "advertisers": [
                {
                    "name": "Acme Outdoor",
                    "currency": "USD",
                    "category": "IAB20",
                    "timezoneName": "ET",
                    "externalAdvertiserId": "ACME-001",
                    "campaigns": [
                        {
                            "name": "Acme Spring Launch",
                            "domain": "acme-outdoor.example",
                            "maxBudget": 25_000.0,
                            "startDate": d(-14),
                            "endDate": d(60),
                            "iabCategory": ["IAB20"],
                            "flights": [
                                {"id": null, "budgetType": "AUTO_BUDGET", "maxBudget": 15_000.0,
                                 "startDate": d(-14), "endDate": d(16)},
                                {"id": null, "budgetType": "AUTO_BUDGET", "maxBudget": 10_000.0,
                                 "startDate": d(30), "endDate": d(60)},
                            ],
                            "adOrders": [
                                order("Acme Spring - Display Prospecting", "CPM", d(-14), d(16), 8_000.0),
                                order("Acme Spring - Video", "CPM", d(-14), d(16), 5_000.0),
                                order("Acme Spring - Second Wave", "CPM", d(30), d(60), 10_000.0),
                            ],
                            "creatives": spring_creatives,
                        },
                        {
                            "name": "Acme Always-On",
                            "domain": "acme-outdoor.example",
                            "maxBudget": 50_000.0,
                            "startDate": d(-30),
                            "endDate": d(90),
                            "iabCategory": ["IAB20", "IAB17"],
                            "adOrders": [
                                capped,
                                order("Acme Always-On - Native", "CPM", d(-30), d(90), 10_000.0),
                            ],
                        },
                    ],
                },
                {
                    "name": "Bluebird Coffee",
                    "currency": "USD",
                    "category": "IAB8",
                    "timezoneName": "ET",
                    "campaigns": [{
                        "name": "Bluebird Holiday Blend",
                        "domain": "bluebird-coffee.example",
                        "maxBudget": 12_000.0,
                        "dailyBudget": 400.0,
                        "startDate": d(-7),
                        "endDate": d(45),
                        "iabCategory": ["IAB8"],
                        "adOrders": [
                            order("Bluebird - Display", "CPM", d(-7), d(45), 6_000.0),
                            paced,
                        ],
                        "creatives": [tag("Bluebird - 320x50", 320, 50, "VIOLATION", &[0])],
                    }],
                },
                {
                    "name": "Northwind Travel",
                    "currency": "USD",
                    "category": "IAB20",
                    "timezoneName": "PT",
                    "campaigns": [{
                        "name": "Northwind Summer Getaways",
                        "domain": "northwind-travel.example",
                        "maxBudget": 30_000.0,
                        "startDate": d(10),
                        "endDate": d(70),
                        "iabCategory": ["IAB20"],
                        "adOrders": [
                            order("Northwind - Display", "CPM", d(10), d(70), 12_000.0),
                            order("Northwind - Audio", "CPM", d(10), d(70), 8_000.0),
                            cpc,
                        ],
                    }],
                },
            ],
        },
        {
            "name": "Rival Media",
            "timezone": "CT",
            "channelVersion": 2,
            "users": [{"username": "rival", "password": "rival", "role": "editor"}],
            "advertisers": [{
                "name": "Rival Motors",
                "currency": "USD",
                "category": "IAB2",
                "campaigns": [{
                    "name": "Rival Motors Q3 Push",
                    "domain": "rival-motors.example",
                    "maxBudget": 20_000.0,
                    "startDate": d(-5),
                    "endDate": d(55),
                    "iabCategory": ["IAB2"],
                    "adOrders": [order("Rival Motors - Display", "CPM", d(-5), d(55), 9_000.0)],
                    "creatives": [tag("Rival Motors - 300x250", 300, 250, "APPROVED", &[0])],
                }],
            }],
        },
    ]});
    SeedFile::parse(&value.to_string())
}

#[cfg(test)]
mod tests;
