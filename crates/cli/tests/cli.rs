//! The `flightdeck` command line, run as a real process against a sandbox on loopback,
//! with its tokens in the real Secret Service (run under `scripts/with-keyring.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use flightdeck_client::ClientConfig;
use flightdeck_client::ExposeSecret;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_model::{Advertiser, AudienceSegment};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::merge::FieldConflict;
use flightdeck_offline::workspace::{Draft, Workspace};
use flightdeck_sandbox::faults::FaultSettings;
use flightdeck_sandbox::{Config, Sandbox, Seed};
use serde_json::Value;

const PASSWORD: &str = "Cli-Only-Pa55word!";
/// Opens the sandbox's admin routes (an ad order's status) to the tests.
const ADMIN: &str = "cli-status-admin-token";

struct Cli {
    base_url: String,
    /// The CLI's HOME and config dir: searched for secrets after sign-in.
    home: tempfile::TempDir,
    /// The sandbox's seed file, kept apart (it holds the password by design).
    _seed: tempfile::TempDir,
}

impl Cli {
    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flightdeck"))
            .args(["--base-url", &self.base_url])
            .args(args)
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("FLIGHTDECK_DATA_DIR", self.home.path().join("data"))
            .env_remove("FLIGHTDECK_PROFILE")
            .env_remove("FLIGHTDECK_BASE_URL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start flightdeck");
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(text.as_bytes())
                .expect("write stdin");
        }
        drop(child.stdin.take());
        child.wait_with_output().expect("flightdeck output")
    }
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir`, read as bytes, searched for `needle`.
fn found_in(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return hits;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            hits.extend(found_in(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            hits.push(path.display().to_string());
        }
    }
    hits
}

/// The values of `field` in the sandbox's `table` that start with `prefix`, read below
/// HTTP (what the ad platform holds, whatever the client believes).
fn held(sandbox: &Sandbox, table: &'static str, field: &'static str, prefix: &str) -> Vec<String> {
    let pattern = format!("{prefix}%");
    sandbox
        .state()
        .db
        .blocking(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT json_extract(body, '$.{field}') FROM {table}
                 WHERE json_extract(body, '$.{field}') LIKE ?1"
            ))?;
            let values = stmt
                .query_map([pattern], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(values)
        })
        .expect("read the sandbox")
}

/// Advertisers the sandbox holds named like `prefix`.
fn advertisers_named(sandbox: &Sandbox, prefix: &str) -> Vec<String> {
    held(sandbox, "advertisers", "name", prefix)
}

async fn start() -> (Sandbox, flightdeck_sandbox::Running, Cli) {
    assert!(
        std::env::var_os("FLIGHTDECK_IN_KEYRING_SESSION").is_some(),
        "run these tests under scripts/with-keyring.sh (a private Secret Service)"
    );
    let seed_dir = tempfile::tempdir().expect("tempdir");
    let seed = seed_dir.path().join("seed.json");
    let mut demo: Value = serde_json::from_str(include_str!("cli_seed.json")).expect("seed json");
    demo["accounts"][0]["users"][0]["password"] = Value::String(PASSWORD.to_owned());
    std::fs::write(&seed, demo.to_string()).expect("write seed");
    let sandbox = Sandbox::open(&Config {
        seed: Seed::File(seed),
        admin_token: Some(ADMIN.into()),
        ..Config::default()
    })
    .expect("open sandbox");
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("spawn");
    let cli = Cli {
        base_url: running.base_url(),
        home: tempfile::tempdir().expect("tempdir"),
        _seed: seed_dir,
    };
    (sandbox, running, cli)
}

// The CLI runs as a blocking child process while the sandbox serves on other threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_list_everything_and_sign_out() {
    let (_sandbox, running, cli) = start().await;

    let out = cli.run(&["advertisers", "list"], None);
    let (_, err) = text(&out);
    assert!(!out.status.success(), "listing before sign-in fails");
    assert!(err.contains("flightdeck login"), "{err}");

    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some("wrong\n"),
    );
    assert!(!out.status.success());
    assert!(
        !text(&out).1.contains("wrong"),
        "the password is never echoed"
    );

    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Signed in as buyer"), "{err}");

    let out = cli.run(&["advertisers", "list"], None);
    let (table, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(table.contains("Harbor Books"), "{table}");
    assert!(table.contains("1 row"), "{table}");
    assert_headers_are_the_cores(&table, Kind::Advertiser);

    let out = cli.run(&["--json", "advertisers", "list"], None);
    let list: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let advertiser = list[0]["id"].as_i64().expect("advertiser id");
    assert_eq!(list[0]["name"], "Harbor Books");

    let out = cli.run(
        &[
            "--json",
            "campaigns",
            "list",
            "--advertiser",
            &advertiser.to_string(),
        ],
        None,
    );
    let campaigns: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(campaigns[0]["name"], "Autumn Reads");

    let out = cli.run(&["adorders", "list"], None);
    let (table, _) = text(&out);
    assert!(
        table.contains("Readers") && table.contains("CPM"),
        "{table}"
    );
    assert_headers_are_the_cores(&table, Kind::AdOrder);

    let out = cli.run(&["--json", "audiences", "list"], None);
    let (json, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&json).expect("json"),
        Value::Array(vec![])
    );

    // Nothing secret on disk outside the keyring's encrypted file.
    let config = ClientConfig::new(&running.base_url()).expect("config");
    let store = TokenStore::new(Profile::user(&config, "buyer"));
    let tokens = store.load_tokens().expect("keyring").expect("tokens saved");
    let mut secrets = vec![
        PASSWORD.to_owned(),
        tokens.access_token.expose_secret().to_owned(),
    ];
    if let Some(refresh) = &tokens.refresh_token {
        secrets.push(refresh.expose_secret().to_owned());
    }
    let mut dirs = vec![cli.home.path().to_path_buf()];
    if let Some(keyring_dir) = std::env::var_os("FLIGHTDECK_KEYRING_DIR") {
        dirs.push(keyring_dir.into());
    }
    for secret in &secrets {
        for dir in &dirs {
            let hits = found_in(dir, secret);
            assert!(hits.is_empty(), "a secret is in plain text in {hits:?}");
        }
    }
    assert!(
        !found_in(cli.home.path(), "buyer").is_empty(),
        "the search does read the CLI's files (the account name is there)"
    );

    let out = cli.run(&["logout"], None);
    assert!(out.status.success());
    assert!(
        store.load_tokens().expect("keyring").is_none(),
        "sign-out clears the keyring"
    );
    let out = cli.run(&["adorders", "list"], None);
    assert!(!out.status.success());
}

/// `kill -9` of a posting process, then a restart that finishes the job: every draft is
/// created exactly once, none is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_killed_midway_finishes_exactly_once_after_restart() {
    const DRAFTS: usize = 120;
    // A create the kill left unanswered is believed absent, and sent again, only twice
    // the request timeout after it left: 2 minutes at the default 60 s, which this test
    // spent waiting whenever the kill caught one. 5 s is ample at 100 ms answers.
    const TIMEOUT: &str = "5";
    let (sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);

    let file = cli.home.path().join("crash.db");
    {
        let mut ws = Workspace::open(&file).expect("workspace");
        let mut batch = ws.batch().expect("batch");
        for i in 0..DRAFTS {
            let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
                "name": format!("Crash Co {i:03}"), "agencyId": 1, "currency": "USD", "category": "IAB3"
            }))
            .expect("advertiser");
            batch.create_advertiser(advertiser).expect("draft");
        }
        batch.commit().expect("commit");
    }

    // Slow answers, so the kill lands while requests are in flight.
    sandbox
        .state()
        .faults
        .set(FaultSettings {
            latency_ms: 100,
            ..FaultSettings::default()
        })
        .expect("faults");
    let mut child = Command::new(env!("CARGO_BIN_EXE_flightdeck"))
        .args(["--base-url", &cli.base_url, "--workspace"])
        .arg(&file)
        .args(["push", "--concurrency", "4", "--request-timeout", TIMEOUT])
        .env("HOME", cli.home.path())
        .env("XDG_CONFIG_HOME", cli.home.path().join("config"))
        .env("FLIGHTDECK_DATA_DIR", cli.home.path().join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start push");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while advertisers_named(&sandbox, "Crash Co").len() < DRAFTS / 4 {
        assert!(
            std::time::Instant::now() < deadline,
            "the push made no progress"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    child.kill().expect("kill -9");
    child.wait().expect("reap");
    let landed = advertisers_named(&sandbox, "Crash Co").len();
    assert!(
        landed < DRAFTS,
        "the kill came before the push finished ({landed} landed)"
    );

    sandbox.state().faults.reset();
    let out = cli.run(
        &[
            "--workspace",
            file.to_str().expect("path"),
            "push",
            "--request-timeout",
            TIMEOUT,
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out).1);

    let mut names = advertisers_named(&sandbox, "Crash Co");
    names.sort();
    let expected: Vec<String> = (0..DRAFTS).map(|i| format!("Crash Co {i:03}")).collect();
    assert_eq!(names, expected, "each draft exactly once, none lost");
    let ws = Workspace::open(&file).expect("workspace");
    let left: Vec<_> = ws
        .pending()
        .expect("pending")
        .into_iter()
        .filter(|c| c.status != ChangeStatus::Applied)
        .collect();
    assert!(left.is_empty(), "nothing left to post: {left:?}");
}

/// `changes --diff` shows a change in conflict with base, mine and theirs per field. Only
/// the workspace file is read: no sign-in, no service.
#[test]
fn changes_diff_shows_base_mine_and_theirs_of_a_conflict() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("conflict.db");
    {
        let mut ws = Workspace::open(&file).expect("workspace");
        let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
            "name": "Mine", "agencyId": 1, "currency": "USD", "category": "IAB3"
        }))
        .expect("advertiser");
        ws.create_advertiser(advertiser).expect("draft");
        let seq = ws.pending().expect("pending")[0].seq;
        let fields = [FieldConflict {
            path: "name".into(),
            base: Some("Old".into()),
            mine: Some("Mine".into()),
            theirs: Some("Theirs".into()),
        }];
        ws.mark_conflict(seq, &fields, &[]).expect("mark conflict");
    }
    let stdout = changes_diff(home, &file);
    assert!(
        stdout.contains("in conflict with the ad platform:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"name: base "Old", mine "Mine", theirs "Theirs""#),
        "{stdout}"
    );
}

/// `flightdeck --workspace <file> changes --diff`, with no service to reach (only the
/// file is read): its output, once it succeeded.
fn changes_diff(home: tempfile::TempDir, file: &std::path::Path) -> String {
    let cli = Cli {
        base_url: "http://127.0.0.1:9".into(),
        home,
        _seed: tempfile::tempdir().expect("tempdir"),
    };
    let out = cli.run(
        &[
            "--workspace",
            file.to_str().expect("path"),
            "changes",
            "--diff",
        ],
        None,
    );
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    stdout
}

/// `changes --diff` prints a change's money as the previews do (with cents), not as the
/// wire's number. Only the workspace file is read.
#[test]
fn changes_diff_shows_money_with_cents() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("money.db");
    {
        let mut ws = Workspace::open(&file).expect("workspace");
        let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
            "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
        }))
        .expect("advertiser");
        let advertiser = ws.create_advertiser(advertiser).expect("advertiser draft");
        let campaign =
            serde_json::from_value(serde_json::json!({"name": "Spring"})).expect("campaign");
        let (campaign, _) = ws
            .save_draft(None, Some(&advertiser), Draft::Campaign { value: campaign })
            .expect("campaign draft");
        let order =
            serde_json::from_value(serde_json::json!({"name": "Prospecting", "max_bid": 2.5}))
                .expect("ad order");
        ws.save_draft(None, Some(&campaign), Draft::AdOrder { value: order })
            .expect("ad order draft");
    }
    let stdout = changes_diff(home, &file);
    assert!(stdout.contains("max_bid: (absent) -> 2.50"), "{stdout}");
}

/// `flightdeck audiences upload` end to end: a file of hashed e-mails (a CSV with a
/// header, blanks and a repeat) to a draft segment posts the segment and the upload in one
/// go and prints the service's counts; an upload queued offline posts with `push`, once;
/// a file the service would refuse queues nothing. Refused edits say why and exit non-zero.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audiences_upload_from_a_file_and_refused_edits() {
    let (sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("audience.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    let out = run(&["pull"]);
    assert!(out.status.success(), "{}", text(&out).1);

    let account: i64 = sandbox
        .state()
        .db
        .blocking(|c| Ok(c.query_row("SELECT id FROM accounts", [], |r| r.get(0))?))
        .expect("account id");
    let (draft, advertiser, order) = {
        let mut ws = Workspace::open(&file).expect("workspace");
        let find = |kind, name: &str| {
            ws.list(kind)
                .expect("list")
                .into_iter()
                .find(|e| e.working["name"] == name)
                .expect("pulled")
                .target
        };
        let advertiser = find(Kind::Advertiser, "Harbor Books");
        let order = find(Kind::AdOrder, "Readers");
        let Key::Id(advertiser_id) = advertiser.key else {
            panic!("advertiser id")
        };
        let segment: AudienceSegment = serde_json::from_value(serde_json::json!({
            "name": "Readers list", "dataType": "email_sha256", "accountId": account,
            "advertiserIds": [advertiser_id], "externalAudienceId": "readers-1"
        }))
        .expect("segment");
        let draft = ws.create_audience_segment(segment).expect("draft");
        (draft, advertiser, order)
    };
    let Key::Local(local) = &draft.key else {
        panic!("a draft")
    };
    let Key::Id(order_id) = order.key else {
        panic!("order id")
    };
    let _ = advertiser;

    // 1,200 e-mail hashes under a header, with blank lines and one repeated.
    let hashes: Vec<String> = (0..1200)
        .map(|i| format!("{:064x}", 0xfeed_0000_u64 + i))
        .collect();
    let mut csv = String::from("email_sha256\n");
    for (i, h) in hashes.iter().enumerate() {
        csv.push_str(h);
        csv.push('\n');
        if i % 400 == 0 {
            csv.push_str("\n  \n");
        }
    }
    csv.push_str(&hashes[7]);
    csv.push('\n');
    let path = cli.home.path().join("emails.csv");
    std::fs::write(&path, &csv).expect("write file");
    let path_arg = path.to_str().expect("path");

    let short = &local[..8];
    let out = run(&["audiences", "upload", short, path_arg]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Queued 1200 identifier(s)"), "{err}");
    assert!(stdout.contains("published 1, bad records 0"), "{stdout}");

    let out = cli.run(&["--json", "audiences", "list"], None);
    let listed: Value = serde_json::from_slice(&out.stdout).expect("json");
    let segment = &listed.as_array().expect("array")[0];
    assert_eq!(segment["name"], "Readers list");
    assert_eq!(segment["dataCount"], 1200);
    assert_eq!(segment["status"], "ACTIVE");
    let segment_id = segment["serviceSegmentId"].as_str().expect("id").to_owned();

    // Offline: queued only, posted by `push`, once.
    std::fs::write(&path, format!("{:064x}\n{:064x}\n", 1, 2)).expect("write");
    let out = run(&["audiences", "upload", &segment_id, path_arg, "--offline"]);
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("waits in the workspace"), "{err}");
    let out = run(&["push"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let out = run(&["push"]);
    assert!(text(&out).0.contains("0 applied"), "{}", text(&out).0);
    let out = cli.run(&["--json", "audiences", "list"], None);
    let listed: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(listed[0]["dataCount"], 1202);

    // A file the service would refuse: nothing queued, the reason shown.
    std::fs::write(&path, "email_sha256\nnot-a-hash\n").expect("write");
    let out = run(&["audiences", "upload", &segment_id, path_arg]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(err.contains("[0].values[0]"), "{err}");
    assert!(err.contains("nothing was queued"), "{err}");
    // An unclear CSV names its columns.
    std::fs::write(&path, "name,city\nAnn,Oslo\n").expect("write");
    let out = run(&["audiences", "upload", &segment_id, path_arg]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(err.contains("\"name\", \"city\""), "{err}");
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);

    // Refused edits: the reason per field, a failure, nothing saved.
    let out = run(&[
        "edit",
        "adorder",
        &order_id.to_string(),
        "--set",
        "lifetimeBudget=9000",
    ]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("refused: ad order") && err.contains("lifetimeBudget: "),
        "{err}"
    );
    assert!(err.contains("nothing was saved"), "{err}");
    let out = run(&["edit", "segment", &segment_id, "--set", "name=Renamed"]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(err.contains("no update"), "{err}");
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);
    // The way to change it: duplicate, edit the draft, push.
    let out = run(&["duplicate", "segment", &segment_id]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout.contains("Readers list (copy)"), "{stdout}");
    let copy_key = stdout
        .split_whitespace()
        .nth(3)
        .expect("draft key")
        .to_owned();
    let out = run(&["edit", "segment", &copy_key, "--set", "name=Readers list 2"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let out = run(&["push"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let out = cli.run(&["--json", "audiences", "list"], None);
    let listed: Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> = listed
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["Readers list", "Readers list 2"]);
}

/// The CLI and the desktop app share one core: what `flightdeck login` and `pull` leave
/// behind (the profile, its current account, the session in the keyring, the workspace
/// file) is what the app's core opens, with nothing copied between them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_and_the_app_read_the_same_profile_session_and_workspace() {
    let (_sandbox, running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let out = cli.run(&["pull"], None);
    assert!(out.status.success(), "{}", text(&out).1);

    // The app opens the data directory the CLI wrote, on that service's profile.
    let data = cli.home.path().join("data");
    let core = flightdeck_core::Core::open(
        &data,
        flightdeck_core::Selection::Url(running.base_url()),
        flightdeck_core::OpenOptions::default(),
    )
    .await
    .expect("core");
    let account = core.active().expect("active");
    let last = account
        .profile
        .last_account
        .clone()
        .expect("the CLI's sign-in");
    assert_eq!((last.account.as_str(), last.partner), ("buyer", false));
    assert!(
        account.signed().is_some(),
        "the session the CLI saved in the keyring is restored"
    );
    let names: Vec<String> = account
        .workspace()
        .expect("workspace")
        .list(Kind::Advertiser)
        .expect("list")
        .into_iter()
        .filter_map(|e| e.working["name"].as_str().map(str::to_owned))
        .collect();
    assert!(names.iter().any(|n| n == "Harbor Books"), "{names:?}");
    // `status` names the same account and workspace file as the app's core.
    let out = cli.run(&["--json", "status"], None);
    assert!(out.status.success(), "{}", text(&out).1);
    let status: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(status["signedIn"]["account"], "buyer", "{status}");
    assert_eq!(
        status["workspace"].as_str().map(std::path::PathBuf::from),
        Some(account.workspace_path().expect("path")),
        "{status}"
    );

    // Signing out in the app signs the CLI out too.
    core.sign_out().await.expect("sign out");
    let out = cli.run(&["advertisers", "list"], None);
    assert!(!out.status.success());
    assert!(
        text(&out).1.contains("flightdeck login"),
        "{}",
        text(&out).1
    );
    // Its pending work stays readable offline.
    let out = cli.run(&["changes"], None);
    assert!(out.status.success(), "{}", text(&out).1);
}

/// The header row of a listing holds the core's headers of `kind`, in its order.
fn assert_headers_are_the_cores(table: &str, kind: Kind) {
    let header_row = table.lines().nth(1).expect("a header row");
    let mut from = 0;
    for column in flightdeck_core::query::columns(kind) {
        let at = header_row[from..]
            .find(column.header.as_str())
            .unwrap_or_else(|| panic!("{} not after {from} in {header_row}", column.header));
        from += at + column.header.len();
    }
}

/// `flightdeck columns` prints the core's column list of each kind with a table: the
/// function the listings' headers come from (above) and the app's `table_columns`
/// command answers with (src-tauri's `table_columns_are_the_cores_and_every_one_sorts`).
/// Kinds are read as a person types them, old spellings included.
#[test]
fn columns_are_the_cores_list_for_every_kind() {
    let home = tempfile::tempdir().expect("tempdir");
    let columns = |kind: &str| {
        Command::new(env!("CARGO_BIN_EXE_flightdeck"))
            .args([
                "--base-url",
                "http://127.0.0.1:9/",
                "--json",
                "columns",
                kind,
            ])
            .env("HOME", home.path())
            .env("FLIGHTDECK_DATA_DIR", home.path().join("data"))
            .env_remove("FLIGHTDECK_BASE_URL")
            .env_remove("FLIGHTDECK_PROFILE")
            .output()
            .expect("run flightdeck")
    };
    for kind in Kind::tables() {
        for typed in [kind.name(), kind.label(), kind.plural()] {
            let out = columns(typed);
            assert!(out.status.success(), "{}", text(&out).1);
            let printed: Value = serde_json::from_slice(&out.stdout).expect("json");
            let core = serde_json::to_value(flightdeck_core::query::columns(kind)).expect("json");
            assert_eq!(printed, core, "{typed}");
        }
    }
    for (old, kind) in [
        ("adorder", Kind::AdOrder),
        ("sitelist", Kind::SiteList),
        ("segment", Kind::AudienceSegment),
    ] {
        let out = columns(old);
        let printed: Value = serde_json::from_slice(&out.stdout).expect("json");
        let core = serde_json::to_value(flightdeck_core::query::columns(kind)).expect("json");
        assert_eq!(printed, core, "{old}");
    }
    let out = columns("flight_caps");
    assert!(!out.status.success(), "flight caps have no table");
    assert!(text(&out).1.contains("ad_order"), "{}", text(&out).1);
}

/// On a machine where the desktop app never ran, the CLI's default profile (the app's
/// local sandbox) has no address: the CLI says what to do instead of failing to connect.
#[test]
fn without_a_service_and_before_the_app_ran_the_cli_says_what_to_do() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_flightdeck"))
        .args(["advertisers", "list"])
        .env("HOME", home.path())
        .env("FLIGHTDECK_DATA_DIR", home.path().join("data"))
        .env_remove("FLIGHTDECK_BASE_URL")
        .env_remove("FLIGHTDECK_PROFILE")
        .output()
        .expect("run flightdeck");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--base-url") && err.contains("start the app"),
        "{err}"
    );
}

// Bulk work from the terminal: the same workspace functions the app calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_edit_export_import_undo_and_redo() {
    let (_sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("bulk.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    assert!(run(&["pull"]).status.success());

    // A dry run shows the change and saves nothing.
    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--set",
        "max_bid=2",
        "--dry-run",
    ]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout.contains("max_bid: 10.00 -> 2.00"), "{stdout}");
    assert!(err.contains("nothing was saved"), "{err}");
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);

    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--set",
        "max_bid=2",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--percent",
        "max_bid=10",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let (stdout, _) = text(&run(&["changes"]));
    assert!(stdout.contains("max bid of \"Readers\""), "{stdout}");
    assert!(stdout.contains("10.00 -> 2.20"), "{stdout}");

    // Export, change a cell, import: one update, previewed first.
    let csv = cli.home.path().join("orders.csv");
    let out = run(&[
        "export",
        "--kind",
        "adorder",
        "-o",
        csv.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let sheet = std::fs::read_to_string(&csv).expect("csv");
    assert!(sheet.starts_with("id,"), "{sheet}");
    // The spreadsheet format by default: each campaign's name beside its id, dates in
    // the advertiser's timezone; `--format wire` writes epoch milliseconds.
    let header = sheet.lines().next().expect("header");
    assert!(header.contains(",campaignId,campaign,"), "{header}");
    let eastern = |t: &str| t.contains(":00-05:00") || t.contains(":00-04:00");
    assert!(
        eastern(&sheet),
        "dates in the advertisers' Eastern time: {sheet}"
    );
    let out = run(&["export", "--kind", "adorder", "--format", "wire"]);
    let (wire, err) = text(&out);
    assert!(out.status.success(), "{err}");
    let header = wire.lines().next().expect("header");
    assert!(
        header.contains(",startDate,") && !header.contains(",campaign,"),
        "{header}"
    );
    assert!(!eastern(&wire), "epoch milliseconds: {wire}");
    let out = run(&["export", "--kind", "adorder", "--format", "pretty"]);
    assert!(!out.status.success());
    assert!(text(&out).1.contains("sheet"), "{}", text(&out).1);
    let out = run(&["import", csv.to_str().expect("path"), "--kind", "adorder"]);
    let (_, err) = text(&out);
    assert!(
        err.contains("0 new, 0 changed"),
        "an unedited file changes nothing: {err}"
    );
    // A .tsv file is written with tabs, as import reads it.
    let tsv = cli.home.path().join("orders.tsv");
    let out = run(&[
        "export",
        "--kind",
        "adorder",
        "-o",
        tsv.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let tabbed = std::fs::read_to_string(&tsv).expect("tsv");
    assert!(tabbed.starts_with("id\t"), "{tabbed}");
    let out = run(&["import", tsv.to_str().expect("path"), "--kind", "adorder"]);
    let (_, err) = text(&out);
    assert!(
        err.contains("0 new, 0 changed"),
        "an unedited .tsv file changes nothing: {err}"
    );
    std::fs::write(&csv, sheet.replace("Readers", "Readers (second wave)")).expect("write");
    let out = run(&[
        "import",
        csv.to_str().expect("path"),
        "--kind",
        "adorder",
        "--dry-run",
    ]);
    let (stdout, err) = text(&out);
    assert!(
        stdout.contains("name: \"Readers\" -> \"Readers (second wave)\""),
        "{stdout}{err}"
    );
    let out = run(&["import", csv.to_str().expect("path"), "--kind", "adorder"]);
    assert!(out.status.success(), "{}", text(&out).1);

    // Three steps back: nothing pending; forward again: the import is back.
    let (stdout, _) = text(&run(&["history"]));
    assert!(stdout.contains("Import orders.csv"), "{stdout}");
    for _ in 0..3 {
        let out = run(&["undo"]);
        assert!(out.status.success(), "{}", text(&out).1);
    }
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);
    let (_, err) = text(&run(&["undo"]));
    assert!(err.contains("Nothing to undo"), "{err}");
    for _ in 0..3 {
        assert!(run(&["redo"]).status.success());
    }
    let ws = Workspace::open(&file).expect("workspace");
    let names: Vec<Value> = ws
        .list(Kind::AdOrder)
        .expect("list")
        .into_iter()
        .map(|e| e.working["name"].clone())
        .collect();
    assert!(
        names.contains(&Value::from("Readers (second wave)")),
        "{names:?}"
    );
}

/// A file whose cell holds JSON 127 levels deep (one past what the workspace reads back,
/// inside its campaign) is refused at that cell, with nothing saved: `changes` still
/// reads the workspace and a push still posts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_nested_too_deep_is_refused_at_its_cell_and_posting_goes_on() {
    let (sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("deep.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    assert!(run(&["pull"]).status.success());
    let ws = Workspace::open(&file).expect("workspace");
    let campaign = ws.list(Kind::Campaign).expect("campaigns")[0]
        .target
        .clone();
    drop(ws);

    let csv = cli.home.path().join("deep.csv");
    let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
    std::fs::write(&csv, format!("id,extraField\n{},{deep}\n", campaign.key)).expect("write");
    let out = run(&["import", csv.to_str().expect("path"), "--kind", "campaign"]);
    let (_, err) = text(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("line 1") && err.contains("extraField: this value nests"),
        "the refusal names the cell: {err}"
    );
    assert!(err.contains("nothing was saved"), "{err}");
    // The same through `--set-unknown` (`--set` refuses members a campaign does not
    // have): a value, and fields `a`, `a.a`, … down to 130 parts.
    let id = campaign.key.to_string();
    let value = format!("extraField={deep}");
    let out = run(&["edit", "campaign", &id, "--set-unknown", &value]);
    let (_, err) = text(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("extraField: this value nests"), "{err}");
    assert!(err.contains("nothing was saved"), "{err}");
    let mut chain = vec!["edit", "campaign", id.as_str()];
    let sets: Vec<String> = (1..=130)
        .map(|n| format!("{}={{}}", vec!["a"; n].join(".")))
        .collect();
    for s in &sets {
        chain.extend(["--set-unknown", s.as_str()]);
    }
    let out = run(&chain);
    let (_, err) = text(&out);
    assert!(!out.status.success(), "{err}");
    let deepest = vec!["a"; 130].join(".");
    assert!(
        err.contains(&format!("{deepest}: this field path goes 130 levels deep")),
        "{err}"
    );
    assert!(err.contains("nothing was saved"), "{err}");

    let out = run(&["changes"]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{stdout}{err}");
    assert!(
        !format!("{stdout}{err}").contains("damaged"),
        "{stdout}{err}"
    );

    let out = run(&[
        "edit",
        "advertiser",
        "--where",
        "name=Harbor Books",
        "--set",
        "name=Harbor Books Two",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let out = run(&["push"]);
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(advertisers_named(&sandbox, "Harbor Books Two").len(), 1);
}

// A tag sheet from the terminal: the preview, the drafts as one step, and the post.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_tags_previews_makes_20_drafts_in_one_step_and_they_post() {
    let (sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("tags.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    assert!(run(&["pull"]).status.success());
    let ws = Workspace::open(&file).expect("workspace");
    let campaign = ws
        .list(Kind::Campaign)
        .expect("campaigns")
        .into_iter()
        .find(|e| e.working["name"] == "Autumn Reads")
        .expect("the seed's campaign")
        .target
        .key
        .to_string();
    drop(ws);
    let sheet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../workbench/tests/fixtures/tagsheets/tags20.xlsx"
    );

    let out = run(&["import-tags", sheet, "--campaign", &campaign, "--dry-run"]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("Campaign Manager 360 preset, header on row 6"),
        "{err}"
    );
    assert!(stdout.contains("Spring_Display_728x90_1"), "{stdout}");
    assert!(stdout.contains("VIDEO+VASTURL") && stdout.contains("BANNER+TAG"));
    assert!(stdout.contains("20 rows"), "{stdout}");
    assert!(err.contains("nothing was saved"), "{err}");
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);

    let out = run(&["import-tags", sheet, "--campaign", &campaign]);
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Made 20 draft creatives"), "{err}");
    let (stdout, _) = text(&run(&["history"]));
    assert!(stdout.contains("Import tags tags20.xlsx"), "{stdout}");
    let ws = Workspace::open(&file).expect("workspace");
    assert_eq!(ws.pending().expect("pending").len(), 20);
    drop(ws);

    let out = run(&["push"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let mut posted = held(&sandbox, "creatives", "externalCreativeid", "3800001");
    posted.sort();
    let want: Vec<String> = (0..20).map(|i| (380_000_100 + i).to_string()).collect();
    assert_eq!(posted, want, "each placement posted once");

    // A preset that neither ships nor was saved is refused by name.
    let out = run(&["import-tags", sheet, "--preset", "Nobody", "--dry-run"]);
    assert!(!out.status.success());
    assert!(
        text(&out).1.contains("no tag-sheet preset named"),
        "{}",
        text(&out).1
    );
}

/// Two creatives need review: one the ad platform has (its answer was lost after the
/// commit), one it never got (the process died before its request left). `review` lists
/// them with their references; the buyer finds the first by its `externalCreativeid` and
/// marks it created with its id, and posts the second again. The next push creates the
/// second and sends nothing for the first: one of each on the ad platform.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_marks_a_found_creative_created_and_posts_a_missing_one_again() {
    let (sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("review.db");
    let ws_arg = file.to_str().expect("path");
    let mut ws = Workspace::open(&file).expect("workspace");
    let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
        "name": "Review Co", "agencyId": 1, "currency": "USD", "category": "IAB3"
    }))
    .expect("advertiser");
    let adv = ws.create_advertiser(advertiser).expect("draft");
    drop(ws);
    let out = cli.run(&["--workspace", ws_arg, "push"], None);
    assert!(out.status.success(), "{}", text(&out).1);

    let mut ws = Workspace::open(&file).expect("workspace");
    let adv = EntityRef::new(Kind::Advertiser, ws.resolve_remote(&adv).unwrap().unwrap());
    let banner = |name: &str| {
        serde_json::from_value(serde_json::json!({
            "name": name, "creativeType": "BANNER", "creativeSubtype": "HOSTED",
            "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
            "landingPageUrl": "https://review.example/", "size": {"width": 300, "height": 250}
        }))
        .expect("creative")
    };
    let found = ws.create_creative(&adv, banner("Found banner")).unwrap();
    let missing = ws.create_creative(&adv, banner("Missing banner")).unwrap();
    let seq_of = |ws: &Workspace, t: &EntityRef| {
        ws.pending()
            .unwrap()
            .into_iter()
            .find(|c| &c.target == t)
            .unwrap()
            .seq
    };
    let (found_seq, missing_seq) = (seq_of(&ws, &found), seq_of(&ws, &missing));
    // A push died after marking it, before its request left.
    ws.mark_sending(missing_seq, None).unwrap();
    drop(ws);
    sandbox
        .state()
        .faults
        .set(FaultSettings {
            drop_after_commit: 1,
            ..FaultSettings::default()
        })
        .expect("faults");
    let out = cli.run(&["--workspace", ws_arg, "push", "--concurrency", "1"], None);
    assert!(!out.status.success(), "two changes need review");
    sandbox.state().faults.reset();
    let creatives = |name: &str| -> Vec<(i64, String)> {
        let name = name.to_owned();
        sandbox
            .state()
            .db
            .blocking(move |c| {
                let mut stmt = c.prepare(
                    "SELECT id, json_extract(body, '$.externalCreativeid') FROM creatives \
                     WHERE json_extract(body, '$.name') = ?1",
                )?;
                let rows = stmt
                    .query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })
            .expect("creatives")
    };
    let on_platform = creatives("Found banner");
    assert_eq!(on_platform.len(), 1);
    assert!(creatives("Missing banner").is_empty());
    let (found_id, reference) = on_platform[0].clone();

    // What is known: both listed, the found one with the reference it was sent with.
    let out = cli.run(&["--workspace", ws_arg, "review"], None);
    let (listed, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        listed.contains("Found banner") && listed.contains("Missing banner"),
        "{listed}"
    );
    assert!(listed.contains(&reference), "{listed}");
    let out = cli.run(
        &["--workspace", ws_arg, "review", &found_seq.to_string()],
        None,
    );
    let (shown, _) = text(&out);
    assert!(
        shown.contains(&format!("externalCreativeid = {reference}")),
        "{shown}"
    );

    let id = found_id.to_string();
    let out = cli.run(
        &[
            "--workspace",
            ws_arg,
            "review",
            &found_seq.to_string(),
            "--created",
            &id,
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let out = cli.run(
        &[
            "--workspace",
            ws_arg,
            "review",
            &missing_seq.to_string(),
            "--post-again",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out).1);
    // Settled: a second verdict is refused.
    let out = cli.run(
        &[
            "--workspace",
            ws_arg,
            "review",
            &found_seq.to_string(),
            "--post-again",
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(
        text(&out).1.contains("does not need review"),
        "{}",
        text(&out).1
    );

    let out = cli.run(&["--workspace", ws_arg, "push"], None);
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(creatives("Found banner").len(), 1, "not sent again");
    assert_eq!(creatives("Missing banner").len(), 1, "posted again, once");
    let ws = Workspace::open(&file).expect("workspace");
    assert_eq!(ws.resolve_remote(&found).unwrap(), Some(Key::Id(found_id)));
    assert!(ws.pending().unwrap().is_empty());
}

/// `flightdeck download --campaign ID` (the `pull` command by its other name) fetches one
/// campaign's ad orders and creatives: a creative made on the service since the download
/// comes in, and the counts are printed for those two kinds only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_of_one_campaign_brings_its_new_creative() {
    let (_sandbox, running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("campaign.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    let out = run(&["pull"]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        stdout.contains("creative"),
        "creatives are downloaded: {stdout}"
    );
    let ws = Workspace::open(&file).expect("workspace");
    let campaign = ws.list(Kind::Campaign).expect("campaigns")[0]
        .target
        .clone();
    let before = ws.count(Kind::Creative).expect("count");
    drop(ws);
    let Key::Id(campaign_id) = campaign.key else {
        panic!("campaign id")
    };

    let client = flightdeck_client::Client::new(
        ClientConfig::new(&running.base_url()).expect("config"),
        flightdeck_client::Credentials::basic("buyer", PASSWORD),
    )
    .expect("client");
    let creative: flightdeck_model::Creative = serde_json::from_value(serde_json::json!({
        "name": "Made on the service", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": "<div>x</div>", "campaignId": campaign_id
    }))
    .expect("creative");
    client.creative_save(&creative).await.expect("saved");

    let id = campaign_id.to_string();
    let out = run(&["download", "--campaign", &id]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        stdout.contains("creative           1 added"),
        "one creative came in: {stdout}"
    );
    assert!(
        !stdout.contains("advertiser"),
        "only ad orders and creatives: {stdout}"
    );
    let ws = Workspace::open(&file).expect("workspace");
    assert_eq!(ws.count(Kind::Creative).expect("count"), before + 1);
}

/// The status the sandbox holds for ad order `id`, over its admin route.
async fn service_status(base_url: &str, id: i64) -> i64 {
    let body: Value = reqwest::Client::new()
        .get(format!("{base_url}/_sandbox/adorders/{id}/status"))
        .header("x-sandbox-admin-token", ADMIN)
        .send()
        .await
        .expect("admin route")
        .json()
        .await
        .expect("json");
    body["status"].as_i64().expect("status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_pauses_ad_orders_as_a_pending_change_that_push_posts() {
    let (_sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("status.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    assert!(run(&["pull"]).status.success());
    let ws = Workspace::open(&file).expect("workspace");
    let readers = ws.list(Kind::AdOrder).expect("orders")[0].target.clone();
    drop(ws);
    let Key::Id(id) = readers.key else {
        panic!("a downloaded order has an id")
    };
    let id_text = id.to_string();
    // Seeded ad orders start inactive.
    assert_eq!(service_status(&cli.base_url, id).await, 0);

    // `status` alone is still the profile's status.
    let (stdout, err) = text(&run(&["status"]));
    assert!(stdout.contains("buyer"), "{stdout}{err}");

    // A dry run shows the change and saves nothing.
    let out = run(&[
        "status",
        "ad_order",
        "--ids",
        &id_text,
        "--set",
        "paused",
        "--dry-run",
    ]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout.contains("Readers"), "{stdout}");
    assert!(stdout.contains("paused"), "{stdout}");
    assert!(err.contains("nothing was saved"), "{err}");
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    drop(ws);

    // Other kinds have no status; an unknown word is refused with the choices.
    let (_, err) = text(&run(&[
        "status", "campaign", "--ids", "1", "--set", "paused",
    ]));
    assert!(err.contains("only ad orders have a status"), "{err}");
    let (_, err) = text(&run(&[
        "status", "ad_order", "--ids", &id_text, "--set", "live",
    ]));
    assert!(err.contains("active, paused, archived, inactive"), "{err}");

    let out = run(&[
        "status",
        "ad_order",
        "--where",
        "name=Readers",
        "--set",
        "paused",
    ]);
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Saved as one step"), "{err}");
    let (stdout, _) = text(&run(&["history"]));
    assert!(stdout.contains("Pause ad order"), "{stdout}");
    let ws = Workspace::open(&file).expect("workspace");
    assert_eq!(ws.pending().expect("pending").len(), 1);
    drop(ws);

    let out = run(&["push"]);
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(
        service_status(&cli.base_url, id).await,
        3,
        "paused on the service"
    );
    let ws = Workspace::open(&file).expect("workspace");
    assert!(ws.pending().expect("pending").is_empty());
    assert_eq!(
        ws.ad_order_status(&readers).expect("status").known,
        Some(flightdeck_model::AdOrderStatus::Paused)
    );
}

/// `flightdeck check` on a workspace with drafted creatives: the pending creatives'
/// warnings (rule, level, field and line) follow the validation, and they do not fail
/// the command; `--creatives` checks every creative with counts; `--fetch` follows a
/// VAST wrapper served on loopback and checks each document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_prints_creative_findings_and_fails_only_for_errors() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("checks.db");
    {
        let mut ws = Workspace::open(&file).expect("workspace");
        let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
            "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
        }))
        .expect("advertiser");
        let parent = ws.create_advertiser(advertiser).expect("draft");
        let tag = "<div>\n<a href=\"%%CLICK_URL_UNESC%%https://shop.example.com/\">Shop</a>\n\
                   <script src=\"http://ads.example.com/loader.js\"></script>\n</div>";
        let creative = serde_json::from_value(serde_json::json!({
            "name": "Http tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
            "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
            "htmlAsset": tag, "landingPageUrl": "https://shop.example.com/"
        }))
        .expect("creative");
        ws.create_creative(&parent, creative)
            .expect("creative draft");
    }
    let cli = Cli {
        base_url: "http://127.0.0.1:9".into(),
        home,
        _seed: tempfile::tempdir().expect("tempdir"),
    };
    let ws = file.to_str().expect("path");
    let out = cli.run(&["--workspace", ws, "check"], None);
    let (stdout, err) = text(&out);
    assert!(
        out.status.success(),
        "warnings do not fail the check: {err}"
    );
    assert!(
        stdout.contains("2 pending change(s), all valid."),
        "{stdout}"
    );
    assert!(stdout.contains("change 2 (Http tag):"), "{stdout}");
    assert!(
        stdout.contains("  warning tag.http-resource htmlAsset:3: "),
        "{stdout}"
    );

    let out = cli.run(&["--workspace", ws, "check", "--creatives"], None);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        stdout.contains("1 creative(s) checked, 1 with findings"),
        "{stdout}"
    );
    assert!(stdout.contains("warning tag.http-resource: 1 creative(s)"));

    let out = cli.run(&["--workspace", ws, "--json", "check"], None);
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["invalid"], serde_json::json!([]));
    assert_eq!(json["findings"][0]["label"], "Http tag");

    // A wrapper served on loopback, then the document it points at.
    let inline = r#"<VAST version="3.0"><Ad id="a"><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[http://cdn.example.com/a.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;
    let wrapper = r#"<VAST version="3.0"><Ad id="w"><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI><![CDATA[/inline.xml]]></VASTAdTagURI><Impression><![CDATA[https://t.example.com/i]]></Impression></Wrapper></Ad></VAST>"#;
    let app = axum::Router::new()
        .route(
            "/inline.xml",
            axum::routing::get(move || async move { inline }),
        )
        .route(
            "/wrapper.xml",
            axum::routing::get(move || async move { wrapper }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/wrapper.xml");
    let out = tokio::task::spawn_blocking(move || {
        cli.run(
            &["--workspace", ws_path(&file), "check", "--fetch", &url],
            None,
        )
    })
    .await
    .expect("run");
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        stdout.contains(&format!("1. http://{addr}/wrapper.xml (HTTP 200)")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("2. http://{addr}/inline.xml (HTTP 200)")),
        "{stdout}"
    );
    assert!(stdout.contains("no-impression"), "{stdout}");
}

fn ws_path(file: &Path) -> &str {
    file.to_str().expect("path")
}

// Fields by their labels: `--set` takes the grid's header as a field name, refuses a
// name the kind does not have with the nearest ones (instead of saving it as a new
// member the next push would send), and `--set-unknown` writes one on purpose.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_takes_labels_and_refuses_unknown_fields() {
    let (_sandbox, _running, cli) = start().await;
    let out = cli.run(
        &["login", "--user", "buyer", "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let file = cli.home.path().join("labels.db");
    let ws_arg = file.to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws_arg.as_str()];
        all.extend_from_slice(args);
        cli.run(&all, None)
    };
    assert!(run(&["pull"]).status.success());
    let member = |name: &str| {
        let ws = Workspace::open(&file).expect("workspace");
        let readers = ws
            .list(Kind::AdOrder)
            .expect("ad orders")
            .into_iter()
            .find(|e| e.working["name"] == "Readers")
            .expect("Readers");
        readers.working.get(name).cloned()
    };

    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--set",
        "Max bid=11.5",
    ]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout.contains("max_bid: 10.00 -> 11.50"), "{stdout}");
    assert_eq!(member("max_bid"), Some(serde_json::json!(11.5)));
    assert_eq!(member("Max bid"), None);

    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--set",
        "Maxx bid=1",
    ]);
    let (_, err) = text(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no field “Maxx bid”"), "{err}");
    assert!(
        err.contains("“Max bid” (max_bid)"),
        "the nearest name is offered: {err}"
    );
    assert_eq!(member("Maxx bid"), None);
    assert_eq!(member("max_bid"), Some(serde_json::json!(11.5)));

    let out = run(&[
        "edit",
        "adorder",
        "--where",
        "name=Readers",
        "--set-unknown",
        "Maxx bid=1",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(member("Maxx bid"), Some(serde_json::json!(1)));
}
