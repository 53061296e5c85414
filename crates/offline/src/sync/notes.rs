//! The messages a push leaves on a change: the service's own, passed through, and
//! Flightdeck's, each with a code a host can act on. Flightdeck's failures found before
//! sending are [`Error::Unpostable`], never dressed as an answer of the service.

use flightdeck_client::{Error as ClientError, ServerMessage};
use flightdeck_model::MessageLevel;

use super::{
    BLOCKED_CODE, CONFLICT_CODE, FOUND_CODE, ID_TAKEN_CODE, LOOKUP_WAIT_CODE, NEEDS_REVIEW_CODE,
    WRONG_ID_CODE,
};
use crate::Error;
use crate::change::{EntityRef, Kind, Op};
use crate::merge::FieldConflict;
use crate::workspace::ChangeMessage;

/// Message code of a stored change that does not fit its resource.
pub(super) const MALFORMED_CODE: &str = "MALFORMED";
/// Message code of an operation the service has no endpoint for.
pub(super) const NO_ENDPOINT_CODE: &str = flightdeck_model::validate::codes::INVALID;
/// Message code of a change whose parent or target has no id on the service yet.
pub(super) const NOT_POSTED_CODE: &str = "PARENT_NOT_POSTED";
/// Message code of a local failure of any other kind.
const LOCAL_CODE: &str = "LOCAL";

pub(super) fn note(level: MessageLevel, code: &str, message: impl Into<String>) -> ChangeMessage {
    ChangeMessage {
        level,
        code: code.to_owned(),
        message: message.into(),
        field: None,
    }
}

/// A create whose request may have landed, still not listed by the service, when the
/// push stopped before the grace period ended: the next push looks again.
pub(super) fn grace_note() -> ChangeMessage {
    note(
        MessageLevel::Info,
        LOOKUP_WAIT_CODE,
        "no answer came when this was sent, and the ad platform does not list it yet; the next \
         post looks for it again and sends it only once a late arrival can be ruled out",
    )
}

pub(super) fn blocked_note(reason: &str) -> ChangeMessage {
    note(MessageLevel::Warning, BLOCKED_CODE, reason)
}

pub(super) fn found_note() -> ChangeMessage {
    note(
        MessageLevel::Info,
        FOUND_CODE,
        "the ad platform already had this change (its answer had been lost); it was not sent again",
    )
}

/// A lost create of a kind with no look-up.
pub(super) fn unknown_note(kind: Kind) -> ChangeMessage {
    let what = match kind {
        Kind::Creative => "creative",
        Kind::SiteList => "site list",
        _ => "change",
    };
    note(
        MessageLevel::Error,
        NEEDS_REVIEW_CODE,
        format!(
            "the connection was lost after this {what} was sent, and the ad platform offers no way \
             to look it up: it may or may not have been created. Check it on the ad platform, \
             then settle it: post it again if it is not there, or mark it created with the id \
             the ad platform shows"
        ),
    )
}

/// An upload whose outcome is unknown: the service offers no way to tell whether a
/// request's records were stored (a segment's counts move only when the data is
/// processed, minutes later), so it is left to the buyer rather than sent again.
pub(super) fn upload_unknown_note() -> ChangeMessage {
    note(
        MessageLevel::Error,
        NEEDS_REVIEW_CODE,
        "the connection was lost after this upload was sent, and the ad platform offers no way \
         to look it up: its identifiers may or may not have been stored. Check the segment's \
         count on the ad platform once it has processed the data (about every 10 minutes), \
         then post this upload again or discard it",
    )
}

/// An answer the workspace would not record ([`Error::WrongId`], [`Error::IdTaken`]), in
/// the buyer's words; `found` when the id came from the look-up of a lost answer.
pub(super) fn refused_answer_note(e: &Error, found: bool) -> ChangeMessage {
    match e {
        Error::IdTaken { kind, id } => {
            let label = kind.label();
            let how = if found {
                format!(
                    "the look-up of this new {label}, whose answer was lost, found {label} {id} \
                     by its client reference"
                )
            } else {
                format!("the ad platform answered this new {label} with id {id}")
            };
            note(
                MessageLevel::Error,
                ID_TAKEN_CODE,
                format!(
                    "{how}, but {label} {id} is another {label} in this workspace, with edits \
                     of its own not posted yet: nothing was recorded, and its edits are kept. \
                     Check on the ad platform whether this one was created: if it was, mark it \
                     created with the id the ad platform shows (if that is {id}, the two are \
                     one: discard the edits of one of them first); if not, post it again"
                ),
            )
        }
        other => note(MessageLevel::Error, WRONG_ID_CODE, other.to_string()),
    }
}

/// The buyer's message for one field in conflict; the values themselves are stored
/// apart, by [`crate::workspace::Workspace::mark_conflict`].
pub(crate) fn conflict_note(c: &FieldConflict) -> ChangeMessage {
    ChangeMessage {
        level: MessageLevel::Error,
        code: CONFLICT_CODE.into(),
        message: format!("the ad platform changed {} since you downloaded it", c.path),
        field: Some(c.path.clone()),
    }
}

/// What the client reported: the service's messages when it sent some, else the error.
pub(super) fn error_notes(e: &ClientError) -> Vec<ChangeMessage> {
    let messages: Vec<ChangeMessage> = e.messages().iter().map(ChangeMessage::from).collect();
    if !messages.is_empty() {
        return messages;
    }
    let mut only = note(
        MessageLevel::Error,
        &format!("{:?}", e.kind()).to_uppercase(),
        e.to_string(),
    );
    // A value Flightdeck would not send names its field, so a host can show it there
    // (the text starts with the path, as the service's own messages do).
    if let ClientError::Invalid { field, .. } = e {
        only.field = Some(field.clone()).filter(|f| !f.is_empty());
    }
    vec![only]
}

pub(super) fn info_notes(messages: &[ServerMessage]) -> Vec<ChangeMessage> {
    messages.iter().map(ChangeMessage::from).collect()
}

/// A local failure, in Flightdeck's words and under its own code.
pub(super) fn local_notes(e: &Error) -> Vec<ChangeMessage> {
    let code = match e {
        Error::Unpostable { code, .. } => code,
        _ => LOCAL_CODE,
    };
    vec![note(MessageLevel::Error, code, e.to_string())]
}

/// A stored change that cannot become its request: refused here, never sent.
pub(super) fn malformed(e: impl std::fmt::Display) -> Error {
    Error::Unpostable {
        code: MALFORMED_CODE,
        message: format!("the change does not fit its resource and cannot be posted: {e}"),
    }
}

/// An operation the service has no request for.
pub(super) fn no_endpoint(kind: Kind, op: Op) -> Error {
    Error::Unpostable {
        code: NO_ENDPOINT_CODE,
        message: match kind {
            Kind::Creative | Kind::AudienceSegment => {
                flightdeck_model::validate::NO_UPDATE_ENDPOINT.to_owned()
            }
            _ => format!("the ad platform has no way to apply {op:?} to {kind:?}"),
        },
    }
}

/// `target` (a parent, or the entity a change modifies) has no id on the service yet.
pub(super) fn not_posted(target: &EntityRef) -> Error {
    Error::Unpostable {
        code: NOT_POSTED_CODE,
        message: format!(
            "{:?} {} has no id on the ad platform yet; post it first",
            target.kind, target.key
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_value_flightdeck_would_not_send_keeps_its_field() {
        let notes = error_notes(&ClientError::Invalid {
            field: "[0].values[3]".into(),
            message: "is too large".into(),
        });
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].field.as_deref(), Some("[0].values[3]"));
        assert_eq!(notes[0].code, "INVALID");
        assert_eq!(notes[0].message, "[0].values[3]: is too large");
    }

    #[test]
    fn a_conflict_message_names_the_field_in_plain_words() {
        let c = FieldConflict {
            path: "name".into(),
            base: Some(json!("a")),
            mine: Some(json!("b")),
            theirs: Some(json!("c")),
        };
        let m = conflict_note(&c);
        assert_eq!(m.field.as_deref(), Some("name"));
        assert_eq!(m.code, CONFLICT_CODE);
        assert_eq!(
            m.message,
            "the ad platform changed name since you downloaded it"
        );
    }
}
