//! `flightdeck-sandbox`: runs the local advertising service until Ctrl-C or SIGTERM.
//!
//! The first line on stdout is `listening on http://ADDR` with the bound address, so
//! callers can start it with `--addr 127.0.0.1:0` and read the port. Errors are one
//! line on stderr and a non-zero exit.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use flightdeck_sandbox::auth::TokenSigning;
use flightdeck_sandbox::{Config, Sandbox, Seed};

/// Local implementation of the advertising service, on SQLite.
#[derive(Debug, Parser)]
#[command(name = "flightdeck-sandbox", version, about, after_help = flightdeck_sandbox::seed::DEMO_SUMMARY)]
struct Args {
    /// Address to listen on; port 0 picks a free port (see the first stdout line).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8700")]
    addr: String,

    /// Database file, created if missing; without it everything stays in memory.
    #[arg(long, value_name = "PATH")]
    data: Option<PathBuf>,

    /// Initial data for a fresh database: `demo`, `none`, or a JSON seed file.
    /// A database that already has accounts is never re-seeded.
    #[arg(long, value_name = "demo|none|FILE", default_value = "demo", value_parser = parse_seed)]
    seed: Seed,

    /// Start the service clock at this instant (Unix milliseconds); it runs on from there.
    #[arg(long, value_name = "UNIX_MS", allow_negative_numbers = true)]
    clock: Option<i64>,

    /// Enable the `/_sandbox/` test controls for requests sending this token in the
    /// `X-Sandbox-Admin-Token` header; at least 16 characters. Prefer the environment
    /// variable or --admin-token-file: other local users can read a command line.
    #[arg(
        long,
        value_name = "TOKEN",
        env = ADMIN_TOKEN_ENV,
        hide_env_values = true
    )]
    admin_token: Option<String>,

    /// Read the admin token from the first line of this file (see --admin-token); it wins
    /// over --admin-token and the environment variable (clap counts a value from the
    /// environment as given, so a conflict between them would refuse an exported one).
    #[arg(long, value_name = "PATH")]
    admin_token_file: Option<PathBuf>,

    /// Also answer requests whose Host is NAME (any port), besides the loopback names
    /// localhost, 127.0.0.1 and [::1]; repeat for several. Needed when --addr is not a
    /// loopback address. Other names get 421, which stops DNS rebinding.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,

    /// How access and id tokens are signed: `hs256`, short tokens (about 300 bytes), or
    /// `rs256`, tokens of the size a real identity provider issues (1.2–1.6 KB: RS256
    /// with a key id, issuer, audience, scopes and roles), to try a client's token
    /// storage. A database keeps the key it was first started with for each.
    #[arg(long, value_name = "hs256|rs256", default_value = "hs256", value_parser = parse_signing)]
    token_signing: TokenSigning,
}

/// Environment variable read when `--admin-token` is not given; the desktop app reads
/// the same one for its embedded sandbox.
const ADMIN_TOKEN_ENV: &str = "FLIGHTDECK_SANDBOX_ADMIN_TOKEN";

fn parse_signing(s: &str) -> Result<TokenSigning, String> {
    match s {
        "hs256" => Ok(TokenSigning::Hs256),
        "rs256" => Ok(TokenSigning::Rs256),
        _ => Err("expected hs256 or rs256".into()),
    }
}

fn parse_seed(s: &str) -> Result<Seed, String> {
    match s {
        "demo" => Ok(Seed::Demo),
        "none" => Ok(Seed::None),
        "" => Err("expected demo, none, or a file path".into()),
        path => Ok(Seed::File(PathBuf::from(path))),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    // Request spans and errors on standard error; stdout's first line stays the address.
    // FLIGHTDECK_LOG sets the filter (`debug` shows every request); warnings otherwise.
    let filter = std::env::var("FLIGHTDECK_LOG")
        .ok()
        .and_then(|f| tracing_subscriber::EnvFilter::try_new(f).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("flightdeck-sandbox: error: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), String> {
    if let Seed::File(path) = &args.seed {
        check_readable(path)?;
    }
    let admin_token = match (&args.admin_token, &args.admin_token_file) {
        (_, Some(path)) => Some(read_token_file(path)?),
        (Some(token), None) => Some(token.clone()),
        (None, None) => None,
    };
    if let Some(token) = &admin_token {
        flightdeck_sandbox::admin::check_token(token).map_err(|why| {
            let source = if args.admin_token_file.is_some() {
                "--admin-token-file"
            } else {
                "--admin-token (or FLIGHTDECK_SANDBOX_ADMIN_TOKEN)"
            };
            format!("{source}: {why}")
        })?;
    }
    let config = Config {
        data: args.data,
        seed: args.seed,
        clock_start: args.clock,
        admin_token,
        token_signing: args.token_signing,
    };
    let sandbox = Sandbox::open(&config)
        .map_err(|e| match &config.data {
            Some(path) => format!("opening {}: {e}", path.display()),
            None => format!("opening the in-memory database: {e}"),
        })?
        .allow_hosts(args.allow_hosts.clone());

    let listener = tokio::net::TcpListener::bind(args.addr.as_str())
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("reading the bound address: {e}"))?;
    if !addr.ip().is_loopback() && args.allow_hosts.is_empty() {
        eprintln!(
            "flightdeck-sandbox: note: listening on {addr}, but only requests for loopback \
             names are answered; add --allow-host NAME for the name clients use"
        );
    }
    // Installed before announcing the address, so a signal sent right after the
    // announcement already stops the server cleanly.
    let shutdown = shutdown_signal()?;

    {
        let mut out = std::io::stdout().lock();
        // A caller that closed stdout does not want the line; serving goes on.
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
    }

    sandbox
        .serve(listener, shutdown)
        .await
        .map_err(|e| format!("serving: {e}"))
}

/// The token in the first line of `path`, without its line ending. The error names the
/// file, never its content.
fn read_token_file(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--admin-token-file: cannot read {}: {e}", path.display()))?;
    Ok(text.lines().next().unwrap_or("").to_owned())
}

fn check_readable(path: &Path) -> Result<(), String> {
    let fail = |what: String| format!("cannot read seed file {}: {what}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    Ok(())
}

/// Completes on Ctrl-C or SIGTERM. The handlers are installed when this returns.
#[cfg(unix)]
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()> + Send + 'static, String> {
    use tokio::signal::unix::{SignalKind, signal};
    let install =
        |kind: SignalKind| signal(kind).map_err(|e| format!("installing the signal handler: {e}"));
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Completes on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()> + Send + 'static, String> {
    Ok(async {
        if tokio::signal::ctrl_c().await.is_err() {
            // Without a handler the process can only be killed; keep serving.
            std::future::pending::<()>().await;
        }
    })
}
