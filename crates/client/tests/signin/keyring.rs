//! The token store in a real Secret Service (gnome-keyring inside
//! `scripts/with-keyring.sh`), sessions that persist to it, and what happens without one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use flightdeck_client::auth::{PartnerAuth, PkceMethod, TokenSet};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{MAX_ENTRY_BYTES, NO_KEYRING, Profile, SERVICE, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials, Error, ExposeSecret, SecretString};
use reqwest::StatusCode;
use url::Url;

use crate::support::{
    APP_REDIRECT, CANARY_CLIENT, CANARY_PASSWORD, CANARY_SECRET, CANARY_USER, PAST_EXPIRY, Server,
    all_files, files_containing, http, is_child, log_in, require_keyring_session, reveal,
    run_child, unique_config,
};

fn sample(tag: &str) -> TokenSet {
    TokenSet {
        access_token: format!("access-{tag}").into(),
        refresh_token: Some(format!("refresh-{tag}").into()),
        expires_at_ms: 1_234_567,
    }
}

fn assert_is_sample(t: &TokenSet, tag: &str) {
    assert_eq!(
        reveal(t),
        (format!("access-{tag}"), Some(format!("refresh-{tag}")))
    );
    assert_eq!(t.expires_at_ms, 1_234_567);
}

#[test]
fn tokens_and_secret_round_trip_through_fresh_entries() {
    require_keyring_session();
    let config = unique_config("round-trip");
    let store = TokenStore::new(Profile::user(&config, "alice"));
    assert!(store.load_tokens().unwrap().is_none());
    assert!(store.load_secret().unwrap().is_none());

    store.save_tokens(&sample("rt")).unwrap();
    store.save_secret(&"alice-password".into()).unwrap();
    // A new store (each call opens new keyring entries): the mock store would forget.
    let again = TokenStore::new(Profile::user(&config, "alice"));
    assert_is_sample(&again.load_tokens().unwrap().unwrap(), "rt");
    assert_eq!(
        again.load_secret().unwrap().unwrap().expose_secret(),
        "alice-password"
    );
    // The documented entry names, read with the keyring crate directly.
    let base = config.base_url.as_str();
    let raw = keyring::Entry::new(SERVICE, &format!("{base}#user:alice#access"))
        .unwrap()
        .get_password()
        .unwrap();
    assert!(raw.contains("access-rt"), "the access entry holds the JSON");
    assert!(!raw.contains("refresh-rt"), "{raw}");
    let raw = keyring::Entry::new(SERVICE, &format!("{base}#user:alice#refresh"))
        .unwrap()
        .get_password()
        .unwrap();
    assert!(
        raw.contains("refresh-rt"),
        "the refresh entry holds the JSON"
    );
    let raw = keyring::Entry::new(SERVICE, &format!("{base}#user:alice#secret"))
        .unwrap()
        .get_password()
        .unwrap();
    assert_eq!(raw, "alice-password");

    // Replacing keeps one entry.
    again.save_tokens(&sample("rt2")).unwrap();
    assert_is_sample(&store.load_tokens().unwrap().unwrap(), "rt2");

    store.clear().unwrap();
    assert!(again.load_tokens().unwrap().is_none());
    assert!(again.load_secret().unwrap().is_none());
    store.clear().unwrap(); // nothing left: still fine
}

#[test]
fn tokens_persist_across_processes() {
    require_keyring_session();
    let config = unique_config("cross-process");
    let store = TokenStore::new(Profile::user(&config, "bob"));
    store.save_tokens(&sample("xp")).unwrap();
    run_child(
        "keyring_store::child_reads_and_clears",
        &[("FLIGHTDECK_CHILD_BASE", config.base_url.as_str())],
    );
    // The child read the tokens, then deleted them: visible here too.
    assert!(store.load_tokens().unwrap().is_none());
}

#[test]
#[ignore = "run by tokens_persist_across_processes in a child process"]
fn child_reads_and_clears() {
    if !is_child() {
        return;
    }
    let base = std::env::var("FLIGHTDECK_CHILD_BASE").unwrap();
    let store = TokenStore::new(Profile::user(&ClientConfig::new(&base).unwrap(), "bob"));
    assert_is_sample(
        &store.load_tokens().unwrap().expect("saved by the parent"),
        "xp",
    );
    store.clear().unwrap();
}

#[test]
fn profiles_do_not_collide() {
    require_keyring_session();
    let a = unique_config("profile-a");
    let b = unique_config("profile-b");
    let stores = [
        (TokenStore::new(Profile::user(&a, "demo")), "user-a"),
        (TokenStore::new(Profile::partner(&a, "demo")), "partner-a"),
        (TokenStore::new(Profile::user(&b, "demo")), "user-b"),
        (TokenStore::new(Profile::user(&a, "demo#x")), "hash-a"),
    ];
    for (store, tag) in &stores {
        store.save_tokens(&sample(tag)).unwrap();
        store.save_secret(&format!("secret-{tag}").into()).unwrap();
    }
    for (store, tag) in &stores {
        assert_is_sample(&store.load_tokens().unwrap().unwrap(), tag);
        assert_eq!(
            store.load_secret().unwrap().unwrap().expose_secret(),
            format!("secret-{tag}")
        );
    }
    stores[0].0.clear().unwrap();
    assert!(stores[0].0.load_tokens().unwrap().is_none());
    for (store, tag) in &stores[1..] {
        assert_is_sample(&store.load_tokens().unwrap().unwrap(), tag);
        store.clear().unwrap();
    }
}

#[test]
fn the_probe_finds_the_keyring() {
    require_keyring_session();
    TokenStore::probe().unwrap();
}

#[test]
fn without_a_secret_service_the_error_says_so_plainly() {
    require_keyring_session();
    let out = run_child(
        "keyring_store::child_without_secret_service",
        &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("No OS keyring is available"), "{stdout}");
}

#[tokio::test]
#[ignore = "run by without_a_secret_service_the_error_says_so_plainly in a child process"]
async fn child_without_secret_service() {
    if !is_child() {
        return;
    }
    let keyring_message = |e: Error| match e {
        Error::Keyring { message } => message,
        other => panic!("expected Error::Keyring, got {other:?}"),
    };
    let probe = keyring_message(TokenStore::probe().unwrap_err());
    assert!(probe.starts_with(NO_KEYRING), "{probe}");
    println!("probe: {probe}");

    let store = TokenStore::new(Profile::user(&unique_config("no-keyring"), "carol"));
    let err = keyring_message(store.save_tokens(&sample("nk")).unwrap_err());
    assert!(err.starts_with(NO_KEYRING), "{err}");
    assert!(!err.contains("access-nk"), "{err}");
    let err = keyring_message(store.load_tokens().unwrap_err());
    assert!(err.starts_with(NO_KEYRING), "{err}");

    // Signing in with a store fails: no silent in-memory fallback.
    let s = Server::start().await;
    let config = s.config();
    let store = TokenStore::new(Profile::user(&config, "demo"));
    let err = Session::user(&config, "demo", "demo".into(), Some(store.clone()))
        .await
        .unwrap_err();
    assert!(keyring_message(err).starts_with(NO_KEYRING));
    let err = Session::restore(&config, store).await.unwrap_err();
    assert!(keyring_message(err).starts_with(NO_KEYRING));
}

async fn canary_session(s: &Server) -> (Session, TokenStore) {
    let config = s.config();
    let store = TokenStore::new(Profile::user(&config, CANARY_USER));
    let session = Session::user(
        &config,
        CANARY_USER,
        CANARY_PASSWORD.into(),
        Some(store.clone()),
    )
    .await
    .unwrap();
    (session, store)
}

async fn canary_partner(s: &Server) -> (Session, TokenStore) {
    let config = s.config();
    let auth = PartnerAuth::new(
        &config,
        CANARY_CLIENT,
        SecretString::from(CANARY_SECRET),
        Url::parse(APP_REDIRECT).unwrap(),
    )
    .unwrap();
    let pending = auth.begin(PkceMethod::S256);
    let redirect = log_in(pending.authorize_url(), CANARY_USER, CANARY_PASSWORD).await;
    let tokens = auth.finish(&pending, &redirect).await.unwrap();
    let store = TokenStore::new(Profile::partner(&config, CANARY_CLIENT));
    let session = Session::partner(&config, auth, tokens, Some(store.clone()))
        .await
        .unwrap();
    (session, store)
}

#[tokio::test]
async fn a_user_session_is_saved_restored_renewed_and_signed_out() {
    require_keyring_session();
    let s = Server::start_canary().await;
    let config = s.config();
    let (session, store) = canary_session(&s).await;
    let saved = store.load_tokens().unwrap().unwrap();
    assert_eq!(
        store.load_secret().unwrap().unwrap().expose_secret(),
        CANARY_PASSWORD
    );
    let token = session.bearer().await.unwrap();
    assert_eq!(saved.access_token.expose_secret(), token.expose_secret());
    drop(session);

    // The next start.
    let restored = Session::restore(&config, store.clone())
        .await
        .unwrap()
        .expect("a saved session");
    assert_eq!(
        restored.bearer().await.unwrap().expose_secret(),
        token.expose_secret()
    );
    // A renewal is saved.
    s.advance(PAST_EXPIRY);
    let client = Client::new(config.clone(), Credentials::Session(Arc::new(restored))).unwrap();
    client.advertisers(None).await.unwrap();
    let Credentials::Session(restored) = client.credentials() else {
        unreachable!()
    };
    let renewed = restored.bearer().await.unwrap();
    assert_ne!(renewed.expose_secret(), token.expose_secret());
    assert_eq!(
        store
            .load_tokens()
            .unwrap()
            .unwrap()
            .access_token
            .expose_secret(),
        renewed.expose_secret()
    );

    restored.sign_out().await.unwrap();
    assert!(store.load_tokens().unwrap().is_none());
    assert!(store.load_secret().unwrap().is_none());
    assert!(Session::restore(&config, store).await.unwrap().is_none());
    assert!(matches!(
        restored.bearer().await,
        Err(Error::SignInRequired { .. })
    ));
}

#[tokio::test]
async fn a_revoked_refresh_token_ends_the_session_and_only_its_tokens_are_deleted() {
    require_keyring_session();
    let s = Server::start_canary().await;
    let config = s.config();
    let (partner, partner_store) = canary_partner(&s).await;
    let (session, store) = canary_session(&s).await;
    let refresh = store.load_tokens().unwrap().unwrap().refresh_token.unwrap();
    s.revoke(&refresh).await;
    s.advance(PAST_EXPIRY);
    let token = session.bearer().await.unwrap();
    assert_eq!(
        s.get_with("/v1/advertiser", &token).await,
        StatusCode::UNAUTHORIZED
    );
    let err = session.renew_after_rejection(&token).await.unwrap_err();
    match &err {
        Error::SignInRequired { reason } => assert!(reason.contains("revoked"), "{reason}"),
        other => panic!("expected SignInRequired, got {other:?}"),
    }
    // The dead tokens are gone from memory and keyring; restoring finds nothing.
    assert!(session.bearer().await.is_err());
    assert!(store.load_tokens().unwrap().is_none());
    assert!(
        Session::restore(&config, store.clone())
            .await
            .unwrap()
            .is_none()
    );
    // The password stays for signing in again; the other profile is untouched.
    assert!(store.load_secret().unwrap().is_some());
    assert!(partner_store.load_tokens().unwrap().is_some());
    assert!(partner.bearer().await.is_ok());
    // Signing in again works and saves afresh.
    let (again, _) = canary_session(&s).await;
    assert!(again.bearer().await.is_ok());
    assert!(store.load_tokens().unwrap().is_some());
    store.clear().unwrap();
    partner_store.clear().unwrap();
}

#[tokio::test]
async fn a_partner_session_is_restored_and_renews_with_the_saved_secret() {
    require_keyring_session();
    let s = Server::start_canary().await;
    let config = s.config();
    let (session, store) = canary_partner(&s).await;
    assert_eq!(
        store.load_secret().unwrap().unwrap().expose_secret(),
        CANARY_SECRET
    );
    let before = session.bearer().await.unwrap();
    drop(session);
    let restored = Arc::new(
        Session::restore(&config, store.clone())
            .await
            .unwrap()
            .expect("a saved partner session"),
    );
    assert_eq!(restored.account(), CANARY_CLIENT);
    s.advance(PAST_EXPIRY);
    let client = Client::new(config, Credentials::Session(Arc::clone(&restored))).unwrap();
    client.audiences(None, None).await.unwrap();
    assert_eq!(restored.renewal_count(), 1);
    assert_ne!(
        restored.bearer().await.unwrap().expose_secret(),
        before.expose_secret()
    );
    restored.sign_out().await.unwrap();
    assert!(store.load_secret().unwrap().is_none());
}

#[tokio::test]
async fn a_store_for_another_profile_is_refused() {
    let s = Server::start().await;
    let config = s.config();
    let other = TokenStore::new(Profile::user(&config, "someone-else"));
    let err = Session::user(&config, "demo", "demo".into(), Some(other))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
}

#[tokio::test]
async fn debug_output_shows_no_secret() {
    require_keyring_session();
    let s = Server::start_canary().await;
    let (session, store) = canary_session(&s).await;
    let (partner, partner_store) = canary_partner(&s).await;
    let tokens = store.load_tokens().unwrap().unwrap();
    let partner_tokens = partner_store.load_tokens().unwrap().unwrap();
    let text = format!(
        "{session:?} {session:#?} {store:?} {tokens:?} {tokens:#?} {partner:?} {partner_store:?} {partner_tokens:?}"
    );
    let (access, refresh) = reveal(&tokens);
    let (p_access, p_refresh) = reveal(&partner_tokens);
    for secret in [
        CANARY_PASSWORD,
        CANARY_SECRET,
        &access,
        &refresh.unwrap(),
        &p_access,
        &p_refresh.unwrap(),
    ] {
        assert!(!text.contains(secret), "{text}");
    }
    assert!(
        text.contains(CANARY_USER) && text.contains(CANARY_CLIENT),
        "{text}"
    );
    store.clear().unwrap();
    partner_store.clear().unwrap();
}

/// Where the keyring daemon keeps its files in this run.
fn keyring_dir() -> PathBuf {
    std::env::var_os("FLIGHTDECK_KEYRING_DIR")
        .or_else(|| std::env::var_os("XDG_DATA_HOME"))
        .map(PathBuf::from)
        .expect("run inside scripts/with-keyring.sh (FLIGHTDECK_KEYRING_DIR)")
}

#[tokio::test]
async fn no_secret_is_written_in_plaintext() {
    require_keyring_session();
    let dir = keyring_dir();
    let s = Server::start_canary().await;
    let started = std::time::SystemTime::now();
    let (session, store) = canary_session(&s).await;
    let (partner, partner_store) = canary_partner(&s).await;
    let tokens = store.load_tokens().unwrap().unwrap();
    let partner_tokens = partner_store.load_tokens().unwrap().unwrap();
    let (access, refresh) = reveal(&tokens);
    let (p_access, p_refresh) = reveal(&partner_tokens);
    let (refresh, p_refresh) = (refresh.unwrap(), p_refresh.unwrap());
    let needles: Vec<&[u8]> = vec![
        CANARY_PASSWORD.as_bytes(),
        CANARY_SECRET.as_bytes(),
        access.as_bytes(),
        refresh.as_bytes(),
        p_access.as_bytes(),
        p_refresh.as_bytes(),
    ];

    // The keyring file exists and was written since the sign-in (gnome-keyring saves
    // shortly after a change), so the search below covers the real store.
    let keyring_file = dir.join("data/keyrings/login.keyring");
    let keyring_file = if keyring_file.exists() {
        keyring_file
    } else {
        PathBuf::from(std::env::var_os("XDG_DATA_HOME").unwrap()).join("keyrings/login.keyring")
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let fresh = std::fs::metadata(&keyring_file)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= started);
        if fresh {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} was not written; files: {:?}",
            keyring_file.display(),
            all_files(&dir)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(std::fs::metadata(&keyring_file).unwrap().len() > 0);

    // The search itself works: a plaintext copy would be found.
    let check = tempfile::tempdir().unwrap();
    std::fs::write(check.path().join("leak.txt"), format!("x{access}y")).unwrap();
    assert_eq!(files_containing(check.path(), &needles).len(), 1);

    let leaks = files_containing(&dir, &needles);
    assert!(
        leaks.is_empty(),
        "secrets in plaintext under {}: {leaks:?}",
        dir.display()
    );
    drop((session, partner));
    store.clear().unwrap();
    partner_store.clear().unwrap();
}

/// One keyring entry's bytes as the platform holds them (`None` when there is none),
/// read with the keyring crate directly.
fn raw_entry(key: &str) -> Option<Vec<u8>> {
    match keyring::Entry::new(SERVICE, key).unwrap().get_secret() {
        Ok(bytes) => Some(bytes),
        Err(keyring::Error::NoEntry) => None,
        Err(e) => panic!("reading {key}: {e}"),
    }
}

/// The token answer of `/v1/oauth2/authenticate` for the canary user, as the service
/// sends it: access, ID and refresh tokens.
async fn canary_token_answer(s: &Server) -> (String, String, String) {
    let answer: serde_json::Value = http()
        .post(s.url("/v1/oauth2/authenticate"))
        .basic_auth(CANARY_USER, Some(CANARY_PASSWORD))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = |name: &str| answer[name].as_str().unwrap().to_owned();
    (
        token("access_token"),
        token("id_token"),
        token("refresh_token"),
    )
}

/// Tokens of a real identity provider's size (RS256 JWTs of 1.2–1.6 KB, from the
/// sandbox's RS256 setting) are kept in entries that Windows Credential Manager can hold
/// (2,560 bytes each), for a user and a data partner; the session comes back from them,
/// works, and its renewal is saved.
#[tokio::test]
async fn a_realistic_rs256_token_set_is_kept_in_entries_windows_can_hold() {
    require_keyring_session();
    let s = Server::start_canary_rs256().await;
    let config = s.config();
    // What the service sends would not fit one entry.
    let (access, id, refresh) = canary_token_answer(&s).await;
    assert!(access.len() >= 1200 && id.len() >= 1200, "{access} {id}");
    assert!(access.len() + id.len() + refresh.len() > MAX_ENTRY_BYTES);

    let (session, store) = canary_session(&s).await;
    let (partner, partner_store) = canary_partner(&s).await;
    let base = config.base_url.as_str();
    for (kind, account) in [("user", CANARY_USER), ("partner", CANARY_CLIENT)] {
        for what in ["access", "refresh", "secret"] {
            let key = format!("{base}#{kind}:{account}#{what}");
            let bytes = raw_entry(&key).unwrap_or_else(|| panic!("no entry {key}"));
            assert!(
                bytes.len() <= MAX_ENTRY_BYTES,
                "{key}: {} bytes, more than {MAX_ENTRY_BYTES}",
                bytes.len()
            );
        }
        assert!(raw_entry(&format!("{base}#{kind}:{account}#tokens")).is_none());
    }
    let token = session.bearer().await.unwrap();
    assert!(token.expose_secret().len() >= 1200);
    assert!(partner.bearer().await.unwrap().expose_secret().len() >= 1200);
    drop(session);

    // The next start: restored from the entries, and the service takes the token.
    let restored = Arc::new(
        Session::restore(&config, store.clone())
            .await
            .unwrap()
            .expect("a saved session"),
    );
    assert_eq!(
        restored.bearer().await.unwrap().expose_secret(),
        token.expose_secret()
    );
    assert_eq!(s.get_with("/v1/advertiser", &token).await, StatusCode::OK);
    // A renewal is saved.
    s.advance(PAST_EXPIRY);
    let client = Client::new(config.clone(), Credentials::Session(Arc::clone(&restored))).unwrap();
    client.advertisers(None).await.unwrap();
    assert_eq!(restored.renewal_count(), 1);
    let renewed = restored.bearer().await.unwrap();
    assert_ne!(renewed.expose_secret(), token.expose_secret());
    assert_eq!(
        store
            .load_tokens()
            .unwrap()
            .unwrap()
            .access_token
            .expose_secret(),
        renewed.expose_secret()
    );
    store.clear().unwrap();
    partner_store.clear().unwrap();
}

/// A user who signed in with an earlier version, whose tokens (the ID token too) are in
/// one `…#tokens` entry, stays signed in: the first read moves the tokens to their own
/// entries, deletes the old one, and keeps the ID token nowhere.
#[tokio::test]
async fn tokens_in_the_single_entry_of_earlier_versions_are_moved_on_first_read() {
    require_keyring_session();
    let s = Server::start_canary().await;
    let config = s.config();
    let (access, id, refresh) = canary_token_answer(&s).await;
    let base = config.base_url.as_str();
    let key = |what: &str| format!("{base}#user:{CANARY_USER}#{what}");
    let old = serde_json::json!({
        "v": 1,
        "access_token": access,
        "id_token": id,
        "refresh_token": refresh,
        "expires_at_ms": i64::MAX / 2,
    });
    keyring::Entry::new(SERVICE, &key("tokens"))
        .unwrap()
        .set_password(&old.to_string())
        .unwrap();
    keyring::Entry::new(SERVICE, &key("secret"))
        .unwrap()
        .set_password(CANARY_PASSWORD)
        .unwrap();

    let store = TokenStore::new(Profile::user(&config, CANARY_USER));
    let restored = Arc::new(
        Session::restore(&config, store.clone())
            .await
            .unwrap()
            .expect("the session of the old entry"),
    );
    let token = restored.bearer().await.unwrap();
    assert_eq!(token.expose_secret(), access);
    assert_eq!(s.get_with("/v1/advertiser", &token).await, StatusCode::OK);

    assert!(raw_entry(&key("tokens")).is_none(), "the old entry is gone");
    let access_entry = String::from_utf8(raw_entry(&key("access")).unwrap()).unwrap();
    let refresh_entry = String::from_utf8(raw_entry(&key("refresh")).unwrap()).unwrap();
    assert!(access_entry.contains(&access), "{access_entry}");
    assert!(refresh_entry.contains(&refresh), "{refresh_entry}");
    assert!(!access_entry.contains(&id) && !refresh_entry.contains(&id));

    // The moved refresh token renews the session, and a new store reads the same.
    s.advance(PAST_EXPIRY);
    let client = Client::new(config.clone(), Credentials::Session(Arc::clone(&restored))).unwrap();
    client.advertisers(None).await.unwrap();
    assert_eq!(restored.renewal_count(), 1);
    let again = TokenStore::new(Profile::user(&config, CANARY_USER));
    assert_eq!(
        again
            .load_tokens()
            .unwrap()
            .unwrap()
            .access_token
            .expose_secret(),
        restored.bearer().await.unwrap().expose_secret()
    );
    store.clear().unwrap();
    assert!(raw_entry(&key("access")).is_none() && raw_entry(&key("refresh")).is_none());
}

/// A token larger than one entry holds is refused with an error naming which token and
/// the sizes, never its value, and the tokens saved before are still there.
#[test]
fn a_token_too_large_for_one_entry_is_refused_and_replaces_nothing() {
    require_keyring_session();
    let config = unique_config("too-large");
    let store = TokenStore::new(Profile::user(&config, "dave"));
    store.save_tokens(&sample("kept")).unwrap();
    let huge = format!("{}-SECRET", "h".repeat(MAX_ENTRY_BYTES));
    let mut big_access = sample("big");
    big_access.access_token = huge.clone().into();
    let mut big_refresh = sample("big");
    big_refresh.refresh_token = Some(huge.clone().into());
    for (tokens, which) in [(big_access, "access token"), (big_refresh, "refresh token")] {
        let err = store.save_tokens(&tokens).unwrap_err();
        match &err {
            Error::KeyringEntryTooLarge {
                entry,
                bytes,
                limit,
            } => {
                assert_eq!(*entry, which);
                assert!(*bytes > MAX_ENTRY_BYTES, "{bytes}");
                assert_eq!(*limit, MAX_ENTRY_BYTES);
            }
            other => panic!("expected KeyringEntryTooLarge, got {other:?}"),
        }
        let text = format!("{err} {err:?}");
        assert!(!text.contains("SECRET") && !text.contains("hhhh"), "{text}");
        assert!(text.contains(which), "{text}");
        assert_is_sample(&store.load_tokens().unwrap().unwrap(), "kept");
    }
    store.clear().unwrap();
}

/// Moving a profile's entries to a new address (the embedded sandbox's port moved) takes
/// the tokens, from either format, and the secret, and leaves none behind.
#[test]
fn moving_entries_to_a_new_address_takes_tokens_of_either_format() {
    require_keyring_session();
    let from = unique_config("move-from");
    let to = unique_config("move-to");
    let old = TokenStore::new(Profile::user(&from, "erin"));
    let new = TokenStore::new(Profile::user(&to, "erin"));
    old.save_tokens(&sample("mv")).unwrap();
    old.save_secret(&"erin-password".into()).unwrap();
    old.move_to(&new).unwrap();
    assert_is_sample(&new.load_tokens().unwrap().unwrap(), "mv");
    assert_eq!(
        new.load_secret().unwrap().unwrap().expose_secret(),
        "erin-password"
    );
    assert!(old.load_tokens().unwrap().is_none());
    assert!(old.load_secret().unwrap().is_none());

    // Tokens still in the single entry of earlier versions move too, split.
    let legacy = serde_json::json!({
        "v": 1, "access_token": "access-lg", "id_token": "id-lg",
        "refresh_token": "refresh-lg", "expires_at_ms": 1_234_567,
    });
    let base = to.base_url.as_str();
    new.clear_tokens().unwrap();
    keyring::Entry::new(SERVICE, &format!("{base}#user:erin#tokens"))
        .unwrap()
        .set_password(&legacy.to_string())
        .unwrap();
    new.move_to(&old).unwrap();
    assert_is_sample(&old.load_tokens().unwrap().unwrap(), "lg");
    let from_base = from.base_url.as_str();
    assert!(raw_entry(&format!("{from_base}#user:erin#access")).is_some());
    assert!(raw_entry(&format!("{from_base}#user:erin#tokens")).is_none());
    assert!(raw_entry(&format!("{base}#user:erin#tokens")).is_none());
    assert!(new.load_tokens().unwrap().is_none());
    old.clear().unwrap();
}
