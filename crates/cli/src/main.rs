//! `flightdeck`: a thin command line over `flightdeck-client`, for scripting and support.
//! It signs in with the same session and keyring as the app, and lists what the service
//! holds. Output is a readable table, or JSON with `--json`.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use flightdeck_client::auth::LoopbackListener;
use flightdeck_client::{Client, ClientConfig, Error, SecretString};
use flightdeck_core::{Account, Core, Selection};
use flightdeck_model::validate::format_millis;
use flightdeck_offline::change::Kind;
use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::Value;

/// The app's allocator (see `src-tauri/src/main.rs`), for the same bulk work.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "flightdeck",
    version,
    about = "Flightdeck on the command line: sign in and list what the ad platform holds"
)]
struct Cli {
    /// Service root (the standalone sandbox listens on http://127.0.0.1:8700). Uses the
    /// saved profile of that service, adding one when there is none. Default: the
    /// profile the desktop app has active; profiles, sign-ins and workspaces are shared
    /// with the app.
    #[arg(long, env = "FLIGHTDECK_BASE_URL", global = true)]
    base_url: Option<String>,
    /// A saved profile by id (as the app names it), instead of --base-url.
    #[arg(
        long,
        env = "FLIGHTDECK_PROFILE",
        global = true,
        conflicts_with = "base_url"
    )]
    profile: Option<String>,
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
    /// Edit entities in the workspace, offline, as one undo step; `push` posts them later.
    /// Name them by id (`flightdeck edit adorder 12 --set max_bid=2.5`), by `--ids 1,2,3`,
    /// or by `--where FIELD=VALUE`. Fields the ad platform ignores on update, and posted
    /// creatives and segments (which it cannot update), are refused with the reason.
    Edit {
        /// advertiser, campaign, adorder, caps (an ad order's flight caps), creative,
        /// sitelist or segment.
        kind: EditKind,
        /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it
        /// (`draft 1a2b3c4d`, or just `1a2b3c4d`).
        id: Option<String>,
        /// More entities, comma-separated.
        #[arg(long, value_delimiter = ',')]
        ids: Vec<String>,
        /// Only entities whose field has this value (`--where optimizationGoal=CPM`).
        #[arg(long = "where", value_name = "FIELD=VALUE")]
        wheres: Vec<String>,
        /// A field and its new value, as JSON or plain text (`--set name="Spring sale"`,
        /// `--set frequencyCap.limit=3`, `--set flights[*].maxBudget=500`).
        #[arg(long = "set", value_name = "FIELD=VALUE")]
        set: Vec<String>,
        /// Clear a field (null, or an empty list).
        #[arg(long, value_name = "FIELD")]
        clear: Vec<String>,
        /// Add an amount to a number, rounded to cents (`--add max_bid=-0.25`).
        #[arg(long, value_name = "FIELD=AMOUNT", allow_hyphen_values = true)]
        add: Vec<String>,
        /// Change a number by a percentage, rounded to cents (`--percent max_bid=10`).
        #[arg(long, value_name = "FIELD=PERCENT", allow_hyphen_values = true)]
        percent: Vec<String>,
        /// Put text before a field's text.
        #[arg(long, value_name = "FIELD=TEXT")]
        prefix: Vec<String>,
        /// Put text after a field's text.
        #[arg(long, value_name = "FIELD=TEXT")]
        suffix: Vec<String>,
        /// Show what would change; save nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Find and replace in names, URLs, pixels and other text, as one undo step.
    Replace {
        /// The text to find (a regular expression with --regex).
        #[arg(long)]
        find: String,
        /// What replaces it (with --regex, $1 inserts a group).
        #[arg(long = "with")]
        with: String,
        /// Only this kind (default: the whole account).
        #[arg(long)]
        kind: Option<EditKind>,
        /// Only these entities of --kind.
        #[arg(long, value_delimiter = ',')]
        ids: Vec<String>,
        /// Only these fields (`name`, `landingPageUrl`); default: every text field.
        #[arg(long = "field")]
        fields: Vec<String>,
        /// Upper and lower case differ.
        #[arg(long)]
        match_case: bool,
        /// Whole words only.
        #[arg(long)]
        whole_word: bool,
        /// --find is a regular expression.
        #[arg(long)]
        regex: bool,
        /// Show what would change; save nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Write the workspace as CSV (or TSV): one kind, or the whole account with a kind
    /// column. Cells: blank keeps a value on import, [] clears it, lists are JSON.
    Export {
        /// Only this kind.
        #[arg(long)]
        kind: Option<EditKind>,
        /// Tab-separated.
        #[arg(long)]
        tsv: bool,
        /// The file (default: standard output).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Read a CSV or TSV file (.tsv, .txt) into the workspace as one undo step: rows with
    /// an id change that entity, rows without one make drafts.
    Import {
        /// The file.
        file: PathBuf,
        /// The kind of every row, when the file has no kind column.
        #[arg(long)]
        kind: Option<EditKind>,
        /// Where new ad orders go (a campaign id or draft key) when a row names none.
        #[arg(long)]
        campaign: Option<String>,
        /// Where new campaigns and creatives go (an advertiser id) when a row names none.
        #[arg(long)]
        advertiser: Option<String>,
        /// Show the adds, updates and errors per row; save nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Undo the latest local edit.
    Undo,
    /// Redo the latest undone edit.
    Redo,
    /// The latest local edits, newest first, as undo sees them.
    History,
    /// Put back the values a posted step changed, as a new edit (undo cannot: the ad
    /// platform has it).
    Revert {
        /// The step, as `history` numbers it.
        step: i64,
        /// Show what would change; save nothing.
        #[arg(long)]
        dry_run: bool,
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
    /// Copy entities as new drafts: the way to change what the ad platform cannot update,
    /// and to reuse a campaign (with its flights) or an ad order (with its flight caps and
    /// audiences). `push` posts the copies.
    Duplicate {
        /// creative, segment, sitelist, advertiser, campaign or adorder.
        kind: EditKind,
        /// Its id (a segment's serviceSegmentId), or a draft's key as `changes` shows it;
        /// comma-separated for several.
        #[arg(value_delimiter = ',')]
        ids: Vec<String>,
        /// Into this advertiser (campaigns, creatives).
        #[arg(long, conflicts_with = "into_campaign")]
        into_advertiser: Option<String>,
        /// Into this campaign (ad orders, creatives).
        #[arg(long)]
        into_campaign: Option<String>,
        /// Move every date by this many days (a new flight must start in the future).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        shift_days: i64,
        /// Show the copies; save nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Post the pending changes, each exactly once.
    Push {
        /// Requests in flight at once.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
        /// Give up on an answer after this many seconds (default 60). A create whose
        /// answer is lost is believed absent only twice this long after it was sent.
        #[arg(long, value_name = "SECONDS")]
        request_timeout: Option<f64>,
    },
    /// Settle changes that need review (sent, the answer lost, and the ad platform offers
    /// no way to look them up). Alone it lists them with what is known; with a change it
    /// shows it, or settles it with --post-again or --created ID.
    Review {
        /// The change, as `changes` numbers it.
        change: Option<i64>,
        /// The ad platform does not have it: post it again with the next push.
        #[arg(long, requires = "change", conflicts_with = "created")]
        post_again: bool,
        /// The ad platform has it, under this id: record it as created, so what waits on
        /// it can be posted.
        #[arg(long, requires = "change", value_name = "ID")]
        created: Option<i64>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EditKind {
    Advertiser,
    Campaign,
    Adorder,
    Caps,
    Creative,
    Sitelist,
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

mod bulk;
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
    /// From the shared core (profiles, sessions).
    #[error(transparent)]
    Core(flightdeck_core::Error),
    /// Bad arguments or local files.
    #[error("{0}")]
    Usage(String),
}

impl From<flightdeck_core::Error> for CliError {
    fn from(e: flightdeck_core::Error) -> Self {
        match e {
            flightdeck_core::Error::Client(c) => CliError::Client(c),
            flightdeck_core::Error::Offline(o) => CliError::Workspace(o),
            other => CliError::Core(other),
        }
    }
}

impl CliError {
    fn needs_sign_in(&self) -> bool {
        matches!(
            self,
            CliError::Client(Error::SignInRequired { .. } | Error::Unauthenticated { .. })
                | CliError::Workspace(flightdeck_offline::Error::Client(
                    Error::SignInRequired { .. } | Error::Unauthenticated { .. }
                ))
                | CliError::Core(flightdeck_core::Error::SignInRequired(_))
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
    let selection = match (&cli.profile, &cli.base_url) {
        (Some(id), _) => Selection::Profile(id.clone()),
        (None, Some(url)) => {
            // A bad address is reported as such, not as a profile problem.
            ClientConfig::new(url)?;
            Selection::Url(url.clone())
        }
        (None, None) => Selection::Active,
    };
    let options = flightdeck_core::OpenOptions::default();
    let core = Core::open(&flightdeck_core::paths::data_dir()?, selection, options).await?;
    let account = core.active()?;
    if account.profile.embedded && account.config.base_url.port() == Some(0) {
        // The app has never run here, so its sandbox has no address yet.
        return Err(CliError::Usage(
            "the active profile is the desktop app's local sandbox, which has never run on \
             this machine: start the app, or pass --base-url (or FLIGHTDECK_BASE_URL)"
                .into(),
        ));
    }
    let workspace = cli.workspace.clone();
    match cli.command {
        Command::Pull { advertiser } => {
            let signed = account.require_signed()?;
            work::pull(
                work::open(&account, workspace)?,
                &signed,
                advertiser,
                cli.json,
            )
            .await
        }
        Command::Edit {
            kind,
            id,
            ids,
            wheres,
            set,
            clear,
            add,
            percent,
            prefix,
            suffix,
            dry_run,
        } => {
            let ids: Vec<String> = id.into_iter().chain(ids).collect();
            let args = bulk::EditArgs {
                set: &set,
                clear: &clear,
                add: &add,
                percent: &percent,
                prefix: &prefix,
                suffix: &suffix,
            };
            let ws = work::open(&account, workspace)?;
            bulk::edit(
                ws,
                work::kind_of(kind),
                &ids,
                &wheres,
                &args,
                dry_run,
                cli.json,
            )
        }
        Command::Replace {
            find,
            with,
            kind,
            ids,
            fields,
            match_case,
            whole_word,
            regex,
            dry_run,
        } => {
            let args = bulk::ReplaceArgs {
                find: flightdeck_offline::bulk::replace::Find {
                    find,
                    replace: with,
                    match_case,
                    whole_word,
                    regex,
                    fields,
                },
                kind: kind.map(work::kind_of),
                ids,
            };
            bulk::replace(work::open(&account, workspace)?, args, dry_run, cli.json)
        }
        Command::Export { kind, tsv, output } => bulk::export(
            work::open(&account, workspace)?,
            kind.map(work::kind_of),
            tsv,
            output.as_deref(),
        ),
        Command::Import {
            file,
            kind,
            campaign,
            advertiser,
            dry_run,
        } => {
            let ws = work::open(&account, workspace)?;
            let parent = match (campaign, advertiser) {
                (Some(c), _) => Some(work::target(&ws, Kind::Campaign, &c)?),
                (None, Some(a)) => Some(work::target(&ws, Kind::Advertiser, &a)?),
                _ => None,
            };
            bulk::import(
                ws,
                &file,
                kind.map(work::kind_of),
                parent,
                dry_run,
                cli.json,
            )
        }
        Command::Undo => bulk::undo(work::open(&account, workspace)?, false),
        Command::Redo => bulk::undo(work::open(&account, workspace)?, true),
        Command::History => bulk::history(work::open(&account, workspace)?, cli.json),
        Command::Revert { step, dry_run } => {
            bulk::revert(work::open(&account, workspace)?, step, dry_run, cli.json)
        }
        Command::Duplicate {
            kind,
            ids,
            into_advertiser,
            into_campaign,
            shift_days,
            dry_run,
        } => {
            let ws = work::open(&account, workspace)?;
            let kind = work::kind_of(kind);
            let sources = ids
                .iter()
                .map(|id| work::target(&ws, kind, id))
                .collect::<Result<Vec<_>, _>>()?;
            let into = match (into_advertiser, into_campaign) {
                (Some(a), _) => Some(work::target(&ws, Kind::Advertiser, &a)?),
                (None, Some(c)) => Some(work::target(&ws, Kind::Campaign, &c)?),
                _ => None,
            };
            let options = flightdeck_offline::bulk::plan::DuplicateOptions {
                into,
                shift_days: Some(shift_days),
            };
            bulk::duplicate(ws, &sources, &options, dry_run, cli.json)
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
            let ws = work::open(&account, workspace)?;
            let upload = work::Upload {
                segment: &segment,
                file: &file,
                country: &country,
                column: column.as_deref(),
            };
            let client = if offline {
                None
            } else {
                match client(&account) {
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
        Command::Changes { diff } => {
            work::changes(work::open(&account, workspace)?, diff, cli.json)
        }
        Command::Check => work::check(work::open(&account, workspace)?, cli.json),
        Command::Discard { changes } => work::discard(work::open(&account, workspace)?, &changes),
        Command::Review {
            change,
            post_again,
            created,
        } => {
            let verdict = match (post_again, created) {
                (true, _) => Some(flightdeck_offline::workspace::Review::PostAgain),
                (false, Some(id)) => Some(flightdeck_offline::workspace::Review::Created { id }),
                (false, None) => None,
            };
            work::review(work::open(&account, workspace)?, change, verdict, cli.json)
        }
        Command::Push {
            concurrency,
            request_timeout,
        } => {
            let mut client = client(&account)?;
            if let Some(seconds) = request_timeout {
                let timeout = Duration::try_from_secs_f64(seconds)
                    .ok()
                    .filter(|t| !t.is_zero())
                    .ok_or_else(|| {
                        CliError::Usage(
                            "--request-timeout must be a number of seconds above 0".into(),
                        )
                    })?;
                let mut config = client.config().clone();
                config.request_timeout = timeout;
                client = Client::new(config, client.credentials().clone())?
                    .with_retry_policy(client.retry_policy());
            }
            work::push(
                work::open(&account, workspace)?,
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
        } => login(&core, user, partner, password_stdin).await,
        Command::Logout => {
            core.sign_out().await?;
            eprintln!("Signed out (pending changes stay in the workspace).");
            Ok(())
        }
        Command::Advertisers { action: List::List } => {
            let client = client(&account)?;
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
            let client = client(&account)?;
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
            let client = client(&account)?;
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
            let client = client(&account)?;
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
    core: &Core,
    user: Option<String>,
    partner: Option<String>,
    from_stdin: bool,
) -> Result<(), CliError> {
    let base_url = core.active()?.config.base_url.clone();
    if let Some(client_id) = partner {
        let secret = read_secret(from_stdin, &format!("Client secret for {client_id}: "))?;
        let listener = LoopbackListener::bind().await?;
        let url = core.begin_partner(&client_id, secret, listener.redirect_uri().clone())?;
        let state = url
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        eprintln!("Open this address in your browser to sign in:\n\n  {url}\n");
        let deadline = std::time::Instant::now() + Duration::from_secs(300);
        // A link that answers no waiting sign-in is ignored and waiting goes on, until
        // the real redirect or the deadline.
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let redirect = listener.wait(left, &state).await?;
            match core
                .finish_partner(redirect.as_str())
                .await?
                .ignored_because()
            {
                None => break,
                Some(why) => eprintln!("Ignored a sign-in link: {why}. Still waiting."),
            }
        }
        eprintln!("Signed in as data partner {client_id} at {base_url}.");
        return Ok(());
    }
    let username = match user {
        Some(u) => u,
        None => prompt_line("Username: ")?,
    };
    let password = read_secret(from_stdin, &format!("Password for {username}: "))?;
    core.sign_in_user(&username, password).await?;
    eprintln!("Signed in as {username} at {base_url} (tokens are in the OS keyring).");
    Ok(())
}

/// The client of the profile's signed-in session.
fn client(account: &Account) -> Result<Client, CliError> {
    Ok(account.require_signed()?.client)
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
