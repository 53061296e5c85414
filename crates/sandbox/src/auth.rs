//! Credentials: argon2 password hashes, signed JWTs, opaque refresh tokens and
//! authorization codes, and the extractors that turn a request's `Authorization`
//! header into a [`Caller`].
//!
//! * Passwords and client secrets are stored as argon2 PHC strings. Verifying one is
//!   deliberately slow, so successful HTTP Basic checks are remembered in memory under
//!   a salted SHA-256 of `name\0secret` (never the secret itself). An unknown user or
//!   client is verified against a dummy hash, so the time taken does not tell which
//!   names exist, and [`PasswordWork`] caps how many verifications run at once.
//! * Access and id tokens are JWTs. By default ([`TokenSigning::Hs256`]) they are
//!   HS256, signed with a 32-byte secret, with a few claims: about 300 bytes. With
//!   [`TokenSigning::Rs256`] they are RS256, signed with a 2048-bit RSA key, with a
//!   `kid` and the claims of a real identity provider (issuer, audience, scopes,
//!   roles, …): 1.2–1.6 KB, the size a client's token store must hold. Either key is
//!   kept in the `meta` table, so tokens survive a restart with a file database. Their
//!   `iat`/`exp` come from the sandbox clock, which tests move, so expiry is checked
//!   here against that clock rather than by `jsonwebtoken` against the system time.
//! * Refresh tokens and authorization codes are random 32-byte strings stored only as
//!   SHA-256 hashes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use flightdeck_model::{TOKEN_EXPIRES_IN, TokenResponse};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::db::{self, Db};
use crate::error::{Error, Result};

/// `meta` key of the base64 HS256 secret.
const SECRET_KEY: &str = "jwt_secret";
/// `meta` key of the base64 PKCS#1 DER of the RS256 private key.
const RSA_KEY: &str = "jwt_rsa_key";
/// Bits of the RS256 key: what identity providers use.
const RSA_BITS: usize = 2048;

/// How access and id tokens are signed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenSigning {
    /// HS256 with the few claims the sandbox reads: short tokens (about 300 bytes).
    #[default]
    Hs256,
    /// RS256 with a `kid` and the claims a real identity provider adds: tokens of
    /// 1.2–1.6 KB, as clients meet them in production. The key is made at the first
    /// start (a second or so) and kept in the database.
    Rs256,
}
/// Refresh tokens live 30 days (sandbox clock).
pub const REFRESH_TOKEN_TTL_MS: i64 = 30 * 86_400_000;
/// Authorization codes live 10 minutes (sandbox clock).
pub const AUTH_CODE_TTL_MS: i64 = 10 * 60_000;
/// Most remembered Basic verifications; the cache is emptied when it fills up.
const VERIFIED_CACHE_MAX: usize = 1024;

/// `typ` claim of access tokens, the only ones that authorize requests.
pub const TYP_ACCESS: &str = "access";
/// `typ` claim of id tokens.
pub const TYP_ID: &str = "id";

const MISSING_CREDENTIALS: &str =
    "missing credentials: send Authorization: Bearer <access token> or HTTP Basic user credentials";
const BAD_USER_PASSWORD: &str = "invalid username or password";
const EXPIRED_TOKEN: &str = "the access token has expired; refresh it or sign in again";
const INVALID_TOKEN: &str = "the access token is not valid; sign in again";
const NOT_ACCESS_TOKEN: &str = "only an access token authorizes requests (an id token was sent)";
const PARTNER_TOKEN: &str = "data-partner tokens may only call the audience endpoints";
const JWT_REQUIRED: &str = "a valid access token (JWT) is required";
const REVOKED_TOKEN: &str =
    "the access token has been revoked (its authorization code was used twice); sign in again";

/// Signing keys for access and id tokens, persisted so tokens outlive a restart with
/// `--data`, and the cache of verified Basic credentials.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// The JWT header of every token.
    header: Header,
    /// Whether tokens carry the claims of a real identity provider.
    realistic: bool,
    /// Random per process; salts the cache keys.
    cache_salt: [u8; 32],
    /// Salted SHA-256 of `scope\0name\0secret` -> the PHC string it was verified against.
    verified: Mutex<HashMap<[u8; 32], String>>,
}

impl Keys {
    /// Loads the signing key of `signing` from the database, creating it on first start.
    pub fn load_or_create(db: &Db, signing: TokenSigning) -> Result<Self> {
        match signing {
            TokenSigning::Hs256 => Self::load_or_create_hs256(db),
            TokenSigning::Rs256 => Self::load_or_create_rs256(db),
        }
    }

    fn load_or_create_hs256(db: &Db) -> Result<Self> {
        let secret = db.blocking(|conn| {
            if let Some(stored) = db::meta_get(conn, SECRET_KEY)? {
                let bytes = STANDARD.decode(stored.trim()).map_err(|_| {
                    Error::Internal(format!("meta.{SECRET_KEY} is not valid base64"))
                })?;
                if bytes.len() < 32 {
                    return Err(Error::Internal(format!(
                        "meta.{SECRET_KEY} is shorter than 32 bytes"
                    )));
                }
                return Ok(bytes);
            }
            let bytes = rand::random::<[u8; 32]>().to_vec();
            db::meta_set(conn, SECRET_KEY, &STANDARD.encode(&bytes))?;
            Ok(bytes)
        })?;
        Ok(Self::from_secret(&secret))
    }

    fn load_or_create_rs256(db: &Db) -> Result<Self> {
        use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
        let key = db.blocking(|conn| {
            if let Some(stored) = db::meta_get(conn, RSA_KEY)? {
                let der = STANDARD
                    .decode(stored.trim())
                    .map_err(|_| Error::Internal(format!("meta.{RSA_KEY} is not valid base64")))?;
                return rsa::RsaPrivateKey::from_pkcs1_der(&der).map_err(|_| {
                    Error::Internal(format!("meta.{RSA_KEY} is not an RSA private key"))
                });
            }
            let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, RSA_BITS)
                .map_err(|e| Error::Internal(format!("making the RS256 key: {e}")))?;
            let der = key
                .to_pkcs1_der()
                .map_err(|e| Error::Internal(format!("writing the RS256 key: {e}")))?;
            db::meta_set(conn, RSA_KEY, &STANDARD.encode(der.as_bytes()))?;
            Ok(key)
        })?;
        Self::from_rsa(&key)
    }

    fn from_rsa(key: &rsa::RsaPrivateKey) -> Result<Self> {
        use rsa::pkcs1::{EncodeRsaPrivateKey, EncodeRsaPublicKey};
        let private = key
            .to_pkcs1_der()
            .map_err(|e| Error::Internal(format!("writing the RS256 key: {e}")))?;
        let public = key
            .to_public_key()
            .to_pkcs1_der()
            .map_err(|e| Error::Internal(format!("writing the RS256 public key: {e}")))?;
        // The key id, as identity providers publish it: a digest of the public key.
        let kid = URL_SAFE_NO_PAD.encode(&Sha256::digest(public.as_bytes())[..16]);
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(kid);
        Ok(Self::new(
            EncodingKey::from_rsa_der(private.as_bytes()),
            DecodingKey::from_rsa_der(public.as_bytes()),
            header,
            true,
        ))
    }

    fn from_secret(secret: &[u8]) -> Self {
        Self::new(
            EncodingKey::from_secret(secret),
            DecodingKey::from_secret(secret),
            Header::new(Algorithm::HS256),
            false,
        )
    }

    fn new(encoding: EncodingKey, decoding: DecodingKey, header: Header, realistic: bool) -> Self {
        let mut validation = Validation::new(header.alg);
        // `exp` is checked against the sandbox clock in `decode_access`.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        Self {
            encoding,
            decoding,
            validation,
            header,
            realistic,
            cache_salt: rand::random(),
            verified: Mutex::new(HashMap::new()),
        }
    }

    /// Signs a JWT of type `typ` (`access` or `id`) for `caller`, issued at `now_ms`.
    pub fn sign(&self, caller: &Caller, typ: &str, now_ms: i64) -> Result<String> {
        let iat = now_ms.div_euclid(1000);
        let claims = Claims {
            sub: caller.user_id.to_string(),
            acct: caller.account_id,
            usr: caller.username.clone(),
            cid: caller.client_id.clone(),
            gid: caller.grant_id.clone(),
            typ: typ.to_owned(),
            iat,
            exp: iat + TOKEN_EXPIRES_IN,
            jti: random_token(),
        };
        let signed = if self.realistic {
            jsonwebtoken::encode(&self.header, &IdpClaims::new(&claims), &self.encoding)
        } else {
            jsonwebtoken::encode(&self.header, &claims, &self.encoding)
        };
        signed.map_err(|e| Error::Internal(format!("signing a token: {e}")))
    }

    /// Checks the signature, the type (`access`) and `exp` against `now_ms`.
    pub fn decode_access(&self, token: &str, now_ms: i64) -> Result<Claims, TokenProblem> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| TokenProblem::Invalid)?
            .claims;
        if claims.typ != TYP_ACCESS {
            return Err(TokenProblem::NotAccess);
        }
        if now_ms >= claims.exp.saturating_mul(1000) {
            return Err(TokenProblem::Expired);
        }
        Ok(claims)
    }

    /// Verifies `secret` against the PHC string `phc`, remembering successes so a
    /// client that sends Basic credentials on every request pays for argon2 once.
    /// `scope` separates users from OAuth clients. Slow on a miss: call it off the
    /// async threads.
    pub fn verify_cached(&self, scope: &str, name: &str, secret: &str, phc: &str) -> bool {
        let key = self.cache_key(scope, name, secret);
        if self.cache().get(&key).is_some_and(|known| known == phc) {
            return true;
        }
        if !verify_secret(secret, phc) {
            return false;
        }
        let mut cache = self.cache();
        if cache.len() >= VERIFIED_CACHE_MAX {
            cache.clear();
        }
        cache.insert(key, phc.to_owned());
        true
    }

    /// Whether these credentials were verified against `phc` before; cheap.
    pub fn is_cached(&self, scope: &str, name: &str, secret: &str, phc: &str) -> bool {
        let key = self.cache_key(scope, name, secret);
        self.cache().get(&key).is_some_and(|known| known == phc)
    }

    fn cache_key(&self, scope: &str, name: &str, secret: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.cache_salt);
        for part in [scope, name, secret] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.finalize().into()
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], String>> {
        // A poisoned cache is still a valid cache.
        self.verified.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Claims of access and id tokens.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User id, as a string.
    pub sub: String,
    /// Account id.
    pub acct: i64,
    /// Username.
    pub usr: String,
    /// Data-partner client id, for tokens from the code flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cid: Option<String>,
    /// The authorization-code grant the token descends from (code flow and its
    /// refreshes), so a reuse of the code can revoke it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<String>,
    /// `access` or `id`.
    pub typ: String,
    /// Issued at, Unix seconds (sandbox clock).
    pub iat: i64,
    /// Expires at, Unix seconds: `iat + 86400`.
    pub exp: i64,
    /// Random id, so two tokens issued in the same second differ.
    pub jti: String,
}

/// [`Claims`] with what a real identity provider adds around them (OpenID Connect and
/// the usual vendor claims), so tokens have a production size. The sandbox reads none
/// of the additions.
#[derive(Serialize)]
struct IdpClaims<'a> {
    #[serde(flatten)]
    claims: &'a Claims,
    iss: &'static str,
    aud: &'static str,
    nbf: i64,
    auth_time: i64,
    azp: &'a str,
    sid: String,
    amr: [&'static str; 2],
    email: String,
    name: &'a str,
    tid: String,
    scope: &'static str,
    roles: [&'static str; 4],
    ver: &'static str,
}

/// The scopes a real token lists.
const IDP_SCOPE: &str = "openid profile email offline_access advertisers:read \
    campaigns:read campaigns:write adorders:read adorders:write creatives:read \
    creatives:write audiences:read audiences:write";

impl<'a> IdpClaims<'a> {
    fn new(claims: &'a Claims) -> Self {
        IdpClaims {
            claims,
            iss: "https://login.sandbox.flightdeck.invalid/oauth2/v2.0",
            aud: "https://api.sandbox.flightdeck.invalid/v1",
            nbf: claims.iat,
            auth_time: claims.iat,
            azp: claims.cid.as_deref().unwrap_or("flightdeck-desktop"),
            sid: random_token(),
            amr: ["pwd", "mfa"],
            email: format!("{}@accounts.sandbox.flightdeck.invalid", claims.usr),
            name: &claims.usr,
            tid: format!("00000000-0000-4000-8000-{:012x}", claims.acct),
            scope: IDP_SCOPE,
            roles: [
                "advertiser.viewer",
                "advertiser.editor",
                "audience.uploader",
                "report.reader",
            ],
            ver: "2.0",
        }
    }
}

/// Why a bearer token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenProblem {
    /// Malformed, or signed with another key.
    Invalid,
    /// Past `exp` on the sandbox clock.
    Expired,
    /// An id token (or anything but an access token).
    NotAccess,
}

impl TokenProblem {
    fn message(self) -> &'static str {
        match self {
            TokenProblem::Invalid => INVALID_TOKEN,
            TokenProblem::Expired => EXPIRED_TOKEN,
            TokenProblem::NotAccess => NOT_ACCESS_TOKEN,
        }
    }
}

/// Argon2id PHC string of `secret`, with a random salt.
pub fn hash_secret(secret: &str) -> Result<String> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())
        .map_err(|e| Error::Internal(format!("salt: {e}")))?;
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Internal(format!("hashing: {e}")))
}

/// Whether `secret` matches the PHC string `phc` (false for a malformed `phc`).
pub fn verify_secret(secret: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of a random secret nobody knows, made like every stored one
/// ([`hash_secret`]), so verifying against it costs what a real verification costs.
/// `None` only if hashing failed, and then an unknown name is merely answered faster.
static DUMMY_PHC: LazyLock<Option<String>> = LazyLock::new(|| {
    let secret = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
    hash_secret(&secret).ok()
});

/// How many argon2 verifications may run at once by default: one per core. Each takes a
/// core and about 19 MB for tens of milliseconds; more at once would only queue for the
/// cores while holding the memory.
pub fn default_password_slots() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The gate argon2 verifications pass: at most `slots` run at once, on the blocking
/// pool, and the rest wait their turn. Without it any local process could start
/// hundreds of sign-ins and hold every core and gigabytes of memory; with it a flood
/// costs only queueing. It also counts what ran, for tests.
pub struct PasswordWork {
    slots: tokio::sync::Semaphore,
    capacity: usize,
    verifications: AtomicU64,
    running: AtomicUsize,
    peak: AtomicUsize,
}

impl PasswordWork {
    /// A gate letting `slots` verifications (at least one) run at once.
    pub fn new(slots: usize) -> Self {
        let capacity = slots.max(1);
        Self {
            slots: tokio::sync::Semaphore::new(capacity),
            capacity,
            verifications: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// How many verifications may run at once.
    pub fn slots(&self) -> usize {
        self.capacity
    }

    /// Argon2 verifications run so far (cache hits do not count).
    pub fn verifications(&self) -> u64 {
        self.verifications.load(Ordering::Relaxed)
    }

    /// The most verifications that ever ran at the same time.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Runs `verify` on the blocking pool once a slot is free.
    async fn run<R: Send + 'static>(
        self: &Arc<Self>,
        verify: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R> {
        let _slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| Error::Internal(format!("password slots: {e}")))?;
        let work = Arc::clone(self);
        let out = tokio::task::spawn_blocking(move || {
            let now = work.running.fetch_add(1, Ordering::SeqCst) + 1;
            work.peak.fetch_max(now, Ordering::SeqCst);
            work.verifications.fetch_add(1, Ordering::Relaxed);
            let out = verify();
            work.running.fetch_sub(1, Ordering::SeqCst);
            out
        })
        .await?;
        Ok(out)
    }
}

/// Checks `secret` for `name` against `phc`, or against [`DUMMY_PHC`] when the name is
/// unknown (`phc` is `None`), so both cost one argon2 verification. Remembered
/// successes skip the gate.
async fn verify_secret_of(
    state: &AppState,
    scope: &'static str,
    name: &str,
    secret: &str,
    phc: Option<String>,
) -> Result<bool> {
    if let Some(phc) = &phc
        && state.keys.is_cached(scope, name, secret, phc)
    {
        return Ok(true);
    }
    let keys = state.keys.clone();
    let (name, secret) = (name.to_owned(), secret.to_owned());
    state
        .password_work
        .run(move || match phc {
            Some(phc) => keys.verify_cached(scope, &name, &secret, &phc),
            None => {
                if let Some(dummy) = DUMMY_PHC.as_deref() {
                    verify_secret(&secret, dummy);
                }
                false
            }
        })
        .await
}

/// 32 random bytes, base64url without padding: refresh tokens, codes, `jti`.
fn random_token() -> String {
    URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
}

/// Hex SHA-256: how refresh tokens and authorization codes are stored.
fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Who is calling.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The signed-in user.
    pub user_id: i64,
    /// The account every entity the caller touches must belong to.
    pub account_id: i64,
    /// Login name.
    pub username: String,
    /// False for read-only users: writes answer 403.
    pub can_write: bool,
    /// Set when the token came from a data partner's code flow.
    pub client_id: Option<String>,
    /// The authorization-code grant of a code-flow token (see [`Claims::gid`]).
    pub grant_id: Option<String>,
}

impl Caller {
    /// 403 unless the caller may change data.
    pub fn require_write(&self) -> Result<()> {
        if self.can_write {
            Ok(())
        } else {
            Err(Error::Forbidden(format!(
                "user {} has read-only access",
                self.username
            )))
        }
    }
}

/// A row of `users`.
struct UserRow {
    id: i64,
    account_id: i64,
    username: String,
    password_hash: String,
    role: String,
}

impl UserRow {
    fn caller(&self, client_id: Option<String>) -> Caller {
        Caller {
            user_id: self.id,
            account_id: self.account_id,
            username: self.username.clone(),
            can_write: self.role != "viewer",
            client_id,
            grant_id: None,
        }
    }
}

const USER_COLUMNS: &str = "id, account_id, username, password_hash, role";

fn user_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: r.get(0)?,
        account_id: r.get(1)?,
        username: r.get(2)?,
        password_hash: r.get(3)?,
        role: r.get(4)?,
    })
}

fn user_by_name(conn: &Connection, username: &str) -> Result<Option<UserRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE username = ?1"),
            [username],
            user_row,
        )
        .optional()?)
}

fn user_by_id(conn: &Connection, id: i64) -> Result<Option<UserRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"),
            [id],
            user_row,
        )
        .optional()?)
}

/// The caller for user `user_id` (no client), or `None` when there is no such user.
pub fn caller_by_id(conn: &Connection, user_id: i64) -> Result<Option<Caller>> {
    Ok(user_by_id(conn, user_id)?.map(|u| u.caller(None)))
}

/// Checks a username and password (argon2, with the verification cache).
/// `None` when the user is unknown or the password is wrong.
pub async fn authenticate_user(
    state: &AppState,
    username: &str,
    password: &str,
) -> Result<Option<Caller>> {
    let name = username.to_owned();
    let user = state.db.call(move |c| user_by_name(c, &name)).await?;
    let phc = user.as_ref().map(|u| u.password_hash.clone());
    let ok = verify_secret_of(state, "user", username, password, phc).await?;
    Ok(user.filter(|_| ok).map(|u| u.caller(None)))
}

/// A data partner registered in `oauth_clients`.
#[derive(Debug, Clone)]
pub struct Client {
    /// Issued client id.
    pub client_id: String,
    /// Account whose users may sign in through this client.
    pub account_id: i64,
    /// Allowed redirect URIs; `http://127.0.0.1:*/callback` allows any port.
    pub redirect_uris: Vec<String>,
}

impl Client {
    /// Whether `uri` is one of the client's redirect URIs, exactly or through a
    /// `:*` port wildcard (`http://127.0.0.1:*/callback` matches any port there).
    pub fn allows_redirect(&self, uri: &str) -> bool {
        self.redirect_uris
            .iter()
            .any(|pattern| redirect_matches(pattern, uri))
    }
}

fn redirect_matches(pattern: &str, uri: &str) -> bool {
    if pattern == uri {
        return true;
    }
    let Some((prefix, suffix)) = pattern.split_once(":*") else {
        return false;
    };
    let Some(rest) = uri.strip_prefix(prefix).and_then(|r| r.strip_prefix(':')) else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (port, tail) = rest.split_at(digits);
    tail == suffix && port.parse::<u16>().is_ok_and(|p| p != 0) && !port.starts_with('0')
}

fn client_row(conn: &Connection, client_id: &str) -> Result<Option<(Client, String)>> {
    let row = conn
        .query_row(
            "SELECT client_id, account_id, redirect_uris, secret_hash
             FROM oauth_clients WHERE client_id = ?1",
            [client_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((client_id, account_id, uris, secret_hash)) = row else {
        return Ok(None);
    };
    let redirect_uris: Vec<String> = serde_json::from_str(&uris)
        .map_err(|e| Error::Internal(format!("oauth_clients.redirect_uris of {client_id}: {e}")))?;
    Ok(Some((
        Client {
            client_id,
            account_id,
            redirect_uris,
        },
        secret_hash,
    )))
}

/// The registered client `client_id`, if any.
pub fn client_by_id(conn: &Connection, client_id: &str) -> Result<Option<Client>> {
    Ok(client_row(conn, client_id)?.map(|(c, _)| c))
}

/// Checks a data partner's client id and secret. `None` when either is wrong.
pub async fn authenticate_client(
    state: &AppState,
    client_id: &str,
    secret: &str,
) -> Result<Option<Client>> {
    let id = client_id.to_owned();
    let row = state.db.call(move |c| client_row(c, &id)).await?;
    let phc = row.as_ref().map(|(_, hash)| hash.clone());
    let ok = verify_secret_of(state, "client", client_id, secret, phc).await?;
    Ok(row.filter(|_| ok).map(|(client, _)| client))
}

/// Signs an access token and an id token for `caller` at `now_ms` and, when
/// `with_refresh`, stores and returns a new refresh token bound to the caller's user
/// and client.
pub fn issue_tokens(
    conn: &Connection,
    keys: &Keys,
    caller: &Caller,
    now_ms: i64,
    with_refresh: bool,
) -> Result<TokenResponse> {
    let refresh_token = if with_refresh {
        Some(create_refresh_token(
            conn,
            caller.user_id,
            caller.client_id.as_deref(),
            caller.grant_id.as_deref(),
            now_ms,
        )?)
    } else {
        None
    };
    Ok(TokenResponse {
        access_token: keys.sign(caller, TYP_ACCESS, now_ms)?,
        expires_in: TOKEN_EXPIRES_IN,
        id_token: keys.sign(caller, TYP_ID, now_ms)?,
        refresh_token,
        token_type: "Bearer".to_owned(),
    })
}

/// An access token for user `user_id` issued at `at_ms` (sandbox time), as
/// `/v1/oauth2/authenticate` would give; for tests and benches.
pub fn mint_access_token(state: &AppState, user_id: i64, at_ms: i64) -> Result<String> {
    let caller = state
        .db
        .blocking(|conn| caller_by_id(conn, user_id))?
        .ok_or_else(|| Error::NotFound(format!("no user with id {user_id}")))?;
    state.keys.sign(&caller, TYP_ACCESS, at_ms)
}

/// Stores a new refresh token (valid 30 days) and returns it; only its hash is kept.
/// `grant_id` ties a code-flow token to its authorization code.
pub fn create_refresh_token(
    conn: &Connection,
    user_id: i64,
    client_id: Option<&str>,
    grant_id: Option<&str>,
    now_ms: i64,
) -> Result<String> {
    let token = random_token();
    conn.execute(
        "INSERT INTO refresh_tokens (token_hash, user_id, client_id, grant_id, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            token_hash(&token),
            user_id,
            client_id,
            grant_id,
            now_ms + REFRESH_TOKEN_TTL_MS
        ],
    )?;
    Ok(token)
}

/// Revokes every token issued from the authorization code of `grant_id`: its refresh
/// tokens at once, its access tokens at their next use (RFC 6749 §4.1.2: a code used
/// twice means someone else may hold it).
pub fn revoke_grant(conn: &Connection, grant_id: &str, now_ms: i64) -> Result<()> {
    conn.execute(
        "UPDATE refresh_tokens SET revoked = 1 WHERE grant_id = ?1",
        [grant_id],
    )?;
    conn.execute(
        "INSERT OR IGNORE INTO revoked_grants (grant_id, revoked_at) VALUES (?1, ?2)",
        params![grant_id, now_ms],
    )?;
    Ok(())
}

/// Whether the grant `grant_id` was revoked by a reuse of its code.
fn grant_revoked(conn: &Connection, grant_id: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM revoked_grants WHERE grant_id = ?1",
            [grant_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Revokes a refresh token. Returns whether it existed and was not revoked yet.
pub fn revoke_refresh_token(conn: &Connection, token: &str) -> Result<bool> {
    let n = conn.execute(
        "UPDATE refresh_tokens SET revoked = 1 WHERE token_hash = ?1 AND revoked = 0",
        [token_hash(token)],
    )?;
    Ok(n > 0)
}

/// Who a refresh token belongs to.
#[derive(Debug, Clone)]
pub struct RefreshGrant {
    /// The user it was issued to.
    pub user_id: i64,
    /// The data partner it was issued through; `None` for `/v1/oauth2/authenticate`.
    pub client_id: Option<String>,
    /// The authorization-code grant it descends from, if any.
    pub grant_id: Option<String>,
}

/// Looks up a refresh token that is neither revoked nor expired. The error is the
/// `error_description` of an `invalid_grant`.
pub fn check_refresh_token(
    conn: &Connection,
    token: &str,
    now_ms: i64,
) -> Result<Result<RefreshGrant, &'static str>> {
    let row = conn
        .query_row(
            "SELECT user_id, client_id, expires_at, revoked, grant_id FROM refresh_tokens
             WHERE token_hash = ?1",
            [token_hash(token)],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            },
        )
        .optional()?;
    Ok(match row {
        None => Err("the refresh token is not valid"),
        Some((_, _, _, true, _)) => Err("the refresh token has been revoked; sign in again"),
        Some((_, _, expires_at, _, _)) if now_ms >= expires_at => {
            Err("the refresh token has expired; sign in again")
        }
        Some((user_id, client_id, _, _, grant_id)) => Ok(RefreshGrant {
            user_id,
            client_id,
            grant_id,
        }),
    })
}

/// PKCE method of an authorization code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    /// The verifier equals the challenge.
    Plain,
    /// The challenge is BASE64URL-NOPAD(SHA256(verifier)).
    S256,
}

impl ChallengeMethod {
    /// Parses `plain` or `S256` (exact spelling, as RFC 7636 defines them).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "plain" => Some(Self::Plain),
            "S256" => Some(Self::S256),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::S256 => "S256",
        }
    }

    /// Whether `verifier` answers `challenge`.
    pub fn verify(self, verifier: &str, challenge: &str) -> bool {
        match self {
            Self::Plain => verifier == challenge,
            Self::S256 => URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge,
        }
    }
}

/// Stores a new authorization code (single use, valid 10 minutes) bound to the client,
/// user, redirect URI and PKCE challenge, and returns it; only its hash is kept.
pub fn create_auth_code(
    conn: &Connection,
    client_id: &str,
    user_id: i64,
    redirect_uri: &str,
    challenge: Option<(&str, ChallengeMethod)>,
    now_ms: i64,
) -> Result<String> {
    let code = random_token();
    conn.execute(
        "INSERT INTO auth_codes
           (code_hash, client_id, user_id, redirect_uri, code_challenge, challenge_method,
            expires_at, grant_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            token_hash(&code),
            client_id,
            user_id,
            redirect_uri,
            challenge.map(|(c, _)| c),
            challenge.map(|(_, m)| m.as_str()),
            now_ms + AUTH_CODE_TTL_MS,
            random_token()
        ],
    )?;
    Ok(code)
}

/// What a redeemed authorization code grants.
#[derive(Debug, Clone)]
pub struct CodeGrant {
    /// The user who signed in.
    pub user_id: i64,
    /// Ties the tokens issued now to the code (`None` for codes from before grants).
    pub grant_id: Option<String>,
}

/// Redeems an authorization code for `client_id`: the code is marked used as soon as
/// its own client presents it, whatever the outcome, so it can never be tried twice.
/// Presenting a used code again revokes every token issued from it
/// ([`revoke_grant`]); the caller must commit even then. Returns the grant, or the
/// `error_description` of an `invalid_grant`.
pub fn redeem_auth_code(
    conn: &Connection,
    code: &str,
    client_id: &str,
    redirect_uri: &str,
    code_verifier: Option<&str>,
    now_ms: i64,
) -> Result<Result<CodeGrant, &'static str>> {
    let hash = token_hash(code);
    let row = conn
        .query_row(
            "SELECT client_id, user_id, redirect_uri, code_challenge, challenge_method,
                    expires_at, used, grant_id
             FROM auth_codes WHERE code_hash = ?1",
            [&hash],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, bool>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            },
        )
        .optional()?;
    let Some((owner, user_id, bound_uri, challenge, method, expires_at, used, grant_id)) = row
    else {
        return Ok(Err("the authorization code is not valid"));
    };
    if owner != client_id {
        return Ok(Err("the authorization code was issued to another client"));
    }
    if used {
        if let Some(grant) = &grant_id {
            revoke_grant(conn, grant, now_ms)?;
        }
        return Ok(Err(
            "the authorization code has already been used; the tokens issued from it are revoked",
        ));
    }
    conn.execute(
        "UPDATE auth_codes SET used = 1 WHERE code_hash = ?1",
        [&hash],
    )?;
    if now_ms >= expires_at {
        return Ok(Err(
            "the authorization code has expired (codes live 10 minutes); sign in again",
        ));
    }
    if bound_uri != redirect_uri {
        return Ok(Err("redirect_uri does not match the one used at login"));
    }
    match (challenge, code_verifier) {
        (None, None) => {}
        (None, Some(_)) => {
            return Ok(Err(
                "code_verifier was sent, but the login did not send a code_challenge",
            ));
        }
        (Some(_), None) => {
            return Ok(Err(
                "code_verifier is required: the login sent a code_challenge",
            ));
        }
        (Some(challenge), Some(verifier)) => {
            let method = method
                .as_deref()
                .and_then(ChallengeMethod::parse)
                .unwrap_or(ChallengeMethod::Plain);
            if !method.verify(verifier, &challenge) {
                return Ok(Err(
                    "code_verifier does not match the code_challenge sent at login",
                ));
            }
        }
    }
    Ok(Ok(CodeGrant { user_id, grant_id }))
}

/// Credentials in an `Authorization` header.
pub enum Credentials {
    /// `Bearer <token>`.
    Bearer(String),
    /// `Basic base64(name:secret)`.
    Basic {
        /// Username or client id.
        name: String,
        /// Password or client secret.
        secret: String,
    },
}

impl std::fmt::Debug for Credentials {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credentials::Basic { name, .. } => f
                .debug_struct("Basic")
                .field("name", name)
                .finish_non_exhaustive(),
        }
    }
}

/// Why an `Authorization` header could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderProblem {
    /// No `Authorization` header.
    Missing,
    /// A scheme other than Bearer or Basic, or an unreadable value.
    Malformed(&'static str),
}

/// Reads the `Authorization` header (schemes are case-insensitive).
pub fn credentials(headers: &HeaderMap) -> Result<Credentials, HeaderProblem> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(HeaderProblem::Missing);
    };
    let value = value
        .to_str()
        .map_err(|_| HeaderProblem::Malformed("the Authorization header is not readable text"))?;
    let (scheme, rest) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    let rest = rest.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        if rest.is_empty() {
            return Err(HeaderProblem::Malformed("the Bearer token is empty"));
        }
        return Ok(Credentials::Bearer(rest.to_owned()));
    }
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = STANDARD
            .decode(rest)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or(HeaderProblem::Malformed(
                "the Basic credentials are not base64 of name:secret",
            ))?;
        let (name, secret) = decoded.split_once(':').ok_or(HeaderProblem::Malformed(
            "the Basic credentials are not base64 of name:secret",
        ))?;
        return Ok(Credentials::Basic {
            name: name.to_owned(),
            secret: secret.to_owned(),
        });
    }
    Err(HeaderProblem::Malformed(
        "unsupported Authorization scheme: use Bearer or Basic",
    ))
}

/// Resolves an access token to its caller (the user must still exist in the account
/// the token names). The error is the message for the caller.
async fn bearer_caller(state: &AppState, token: &str) -> Result<Result<Caller, &'static str>> {
    let claims = match state.keys.decode_access(token, state.clock.now_ms()) {
        Ok(c) => c,
        Err(p) => return Ok(Err(p.message())),
    };
    let Ok(user_id) = claims.sub.parse::<i64>() else {
        return Ok(Err(INVALID_TOKEN));
    };
    let grant = claims.gid.clone();
    let (user, revoked) = state
        .db
        .call(move |c| {
            let revoked = match &grant {
                Some(g) => grant_revoked(c, g)?,
                None => false,
            };
            Ok((user_by_id(c, user_id)?, revoked))
        })
        .await?;
    if revoked {
        return Ok(Err(REVOKED_TOKEN));
    }
    Ok(match user {
        Some(u) if u.account_id == claims.acct => {
            let mut caller = u.caller(claims.cid);
            caller.grant_id = claims.gid;
            Ok(caller)
        }
        _ => Err(INVALID_TOKEN),
    })
}

/// Caller of a business endpoint: `Authorization: Bearer <access token>` of a user, or
/// HTTP Basic user credentials. Failures render as the envelope (401/403).
pub struct User(pub Caller);

impl FromRequestParts<AppState> for User {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match credentials(&parts.headers) {
            Err(HeaderProblem::Missing) => Err(Error::Unauthorized(MISSING_CREDENTIALS.into())),
            Err(HeaderProblem::Malformed(why)) => Err(Error::Unauthorized(why.into())),
            Ok(Credentials::Bearer(token)) => match bearer_caller(state, &token).await? {
                Ok(caller) if caller.client_id.is_some() => {
                    Err(Error::Forbidden(PARTNER_TOKEN.into()))
                }
                Ok(caller) => Ok(User(caller)),
                Err(why) => Err(Error::Unauthorized(why.into())),
            },
            Ok(Credentials::Basic { name, secret }) => {
                match authenticate_user(state, &name, &secret).await? {
                    Some(caller) => Ok(User(caller)),
                    None => Err(Error::Unauthorized(BAD_USER_PASSWORD.into())),
                }
            }
        }
    }
}

/// A [`User`] who may write: a read-only user gets the 403 before the body is read, so
/// what their request carries changes nothing in the answer.
pub struct Writer(pub Caller);

impl FromRequestParts<AppState> for Writer {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let User(caller) = User::from_request_parts(parts, state).await?;
        caller.require_write()?;
        Ok(Writer(caller))
    }
}

/// A [`JwtCaller`] who may write, refused (`{error}`, 403) before the body is read.
pub struct JwtWriter(pub Caller);

impl FromRequestParts<AppState> for JwtWriter {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let JwtCaller(caller) = JwtCaller::from_request_parts(parts, state).await?;
        caller.require_write().map_err(Error::into_audience)?;
        Ok(JwtWriter(caller))
    }
}

/// Caller of an audience endpoint: a valid access-token JWT (user or data partner) is
/// required. Failures render as `{error}`.
pub struct JwtCaller(pub Caller);

impl FromRequestParts<AppState> for JwtCaller {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let refuse = |why: &str| Error::Unauthorized(why.to_owned()).into_audience();
        match credentials(&parts.headers) {
            Ok(Credentials::Bearer(token)) => match bearer_caller(state, &token)
                .await
                .map_err(Error::into_audience)?
            {
                Ok(caller) => Ok(JwtCaller(caller)),
                Err(INVALID_TOKEN) => Err(refuse(JWT_REQUIRED)),
                Err(why) => Err(refuse(why)),
            },
            Ok(Credentials::Basic { .. }) | Err(_) => Err(refuse(JWT_REQUIRED)),
        }
    }
}

#[cfg(test)]
mod tests {
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
}
