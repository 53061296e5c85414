//! Saving a form's content (`Workspace::save_draft`, the one save path every host takes)
//! against checking it (`Workspace::validate_draft`): a form with no parent chosen is
//! refused at its picker, and an upload is normalised once, before and after its segment
//! lands, so what the form shows is what saving records.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use common::{Server, by_name, file, open, typed};
use flightdeck_model::FieldError;
use flightdeck_model::validate::codes;
use flightdeck_offline::Error;
use flightdeck_offline::change::{EntityRef, Key, Kind, Op};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{Draft, Workspace};
use serde_json::{Value, json};

fn draft(v: Value) -> Draft {
    typed(v)
}

/// Checks `d` live, then saves it: both must give the same errors. `Err` holds a
/// refusal's errors (nothing saved), `Ok` the saved entity and the errors it carries.
fn check_then_save(
    ws: &mut Workspace,
    target: Option<&EntityRef>,
    parent: Option<&EntityRef>,
    d: Draft,
) -> Result<(EntityRef, Vec<FieldError>), Vec<FieldError>> {
    let live = ws.validate_draft(target, parent, &d).unwrap();
    let saved = match ws.save_draft(target, parent, d) {
        Ok(saved) => Ok(saved),
        Err(Error::Refused(e)) => Err(e.0),
        Err(other) => panic!("the save failed: {other}"),
    };
    let stored = match &saved {
        Ok((_, errors)) | Err(errors) => errors,
    };
    assert_eq!(&live, stored, "live and saved errors differ");
    saved
}

#[test]
fn a_form_without_a_parent_is_refused_at_its_picker() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let campaign = json!({"kind": "campaign", "value": {"name": "Orphan", "flights": []}});
    let order = json!({"kind": "ad_order", "value": {"name": "Orphan order"}});
    let creative = json!({"kind": "creative", "value": {"name": "Orphan banner"}});
    for (d, picker) in [
        (campaign, "parent.advertiser"),
        (order, "parent.campaign"),
        (creative, "parent.advertiser"),
    ] {
        let refused = check_then_save(&mut ws, None, None, draft(d)).unwrap_err();
        assert_eq!(refused[0].field, picker);
        assert_eq!(refused[0].code, codes::REQUIRED);
        assert!(refused[0].message.starts_with("Choose the"), "{refused:?}");
        // The value's other errors come with it; the parent's id is the picker's.
        assert!(refused.len() > 1, "{refused:?}");
        assert!(
            refused
                .iter()
                .all(|e| e.field != "advertiserId" && e.field != "campaignId"),
            "{refused:?}"
        );
    }
    assert!(ws.pending().unwrap().is_empty(), "nothing is saved");
}

#[test]
fn a_site_list_change_without_a_list_is_refused_alike() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let d = json!({"kind": "site_list", "op": "append", "value": {"siteIds": [1]}});
    let refused = check_then_save(&mut ws, None, None, draft(d)).unwrap_err();
    assert_eq!(refused.len(), 1);
    assert_eq!(
        (refused[0].field.as_str(), refused[0].code.as_str()),
        ("id", codes::REQUIRED)
    );
}

/// The upload normalisation once had two copies (one for the live check, one for the
/// save) that looked the segment's remote id up in two ways. Now both run the save's:
/// before the segment lands and after, the live check and the save agree, and the saved
/// upload carries the normalised country and the segment's id as it stands.
#[tokio::test]
async fn an_upload_checks_and_saves_alike_before_and_after_its_segment_lands() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let segment = json!({"kind": "audience_segment", "value": {
        "name": "Buyers", "dataType": "email_sha256", "accountId": 1,
        "advertiserIds": [1], "externalAudienceId": "buyers-upload"}});
    let (draft_segment, errors) = check_then_save(&mut ws, None, None, draft(segment)).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let create_seq = ws.pending().unwrap()[0].seq;

    let sha = "a".repeat(64);
    let upload = |country: &str, value: &str| {
        draft(
            json!({"kind": "audience_data", "value": {"countryCode": country, "values": [value]}}),
        )
    };

    // A draft segment: the upload waits for its id.
    let (saved, errors) =
        check_then_save(&mut ws, None, Some(&draft_segment), upload(" us ", &sha)).unwrap();
    assert_eq!(saved, draft_segment);
    assert!(errors.is_empty(), "{errors:?}");
    let queued = ws.pending().unwrap().pop().unwrap();
    assert_eq!(queued.op, Op::AudienceData);
    assert_eq!(queued.payload[0]["countryCode"], "US");
    assert_eq!(queued.payload[0]["serviceSegmentId"], "");
    assert_eq!(queued.parents[0].target, draft_segment);
    // Errors at the form's own paths, refused alike.
    let refused =
        check_then_save(&mut ws, None, Some(&draft_segment), upload("us", "no-hash")).unwrap_err();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].field, "values[0]");

    // The segment lands: uploads now name its id.
    let options = PushOptions {
        only: Some(BTreeSet::from([create_seq])),
        ..PushOptions::default()
    };
    sync::push(&mut ws, &client, &options, |_| {})
        .await
        .unwrap();
    let landed = by_name(&ws, Kind::AudienceSegment, "Buyers");
    let Key::Segment(id) = &landed.key else {
        panic!("the segment has no service id: {landed:?}");
    };
    let (_, errors) = check_then_save(&mut ws, None, Some(&landed), upload(" us ", &sha)).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let queued = ws.pending().unwrap().pop().unwrap();
    assert_eq!(queued.payload[0]["countryCode"], "US");
    assert_eq!(queued.payload[0]["serviceSegmentId"], id.as_str());
    assert!(queued.parents.is_empty(), "{:?}", queued.parents);
    let refused = check_then_save(&mut ws, None, Some(&landed), upload("USA", &sha)).unwrap_err();
    assert_eq!(refused[0].field, "countryCode");
    // The check left nothing behind: one upload before, one after the segment landed.
    let uploads = ws.audience_uploads(&landed).unwrap();
    assert_eq!(uploads.len(), 2, "{uploads:?}");
}
