//! The OpenAPI 3 document of the `/v1` surface, served without authentication at
//! `GET /openapi.json`.
//!
//! * Business and audience operations are described by `#[utoipa::path]` on their
//!   handlers, and collected by each module's `Operations`.
//! * The token endpoints are described here, on functions that are never routed, so the
//!   OAuth module carries no documentation code.
//! * What applies across modules is added by [`document`]: title and version, the
//!   `bearer` and `basic` security schemes, and the deprecation flags (set here rather
//!   than with `#[deprecated]` on the handlers, which would warn where they are routed).
//!
//! `tests/openapi.rs` holds the document to the running server: it documents exactly the
//! endpoints of the service interface, every documented operation is routed, and no
//! documented path takes an undocumented method.

use std::sync::LazyLock;

use axum::routing::get;
use axum::{Json, Router};
use flightdeck_model::Message;
use utoipa::openapi::Deprecated;
use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{IntoResponses, OpenApi, ToSchema};

use crate::AppState;

/// `GET /openapi.json`.
pub fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(openapi_json))
}

/// The document as served, built once: utoipa's, with the enforced rules written in
/// ([`crate::schema_rules`]).
static DOCUMENT: LazyLock<serde_json::Value> = LazyLock::new(|| {
    let mut doc = serde_json::to_value(document()).unwrap_or_default();
    crate::schema_rules::apply(&mut doc);
    doc
});

async fn openapi_json() -> Json<&'static serde_json::Value> {
    Json(&*DOCUMENT)
}

/// Title of the document.
pub const TITLE: &str = "Flightdeck sandbox";

/// Security scheme: `Authorization: Bearer <access token>` (a JWT from the token endpoints).
pub const BEARER: &str = "bearer";

/// Security scheme: HTTP Basic, with user credentials (business endpoints,
/// `/v1/oauth2/authenticate`, user refresh) or client credentials (data-partner token
/// requests).
pub const BASIC: &str = "basic";

/// Operations the service marks deprecated. They remain callable.
pub const DEPRECATED: &[(HttpMethod, &str)] = &[
    (HttpMethod::Post, "/v1/adorder/save"),
    (HttpMethod::Post, "/v1/advertiser/save"),
    (HttpMethod::Get, "/v1/advertiser/getAllAdvertisers"),
    (
        HttpMethod::Post,
        "/v1/campaignflight/byCampaign/{campaign_id}",
    ),
];

/// The whole document: token, business and audience operations with their schemas,
/// security schemes, and deprecation flags.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = TokenOperations::openapi();
    doc.merge(crate::routes::business::Operations::openapi());
    doc.merge(crate::routes::audiences::Operations::openapi());
    doc.merge(crate::routes::trafficking::Operations::openapi());

    doc.info.title = TITLE.to_owned();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc.info.description = Some(
        "Local implementation of the advertising management service. Business endpoints \
         answer with the `{messages, entity}` envelope, token endpoints fail with \
         `{error, error_description}`, audience endpoints fail with `{error}`. Dates are \
         Unix time in milliseconds; money is in USD."
            .to_owned(),
    );

    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        BEARER,
        SecurityScheme::Http(
            Http::builder()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .description(Some(
                    "Access token from /v1/oauth2/authenticate or /v1/oauth2/token.",
                ))
                .build(),
        ),
    );
    components.add_security_scheme(
        BASIC,
        SecurityScheme::Http(
            Http::builder()
                .scheme(HttpAuthScheme::Basic)
                .description(Some(
                    "User credentials (username:password), or on /v1/oauth2/token the \
                     client credentials (client_id:client_secret) of a data partner.",
                ))
                .build(),
        ),
    );

    for (method, path) in DEPRECATED {
        if let Some(op) = operation_mut(&mut doc, method, path) {
            op.deprecated = Some(Deprecated::True);
        }
    }
    doc
}

/// The operation at `method` `path`, if documented.
fn operation_mut<'a>(
    doc: &'a mut utoipa::openapi::OpenApi,
    method: &HttpMethod,
    path: &str,
) -> Option<&'a mut Operation> {
    let item = doc.paths.paths.get_mut(path)?;
    match method {
        HttpMethod::Get => item.get.as_mut(),
        HttpMethod::Post => item.post.as_mut(),
        HttpMethod::Put => item.put.as_mut(),
        HttpMethod::Delete => item.delete.as_mut(),
        HttpMethod::Options => item.options.as_mut(),
        HttpMethod::Head => item.head.as_mut(),
        HttpMethod::Patch => item.patch.as_mut(),
        HttpMethod::Trace => item.trace.as_mut(),
    }
}

// ---------------------------------------------------------------------------------
// Schemas and responses shared by the business operations

/// The envelope of a failed business call: `messages` says why and `entity` is null.
#[derive(ToSchema)]
pub struct ErrorEnvelope {
    /// One `ERROR` message per problem; `code` is machine-readable.
    pub messages: Vec<Message>,
    /// Always null.
    #[schema(schema_with = null_schema)]
    pub entity: (),
}

fn null_schema() -> Schema {
    Schema::Object(ObjectBuilder::new().schema_type(Type::Null).build())
}

/// The body or a parameter is malformed or breaks a rule; `messages` names each problem.
#[derive(IntoResponses)]
#[response(status = 400)]
pub struct EnvelopeBadRequest(pub ErrorEnvelope);

/// Missing or invalid credentials.
#[derive(IntoResponses)]
#[response(status = 401)]
pub struct EnvelopeUnauthorized(pub ErrorEnvelope);

/// Valid credentials without permission: a read-only user writing, or a data partner's
/// token (business endpoints are for users).
#[derive(IntoResponses)]
#[response(status = 403)]
pub struct EnvelopeForbidden(pub ErrorEnvelope);

/// An id that names nothing in the caller's account.
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct EnvelopeNotFound(pub ErrorEnvelope);

// ---------------------------------------------------------------------------------
// Token endpoints (routed by `crate::oauth`)

#[derive(OpenApi)]
#[openapi(
    paths(
        token_docs::login_page,
        token_docs::login_submit,
        token_docs::token,
        token_docs::authenticate
    ),
    components(schemas(ErrorEnvelope)),
    tags(
        (name = "Token", description = "Access tokens: the data-partner login flow and code \
            exchange, user sign-in, and refresh."),
        (name = "Advertisers"),
        (name = "Campaigns"),
        (name = "Campaign flights"),
        (name = "Flight caps", description = "Per-flight caps of an ad order."),
        (name = "Ad orders"),
        (name = "Creatives"),
        (name = "Site lists"),
        (name = "Audiences", description = "First-party audience segments. Bearer token only; \
            failures are `{error}`."),
    )
)]
struct TokenOperations;

/// Body of `POST /v1/oauth2/login`: the login page's query again (hidden inputs) and the
/// user's credentials.
#[derive(ToSchema)]
pub struct LoginForm {
    /// As on the login page.
    pub client_id: String,
    /// As on the login page.
    pub redirect_uri: String,
    /// As on the login page.
    pub state: Option<String>,
    /// As on the login page.
    pub code_challenge: Option<String>,
    /// As on the login page.
    pub code_challenge_method: Option<String>,
    /// Service-issued username.
    pub username: String,
    /// The user's password.
    pub password: String,
}

/// Never-routed functions that carry the token endpoints' `#[utoipa::path]` descriptions.
#[allow(dead_code)]
mod token_docs {
    use flightdeck_model::{TokenError, TokenRequest, TokenResponse};

    use super::LoginForm;

    /// Shows the data-partner login page.
    ///
    /// The client and redirect URI must be registered; the user then signs in with the
    /// form, which posts to `POST /v1/oauth2/login`.
    #[utoipa::path(
        get,
        path = "/v1/oauth2/login",
        tag = "Token",
        params(
            ("client_id" = String, Query, description = "Issued by the service to the partner."),
            ("redirect_uri" = String, Query,
                description = "Registered callback URI that receives the authorization code."),
            ("state" = Option<String>, Query,
                description = "Random string against CSRF; returned to the redirect URI."),
            ("code_challenge" = Option<String>, Query, description = "PKCE; 43 to 128 characters."),
            ("code_challenge_method" = Option<String>, Query,
                description = "`plain` (the default) or `S256`; only with `code_challenge`."),
        ),
        responses(
            (status = 200, description = "The login form.", body = String, content_type = "text/html"),
            (status = 400, description = "Unknown client, unregistered redirect URI or bad PKCE \
                parameters; an error page, never a redirect.",
                body = String, content_type = "text/html"),
        ),
    )]
    fn login_page() {}

    /// Signs the user in and redirects to the partner with an authorization code.
    #[utoipa::path(
        post,
        path = "/v1/oauth2/login",
        tag = "Token",
        request_body(content = LoginForm, content_type = "application/x-www-form-urlencoded"),
        responses(
            (status = 303, description = "Signed in: redirect to `<redirect_uri>?code=…&state=…`.",
                headers(("Location" = String, description = "The redirect URI with the code."))),
            (status = 400, description = "Unknown client, unregistered redirect URI or bad PKCE \
                parameters; an error page.",
                body = String, content_type = "text/html"),
            (status = 401, description = "Missing or wrong username or password; the form again.",
                body = String, content_type = "text/html"),
            (status = 403, description = "The user is not in the account of the client; the form again.",
                body = String, content_type = "text/html"),
        ),
    )]
    fn login_submit() {}

    /// Exchanges an authorization code, or refreshes a token.
    ///
    /// Data partners send their client credentials as HTTP Basic for both grants. Users
    /// refresh with their own credentials and `X-Auth-Type: user`.
    #[utoipa::path(
        post,
        path = "/v1/oauth2/token",
        tag = "Token",
        params(
            ("X-Auth-Type" = Option<String>, Header,
                description = "`user` when the Basic credentials are a user's (refresh only)."),
        ),
        request_body(
            description = "`grant_type` `authorization_code` with `code`, `redirect_uri` and, \
                after a PKCE login, `code_verifier`; or `grant_type` `refresh_token` with \
                `refresh_token`.",
            content(
                (TokenRequest = "application/json"),
                (TokenRequest = "application/x-www-form-urlencoded"),
            ),
        ),
        responses(
            (status = 200, description = "The tokens.", body = TokenResponse),
            (status = 400, description = "Bad request, grant or code (`invalid_request`, \
                `invalid_grant`, `unsupported_grant_type`, `unauthorized_client`).",
                body = TokenError),
            (status = 401, description = "Missing or wrong Basic credentials (`invalid_client`).",
                body = TokenError),
        ),
        security(("basic" = [])),
    )]
    fn token() {}

    /// Signs an advertiser or agency user in.
    ///
    /// Takes the user's service-issued credentials as HTTP Basic and no body. The answer
    /// includes a `refresh_token`.
    #[utoipa::path(
        post,
        path = "/v1/oauth2/authenticate",
        tag = "Token",
        responses(
            (status = 200, description = "The tokens, with a refresh token.", body = TokenResponse),
            (status = 401, description = "Missing or wrong Basic credentials.", body = TokenError),
        ),
        security(("basic" = [])),
    )]
    fn authenticate() {}
}
