//! Unit tests of the sandbox's credentials: redirect patterns, tokens, secrets and headers.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn port_wildcard_matches_any_port_only() {
    let p = "http://127.0.0.1:*/callback";
    assert!(redirect_matches(p, "http://127.0.0.1:8765/callback"));
    assert!(redirect_matches(p, "http://127.0.0.1:1/callback"));
    assert!(!redirect_matches(p, "http://127.0.0.1/callback"));
    assert!(!redirect_matches(p, "http://127.0.0.1:/callback"));
    assert!(!redirect_matches(p, "http://127.0.0.1:0/callback"));
    assert!(!redirect_matches(p, "http://127.0.0.1:70000/callback"));
    assert!(!redirect_matches(p, "http://127.0.0.1:80/callback/x"));
    assert!(!redirect_matches(p, "http://127.0.0.1:80/callback?x=1"));
    assert!(!redirect_matches(
        p,
        "http://127.0.0.1:80@evil.example/callback"
    ));
    assert!(!redirect_matches(p, "http://127.0.0.10:80/callback"));
    assert!(redirect_matches(
        "com.flightdeck.desktop:/oauth/callback",
        "com.flightdeck.desktop:/oauth/callback"
    ));
    assert!(!redirect_matches(
        "com.flightdeck.desktop:/oauth/callback",
        "com.flightdeck.desktop:/oauth/callback/"
    ));
}

#[test]
fn hashes_verify_and_reject() {
    let phc = hash_secret("s3cret").unwrap();
    assert!(phc.starts_with("$argon2id$"));
    assert!(verify_secret("s3cret", &phc));
    assert!(!verify_secret("s3cret ", &phc));
    assert!(!verify_secret("s3cret", "not a phc string"));
}

#[test]
fn cache_is_keyed_by_name_and_secret() {
    let keys = Keys::from_secret(&[7; 32]);
    let phc = hash_secret("pw").unwrap();
    assert!(keys.verify_cached("user", "a", "pw", &phc));
    assert!(keys.verify_cached("user", "a", "pw", &phc));
    assert!(!keys.verify_cached("user", "a", "wrong", &phc));
    // A changed hash is not satisfied by the remembered one.
    let other = hash_secret("pw2").unwrap();
    assert!(!keys.verify_cached("user", "a", "pw", &other));
    // No plaintext in the cache.
    let cache = keys.cache();
    assert_eq!(cache.len(), 1);
    assert!(cache.values().all(|v| v == &phc));
}

#[test]
fn access_tokens_expire_on_the_sandbox_clock() {
    let keys = Keys::from_secret(&[1; 32]);
    let caller = Caller {
        user_id: 3,
        account_id: 1,
        username: "demo".into(),
        can_write: true,
        client_id: None,
        grant_id: None,
    };
    let t0 = 1_000_000_000_000;
    let tok = keys.sign(&caller, TYP_ACCESS, t0).unwrap();
    let claims = keys.decode_access(&tok, t0 + 86_399_000).unwrap();
    assert_eq!(claims.sub, "3");
    assert_eq!(claims.exp - claims.iat, TOKEN_EXPIRES_IN);
    assert_eq!(
        keys.decode_access(&tok, t0 + 86_400_000).unwrap_err(),
        TokenProblem::Expired
    );
    let id = keys.sign(&caller, TYP_ID, t0).unwrap();
    assert_eq!(
        keys.decode_access(&id, t0).unwrap_err(),
        TokenProblem::NotAccess
    );
    let other = Keys::from_secret(&[2; 32]);
    assert_eq!(
        other.decode_access(&tok, t0).unwrap_err(),
        TokenProblem::Invalid
    );
}

/// The RS256 setting gives tokens of a real identity provider's size, with a `kid`,
/// that the sandbox still accepts, and keeps its key across a restart.
#[test]
fn rs256_tokens_have_a_real_size_and_outlive_a_restart() {
    let db = Db::open(None).unwrap();
    let keys = Keys::load_or_create(&db, TokenSigning::Rs256).unwrap();
    let caller = Caller {
        user_id: 3,
        account_id: 1,
        username: "demo".into(),
        can_write: true,
        client_id: Some("demo-partner".into()),
        grant_id: Some(random_token()),
    };
    let t0 = 1_000_000_000_000;
    let access = keys.sign(&caller, TYP_ACCESS, t0).unwrap();
    let id = keys.sign(&caller, TYP_ID, t0).unwrap();
    let user = Caller {
        client_id: None,
        grant_id: None,
        ..caller.clone()
    };
    let user_access = keys.sign(&user, TYP_ACCESS, t0).unwrap();
    for token in [&access, &id, &user_access] {
        assert!((1200..=1600).contains(&token.len()), "{}", token.len());
        let header = jsonwebtoken::decode_header(token).unwrap();
        assert_eq!(header.alg, Algorithm::RS256);
        assert!(header.kid.is_some());
    }
    assert_eq!(keys.decode_access(&access, t0).unwrap().sub, "3");
    assert_eq!(
        keys.decode_access(&id, t0).unwrap_err(),
        TokenProblem::NotAccess
    );
    let again = Keys::load_or_create(&db, TokenSigning::Rs256).unwrap();
    assert_eq!(again.decode_access(&access, t0).unwrap().sub, "3");
    // An HS256 sandbox does not take them, nor they its tokens.
    let hs = Keys::from_secret(&[1; 32]);
    assert_eq!(
        hs.decode_access(&access, t0).unwrap_err(),
        TokenProblem::Invalid
    );
    let short = hs.sign(&caller, TYP_ACCESS, t0).unwrap();
    assert!(short.len() < 600, "{}", short.len());
    assert_eq!(
        keys.decode_access(&short, t0).unwrap_err(),
        TokenProblem::Invalid
    );
}

#[test]
fn pkce_s256_matches_rfc7636_example() {
    // RFC 7636 appendix B.
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    assert!(ChallengeMethod::S256.verify(verifier, challenge));
    assert!(!ChallengeMethod::S256.verify(challenge, challenge));
    assert!(ChallengeMethod::Plain.verify(challenge, challenge));
}

#[test]
fn keys_persist_in_meta() {
    let db = Db::open(None).unwrap();
    let a = Keys::load_or_create(&db, TokenSigning::Hs256).unwrap();
    let b = Keys::load_or_create(&db, TokenSigning::Hs256).unwrap();
    let caller = Caller {
        user_id: 1,
        account_id: 1,
        username: "u".into(),
        can_write: true,
        client_id: Some("c".into()),
        grant_id: None,
    };
    let tok = a.sign(&caller, TYP_ACCESS, 0).unwrap();
    let claims = b.decode_access(&tok, 1000).unwrap();
    assert_eq!(claims.cid.as_deref(), Some("c"));
}
