//! Token endpoint bodies.

use serde::{Deserialize, Serialize};

/// Seconds an access token lives.
pub const TOKEN_EXPIRES_IN: i64 = 86_400;

/// Success body of `/v1/oauth2/token` and `/v1/oauth2/authenticate`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenResponse {
    /// JWT presented as `Authorization: Bearer`.
    pub access_token: String,
    /// Lifetime in seconds.
    pub expires_in: i64,
    /// JWT describing the signed-in user.
    pub id_token: String,
    /// Opaque, revocable. Absent from refresh answers for users.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Always `Bearer`.
    pub token_type: String,
}

impl std::fmt::Debug for TokenResponse {
    /// Tokens are secrets: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("access_token", &"<redacted>")
            .field("expires_in", &self.expires_in)
            .field("id_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("token_type", &self.token_type)
            .finish()
    }
}

/// Body of `/v1/oauth2/token`, as JSON or form.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenRequest {
    /// `authorization_code` or `refresh_token`.
    #[serde(default)]
    pub grant_type: Option<String>,
    /// Authorization code (code exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Must equal the one used at login (code exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// PKCE verifier, when a challenge was sent at login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_verifier: Option<String>,
    /// Refresh token (refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

impl std::fmt::Debug for TokenRequest {
    /// Codes, verifiers and refresh tokens are secrets: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("grant_type", &self.grant_type)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// `{error, error_description}` body of the token endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenError {
    /// OAuth2 error code, such as `invalid_grant`.
    pub error: String,
    /// Human-readable detail.
    pub error_description: String,
}
