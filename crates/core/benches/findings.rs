//! What the creative checks cost where the hosts use them, at 10,000 drafted creatives
//! (or `BENCH_CREATIVES`), each a VIDEO+VASTXML with a 5 KB VAST document, in a real
//! workspace file: the creatives table's index, its first `has:findings` query (every
//! creative checked), the same filter again and after a save (kept counts), after a
//! download rebuilt the index (counts kept by a hash of each creative's JSON), and
//! "Check all creatives" over the whole kind.
//!
//! Run with `cargo bench -p flightdeck-core --bench findings`. `BENCH_RUNS` sets the runs
//! per figure (5).

use std::time::{Duration, Instant};

use flightdeck_core::checks::check_targets;
use flightdeck_core::query::{HAS_FINDINGS, TableQuery, Tables};
use flightdeck_model::{Advertiser, Creative};
use flightdeck_offline::change::Kind;
use flightdeck_offline::workspace::Workspace;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(label: &str, mut v: Vec<Duration>) {
    v.sort();
    println!(
        "{label:<52} median {:>9.1} ms   max {:>9.1} ms   ({} runs)",
        ms(v[v.len() / 2]),
        ms(v[v.len() - 1]),
        v.len()
    );
}

fn query(filter: &str) -> TableQuery {
    TableQuery {
        filter: filter.to_owned(),
        offset: 0,
        limit: 60,
        ..TableQuery::all()
    }
}

/// A VAST 4.2 InLine of about 5 KB: impressions, quartile and progress trackers, four
/// renditions, a click-through and click trackers; `i` makes each one distinct.
fn vast(i: usize) -> String {
    let mut trackers = String::new();
    for event in [
        "start",
        "firstQuartile",
        "midpoint",
        "thirdQuartile",
        "complete",
        "pause",
        "resume",
        "mute",
        "unmute",
    ] {
        trackers.push_str(&format!(
            "              <Tracking event=\"{event}\"><![CDATA[https://track.example.com/v/{event}?c={i}&cb=[CACHEBUSTING]]]></Tracking>\n"
        ));
    }
    let mut media = String::new();
    for (w, h, kbps) in [
        (640, 360, 800),
        (854, 480, 1200),
        (1280, 720, 2500),
        (1920, 1080, 4500),
    ] {
        media.push_str(&format!(
            "              <MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"{w}\" height=\"{h}\" bitrate=\"{kbps}\" codec=\"H.264\"><![CDATA[https://cdn.example.com/c{i}/spot-{w}x{h}.mp4]]></MediaFile>\n"
        ));
    }
    let mut doc = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<VAST version="4.2" xmlns="http://www.iab.com/VAST">
  <Ad id="ad-{i}" adType="video">
    <InLine>
      <AdSystem version="4.2">Bench Ad Server</AdSystem>
      <AdServingId>serving-{i}</AdServingId>
      <AdTitle>Bench creative {i}, 30 seconds</AdTitle>
      <Error><![CDATA[https://track.example.com/v/error?c={i}&code=[ERRORCODE]]]></Error>
      <Impression id="imp1"><![CDATA[https://track.example.com/v/imp?c={i}&ts=[TIMESTAMP]]]></Impression>
      <Impression id="imp2"><![CDATA[https://verify.example.net/imp?c={i}&cb=[CACHEBUSTING]]]></Impression>
      <Creatives>
        <Creative id="cr-{i}" adId="bench-{i}" sequence="1">
          <UniversalAdId idRegistry="ad-id.org">BNCH{i:08}H</UniversalAdId>
          <Linear skipoffset="00:00:05">
            <Duration>00:00:30.000</Duration>
            <TrackingEvents>
{trackers}            </TrackingEvents>
            <VideoClicks>
              <ClickThrough id="ct"><![CDATA[https://shop.example.com/landing?c={i}]]></ClickThrough>
              <ClickTracking id="ck1"><![CDATA[https://track.example.com/v/click?c={i}]]></ClickTracking>
              <ClickTracking id="ck2"><![CDATA[https://verify.example.net/click?c={i}]]></ClickTracking>
            </VideoClicks>
            <MediaFiles>
{media}            </MediaFiles>
          </Linear>
        </Creative>
      </Creatives>
      <Extensions>
"#
    );
    let mut n = 0;
    while doc.len() < 4_900 {
        doc.push_str(&format!(
            "        <Extension type=\"bench\"><Note><![CDATA[padding {n} of creative {i}]]></Note></Extension>\n"
        ));
        n += 1;
    }
    doc.push_str("      </Extensions>\n    </InLine>\n  </Ad>\n</VAST>\n");
    doc
}

fn video(i: usize) -> Result<Creative, serde_json::Error> {
    serde_json::from_value(serde_json::json!({
        "name": format!("Spot {i}"), "creativeType": "VIDEO", "creativeSubtype": "VASTXML",
        "type": {"mediaType": "VAST"}, "landingPageUrl": "https://shop.example.com/",
        "video": {"vastXml": vast(i)}
    }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let n = env("BENCH_CREATIVES", 10_000);
    let runs = env("BENCH_RUNS", 5);
    let dir = tempfile::tempdir()?;
    let mut ws = Workspace::open(dir.path().join("w.db"))?;
    let advertiser: Advertiser = serde_json::from_value(serde_json::json!({
        "name": "Bench", "agencyId": 1, "currency": "USD", "category": "IAB3"
    }))?;
    let parent = ws.create_advertiser(advertiser)?;
    let started = Instant::now();
    let mut first = None;
    for i in 0..n {
        let t = ws.create_creative(&parent, video(i)?)?;
        first.get_or_insert(t);
    }
    let first = first.ok_or("no creatives")?;
    println!(
        "{n} creative drafts with 5 KB VAST documents saved in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut build = Vec::new();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut saved = Vec::new();
    let mut rebuilt = Vec::new();
    let mut all = Vec::new();
    for _ in 0..runs {
        let tables = Tables::default();
        let t = Instant::now();
        tables.window::<serde_json::Value>(&ws, Kind::Creative, &query(""))?;
        build.push(t.elapsed());

        let t = Instant::now();
        let w = tables.window::<serde_json::Value>(&ws, Kind::Creative, &query(HAS_FINDINGS))?;
        cold.push(t.elapsed());
        assert_eq!(w.unfiltered as usize, n);

        let t = Instant::now();
        tables.window::<serde_json::Value>(
            &ws,
            Kind::Creative,
            &query(&format!("{HAS_FINDINGS} spot")),
        )?;
        warm.push(t.elapsed());

        // A save re-reads its row: the filter checks that creative alone again.
        tables.touched(&ws, std::slice::from_ref(&first))?;
        let t = Instant::now();
        tables.window::<serde_json::Value>(&ws, Kind::Creative, &query(HAS_FINDINGS))?;
        saved.push(t.elapsed());

        // A download or a post rebuilds the kind: the counts are kept by JSON hash.
        tables.invalidate(&[Kind::Creative]);
        let t = Instant::now();
        tables.window::<serde_json::Value>(&ws, Kind::Creative, &query(HAS_FINDINGS))?;
        rebuilt.push(t.elapsed());

        let targets = tables.targets(&ws, Kind::Creative, &query(""))?;
        let t = Instant::now();
        let found = check_targets(&ws, &targets, 50)?;
        all.push(t.elapsed());
        assert_eq!(found.checked as usize, n);
    }
    median("table index, first window (no checks)", build);
    median("first has:findings (every creative checked)", cold);
    median("has:findings with another word (counts kept)", warm);
    median("has:findings after a save (one creative re-checked)", saved);
    median(
        "has:findings after a rebuild (index + JSON hashes)",
        rebuilt,
    );
    median("Check all creatives (check_targets, 50 listed)", all);
    Ok(())
}
