//! The data-partner sign-in: authorization code with PKCE, through the `oauth2` crate.
//!
//! 1. [`PartnerAuth::begin`] makes the login URL with a random `state` and a PKCE
//!    challenge (S256 unless [`PkceMethod::Plain`] is asked for).
//! 2. The user signs in on the service's login page in a browser, which is redirected to
//!    the redirect URI with `code` and `state`.
//! 3. [`PartnerAuth::finish`] checks that redirect (same redirect URI, no `error`, the
//!    `state` we sent) before anything goes on the network, then exchanges the code with
//!    the PKCE verifier for tokens.
//!
//! The client authenticates on the token endpoint with HTTP Basic `client_id:client_secret`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU16, Ordering};

use oauth2::basic::{
    BasicErrorResponse, BasicRevocationErrorResponse, BasicTokenIntrospectionResponse,
    BasicTokenType,
};
use oauth2::{
    AsyncHttpClient, AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken,
    EmptyExtraTokenFields, EndpointNotSet, EndpointSet, HttpClientError, HttpRequest, HttpResponse,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError,
    StandardRevocableToken, StandardTokenResponse, TokenResponse, TokenUrl,
};
use secrecy::{ExposeSecret, SecretString};
use url::Url;

use super::{TokenSet, redacted_body, transport_error};
use crate::config::ClientConfig;
use crate::error::{Error, Result, TransportKind};

/// The redirect URI the desktop app registers for itself: a private-use scheme named
/// after the app's reverse-DNS identifier, as RFC 8252 §7.1 asks, so no other app can
/// claim it by accident.
pub const DESKTOP_REDIRECT_URI: &str = "com.flightdeck.desktop:/oauth/callback";

/// The standard token answer. The service adds an ID token, which Flightdeck never
/// reads, so it is left unparsed and never kept.
type PartnerTokenResponse = StandardTokenResponse<EmptyExtraTokenFields, BasicTokenType>;

/// An `oauth2` client with the login (authorization) and token URLs set.
type OAuthClient = oauth2::Client<
    BasicErrorResponse,
    PartnerTokenResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
>;

/// How the PKCE challenge is derived from the verifier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PkceMethod {
    /// `BASE64URL(SHA-256(verifier))`: the default, and what should always be used.
    #[default]
    S256,
    /// The verifier itself. Only for services that cannot do S256; ask for it explicitly.
    Plain,
}

impl PkceMethod {
    /// The `code_challenge_method` value.
    pub fn as_str(self) -> &'static str {
        match self {
            PkceMethod::S256 => "S256",
            PkceMethod::Plain => "plain",
        }
    }
}

/// A data partner's sign-in: client id and secret, redirect URI, and the service's login
/// and token URLs (`<base>/v1/oauth2/login`, `<base>/v1/oauth2/token`).
pub struct PartnerAuth {
    oauth: OAuthClient,
    http: reqwest::Client,
    base_url: Url,
    client_id: String,
    client_secret: SecretString,
    redirect_uri: Url,
}

impl fmt::Debug for PartnerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartnerAuth")
            .field("base_url", &self.base_url.as_str())
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .field("redirect_uri", &self.redirect_uri.as_str())
            .finish()
    }
}

/// A sign-in in progress: the URL to open in the browser, and what [`PartnerAuth::finish`]
/// needs to check and complete the answer. `Debug` shows neither the state nor the PKCE
/// verifier (with [`PkceMethod::Plain`] the URL's challenge *is* the verifier, so the
/// URL's query is hidden too).
pub struct PendingAuthorization {
    authorize_url: Url,
    state: CsrfToken,
    verifier: PkceCodeVerifier,
    method: PkceMethod,
    redirect_uri: Url,
}

impl fmt::Debug for PendingAuthorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut endpoint = self.authorize_url.clone();
        endpoint.set_query(None);
        f.debug_struct("PendingAuthorization")
            .field("authorize_url", &format!("{endpoint}?[redacted]"))
            .field("state", &"[redacted]")
            .field("pkce_verifier", &"[redacted]")
            .field("pkce_method", &self.method)
            .field("redirect_uri", &self.redirect_uri.as_str())
            .finish()
    }
}

impl PendingAuthorization {
    /// The login page URL to open in the browser, with `client_id`, `redirect_uri`,
    /// `state`, `code_challenge` and `code_challenge_method`.
    pub fn authorize_url(&self) -> &Url {
        &self.authorize_url
    }

    /// The `state` sent with the login (CSRF protection); the redirect must carry it back.
    pub fn state(&self) -> &str {
        self.state.secret()
    }

    /// How the PKCE challenge was made.
    pub fn pkce_method(&self) -> PkceMethod {
        self.method
    }

    /// Where the browser will be sent back.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }
}

impl PartnerAuth {
    /// A partner sign-in against the service of `config`.
    pub fn new(
        config: &ClientConfig,
        client_id: impl Into<String>,
        client_secret: SecretString,
        redirect_uri: Url,
    ) -> Result<PartnerAuth> {
        let client_id = client_id.into();
        let oauth = oauth2::Client::new(ClientId::new(client_id.clone()))
            .set_client_secret(ClientSecret::new(client_secret.expose_secret().to_owned()))
            .set_auth_uri(AuthUrl::from_url(config.url("/v1/oauth2/login")?))
            .set_token_uri(TokenUrl::from_url(config.url("/v1/oauth2/token")?))
            .set_redirect_uri(RedirectUrl::from_url(redirect_uri.clone()))
            .set_auth_type(AuthType::BasicAuth);
        Ok(PartnerAuth {
            oauth,
            http: config.http_client()?,
            base_url: config.base_url.clone(),
            client_id,
            client_secret,
            redirect_uri,
        })
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The redirect URI registered for this client.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// The service root this sign-in talks to.
    pub(crate) fn base_url(&self) -> &Url {
        &self.base_url
    }

    /// The client secret, for the token store.
    pub(crate) fn client_secret(&self) -> &SecretString {
        &self.client_secret
    }

    /// Starts a sign-in: a fresh random `state` and PKCE verifier, and the login URL.
    pub fn begin(&self, method: PkceMethod) -> PendingAuthorization {
        let (challenge, verifier) = match method {
            PkceMethod::S256 => PkceCodeChallenge::new_random_sha256(),
            PkceMethod::Plain => PkceCodeChallenge::new_random_plain(),
        };
        let (authorize_url, state) = self
            .oauth
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .url();
        PendingAuthorization {
            authorize_url,
            state,
            verifier,
            method,
            redirect_uri: self.redirect_uri.clone(),
        }
    }

    /// Completes a sign-in from the URL the browser was redirected to.
    ///
    /// Refused with [`Error::SignIn`] before any request when the URL is not the redirect
    /// URI, carries `error=`, has no `code`, or has a missing or different `state`. Then
    /// the code is exchanged with the PKCE verifier; a refusal is [`Error::Token`].
    ///
    /// `pending` is borrowed so that, after a refused (possibly forged) redirect, the real
    /// one can still be completed.
    pub async fn finish(&self, pending: &PendingAuthorization, redirect: &Url) -> Result<TokenSet> {
        let code = check_redirect(pending, redirect)?;
        tracing::info!(client_id = %self.client_id, "exchanging a partner's authorization code");
        let verifier = PkceCodeVerifier::new(pending.verifier.secret().clone());
        let http = StatusRecorder::new(&self.http);
        let answer = self
            .oauth
            .exchange_code(code)
            .set_pkce_verifier(verifier)
            .request_async(&http)
            .await
            .map_err(|e| oauth_error(e, http.status()))?;
        Ok(token_set(&answer, None))
    }

    /// Renews the access token with `grant_type=refresh_token`. When the answer carries
    /// no refresh token, `refresh_token` is kept in the result.
    pub async fn refresh(&self, refresh_token: &SecretString) -> Result<TokenSet> {
        let token = RefreshToken::new(refresh_token.expose_secret().to_owned());
        let http = StatusRecorder::new(&self.http);
        let answer = self
            .oauth
            .exchange_refresh_token(&token)
            .request_async(&http)
            .await
            .map_err(|e| oauth_error(e, http.status()))?;
        Ok(token_set(&answer, Some(refresh_token)))
    }
}

/// The code from a redirect URL, once it is known to answer `pending`. No network.
fn check_redirect(pending: &PendingAuthorization, redirect: &Url) -> Result<AuthorizationCode> {
    let expected = &pending.redirect_uri;
    let same_target = redirect.scheme() == expected.scheme()
        && redirect.host_str() == expected.host_str()
        && redirect.port_or_known_default() == expected.port_or_known_default()
        && redirect.path() == expected.path();
    if !same_target {
        return Err(Error::SignIn(
            "the browser came back to an unexpected address; start the sign-in again".into(),
        ));
    }
    let mut code = None;
    let mut state = None;
    let mut error = None;
    let mut error_description = None;
    for (name, value) in redirect.query_pairs() {
        let slot = match name.as_ref() {
            "code" => &mut code,
            "state" => &mut state,
            "error" => &mut error,
            "error_description" => &mut error_description,
            _ => continue,
        };
        if slot.is_some() {
            return Err(Error::SignIn(format!(
                "the sign-in answer repeats \"{name}\", so it cannot be trusted; start the sign-in again"
            )));
        }
        *slot = Some(value.into_owned());
    }
    if let Some(error) = error {
        // The error code and description come from the login page; cut them short.
        let error: String = error.chars().take(100).collect();
        let description: String = error_description
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect();
        return Err(Error::SignIn(format!(
            "the sign-in page reported an error: {error} {description}"
        )));
    }
    match state {
        None => {
            return Err(Error::SignIn(
                "the sign-in answer has no state, so it cannot be matched to this sign-in; \
                 start the sign-in again"
                    .into(),
            ));
        }
        Some(state) if state != *pending.state.secret() => {
            return Err(Error::SignIn(
                "the sign-in answer belongs to another sign-in (state mismatch); \
                 start the sign-in again"
                    .into(),
            ));
        }
        Some(_) => {}
    }
    match code {
        Some(code) if !code.is_empty() => Ok(AuthorizationCode::new(code)),
        _ => Err(Error::SignIn(
            "the sign-in answer has no authorization code; start the sign-in again".into(),
        )),
    }
}

/// A [`TokenSet`] from the `oauth2` answer; `keep` is the refresh token to keep when the
/// answer has none.
fn token_set(answer: &PartnerTokenResponse, keep: Option<&SecretString>) -> TokenSet {
    let mut tokens = TokenSet::received(
        answer.access_token().secret().clone(),
        answer.refresh_token().map(|t| t.secret().clone()),
        answer.expires_in().map(|d| d.as_secs()),
    );
    if tokens.refresh_token.is_none() {
        tokens.refresh_token = keep.cloned();
    }
    tokens
}

type OAuthRequestError = RequestTokenError<HttpClientError<reqwest::Error>, BasicErrorResponse>;

/// Maps an `oauth2` failure; `status` is the HTTP status of the answer (0 if none).
fn oauth_error(e: OAuthRequestError, status: u16) -> Error {
    match e {
        RequestTokenError::ServerResponse(answer) => Error::Token {
            status,
            error: answer.error().as_ref().to_owned(),
            error_description: answer.error_description().cloned().unwrap_or_default(),
        },
        RequestTokenError::Request(HttpClientError::Reqwest(e)) => transport_error(&e),
        RequestTokenError::Request(e) => Error::Transport {
            kind: TransportKind::Other,
            detail: e.to_string(),
        },
        // serde's own message can quote a value (a token): keep the path and category.
        RequestTokenError::Parse(e, body) => Error::Decode {
            status,
            detail: format!(
                "token answer is not the expected JSON (at \"{}\": {:?} error)",
                e.path(),
                e.inner().classify()
            ),
            raw_body: redacted_body(&body),
        },
        RequestTokenError::Other(detail) => Error::Decode {
            status,
            detail,
            raw_body: String::new(),
        },
    }
}

/// Our reqwest client as `oauth2`'s HTTP client, remembering the answer's status so that
/// token errors can report it (`oauth2` drops it).
struct StatusRecorder<'a> {
    http: &'a reqwest::Client,
    status: AtomicU16,
}

impl<'a> StatusRecorder<'a> {
    fn new(http: &'a reqwest::Client) -> Self {
        Self {
            http,
            status: AtomicU16::new(0),
        }
    }

    fn status(&self) -> u16 {
        self.status.load(Ordering::Relaxed)
    }
}

impl<'c> AsyncHttpClient<'c> for StatusRecorder<'_> {
    type Error = HttpClientError<reqwest::Error>;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let request = reqwest::Request::try_from(request).map_err(Box::new)?;
            let mut response = self.http.execute(request).await.map_err(Box::new)?;
            let status = response.status();
            self.status.store(status.as_u16(), Ordering::Relaxed);
            // Read as oauth2's own client does, but never beyond the cap.
            let too_large = || {
                HttpClientError::Other(format!(
                    "the token answer is longer than {} kB",
                    super::TOKEN_ANSWER_MAX / 1024
                ))
            };
            let mut builder = oauth2::http::Response::builder()
                .status(status)
                .version(response.version());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let body = crate::client::read_capped(&mut response, super::TOKEN_ANSWER_MAX)
                .await
                .map_err(Box::new)?
                .ok_or_else(too_large)?;
            builder.body(body).map_err(HttpClientError::Http)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn auth() -> PartnerAuth {
        let config = ClientConfig::new("http://127.0.0.1:9").unwrap();
        PartnerAuth::new(
            &config,
            "demo-partner",
            "client-SECRET".into(),
            Url::parse("http://127.0.0.1:4567/callback").unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn debug_hides_secret_state_and_verifier() {
        let auth = auth();
        let pending = auth.begin(PkceMethod::Plain);
        let text = format!("{auth:?} {pending:?}");
        assert!(!text.contains("SECRET"), "{text}");
        assert!(!text.contains(pending.state()), "{text}");
        assert!(!text.contains(pending.verifier.secret().as_str()), "{text}");
    }

    #[test]
    fn s256_challenge_differs_from_the_verifier() {
        let pending = auth().begin(PkceMethod::default());
        let q: Vec<(String, String)> = pending.authorize_url().query_pairs().into_owned().collect();
        let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("code_challenge_method").as_deref(), Some("S256"));
        assert_ne!(
            get("code_challenge").as_ref(),
            Some(pending.verifier.secret())
        );
        assert_eq!(get("state").as_deref(), Some(pending.state()));
    }

    #[test]
    fn redirect_checks() {
        let pending = auth().begin(PkceMethod::S256);
        let state = pending.state().to_owned();
        let ok = Url::parse(&format!(
            "http://127.0.0.1:4567/callback?code=c1&state={state}"
        ))
        .unwrap();
        assert_eq!(check_redirect(&pending, &ok).unwrap().secret(), "c1");
        for bad in [
            "http://127.0.0.1:4567/callback?code=c1".to_owned(),
            "http://127.0.0.1:4567/callback?code=c1&state=other".to_owned(),
            format!("http://127.0.0.1:4567/callback?state={state}"),
            format!("http://127.0.0.1:4567/callback?error=access_denied&state={state}"),
            format!("http://127.0.0.1:4567/callback?code=a&code=b&state={state}"),
            format!("http://127.0.0.1:4568/callback?code=c1&state={state}"),
            format!("http://evil.example/callback?code=c1&state={state}"),
        ] {
            let err = check_redirect(&pending, &Url::parse(&bad).unwrap()).unwrap_err();
            assert!(matches!(err, Error::SignIn(_)), "{bad}: {err:?}");
            assert!(!err.to_string().contains("c1"), "{err}");
        }
    }

    proptest::proptest! {
        /// Any link handed to the app (a deep link or the loopback callback) goes through
        /// the redirect check without a panic; only the waiting sign-in's own `state`,
        /// on its own address, with one `code`, is ever taken; and the error never
        /// repeats the link's code.
        #[test]
        fn any_redirect_is_checked_without_a_panic(
            base in proptest::sample::select(vec![
                "http://127.0.0.1:4567/callback", "http://127.0.0.1:4568/callback",
                "com.flightdeck.desktop:/oauth/callback", "flightdeck://oauth/callback",
                "http://evil.example/callback", "",
            ]),
            query in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["code", "state", "error", "error_description", "x", ""]),
                    "\\PC{0,16}",
                ),
                0..6,
            ),
            tail in "\\PC{0,12}",
            keep_state in proptest::bool::ANY,
        ) {
            let pending = auth().begin(PkceMethod::S256);
            let mut text = format!("{base}{tail}?");
            for (k, v) in &query {
                let v = if *k == "state" && keep_state { pending.state() } else { v.as_str() };
                text.push_str(&format!("{k}={v}&"));
            }
            if let Ok(url) = Url::parse(&text) {
                match check_redirect(&pending, &url) {
                    Ok(code) => {
                        let states: Vec<_> = url.query_pairs().filter(|(k, _)| k == "state").collect();
                        proptest::prop_assert_eq!(states.len(), 1);
                        proptest::prop_assert_eq!(states[0].1.as_ref(), pending.state());
                        proptest::prop_assert_eq!(url.path(), "/callback");
                        proptest::prop_assert!(!code.secret().is_empty() || url.query_pairs().any(|(k, _)| k == "code"));
                    }
                    Err(e) => {
                        let codes: Vec<String> = url
                            .query_pairs()
                            .filter(|(k, v)| k == "code" && v.len() > 3)
                            .map(|(_, v)| v.into_owned())
                            .collect();
                        for c in codes {
                            proptest::prop_assert!(!e.to_string().contains(&c), "{e}");
                        }
                    }
                }
            }
        }
    }
}
