//! Tests of the seed loader and the demo set.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::auth::verify_secret;

fn count(db: &Db, sql: &str) -> i64 {
    db.blocking(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn published_hashes_verify_their_passwords_and_others_are_hashed_afresh() {
    for (plain, phc) in PUBLISHED_HASHES {
        assert!(verify_secret(plain, phc), "{plain}'s stored hash is stale");
    }
    let hashes = hash_all(&["viewer", "not-published", demo::PASSWORD]).unwrap();
    assert_eq!(hashes[0], PUBLISHED_HASHES[1].1);
    assert_eq!(hashes[2], PUBLISHED_HASHES[0].1);
    assert!(verify_secret("not-published", &hashes[1]));
    assert!(!PUBLISHED_HASHES.iter().any(|(_, phc)| *phc == hashes[1]));
}

#[test]
fn demo_parses_and_passes_the_checks() {
    let seed = demo(1_800_000_000_000).unwrap();
    check(&seed).unwrap();
    assert_eq!(seed.accounts.len(), 2);
    assert_eq!(seed.accounts[0].advertisers.len(), 3);
    let flights = &seed.accounts[0].advertisers[0].campaigns[0].body["flights"];
    assert_eq!(flights.as_array().unwrap().len(), 2);
    for adv in &seed.accounts[0].advertisers {
        for c in &adv.campaigns {
            assert!((2..=3).contains(&c.ad_orders.len()), "{:?}", c.body["name"]);
        }
    }
    // The summary printed by --help names every credential.
    for a in &seed.accounts {
        for u in &a.users {
            assert!(
                DEMO_SUMMARY.contains(&format!("user {}, password {}", u.username, u.password))
            );
        }
    }
}

#[test]
fn a_file_without_business_data_loads_accounts_users_and_clients() {
    let db = Db::open(None).unwrap();
    let seed = SeedFile::parse(
        r#"{"accounts": [
            {"name": "A", "users": [{"username": "a", "password": "pa", "role": "viewer"}],
             "clients": [{"clientId": "c", "secret": "sc", "redirectUris": ["x://cb"]}]},
            {"name": "B", "timezone": "PT", "users": [{"username": "b", "password": "pb"}]}
        ]}"#,
    )
    .unwrap();
    load(&db, &seed, 0).unwrap();
    assert_eq!(count(&db, "SELECT COUNT(*) FROM accounts"), 2);
    let (hash, role): (String, String) = db
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT password_hash, role FROM users WHERE username = 'a'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .unwrap();
    assert_eq!(role, "viewer");
    assert!(verify_secret("pa", &hash));
    assert!(!hash.contains("pa\""));
    let secret: String = db
        .blocking(|c| Ok(c.query_row("SELECT secret_hash FROM oauth_clients", [], |r| r.get(0))?))
        .unwrap();
    assert!(verify_secret("sc", &secret));
    // Not fresh any more: nothing is added.
    apply_if_fresh(&db, &Seed::Demo, 0).unwrap();
    assert_eq!(count(&db, "SELECT COUNT(*) FROM accounts"), 2);
}

#[test]
fn bad_files_name_the_field() {
    let e = SeedFile::parse(r#"{"accounts": [{"name": "A", "users": [{"username": "a"}]}]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("accounts[0].users[0]") && e.contains("password"),
        "{e}"
    );
    let dup = SeedFile::parse(
        r#"{"accounts": [{"name": "A", "users": [
            {"username": "a", "password": "x"}, {"username": "a", "password": "y"}]}]}"#,
    )
    .unwrap();
    let e = check(&dup).unwrap_err().to_string();
    assert!(e.contains("users[1].username"), "{e}");
    let e = SeedFile::read(Path::new("/no/such/seed.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/no/such/seed.json"), "{e}");
}

#[test]
fn secrets_are_not_printed() {
    let seed = demo(0).unwrap();
    let dbg = format!("{seed:?}");
    assert!(!dbg.contains("demo-partner-secret"));
    assert_eq!(dbg.matches("password: \"<redacted>\"").count(), 4, "{dbg}");
    assert_eq!(dbg.matches("secret: \"<redacted>\"").count(), 1, "{dbg}");
}

#[test]
fn seed_none_adds_nothing() {
    let db = Db::open(None).unwrap();
    apply_if_fresh(&db, &Seed::None, 0).unwrap();
    assert_eq!(count(&db, "SELECT COUNT(*) FROM accounts"), 0);
}
