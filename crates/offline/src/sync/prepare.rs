//! A stored change becomes a request, on the driving task with the workspace: remote ids
//! of its parents filled in, and for a create, the client reference it can be found by
//! (see the module notes of [`crate::sync`]).

use serde_json::Value;

use super::notes;
use super::record::StepEnd;
use crate::change::{ChangeStatus, EntityRef, Key, Kind, Op, PendingChange};
use crate::workspace::Workspace;
use crate::{Error, Result};

/// A change ready to post: the body with remote ids and the client reference filled in.
pub(super) struct Job {
    pub(super) seq: i64,
    pub(super) target: EntityRef,
    pub(super) op: Op,
    /// The entity's remote key, when it has one.
    pub(super) remote: Option<Key>,
    pub(super) body: Value,
    pub(super) base: Option<Value>,
    pub(super) client_ref: Option<String>,
    /// The change was `Sending` when the push started: its last request may have been
    /// applied, so it is looked up (or, when it cannot be, reviewed) before anything else.
    pub(super) was_sending: bool,
    /// For a change `Sending` at the start: when its last request left (Unix ms), if
    /// known. Counts towards the grace period before "not found" is believed.
    pub(super) sent_at: Option<i64>,
    /// Attempts already spent on the change in this push (a create sent again goes back
    /// to the driving task to be marked first, and keeps its count).
    pub(super) attempts: u32,
}

/// What preparing a step gives: a request to make, or an end reached without one.
pub(super) enum Prepared {
    Job(Box<Job>),
    Settled(StepEnd),
}

/// Reads change `seq` and makes it a [`Job`], with the remote ids of its parents and
/// its client reference in the body; settles it at once when it cannot be sent now.
pub(super) fn prepare(ws: &Workspace, seq: i64) -> Result<Prepared> {
    let Some(change) = ws.change(seq)? else {
        return Err(Error::NotFound(format!(
            "change {seq} is not in the workspace"
        )));
    };
    let PendingChange {
        target,
        op,
        parents,
        mut payload,
        base,
        status,
        client_ref,
        ..
    } = change;
    for parent in &parents {
        match ws.resolve_remote(&parent.target)? {
            Some(Key::Id(id)) => set_pointer(&mut payload, &parent.pointer, Value::from(id)),
            Some(Key::Segment(id)) => {
                set_pointer(&mut payload, &parent.pointer, Value::from(id));
            }
            _ => return Ok(not_posted_yet(&parent.target)),
        }
    }
    let remote = match target.kind {
        // Caps are keyed by their ad order; the order's id is the one that matters.
        Kind::FlightCaps => {
            ws.resolve_remote(&EntityRef::new(Kind::AdOrder, target.key.clone()))?
        }
        _ => ws.resolve_remote(&target)?,
    };
    if op != Op::Create
        && !matches!(target.kind, Kind::FlightCaps | Kind::AudienceSegment)
        && let Some(Key::Id(id)) = &remote
    {
        set_pointer(&mut payload, "/id", Value::from(*id));
    }
    let client_ref = if op == Op::Create {
        apply_client_ref(target.kind, &mut payload, client_ref)
    } else {
        None
    };
    let was_sending = status == ChangeStatus::Sending;
    if was_sending && op == Op::AudienceData {
        return Ok(Prepared::Settled(StepEnd::NeedsReview(vec![
            notes::upload_unknown_note(),
        ])));
    }
    // The parents are filled in: the payload says whether it can be looked up.
    if was_sending && op == Op::Create && !target.kind.lost_create_lookup().finds(&payload, &[]) {
        return Ok(Prepared::Settled(StepEnd::NeedsReview(vec![
            notes::unknown_note(target.kind),
        ])));
    }
    // Caps go to their ad order's id and uploads to their segment's, which the plan posts
    // first: without one the change waits, like one whose parent has no id yet.
    match (target.kind, op, &remote) {
        (Kind::FlightCaps, _, Some(Key::Id(_))) | (_, Op::AudienceData, Some(Key::Segment(_))) => {}
        (Kind::FlightCaps, _, _) => {
            return Ok(not_posted_yet(&EntityRef::new(
                Kind::AdOrder,
                target.key.clone(),
            )));
        }
        (_, Op::AudienceData, _) => return Ok(not_posted_yet(&target)),
        // A status goes to an ad order the service has: a draft's waits for its create.
        (_, Op::SetStatus, Some(Key::Id(_))) => {}
        (_, Op::SetStatus, _) => return Ok(not_posted_yet(&target)),
        _ => {}
    }
    let sent_at = if was_sending { ws.sent_at(seq)? } else { None };
    Ok(Prepared::Job(Box::new(Job {
        seq,
        target,
        op,
        remote,
        body: payload,
        base,
        client_ref,
        was_sending,
        sent_at,
        attempts: 0,
    })))
}

/// Left `Pending`: `target` has no id on the service yet.
fn not_posted_yet(target: &EntityRef) -> Prepared {
    Prepared::Settled(StepEnd::Unsent {
        status: ChangeStatus::Pending,
        messages: notes::local_notes(&notes::not_posted(target)),
    })
}

/// The create's client reference: the client id the buyer set, else the one stored by
/// an earlier attempt, else a new one — written into the payload when it was empty.
fn apply_client_ref(kind: Kind, payload: &mut Value, stored: Option<String>) -> Option<String> {
    let fields = kind.client_reference_fields();
    let first = fields.first()?;
    let set = fields.iter().find_map(|f| {
        payload
            .get(*f)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    });
    if let Some(existing) = set {
        return Some(existing.to_owned());
    }
    let reference = stored
        .filter(|s| s.starts_with(REF_PREFIX))
        .unwrap_or_else(new_client_ref);
    set_pointer(
        payload,
        &format!("/{first}"),
        Value::from(reference.clone()),
    );
    Some(reference)
}

/// Prefix of the client references Flightdeck generates (see the module notes).
pub(crate) const REF_PREFIX: &str = "fd-";

/// `fd-` and 16 hex digits: 19 characters, within every external-id limit (26 for creatives).
fn new_client_ref() -> String {
    format!("{REF_PREFIX}{:016x}", rand::random::<u64>())
}

/// Sets a member by JSON pointer, adding it when its object exists but lacks it.
pub(super) fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    if let Some(slot) = root.pointer_mut(pointer) {
        *slot = value;
        return;
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    if let Some(Value::Object(map)) = root.pointer_mut(parent) {
        map.insert(last.replace("~1", "/").replace("~0", "~"), value);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn client_refs_fit_every_external_id_field() {
        let r = new_client_ref();
        assert!(r.starts_with(REF_PREFIX));
        assert_eq!(r.len(), 19);
        assert!(r.len() <= 26);
    }

    #[test]
    fn a_buyer_client_id_is_the_reference_and_is_never_doubled() {
        let mut order = json!({"name": "o", "ioNumber": "IO-7"});
        let r = apply_client_ref(Kind::AdOrder, &mut order, None);
        assert_eq!(r.as_deref(), Some("IO-7"));
        // Sending externalAdOrderId too would be a 400 IDENTIFIER_CONFLICT.
        assert!(order.get("externalAdOrderId").is_none());

        let mut adv = json!({"name": "a", "externalAdvertiserId": null});
        let r = apply_client_ref(
            Kind::Advertiser,
            &mut adv,
            Some("fd-0123456789abcdef".into()),
        );
        assert_eq!(r.as_deref(), Some("fd-0123456789abcdef"));
        assert_eq!(adv["externalAdvertiserId"], "fd-0123456789abcdef");

        let mut creative = json!({"name": "c"});
        let r = apply_client_ref(Kind::Creative, &mut creative, None).unwrap_or_default();
        assert_eq!(creative["externalCreativeid"], r);
        let mut list = json!({"name": "l"});
        assert_eq!(apply_client_ref(Kind::SiteList, &mut list, None), None);
    }

    #[test]
    fn pointers_fill_present_and_absent_members() {
        let mut v = json!({"campaignId": null, "caps": [{"orderId": null}]});
        set_pointer(&mut v, "/campaignId", json!(5));
        set_pointer(&mut v, "/caps/0/orderId", json!(6));
        set_pointer(&mut v, "/id", json!(7));
        assert_eq!(
            v,
            json!({"campaignId": 5, "caps": [{"orderId": 6}], "id": 7})
        );
    }
}
