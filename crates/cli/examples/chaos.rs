//! The chaos suite: a real `flightdeck-sandbox` process and real `flightdeck push`
//! processes, with injected 5xx, commit-then-drop and late commits, and a `kill -9` of a
//! push at a random moment. Each round then pushes until nothing is pending, settling
//! "needs review" the way a buyer would (`flightdeck review`, after looking on the ad
//! platform: here, the sandbox's database), and checks over HTTP and in that database that
//! nothing was lost, nothing duplicated and nothing is left pending. Creatives made under
//! a campaign are found again in its listing when their answer is lost, so any of them
//! in "needs review" fails the round; the summary counts reviews of creatives with a
//! campaign and without one apart.
//!
//! Run it through `scripts/chaos.sh [--rounds N] [--seed S] [--round R]` (it builds the
//! binaries and provides the keyring). Each round prints its seed: `--seed S --round R`
//! replays the harness's choices of round R (what is created, when the kill lands). The
//! sandbox draws its faults itself, so their exact order is not replayed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use serde_json::{Value, json};

const TOKEN: &str = "chaos-suite-admin-token";
const DAY: i64 = 86_400_000;
/// The push's request timeout; its grace before "not found" is believed is twice this.
const REQUEST_TIMEOUT_S: f64 = 1.5;
/// How long after its client has gone a late request commits: within the grace.
const LATE_COMMIT_MS: u64 = 700;
/// Pushes a round may take to settle everything before it counts as stuck.
const MAX_PUSHES: usize = 25;

/// A small deterministic generator (SplitMix64), so a round's choices replay from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

#[derive(Default)]
struct Totals {
    rounds: usize,
    creates: BTreeMap<&'static str, usize>,
    kills: usize,
    kills_mid_push: usize,
    pushes: usize,
    lost: usize,
    duplicated: usize,
    left_pending: usize,
    /// Per group ([`Made::group`]): changes in review, and how many of those had in fact
    /// been created.
    review: BTreeMap<&'static str, (usize, usize)>,
    /// Of those, the ones left in flight by the kill (the rest lost their answer to a
    /// drop or a late commit while a push ran).
    review_after_kill: BTreeMap<&'static str, usize>,
    failed_rounds: Vec<usize>,
}

struct Args {
    rounds: usize,
    seed: u64,
    only: Option<usize>,
}

fn args() -> Args {
    let mut out = Args {
        rounds: 5,
        seed: 0x00C0_FFEE,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value after the flag");
        match a.as_str() {
            "--rounds" => out.rounds = value().parse().expect("--rounds N"),
            "--seed" => {
                let v = value();
                out.seed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).expect("--seed hex"),
                    None => v.parse().expect("--seed N"),
                };
            }
            "--round" => out.only = Some(value().parse().expect("--round R")),
            other => panic!("unknown argument {other}: --rounds N, --seed S, --round R"),
        }
    }
    out
}

/// The binaries next to this example (`target/<profile>/`).
fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("target dir")
        .join(name)
}

struct Sandbox {
    child: Child,
    base: String,
    addr: String,
    db: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_sandbox(dir: &Path) -> Sandbox {
    let db = dir.join("sandbox.sqlite");
    let mut child = Command::new(bin("flightdeck-sandbox"))
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(&db)
        .env("FLIGHTDECK_SANDBOX_ADMIN_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start flightdeck-sandbox (built by scripts/chaos.sh)");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("sandbox address");
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .expect("listening on http://ADDR")
        .to_owned();
    let addr = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    Sandbox {
        child,
        base,
        addr,
        db,
    }
}

impl Sandbox {
    /// `PUT /_sandbox/faults`, with a plain HTTP/1.1 request.
    fn faults(&self, body: &Value) {
        let body = body.to_string();
        let mut s = TcpStream::connect(&self.addr).expect("connect to the sandbox");
        write!(
            s,
            "PUT /_sandbox/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Sandbox-Admin-Token: {TOKEN}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send faults");
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("faults answer");
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "faults refused: {answer}"
        );
    }

    fn query<T: rusqlite::types::FromSql>(&self, sql: &str, arg: &str) -> Vec<T> {
        let conn = rusqlite::Connection::open_with_flags(
            &self.db,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("sandbox database");
        conn.busy_timeout(Duration::from_secs(10)).expect("busy");
        let mut stmt = conn.prepare(sql).expect("sql");
        stmt.query_map([arg], |r| r.get(0))
            .expect("query")
            .collect::<rusqlite::Result<Vec<T>>>()
            .expect("rows")
    }

    /// Ids of the rows of `kind` named `name` (what the buyer would find on the ad platform).
    fn ids_named(&self, kind: Kind, name: &str) -> Vec<i64> {
        let sql = match kind {
            Kind::SiteList => "SELECT id FROM site_lists WHERE name = ?1".to_owned(),
            _ => format!(
                "SELECT id FROM {} WHERE json_extract(body, '$.name') = ?1",
                table(kind)
            ),
        };
        self.query(&sql, name)
    }
}

fn table(kind: Kind) -> &'static str {
    match kind {
        Kind::Advertiser => "advertisers",
        Kind::Campaign => "campaigns",
        Kind::AdOrder => "ad_orders",
        Kind::Creative => "creatives",
        Kind::SiteList => "site_lists",
        Kind::AudienceSegment => "segments",
        Kind::Flight | Kind::FlightCaps => "",
    }
}

struct Cli {
    home: PathBuf,
    base: String,
}

impl Cli {
    fn command(&self, workspace: &Path) -> Command {
        let mut c = Command::new(bin("flightdeck"));
        c.args(["--base-url", &self.base, "--workspace"])
            .arg(workspace)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("config"))
            .env("FLIGHTDECK_DATA_DIR", self.home.join("data"))
            .env_remove("FLIGHTDECK_PROFILE")
            .env_remove("FLIGHTDECK_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }

    fn push(&self, workspace: &Path) -> Command {
        let mut c = self.command(workspace);
        c.args([
            "push",
            "--concurrency",
            "8",
            "--request-timeout",
            &REQUEST_TIMEOUT_S.to_string(),
        ]);
        c
    }

    fn output(&self, workspace: &Path, args: &[&str]) -> (bool, String, String) {
        let out = self
            .command(workspace)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("run flightdeck");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// A draft the round made, and where it must end up.
struct Made {
    kind: Kind,
    name: String,
    target: EntityRef,
    /// For a creative made under a campaign: the campaign's name.
    campaign: Option<String>,
}

/// The summary's group of a creative with a campaign: found by look-up, never reviewed.
const WITH_CAMPAIGN: &str = "creative with a campaign";
/// The summary's group of a creative of an advertiser alone: no listing holds it.
const WITHOUT_CAMPAIGN: &str = "creative without a campaign";

impl Made {
    /// What the summary counts it under: its kind, creatives split by whether they name
    /// a campaign.
    fn group(&self) -> &'static str {
        match (self.kind, &self.campaign) {
            (Kind::Creative, Some(_)) => WITH_CAMPAIGN,
            (Kind::Creative, None) => WITHOUT_CAMPAIGN,
            (kind, _) => kind.label(),
        }
    }
}

fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("a valid draft")
}

/// Drafts of mixed kinds with parent → child chains: advertisers → campaigns (with
/// flights) → ad orders and creatives, creatives under advertisers, site lists and
/// segments on their own.
fn make_drafts(ws: &mut Workspace, rng: &mut Rng, tag: &str) -> Vec<Made> {
    let mut made = Vec::new();
    let now = flightdeck_client::now_ms();
    let add = |made: &mut Vec<Made>, kind, name: String, target| {
        made.push(Made {
            kind,
            name,
            target,
            campaign: None,
        });
    };
    for a in 0..rng.range(2, 3) {
        let name = format!("{tag} adv {a}");
        let adv = ws
            .create_advertiser(typed(json!({
                "name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"
            })))
            .expect("advertiser draft");
        add(&mut made, Kind::Advertiser, name, adv.clone());
        for c in 0..rng.range(1, 2) {
            let name = format!("{tag} adv {a} campaign {c}");
            let camp = ws
                .create_campaign(
                    &adv,
                    typed(json!({
                        "name": name, "domain": "chaos.example", "iabCategory": ["IAB3"],
                        "maxBudget": 1000.0, "startDate": now + DAY, "endDate": now + 30 * DAY,
                        "flights": [{"maxBudget": 1000.0, "startDate": now + DAY,
                                     "endDate": now + 30 * DAY}]
                    })),
                )
                .expect("campaign draft");
            add(&mut made, Kind::Campaign, name, camp.clone());
            for o in 0..rng.range(2, 4) {
                let name = format!("{tag} adv {a} campaign {c} order {o}");
                let order = ws
                    .create_ad_order(
                        &camp,
                        typed(json!({
                            "name": name, "optimizationGoal": "CPM", "startDate": now + DAY,
                            "endDate": now + 30 * DAY, "lifetimeBudget": 100.0
                        })),
                    )
                    .expect("ad order draft");
                add(&mut made, Kind::AdOrder, name, order);
            }
            let campaign = format!("{tag} adv {a} campaign {c}");
            for k in 0..rng.range(1, 3) {
                let name = format!("{campaign} banner {k}");
                let creative = ws.create_creative(&camp, banner(&name)).expect("creative");
                made.push(Made {
                    kind: Kind::Creative,
                    name,
                    target: creative,
                    campaign: Some(campaign.clone()),
                });
            }
        }
        for k in 0..rng.range(1, 2) {
            let name = format!("{tag} adv {a} banner {k}");
            let creative = ws.create_creative(&adv, banner(&name)).expect("creative");
            add(&mut made, Kind::Creative, name, creative);
        }
    }
    for l in 0..rng.range(2, 4) {
        let name = format!("{tag} list {l}");
        let sites: Vec<u64> = (0..rng.range(1, 5)).map(|_| rng.range(1, 5000)).collect();
        let list = ws
            .create_site_list(typed(json!({"name": name, "typeId": 5, "siteIds": sites})))
            .expect("site list draft");
        add(&mut made, Kind::SiteList, name, list);
    }
    for s in 0..rng.range(1, 2) {
        let name = format!("{tag} segment {s}");
        let segment = ws
            .create_audience_segment(typed(json!({
                "name": name, "dataType": "email_sha256", "accountId": 1, "advertiserIds": [1],
                "externalAudienceId": format!("{tag} {s}")
            })))
            .expect("segment draft");
        add(&mut made, Kind::AudienceSegment, name, segment);
    }
    made
}

fn banner<T: serde::de::DeserializeOwned>(name: &str) -> T {
    typed(json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/chaos.png",
        "landingPageUrl": "https://chaos.example/", "size": {"width": 300, "height": 250}
    }))
}

fn pending(path: &Path) -> Vec<(i64, ChangeStatus)> {
    Workspace::open(path)
        .expect("workspace")
        .pending()
        .expect("pending")
        .into_iter()
        .map(|c| (c.seq, c.status))
        .collect()
}

/// One round; returns whether it passed.
async fn round(
    n: usize,
    seed: u64,
    sandbox: &Sandbox,
    cli: &Cli,
    dir: &Path,
    totals: &mut Totals,
) -> bool {
    let mut rng = Rng(seed);
    let tag = format!("chaos {seed:016x} r{n}");
    let path = dir.join(format!("round-{n}.sqlite"));
    let made = {
        let mut ws = Workspace::open(&path).expect("workspace");
        make_drafts(&mut ws, &mut rng, &tag)
    };
    for m in &made {
        *totals.creates.entry(m.group()).or_default() += 1;
    }
    sandbox.faults(&json!({
        "latencyMs": rng.range(5, 40),
        "errorRate": 0.10,
        "dropAfterCommitRate": 0.05,
        "lateCommitRate": 0.05,
        "lateCommitMs": LATE_COMMIT_MS,
    }));

    // The push to kill, at a random moment.
    let kill_after = Duration::from_millis(rng.range(20, 2_500));
    let mut child = cli.push(&path).spawn().expect("start push");
    std::thread::sleep(kill_after);
    let mid_push = child.try_wait().expect("push status").is_none();
    child.kill().expect("kill -9");
    let _ = child.wait();
    totals.kills += 1;
    totals.pushes += 1;
    if mid_push {
        totals.kills_mid_push += 1;
    }

    // Then push until nothing is pending, settling reviews as a buyer would.
    let mut settled = false;
    let mut reviewed_with_campaign = false;
    for _ in 0..MAX_PUSHES {
        let _ = cli.push(&path).status().expect("push");
        totals.pushes += 1;
        let left = pending(&path);
        if left.is_empty() {
            settled = true;
            break;
        }
        if left.iter().any(|(_, s)| *s == ChangeStatus::NeedsReview) {
            // The buyer looks later: a late commit has landed by then.
            std::thread::sleep(Duration::from_millis(LATE_COMMIT_MS + 500));
            for m in settle_reviews(sandbox, cli, &path, &made, totals) {
                if m.campaign.is_some() {
                    // Its campaign's listing holds it: a look-up settles it, not the buyer.
                    reviewed_with_campaign = true;
                    eprintln!("  round {n}: needs review: {} {}", m.group(), m.name);
                }
            }
        }
    }

    // What the service holds, once the last late commit could have landed.
    sandbox.faults(&json!({}));
    std::thread::sleep(Duration::from_millis(LATE_COMMIT_MS + 500));
    let mut ok = settled && !reviewed_with_campaign;
    let left = pending(&path);
    totals.left_pending += left.len();
    if !left.is_empty() {
        eprintln!("  round {n}: left pending: {left:?}");
        ok = false;
    }
    let ws = Workspace::open(&path).expect("workspace");
    for m in &made {
        let rows = sandbox.ids_named(m.kind, &m.name);
        match rows.len() {
            1 => {}
            0 => {
                totals.lost += 1;
                ok = false;
                eprintln!("  round {n}: lost {} {}", m.kind.label(), m.name);
            }
            k => {
                totals.duplicated += k - 1;
                ok = false;
                eprintln!("  round {n}: {k} of {} {}", m.kind.label(), m.name);
            }
        }
        // The workspace knows it under the id the service gave.
        let remote = ws.resolve_remote(&m.target).expect("resolve");
        let known = match remote {
            Some(flightdeck_offline::change::Key::Id(id)) => rows.contains(&id),
            Some(flightdeck_offline::change::Key::Segment(_)) => rows.len() == 1,
            _ => false,
        };
        if !known {
            ok = false;
            eprintln!(
                "  round {n}: {} {} is not known by its id ({remote:?}, service {rows:?})",
                m.kind.label(),
                m.name
            );
        }
    }
    if !check_http(sandbox, &made, n).await {
        ok = false;
    }
    ok
}

/// `flightdeck review`: for each change in review, the buyer searches the ad platform (by
/// the reference a creative carries, by name for a site list) and marks it created with
/// the id found, or posts it again. Returns what was in review.
fn settle_reviews<'m>(
    sandbox: &Sandbox,
    cli: &Cli,
    path: &Path,
    made: &'m [Made],
    totals: &mut Totals,
) -> Vec<&'m Made> {
    let mut reviewed = Vec::new();
    let (ok, out, err) = cli.output(path, &["--json", "review"]);
    assert!(ok, "review: {err}");
    let listed: Vec<Value> = serde_json::from_str(&out).expect("review --json");
    for r in listed {
        let seq = r["seq"].as_i64().expect("seq");
        let target: EntityRef = serde_json::from_value(r["target"].clone()).expect("target");
        let Some(m) = made.iter().find(|m| m.target == target) else {
            panic!("a change in review the round did not make: {r}");
        };
        reviewed.push(m);
        let found = match (m.kind, r["reference"].as_str()) {
            (Kind::Creative, Some(reference)) => sandbox.query::<i64>(
                "SELECT id FROM creatives WHERE json_extract(body, '$.externalCreativeid') = ?1",
                reference,
            ),
            _ => sandbox.ids_named(m.kind, &m.name),
        };
        // A change still in flight when its push was killed carries only Flightdeck's
        // note; one whose answer was lost during a push also carries the error.
        if r["messages"].as_array().is_some_and(|m| m.len() == 1) {
            *totals.review_after_kill.entry(m.group()).or_default() += 1;
        }
        let entry = totals.review.entry(m.group()).or_default();
        entry.0 += 1;
        let seq = seq.to_string();
        let verdict = match found.as_slice() {
            [id] => {
                entry.1 += 1;
                let (ok, _, err) =
                    cli.output(path, &["review", &seq, "--created", &id.to_string()]);
                assert!(ok, "review --created: {err}");
                continue;
            }
            [] => "--post-again",
            more => panic!(
                "{} {} is on the service {} times",
                m.kind.label(),
                m.name,
                more.len()
            ),
        };
        let (ok, _, err) = cli.output(path, &["review", &seq, verdict]);
        assert!(ok, "review {verdict}: {err}");
    }
    reviewed
}

/// The same over HTTP, for the kinds the service lists (creatives with a campaign in its
/// listing): each once.
async fn check_http(sandbox: &Sandbox, made: &[Made], n: usize) -> bool {
    let client = Client::new(
        ClientConfig::new(&sandbox.base).expect("config"),
        Credentials::basic("demo", "demo"),
    )
    .expect("client");
    let mut names: Vec<String> = client
        .advertisers(None)
        .await
        .expect("advertisers")
        .entity
        .iter()
        .filter_map(|a| a.name.clone())
        .collect();
    let ids: Vec<i64> = client
        .advertisers(None)
        .await
        .expect("advertisers")
        .entity
        .iter()
        .filter(|a| made.iter().any(|m| Some(&m.name) == a.name.as_ref()))
        .filter_map(|a| a.id)
        .collect();
    for id in ids {
        let campaigns = client.campaigns_by_advertiser(id).await.expect("campaigns");
        names.extend(campaigns.entity.into_iter().filter_map(|c| c.name));
    }
    names.extend(
        client
            .all_ad_orders()
            .await
            .expect("ad orders")
            .entity
            .into_iter()
            .filter_map(|o| o.name),
    );
    // Creatives with a campaign, in their campaign's listing.
    for m in made.iter().filter(|m| m.kind == Kind::Campaign) {
        if let [id] = sandbox.ids_named(Kind::Campaign, &m.name).as_slice() {
            let listed = client.campaign_creatives(*id).await.expect("creatives");
            names.extend(listed.entity.into_iter().filter_map(|c| c.name));
        }
    }
    let mut ok = true;
    for m in made.iter().filter(|m| {
        matches!(m.kind, Kind::Advertiser | Kind::Campaign | Kind::AdOrder) || m.campaign.is_some()
    }) {
        let k = names.iter().filter(|x| **x == m.name).count();
        if k != 1 {
            ok = false;
            eprintln!(
                "  round {n}: over HTTP, {k} of {} {}",
                m.kind.label(),
                m.name
            );
        }
    }
    ok
}

#[tokio::main]
async fn main() {
    let args = args();
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let sandbox = start_sandbox(dir.path());
    let cli = Cli {
        home: dir.path().join("home"),
        base: sandbox.base.clone(),
    };
    let mut login = cli
        .command(&dir.path().join("login.sqlite"))
        .args(["login", "--user", "demo", "--password-stdin"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("login");
    login
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"demo\n")
        .expect("password");
    assert!(login.wait().expect("login").success(), "sign-in failed");

    let rounds: Vec<usize> = match args.only {
        Some(r) => vec![r],
        None => (1..=args.rounds).collect(),
    };
    let mut totals = Totals::default();
    for n in rounds {
        let seed = Rng(args.seed.wrapping_add(n as u64)).next();
        let t = Instant::now();
        let ok = round(n, seed, &sandbox, &cli, dir.path(), &mut totals).await;
        totals.rounds += 1;
        println!(
            "round {n:>3} seed {seed:016x}: {} ({:.1} s)",
            if ok { "ok" } else { "FAILED" },
            t.elapsed().as_secs_f64()
        );
        if !ok {
            totals.failed_rounds.push(n);
            println!(
                "  replay: scripts/chaos.sh --seed {:#x} --round {n}",
                args.seed
            );
        }
    }
    report(&totals, started.elapsed());
    if !totals.failed_rounds.is_empty() {
        std::process::exit(1);
    }
}

fn report(t: &Totals, took: Duration) {
    let creates: usize = t.creates.values().sum();
    println!();
    println!("rounds                {}", t.rounds);
    println!(
        "creates               {creates} ({})",
        t.creates
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "kills                 {} ({} landed mid-push); {} pushes in all",
        t.kills, t.kills_mid_push, t.pushes
    );
    println!("lost                  {}", t.lost);
    println!("duplicated            {}", t.duplicated);
    println!("left pending          {}", t.left_pending);
    // Creatives with a campaign are looked up in its listing: the target is none.
    let shares = [WITH_CAMPAIGN, WITHOUT_CAMPAIGN, Kind::SiteList.label()];
    for label in shares {
        let made = t.creates.get(label).copied().unwrap_or(0);
        let (review, created) = t.review.get(label).copied().unwrap_or((0, 0));
        let share = if made == 0 {
            0.0
        } else {
            100.0 * review as f64 / made as f64
        };
        let after_kill = t.review_after_kill.get(label).copied().unwrap_or(0);
        println!(
            "needs review          {label}: {review} of {made} ({share:.1} %; {created} had in \
             fact been created; {after_kill} left in flight by a kill)"
        );
    }
    for (label, (review, created)) in &t.review {
        if !shares.contains(label) {
            println!("needs review          {label}: {review} ({created} created)");
        }
    }
    println!("wall time             {:.1} s", took.as_secs_f64());
    if !t.failed_rounds.is_empty() {
        println!("FAILED rounds         {:?}", t.failed_rounds);
    }
}
