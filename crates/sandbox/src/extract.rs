//! Request-body parsing that answers in the service's own error shape and names the
//! field at fault, instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::AppState;
use crate::error::Error;

/// A JSON body kept as a value, so updates can tell absent from null and unknown fields survive.
pub struct JsonBody(pub Value);

impl FromRequest<AppState> for JsonBody {
    type Rejection = Error;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| Error::Malformed(format!("body: {e}")))?;
        if bytes.is_empty() {
            return Err(Error::Malformed("body: a JSON body is required".into()));
        }
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| Error::Malformed(format!("body: not valid JSON ({e})")))
    }
}

/// Converts a JSON value into a wire type, naming the field that does not fit.
pub fn typed<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    typed_at(value, "")
}

/// As [`typed`], with `prefix` (such as `[2]`) put before the path.
pub fn typed_at<T: DeserializeOwned>(value: &Value, prefix: &str) -> Result<T, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let field = format!("{prefix}{path}");
        let field = if field.is_empty() {
            "body".to_owned()
        } else {
            field
        };
        Error::Malformed(format!("{field}: {}", e.into_inner()))
    })
}

/// The body as a JSON object, or a 400 saying what was expected.
pub fn object(value: Value) -> Result<serde_json::Map<String, Value>, Error> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(Error::Malformed("body: expected a JSON object".into())),
    }
}

/// The body as a JSON array, or a 400 saying what was expected.
pub fn array(value: Value) -> Result<Vec<Value>, Error> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(Error::Malformed("body: expected a JSON array".into())),
    }
}
