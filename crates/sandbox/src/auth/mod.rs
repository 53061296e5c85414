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
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use flightdeck_model::TOKEN_EXPIRES_IN;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::db::{self, Db};
use crate::error::{Error, Result};

mod extract;
mod grants;

pub use extract::{Credentials, HeaderProblem, JwtCaller, JwtWriter, User, Writer, credentials};
pub use grants::{
    ChallengeMethod, CodeGrant, RefreshGrant, check_refresh_token, create_auth_code,
    create_refresh_token, issue_tokens, mint_access_token, redeem_auth_code, revoke_grant,
    revoke_refresh_token,
};

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
        signed.map_err(Error::Jwt)
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
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>()).map_err(Error::Hash)?;
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(Error::Hash)
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
    let redirect_uris: Vec<String> = serde_json::from_str(&uris).map_err(Error::Json)?;
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

#[cfg(test)]
mod tests;
