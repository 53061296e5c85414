//! What the client adds on top of HTTP: `all_ad_orders()` (fetch and decode into
//! `Vec<AdOrder>`) over 100,000 ad orders, against `curl` fetching the same listing and
//! throwing it away, on loopback from an in-process sandbox.
//!
//! Both fetch the same URL with the same credentials, the same number of times, after
//! one warm-up each, and the medians are compared. Runs alternate between the two, so a
//! busy moment on a shared machine falls on both rather than on one. curl is timed two
//! ways: its own `time_total` (the transfer, which the ratio uses) and the wall time of
//! the process, start-up included.
//!
//! Run with `cargo bench -p flightdeck-client`. Figures go in the issue notes, never in
//! tests. `BENCH_AD_ORDERS` and `BENCH_RUNS` shrink the workload for a quick look.

use std::process::Command;
use std::time::{Duration, Instant};

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_model::{AdOrder, Envelope};
use flightdeck_sandbox::testing;
use serde_json::Value;

/// The allocator the app and the CLI, which call `all_ad_orders()`, run with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let orders = env_or("BENCH_AD_ORDERS", 100_000);
    let runs = env_or("BENCH_RUNS", 7).max(1);

    let sandbox = testing::demo_sandbox()?;
    let now = sandbox.state().clock.now_ms();
    let campaign = testing::demo_campaign(&sandbox)?;
    let started = Instant::now();
    testing::load_ad_orders(&sandbox, campaign, orders, now)?;
    println!(
        "load: {orders} ad orders through store::adorder_save in {:.2} s",
        started.elapsed().as_secs_f64()
    );

    let running = sandbox.clone().spawn("127.0.0.1:0".parse()?).await?;
    let base = running.base_url();
    let url = format!("{base}/v1/adorder/getAllAdOrders");
    let client = Client::new(
        ClientConfig::new(&base)?,
        Credentials::basic("demo", "demo"),
    )?;
    let with_curl = curl_available();

    // Warm-ups: the password check, caches, the first connection.
    let expected = client.all_ad_orders().await?.entity.len();
    let expected_bytes = if with_curl {
        Some(curl(&url).await?.bytes)
    } else {
        println!("curl: not found on PATH; the client is timed alone");
        None
    };

    let mut client_times = Vec::new();
    let mut curl_transfer = Vec::new();
    let mut curl_wall = Vec::new();
    // This process's CPU time (its sandbox serving, plus the client when it runs): what
    // each side costs, which bounds the wall time a machine of few cores can reach.
    let mut cpu_with_client = Duration::ZERO;
    let mut cpu_with_curl = Duration::ZERO;
    for _ in 0..runs {
        let c = cpu_time();
        let t = Instant::now();
        let reply = client.all_ad_orders().await?;
        client_times.push(t.elapsed());
        cpu_with_client += cpu_time().saturating_sub(c);
        if reply.entity.len() != expected {
            return Err(format!("listing changed: {} ad orders", reply.entity.len()).into());
        }
        drop(reply);
        if with_curl {
            let c = cpu_time();
            let t = Instant::now();
            let run = curl(&url).await?;
            curl_wall.push(t.elapsed());
            cpu_with_curl += cpu_time().saturating_sub(c);
            curl_transfer.push(run.total);
            if Some(run.bytes) != expected_bytes {
                return Err(format!("curl got {} bytes", run.bytes).into());
            }
        }
    }
    let client_median = median(&mut client_times);
    println!(
        "client.all_ad_orders(): {expected} ad orders; median {:.0} ms, min {:.0} ms, max {:.0} ms ({runs} runs)",
        ms(client_median),
        ms(client_times[0]),
        ms(client_times[client_times.len() - 1]),
    );
    if with_curl {
        let transfer = median(&mut curl_transfer);
        let wall = median(&mut curl_wall);
        println!(
            "curl -s -o /dev/null -u demo:demo, same URL: time_total median {:.0} ms, min {:.0} ms, max {:.0} ms; with process start-up median {:.0} ms ({runs} runs)",
            ms(transfer),
            ms(curl_transfer[0]),
            ms(curl_transfer[curl_transfer.len() - 1]),
            ms(wall),
        );
        println!(
            "ratio client / curl: {:.2} (against curl with start-up: {:.2})",
            client_median.as_secs_f64() / transfer.as_secs_f64(),
            client_median.as_secs_f64() / wall.as_secs_f64(),
        );
        let per_run = |d: Duration| ms(d) / runs as f64;
        let serving = per_run(cpu_with_curl);
        let client_cpu = (per_run(cpu_with_client) - serving).max(0.0);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "CPU per listing: the sandbox serving it {serving:.0} ms, the client reading and decoding it {client_cpu:.0} ms; \
             on {cores} cores both need at least {:.0} ms of wall time ({:.2} x curl)",
            (serving + client_cpu) / cores as f64,
            (serving + client_cpu) / cores as f64 / ms(transfer),
        );
    }

    // For reading the ratio: the same fetch through reqwest without decoding.
    let http = reqwest::Client::new();
    let mut raw_times = Vec::new();
    let mut bytes = Default::default();
    for _ in 0..runs {
        let t = Instant::now();
        let body = http
            .get(&url)
            .basic_auth("demo", Some("demo"))
            .send()
            .await?
            .bytes()
            .await?;
        raw_times.push(t.elapsed());
        bytes = body;
    }
    let raw_median = median(&mut raw_times);
    println!(
        "reqwest fetch only (no decode): {:.1} MB; median {:.0} ms (the client adds {:.0} ms)",
        bytes.len() as f64 / 1e6,
        ms(raw_median),
        ms(client_median.saturating_sub(raw_median)),
    );
    // And the decode alone, on one thread, typed and untyped, to see what the model
    // types cost.
    let mut typed = Vec::new();
    let mut untyped = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let e: Envelope<Vec<AdOrder>> = serde_json::from_slice(&bytes)?;
        typed.push(t.elapsed());
        drop(e);
        let t = Instant::now();
        let v: Value = serde_json::from_slice(&bytes)?;
        untyped.push(t.elapsed());
        drop(v);
    }
    println!(
        "decode only, one thread: Envelope<Vec<AdOrder>> median {:.0} ms, serde_json::Value median {:.0} ms",
        ms(median(&mut typed)),
        ms(median(&mut untyped))
    );
    running.stop().await?;
    Ok(())
}

/// This process's CPU time so far, user and system, from `/proc/self/stat` (Linux; zero
/// elsewhere), in clock ticks of 10 ms: summed over the runs, not read per run.
fn cpu_time() -> Duration {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command's closing parenthesis; utime and stime are the 12th
            // and 13th of them.
            let rest = s.get(s.rfind(')')? + 1..)?;
            let mut fields = rest.split_whitespace().skip(11);
            let user: u64 = fields.next()?.parse().ok()?;
            let system: u64 = fields.next()?.parse().ok()?;
            Some(user + system)
        });
    Duration::from_millis(ticks.unwrap_or(0) * 10)
}

fn curl_available() -> bool {
    Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What one `curl` run reports.
struct CurlRun {
    /// Its own `time_total`: from the start of the request to the last byte.
    total: Duration,
    /// Bytes of the body.
    bytes: usize,
}

/// One `curl` run, off the async threads so the in-process server keeps serving.
async fn curl(url: &str) -> Result<CurlRun, BoxError> {
    let url = url.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code} %{size_download} %{time_total}",
                "-u",
                "demo:demo",
            ])
            .arg(&url)
            .output()
    })
    .await??;
    let report = String::from_utf8_lossy(&out.stdout);
    let mut fields = report.split_whitespace();
    let (Some(code), Some(bytes), Some(total)) = (fields.next(), fields.next(), fields.next())
    else {
        return Err(format!("curl reported {report:?}").into());
    };
    if code != "200" {
        return Err(format!("curl got HTTP {code}").into());
    }
    Ok(CurlRun {
        total: Duration::from_secs_f64(total.parse()?),
        bytes: bytes.parse()?,
    })
}

/// Sorts `times` and returns the median.
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
