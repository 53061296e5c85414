//! The crate's error type: a list of field errors.

use serde::{Deserialize, Serialize};

/// One broken rule, tied to the field that breaks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FieldError {
    /// Path of the field on the wire, such as `flights[1].startDate` or `native.imageIcon`.
    pub field: String,
    /// Stable, machine-readable code (see [`crate::validate::codes`]).
    pub code: String,
    /// Plain-language description for a media buyer.
    pub message: String,
}

impl FieldError {
    /// A new error on `field`.
    pub fn new(field: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Every rule a value breaks, reported at once.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[error("{}", display_list(.0))]
pub struct ValidationErrors(pub Vec<FieldError>);

fn display_list(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl ValidationErrors {
    /// `Ok` when empty, so rule functions can end with `errors.into_result()`.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }

    /// Adds one error.
    pub fn push(&mut self, field: impl Into<String>, code: &str, message: impl Into<String>) {
        self.0.push(FieldError::new(field, code, message));
    }

    /// True when no rule is broken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The crate's one error enum.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The value breaks one or more rules.
    #[error("invalid: {0}")]
    Invalid(#[from] ValidationErrors),
}
