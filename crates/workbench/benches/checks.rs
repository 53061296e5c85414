//! Checking drafted creatives: 10,000 creatives, each with a VAST document or an HTML
//! tag of about 5 KB, through `check_creative`, as "Check all creatives" will run them.
//! The target is under 1 s in a release build.
//!
//! Three workloads: all VAST (VIDEO+VASTXML, the heavier: the linter builds a tree),
//! all tags (BANNER+TAG), and half of each. Beside them, the parts for scale: the
//! VAST linter alone, our VAST summary pass alone, and `quick-xml` reading the same
//! documents event by event (the floor: no check can read XML faster).
//!
//! Run with `cargo bench -p flightdeck-workbench`. `BENCH_CREATIVES` and `BENCH_RUNS`
//! shrink the workload for a quick look; `BENCH_SHOW=1` prints the findings of the
//! first VAST creative and the first tag.

use std::hint::black_box;
use std::time::{Duration, Instant};

use flightdeck_model::{Creative, CreativeSubtype, CreativeType, DisplayAsset, Size, VideoAsset};
use flightdeck_workbench::{check_creative, inspect_vast};

/// The allocator the app and the CLI run checks with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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

/// A third-party display tag of about 5 KB: the ad.size meta tag, a sized container,
/// a clickTag, a loader script and a block of inline script.
fn tag(i: usize) -> String {
    let mut script = String::new();
    let mut n = 0;
    while script.len() < 4_300 {
        script.push_str(&format!(
            "    var p{n} = {{ id: 'slot-{i}-{n}', w: 300, h: 250, url: 'https://cdn.example.com/a/{i}/{n}.js' }};\n    if (window.__fd && p{n}.w > 0) {{ queue.push(p{n}); }}\n"
        ));
        n += 1;
    }
    format!(
        r#"<meta name="ad.size" content="width=300,height=250">
<div id="ad-{i}" style="width:300px;height:250px;position:relative;overflow:hidden">
  <a href="%%CLICK_URL_UNESC%%https://shop.example.com/landing?c={i}" target="_blank">
    <img src="https://cdn.example.com/c{i}/300x250.jpg" width="300" height="250" alt="Creative {i}">
  </a>
  <img src="https://track.example.com/d/imp?c={i}" width="1" height="1" style="display:none">
</div>
<script type="text/javascript">
  var clickTag = "%%CLICK_URL_ESC%%";
  var queue = [];
{script}</script>
<script src="https://cdn.example.com/loader.js?c={i}" async></script>
"#
    )
}

fn video(i: usize) -> Creative {
    Creative {
        name: Some(format!("Video {i}")),
        creative_type: Some(CreativeType::VIDEO),
        creative_subtype: Some(CreativeSubtype::VASTXML),
        landing_page_url: Some(format!("https://shop.example.com/landing?c={i}")),
        video: Some(VideoAsset {
            vast_xml: Some(vast(i)),
            ..VideoAsset::default()
        }),
        ..Creative::default()
    }
}

fn banner(i: usize) -> Creative {
    Creative {
        name: Some(format!("Banner {i}")),
        creative_type: Some(CreativeType::BANNER),
        creative_subtype: Some(CreativeSubtype::TAG),
        size: Some(Size {
            width: Some(300),
            height: Some(250),
        }),
        display: Some(DisplayAsset {
            html_asset: Some(tag(i)),
            ..DisplayAsset::default()
        }),
        ..Creative::default()
    }
}

/// Median of `runs` timed calls of `f`.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn report(what: &str, count: usize, bytes: usize, d: Duration) {
    let ms = d.as_secs_f64() * 1000.0;
    let us = d.as_secs_f64() * 1e6 / count.max(1) as f64;
    let mbps = bytes as f64 / 1e6 / d.as_secs_f64();
    println!("{what}: median {ms:.0} ms ({us:.1} µs a creative, {mbps:.0} MB/s)");
}

fn check_all(list: &[Creative]) -> usize {
    list.iter().map(|c| check_creative(c).len()).sum()
}

fn main() {
    let count = env_or("BENCH_CREATIVES", 10_000);
    let runs = env_or("BENCH_RUNS", 5).max(1);

    let videos: Vec<Creative> = (0..count).map(video).collect();
    let banners: Vec<Creative> = (0..count).map(banner).collect();
    let mixed: Vec<Creative> = (0..count)
        .map(|i| if i % 2 == 0 { video(i) } else { banner(i) })
        .collect();
    let docs: Vec<&str> = videos
        .iter()
        .filter_map(|c| c.video.as_ref()?.vast_xml.as_deref())
        .collect();
    let vast_bytes: usize = docs.iter().map(|d| d.len()).sum();
    let tag_bytes: usize = banners
        .iter()
        .filter_map(|c| Some(c.display.as_ref()?.html_asset.as_ref()?.len()))
        .sum();
    println!(
        "{count} creatives: VAST documents of {:.1} KB, tags of {:.1} KB on average ({runs} runs each)",
        vast_bytes as f64 / count.max(1) as f64 / 1024.0,
        tag_bytes as f64 / count.max(1) as f64 / 1024.0,
    );

    if std::env::var_os("BENCH_SHOW").is_some() {
        for f in check_creative(&videos[0])
            .iter()
            .chain(&check_creative(&banners[0]))
        {
            println!("  {} {:?} {:?} {:?}", f.rule, f.level, f.line, f.message);
        }
    }
    let d = time(runs, || check_all(&videos));
    report("check_creative, all VAST", count, vast_bytes, d);
    let d = time(runs, || check_all(&banners));
    report("check_creative, all tags", count, tag_bytes, d);
    let d = time(runs, || check_all(&mixed));
    report(
        "check_creative, half and half",
        count,
        (vast_bytes + tag_bytes) / 2,
        d,
    );

    let d = time(runs, || {
        docs.iter()
            .map(|d| vastlint_core::validate(d).issues.len())
            .sum::<usize>()
    });
    report("  part: vastlint_core::validate", count, vast_bytes, d);
    let d = time(runs, || {
        docs.iter()
            .map(|d| inspect_vast(d).ads.len())
            .sum::<usize>()
    });
    report("  part: inspect_vast", count, vast_bytes, d);
    let d = time(runs, || {
        docs.iter()
            .map(|d| {
                let mut reader = quick_xml::Reader::from_str(d);
                let mut events = 0usize;
                while !matches!(
                    reader.read_event(),
                    Ok(quick_xml::events::Event::Eof) | Err(_)
                ) {
                    events += 1;
                }
                events
            })
            .sum::<usize>()
    });
    report("  floor: quick-xml events only", count, vast_bytes, d);
}
