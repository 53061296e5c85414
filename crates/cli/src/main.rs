//! `flightdeck`: a thin command line over `flightdeck-client`, for scripting and support.
//! It signs in with the same session and keyring as the app, and lists what the service
//! holds. Output is a readable table, or JSON with `--json`.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use flightdeck_client::auth::{LoopbackListener, PartnerAuth, PkceMethod};
use flightdeck_client::session::Session;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{Client, ClientConfig, Credentials, Error, SecretString};
use flightdeck_model::validate::format_millis;
use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Parser)]
#[command(
    name = "flightdeck",
    version,
    about = "Flightdeck on the command line: sign in and list what the ad platform holds"
)]
struct Cli {
    /// Service root; the embedded sandbox listens on http://127.0.0.1:8700.
    #[arg(
        long,
        env = "FLIGHTDECK_BASE_URL",
        default_value = "http://127.0.0.1:8700",
        global = true
    )]
    base_url: String,
    /// Print JSON instead of a table.
    #[arg(long, global = true)]
    json: bool,
    /// Workspace file (default: one per signed-in account, in the user's data directory).
    #[arg(long, env = "FLIGHTDECK_WORKSPACE", global = true)]
    workspace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sign in; tokens go to the OS keyring.
    Login {
        /// Advertiser or agency username (asks for the password).
        #[arg(long, conflicts_with = "partner")]
        user: Option<String>,
        /// Sign in as this data-partner client id, through the browser (OAuth2 + PKCE).
        #[arg(long)]
        partner: Option<String>,
        /// Read the password (or client secret) from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Sign out and remove the saved tokens from the keyring.
    Logout,
    /// Advertisers.
    Advertisers {
        #[command(subcommand)]
        action: List,
    },
    /// Campaigns of one advertiser, with their flights.
    Campaigns {
        #[command(subcommand)]
        action: CampaignList,
    },
    /// Every ad order of the account.
    Adorders {
        #[command(subcommand)]
        action: List,
    },
    /// First-party audience segments: list them, or upload identifiers to one.
    Audiences {
        #[command(subcommand)]
        action: AudienceAction,
    },
    /// Download the account into the local workspace (entities with pending changes are kept).
    Pull {
        /// Only this advertiser, its campaigns, ad orders and caps.
        #[arg(long)]
        advertiser: Option<i64>,
    },
    /// Edit a downloaded entity in the workspace, offline; `push` posts it later.
    /// Fields the ad platform ignores on update, and posted creatives and segments (which
    /// it cannot update), are refused with the reason; nothing is saved then.
    Edit {
        /// advertiser, campaign, adorder, creative or segment.
        kind: EditKind,
        /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it
        /// (`draft 1a2b3c4d`, or just `1a2b3c4d`).
        id: String,
        /// A field and its new value, as JSON or plain text (`--set name="Spring sale"`,
        /// `--set lifetimeBudget=9000`, `--set frequencyCap.limit=3`).
        #[arg(long = "set", value_name = "FIELD=VALUE", required = true)]
        set: Vec<String>,
    },
    /// List the workspace's pending changes.
    Changes {
        /// Show each change's fields: before and after.
        #[arg(long)]
        diff: bool,
    },
    /// Validate every pending change ("check changes").
    Check,
    /// Drop pending changes (with the drafts that depend on them).
    Discard {
        /// Change numbers, as `changes` shows them.
        #[arg(required = true)]
        changes: Vec<i64>,
    },
    /// Copy a creative or segment (or any other entity) as a new draft: the way to
    /// change what the ad platform cannot update. `push` posts the copy.
    Duplicate {
        /// creative, segment, advertiser, campaign or adorder.
        kind: EditKind,
        /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it.
        id: String,
    },
    /// Post the pending changes, each exactly once.
    Push {
        /// Requests in flight at once.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EditKind {
    Advertiser,
    Campaign,
    Adorder,
    Creative,
    Segment,
}

#[derive(Subcommand)]
enum AudienceAction {
    /// List the account's segments (from the ad platform).
    List,
    /// Add the identifiers of a file to a segment: one per line, or one column of a CSV.
    /// The upload is queued in the workspace and posted at once (with the segment, if it
    /// is a draft); offline, or with `--offline`, it waits for `flightdeck push`.
    Upload {
        /// The segment: its serviceSegmentId, or a draft's key as `changes` shows it.
        segment: String,
        /// The file of identifiers (hashed e-mails, phone hashes, mobile ids …).
        file: PathBuf,
        /// Country of the identifiers (ISO 3166 two letters).
        #[arg(long, default_value = "US")]
        country: String,
        /// The CSV column to take (default: the only one, or the one named like
        /// identifiers: value, identifier, email, phone …).
        #[arg(long)]
        column: Option<String>,
        /// Only queue it; `flightdeck push` posts it later.
        #[arg(long)]
        offline: bool,
    },
}

#[derive(Subcommand)]
enum List {
    /// List them.
    List,
}

#[derive(Subcommand)]
enum CampaignList {
    /// List them.
    List {
        /// Advertiser id.
        #[arg(long)]
        advertiser: i64,
    },
}

/// Which account the commands use: written by `login`, holds no secret.
#[derive(Serialize, Deserialize)]
struct Current {
    base_url: String,
    account: String,
    partner: bool,
}

fn current_path() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("flightdeck").join("cli.json")
}

mod work;

/// Everything a command can fail with.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// From the service or the sign-in.
    #[error(transparent)]
    Client(#[from] Error),
    /// From the local workspace.
    #[error(transparent)]
    Workspace(#[from] flightdeck_offline::Error),
    /// Bad arguments or local files.
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    fn needs_sign_in(&self) -> bool {
        matches!(
            self,
            CliError::Client(Error::SignInRequired { .. } | Error::Unauthenticated { .. })
                | CliError::Workspace(flightdeck_offline::Error::Client(
                    Error::SignInRequired { .. } | Error::Unauthenticated { .. }
                ))
        )
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            if e.needs_sign_in() {
                eprintln!("hint: run `flightdeck login`");
            }
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let config = ClientConfig::new(&cli.base_url)?;
    let workspace = cli.workspace.clone();
    match cli.command {
        Command::Pull { advertiser } => {
            let client = client(&config).await?;
            work::pull(
                work::open(&config, workspace)?,
                &client,
                advertiser,
                cli.json,
            )
            .await
        }
        Command::Edit { kind, id, set } => {
            work::edit(work::open(&config, workspace)?, kind, &id, &set)
        }
        Command::Duplicate { kind, id } => {
            work::duplicate(work::open(&config, workspace)?, kind, &id)
        }
        Command::Audiences {
            action:
                AudienceAction::Upload {
                    segment,
                    file,
                    country,
                    column,
                    offline,
                },
        } => {
            let ws = work::open(&config, workspace)?;
            let upload = work::Upload {
                segment: &segment,
                file: &file,
                country: &country,
                column: column.as_deref(),
            };
            let client = if offline {
                None
            } else {
                match client(&config).await {
                    Ok(c) => Some(c),
                    // Not signed in is "offline" here: the upload waits in the workspace.
                    Err(e) if e.needs_sign_in() => {
                        eprintln!("Not signed in ({e}); the upload waits in the workspace.");
                        None
                    }
                    Err(e) => return Err(e),
                }
            };
            work::upload(ws, client.as_ref(), &upload, cli.json).await
        }
        Command::Changes { diff } => work::changes(work::open(&config, workspace)?, diff, cli.json),
        Command::Check => work::check(work::open(&config, workspace)?, cli.json),
        Command::Discard { changes } => work::discard(work::open(&config, workspace)?, &changes),
        Command::Push { concurrency } => {
            let client = client(&config).await?;
            work::push(
                work::open(&config, workspace)?,
                &client,
                concurrency,
                cli.json,
            )
            .await
        }
        Command::Login {
            user,
            partner,
            password_stdin,
        } => Ok(login(&config, user, partner, password_stdin).await?),
        Command::Logout => {
            if let Some(session) = restore(&config).await? {
                session.sign_out().await?;
            }
            let path = current_path();
            if path.exists() {
                std::fs::remove_file(&path)
                    .map_err(|e| Error::Config(format!("removing {}: {e}", path.display())))?;
            }
            eprintln!("Signed out.");
            Ok(())
        }
        Command::Advertisers { action: List::List } => {
            let client = client(&config).await?;
            let reply = with_spinner("advertisers", client.advertisers(None)).await?;
            print_messages(&reply.messages);
            output(
                cli.json,
                &reply.entity,
                &[
                    "id",
                    "name",
                    "category",
                    "currency",
                    "timezone",
                    "external id",
                ],
                |a| {
                    vec![
                        opt(a.id),
                        opt(a.name.clone()),
                        opt(a.category.clone()),
                        opt(a.currency.clone()),
                        a.timezone_name
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        opt(a.external_advertiser_id.clone()),
                    ]
                },
            )
        }
        Command::Campaigns {
            action: CampaignList::List { advertiser },
        } => {
            let client = client(&config).await?;
            let reply =
                with_spinner("campaigns", client.campaigns_by_advertiser(advertiser)).await?;
            print_messages(&reply.messages);
            output(
                cli.json,
                &reply.entity,
                &[
                    "id",
                    "name",
                    "domain",
                    "budget (USD)",
                    "start",
                    "end",
                    "flights",
                ],
                |c| {
                    vec![
                        opt(c.id),
                        opt(c.name.clone()),
                        opt(c.domain.clone()),
                        opt(c.max_budget),
                        c.start_date.map(format_millis).unwrap_or_default(),
                        c.end_date.map(format_millis).unwrap_or_default(),
                        c.flights.as_ref().map_or(0, Vec::len).to_string(),
                    ]
                },
            )
        }
        Command::Adorders { action: List::List } => {
            let client = client(&config).await?;
            let reply = with_spinner("ad orders", client.all_ad_orders()).await?;
            print_messages(&reply.messages);
            output(
                cli.json,
                &reply.entity,
                &[
                    "id",
                    "name",
                    "campaign",
                    "goal",
                    "budget (USD)",
                    "start",
                    "end",
                ],
                |o| {
                    vec![
                        opt(o.id),
                        opt(o.name.clone()),
                        opt(o.campaign_id),
                        o.optimization_goal
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        opt(o.lifetime_budget),
                        o.start_date.map(format_millis).unwrap_or_default(),
                        o.end_date.map(format_millis).unwrap_or_default(),
                    ]
                },
            )
        }
        Command::Audiences {
            action: AudienceAction::List,
        } => {
            let client = client(&config).await?;
            let bar = spinner("audience segments");
            let mut stream = std::pin::pin!(client.audiences_stream(100));
            let mut segments = Vec::new();
            while let Some(item) = stream.next().await {
                segments.push(item?);
                bar.set_message(format!("audience segments: {}", segments.len()));
            }
            bar.finish_and_clear();
            output(
                cli.json,
                &segments,
                &[
                    "segment id",
                    "name",
                    "data type",
                    "status",
                    "identifiers",
                    "ttl (s)",
                ],
                |s| {
                    vec![
                        opt(s.service_segment_id.clone()),
                        opt(s.name.clone()),
                        s.data_type
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        s.status
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        opt(s.data_count),
                        opt(s.ttl),
                    ]
                },
            )
        }
    }
}

async fn login(
    config: &ClientConfig,
    user: Option<String>,
    partner: Option<String>,
    from_stdin: bool,
) -> Result<(), Error> {
    if let Some(client_id) = partner {
        let secret = read_secret(from_stdin, &format!("Client secret for {client_id}: "))?;
        let listener = LoopbackListener::bind().await?;
        let auth = PartnerAuth::new(
            config,
            client_id.clone(),
            secret,
            listener.redirect_uri().clone(),
        )?;
        let pending = auth.begin(PkceMethod::S256);
        eprintln!(
            "Open this address in your browser to sign in:\n\n  {}\n",
            pending.authorize_url()
        );
        let redirect = listener.wait(Duration::from_secs(300)).await?;
        let tokens = auth.finish(&pending, &redirect).await?;
        let store = TokenStore::new(Profile::partner(config, &client_id));
        Session::partner(config, auth, tokens, Some(store)).await?;
        save_current(config, &client_id, true)?;
        eprintln!(
            "Signed in as data partner {client_id} at {}.",
            config.base_url
        );
        return Ok(());
    }
    let username = match user {
        Some(u) => u,
        None => prompt_line("Username: ")?,
    };
    let password = read_secret(from_stdin, &format!("Password for {username}: "))?;
    let store = TokenStore::new(Profile::user(config, &username));
    Session::user(config, &username, password, Some(store)).await?;
    save_current(config, &username, false)?;
    eprintln!(
        "Signed in as {username} at {} (tokens are in the OS keyring).",
        config.base_url
    );
    Ok(())
}

fn save_current(config: &ClientConfig, account: &str, partner: bool) -> Result<(), Error> {
    let current = Current {
        base_url: config.base_url.to_string(),
        account: account.to_owned(),
        partner,
    };
    let path = current_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Config(format!("creating {}: {e}", dir.display())))?;
    }
    let text = serde_json::to_string_pretty(&current).map_err(|e| Error::Config(e.to_string()))?;
    std::fs::write(&path, text)
        .map_err(|e| Error::Config(format!("writing {}: {e}", path.display())))
}

/// What `login` last saved, if it saved anything. One reader for both the workspace
/// commands (which only need the account name) and the session restore, so a damaged
/// file is reported the same way by every command.
fn read_current() -> Result<Option<Current>, CliError> {
    let path = current_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        CliError::Usage(format!(
            "{} is damaged ({e}); run `flightdeck login`",
            path.display()
        ))
    })
}

/// The account `login` last signed in to on this service, if any (no network, no keyring).
fn current_account(config: &ClientConfig) -> Result<Option<String>, CliError> {
    Ok(read_current()?
        .filter(|c| c.base_url == config.base_url.as_str())
        .map(|c| c.account))
}

/// The session of the account `login` last signed in to on this service, if any.
async fn restore(config: &ClientConfig) -> Result<Option<Session>, CliError> {
    let Some(current) = read_current()?.filter(|c| c.base_url == config.base_url.as_str()) else {
        return Ok(None);
    };
    let profile = if current.partner {
        Profile::partner(config, &current.account)
    } else {
        Profile::user(config, &current.account)
    };
    Ok(Session::restore(config, TokenStore::new(profile)).await?)
}

async fn client(config: &ClientConfig) -> Result<Client, CliError> {
    let session = restore(config)
        .await?
        .ok_or_else(|| Error::SignInRequired {
            reason: format!("not signed in to {}", config.base_url),
        })?;
    Ok(Client::new(
        config.clone(),
        Credentials::Session(Arc::new(session)),
    )?)
}

fn read_secret(from_stdin: bool, prompt: &str) -> Result<SecretString, Error> {
    let text = if from_stdin || !std::io::stdin().is_terminal() {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| Error::Config(format!("reading standard input: {e}")))?;
        line.trim_end_matches(['\r', '\n']).to_owned()
    } else {
        rpassword::prompt_password(prompt)
            .map_err(|e| Error::Config(format!("reading the password: {e}")))?
    };
    if text.is_empty() {
        return Err(Error::Config(
            "an empty password or secret was given".into(),
        ));
    }
    Ok(SecretString::from(text))
}

fn prompt_line(prompt: &str) -> Result<String, Error> {
    eprint!("{prompt}");
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::Config(format!("reading standard input: {e}")))?;
    Ok(line.trim().to_owned())
}

/// A spinner on standard error while a listing downloads; hidden when not a terminal.
fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(format!("fetching {what}"));
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

async fn with_spinner<T>(
    what: &str,
    fut: impl std::future::Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let bar = spinner(what);
    let out = fut.await;
    bar.finish_and_clear();
    out
}

fn print_messages(messages: &[flightdeck_client::ServerMessage]) {
    for m in messages {
        eprintln!("{}: {}", wire_text(&m.level).to_lowercase(), m.message);
    }
}

fn output<T: Serialize>(
    json: bool,
    items: &[T],
    header: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) -> Result<(), CliError> {
    if json {
        let text =
            serde_json::to_string_pretty(items).map_err(|e| CliError::Usage(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.to_vec());
    for item in items {
        table.add_row(row(item));
    }
    println!("{table}");
    println!(
        "{} row{}",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// An enum's wire spelling (`VIDEO_COMPLETION_RATE`, `email_sha256`).
fn wire_text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}
