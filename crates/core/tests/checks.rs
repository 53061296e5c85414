//! Creative checks as the hosts show them, on a real workspace file: a form being
//! edited, a saved draft, a selection ("Check all creatives"), the table's
//! `has:findings` filter, the pending changes' Check, and "Fetch and check" of a VAST
//! URL served over HTTP on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use flightdeck_core::bulk::{BulkScope, TableSelection};
use flightdeck_core::checks::{self, AdKind, Level};
use flightdeck_core::query::{HAS_FINDINGS, HAS_WARNINGS, TableQuery};
use flightdeck_core::{Account, Core, OpenOptions, Selection};
use flightdeck_model::Creative;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::Draft;
use serde_json::{Value, json};

const HTTP_TAG: &str = "<div style=\"width:300px;height:250px\">\n\
  <a href=\"%%CLICK_URL_UNESC%%https://shop.example.com/\">Shop</a>\n\
  <script src=\"http://ads.example.com/loader.js\"></script>\n\
</div>";

const VAST_INLINE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<VAST version="4.2" xmlns="http://www.iab.com/VAST">
  <Ad id="v4-inline">
    <InLine>
      <AdSystem version="4.2">Flightdeck Fixtures</AdSystem>
      <AdServingId>fd-0001</AdServingId>
      <AdTitle>Winter sale</AdTitle>
      <Impression id="imp1"><![CDATA[https://track.example.com/imp]]></Impression>
      <Creatives>
        <Creative id="c1" adId="winter-6">
          <UniversalAdId idRegistry="ad-id.org">FDCK0001000H</UniversalAdId>
          <Linear>
            <Duration>00:00:06.000</Duration>
            <TrackingEvents>
              <Tracking event="start"><![CDATA[https://track.example.com/start]]></Tracking>
            </TrackingEvents>
            <MediaFiles>
              <MediaFile delivery="progressive" type="video/mp4" width="1920" height="1080" bitrate="4500"><![CDATA[https://cdn.example.com/winter-1080.mp4]]></MediaFile>
            </MediaFiles>
            <VideoClicks>
              <ClickThrough id="ct"><![CDATA[https://shop.example.com/winter]]></ClickThrough>
            </VideoClicks>
          </Linear>
        </Creative>
      </Creatives>
    </InLine>
  </Ad>
</VAST>"#;

fn creative(v: Value) -> Creative {
    serde_json::from_value(v).unwrap()
}

fn tag(name: &str, html: &str) -> Creative {
    creative(json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": html, "landingPageUrl": "https://shop.example.com/"
    }))
}

fn hosted(name: &str, landing: &str) -> Creative {
    creative(json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
        "landingPageUrl": landing, "size": {"width": 300, "height": 250}
    }))
}

fn video(name: &str, xml: &str) -> Creative {
    creative(json!({
        "name": name, "creativeType": "VIDEO", "creativeSubtype": "VASTXML",
        "type": {"mediaType": "VIDEO"}, "landingPageUrl": "https://shop.example.com/",
        "video": {"vastXml": xml}
    }))
}

async fn account() -> (tempfile::TempDir, Core, Arc<Account>) {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    (dir, core, account)
}

fn advertiser(account: &Account) -> EntityRef {
    let value = serde_json::from_value(json!({
        "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
    }))
    .unwrap();
    account
        .save(None, None, Draft::Advertiser { value })
        .unwrap()
        .target
}

fn save(account: &Account, parent: &EntityRef, c: Creative) -> EntityRef {
    account
        .save(None, Some(parent), Draft::Creative { value: c })
        .unwrap()
        .target
}

fn filtered(filter: &str) -> TableQuery {
    TableQuery {
        filter: filter.to_owned(),
        ..TableQuery::all()
    }
}

fn names(account: &Account, filter: &str) -> Vec<String> {
    account
        .window::<Creative>(Kind::Creative, &filtered(filter))
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.value.name.unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_form_being_edited_shows_the_same_findings_its_saved_draft_does() {
    let (_dir, _core, account) = account().await;
    let draft = Draft::Creative {
        value: tag("Http tag", HTTP_TAG),
    };
    let live = account.draft_checks(&draft);
    let http = live
        .findings
        .iter()
        .find(|f| f.rule == "tag.http-resource")
        .expect("the http:// script is found while the form is edited");
    assert_eq!(http.level, Level::Warning);
    assert_eq!(http.path, "htmlAsset");
    assert_eq!(http.line, Some(3), "the line of the <script> in the tag");

    // A warning never blocks the save, and the model's errors stay what they were.
    let parent = advertiser(&account);
    let saved = account
        .save(None, Some(&parent), draft)
        .expect("warnings do not block a save");
    assert!(saved.errors.is_empty(), "{:?}", saved.errors);
    let stored = account.creative_checks(&saved.target).unwrap();
    assert_eq!(stored, live);

    // A VAST creative answers what the inspector shows.
    let target = save(&account, &parent, video("Winter", VAST_INLINE));
    let vast = account.creative_checks(&target).unwrap();
    let doc = &vast.vast[0];
    assert_eq!(doc.path, "video.vastXml");
    assert_eq!(doc.summary.version.as_deref(), Some("4.2"));
    let ad = &doc.summary.ads[0];
    assert_eq!(ad.kind, Some(AdKind::InLine));
    let linear = ad.creatives[0].linear.as_ref().unwrap();
    assert_eq!(linear.duration_ms, Some(6000));
    assert_eq!(linear.media_files[0].bitrate, Some(4500));
    assert!(linear.media_files[0].https);

    // Other kinds have none.
    assert_eq!(
        account.creative_checks(&parent).unwrap(),
        checks::CreativeChecks::default()
    );
}

#[tokio::test]
async fn the_table_filters_by_findings_and_a_selection_is_checked_with_counts() {
    let (_dir, _core, account) = account().await;
    let parent = advertiser(&account);
    let http_tag = save(&account, &parent, tag("Http tag", HTTP_TAG));
    let plain = save(
        &account,
        &parent,
        hosted("Clean banner", "https://shop.example.com/"),
    );
    let http_landing = save(
        &account,
        &parent,
        hosted("Http landing", "http://shop.example.com/"),
    );

    assert_eq!(names(&account, HAS_FINDINGS), ["Http tag", "Http landing"]);
    assert_eq!(names(&account, HAS_WARNINGS), ["Http tag", "Http landing"]);
    assert_eq!(
        names(&account, &format!("landing {HAS_FINDINGS}")),
        ["Http landing"],
        "the word narrows with the rest of the filter"
    );
    assert_eq!(names(&account, "").len(), 3, "without it, every row");

    // An edit that adds a finding shows at once in the filtered table.
    account
        .save(
            Some(&plain),
            None,
            Draft::Creative {
                value: hosted("Clean banner", "http://shop.example.com/"),
            },
        )
        .unwrap();
    assert_eq!(names(&account, HAS_FINDINGS).len(), 3);

    // "Check all creatives" on ticked rows: counts, each rule, and the creatives.
    let ids = BulkScope::Ids(vec![http_tag.clone(), http_landing.clone(), parent.clone()]);
    let found = account.check_creatives(&ids).unwrap();
    assert_eq!(found.checked, 2, "the advertiser is not a creative");
    assert_eq!(found.with_findings, 2);
    assert!(found.warnings >= 2, "{found:?}");
    let http = found
        .rules
        .iter()
        .find(|r| r.rule == "url.http")
        .expect("the http landing page's rule is counted");
    assert_eq!(http.creatives, 1);
    assert_eq!(found.creatives[0].target, http_tag);
    assert_eq!(found.creatives[0].label, "Http tag");

    // "Select all" of the filtered table, less one unticked row.
    let all = BulkScope::Query(TableSelection {
        kind: Kind::Creative,
        query: filtered(HAS_FINDINGS),
        except: vec![http_tag],
    });
    let found = account.check_creatives(&all).unwrap();
    assert_eq!(found.checked, 2);
    assert_eq!(found.with_findings, 2);
    let every = account
        .check_creatives(&BulkScope::Kind(Kind::Creative))
        .unwrap();
    assert_eq!(every.checked, 3);
}

#[tokio::test]
async fn check_lists_each_pending_creatives_warnings_and_holds_none_back() {
    let (_dir, _core, account) = account().await;
    let parent = advertiser(&account);
    save(&account, &parent, tag("Http tag", HTTP_TAG));
    save(
        &account,
        &parent,
        hosted("Clean banner", "https://shop.example.com/"),
    );

    let summary = account.check_changes().unwrap();
    assert_eq!(summary.checked, 3, "the advertiser and two creatives");
    assert_eq!(summary.invalid, 0, "warnings never make a change invalid");
    assert_eq!(summary.with_findings, 1);
    assert!(summary.warnings >= 1);

    let checked = account.check_all().unwrap();
    assert!(checked.broken.is_empty());
    assert_eq!(checked.findings.len(), 1);
    assert_eq!(checked.findings[0].label, "Http tag");

    // The Pending screen shows them beside the change.
    let window = account.pending_window(&TableQuery::all()).unwrap();
    let tagged = window.rows.iter().find(|c| c.label == "Http tag").unwrap();
    assert!(
        tagged
            .findings
            .iter()
            .any(|f| f.rule == "tag.http-resource" && f.level == Level::Warning)
    );
    let clean = window
        .rows
        .iter()
        .find(|c| c.label == "Clean banner")
        .unwrap();
    assert!(clean.findings.is_empty());
}

/// A VAST document pointing at `next`.
fn wrapper(next: &str) -> String {
    format!(
        r#"<VAST version="3.0"><Ad id="w"><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI><![CDATA[{next}]]></VASTAdTagURI><Impression><![CDATA[https://track.example.com/w]]></Impression></Wrapper></Ad></VAST>"#
    )
}

/// Serves fixture VAST documents on loopback: a wrapper to an inline document, a chain
/// of wrappers that never ends, a loop, a 404 and a document too large.
async fn vast_server() -> String {
    use axum::extract::Path;
    use axum::routing::get;
    let app = axum::Router::new()
        .route("/inline.xml", get(|| async { VAST_INLINE }))
        .route("/wrapper.xml", get(|| async { wrapper("/inline.xml") }))
        .route(
            "/deep/{n}",
            get(|Path(n): Path<u32>| async move { wrapper(&format!("/deep/{}", n + 1)) }),
        )
        .route("/loop.xml", get(|| async { wrapper("/loop.xml") }))
        .route("/big.xml", get(|| async { "x".repeat(2 * 1024 * 1024) }))
        .route(
            "/slow.xml",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                VAST_INLINE
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_and_check_follows_wrappers_within_its_limits() {
    let (_dir, _core, account) = account().await;
    let base = vast_server().await;

    let hops = account
        .fetch_vast("video.vastUrl", &format!("{base}/wrapper.xml"))
        .await
        .unwrap();
    assert_eq!(hops.len(), 2, "the wrapper, then the inline document");
    assert_eq!(hops[0].status, Some(200));
    assert_eq!(hops[1].url, format!("{base}/inline.xml"));
    let inline = hops[1].summary.as_ref().unwrap();
    assert_eq!(inline.ads[0].kind, Some(AdKind::InLine));
    assert!(hops.iter().all(|h| h.problem.is_none()), "{hops:?}");
    // The wrapper's http:// URL is fine to fetch; its own findings sit at the field.
    assert!(hops[0].findings.iter().all(|f| f.path == "video.vastUrl"));

    // A chain that never ends stops after the limit of wrappers.
    let hops = account
        .fetch_vast("video.vastUrl", &format!("{base}/deep/0"))
        .await
        .unwrap();
    assert_eq!(hops.len(), flightdeck_workbench::WRAPPER_DEPTH_MAX + 1);
    assert!(
        hops.last()
            .unwrap()
            .problem
            .as_deref()
            .unwrap()
            .contains("more than 5 wrappers"),
        "{hops:?}"
    );

    let hops = account
        .fetch_vast("video.vastUrl", &format!("{base}/loop.xml"))
        .await
        .unwrap();
    assert_eq!(hops.len(), 1);
    assert!(hops[0].problem.as_deref().unwrap().contains("loop"));

    let hops = account
        .fetch_vast("video.vastUrl", &format!("{base}/missing.xml"))
        .await
        .unwrap();
    assert_eq!(hops[0].status, Some(404));
    assert!(hops[0].problem.as_deref().unwrap().contains("404"));

    let hops = account
        .fetch_vast("video.vastUrl", &format!("{base}/big.xml"))
        .await
        .unwrap();
    assert!(hops[0].problem.as_deref().unwrap().contains("larger than"));
    assert!(
        hops[0].summary.is_none(),
        "a document cut short is not read"
    );

    let hops = checks::fetch::fetch_chain(
        "video.vastUrl",
        &format!("{base}/slow.xml"),
        Duration::from_millis(300),
        checks::FETCH_MAX_BYTES,
    )
    .await
    .unwrap();
    assert!(
        hops[0]
            .problem
            .as_deref()
            .unwrap()
            .contains("no answer within")
    );

    for refused in ["file:///etc/passwd", "ftp://example.com/a.xml", "not a url"] {
        let err = account.fetch_vast("video.vastUrl", refused).await;
        assert!(err.is_err(), "{refused} is refused before anything is sent");
    }
}

#[tokio::test]
async fn a_large_selection_is_checked_on_every_core_with_the_same_counts() {
    let (_dir, _core, account) = account().await;
    let parent = advertiser(&account);
    {
        let mut ws = account.workspace().unwrap();
        for i in 0..300 {
            let landing = if i % 3 == 0 {
                "http://shop.example.com/"
            } else {
                "https://shop.example.com/"
            };
            ws.create_creative(&parent, hosted(&format!("Banner {i}"), landing))
                .unwrap();
        }
    }
    let every = account
        .check_creatives_keeping(&BulkScope::Kind(Kind::Creative), usize::MAX)
        .unwrap();
    assert_eq!(every.checked, 300);
    assert_eq!(every.with_findings, 100);
    assert_eq!(every.creatives.len(), 100);
    assert_eq!(every.creatives[0].label, "Banner 0");
    assert_eq!(
        every.creatives[99].label, "Banner 297",
        "in the selection's order"
    );
    let window = account
        .window::<Creative>(Kind::Creative, &filtered(HAS_FINDINGS))
        .unwrap();
    assert_eq!(window.total, 100);
    assert_eq!(window.unfiltered, 300);
}
