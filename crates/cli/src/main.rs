//! `flightdeck`: the command line over Flightdeck's core, for scripting and support. It
//! signs in with the same session and keyring as the app, works the same workspace
//! through the same core functions, and lists what the service holds. Output is a
//! readable table, or JSON with `--json`.
//!
//! This file only parses and dispatches: each command group has its module.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bulk;
mod checks;
mod context;
mod error;
mod kinds;
mod list;
mod output;
mod session;
mod sheet;
mod tags;
mod upload;
mod work;

use context::Ctx;
use error::CliError;
use list::{AudienceAction, CampaignList, List};

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
    Login(session::LoginArgs),
    /// Sign out and remove the saved tokens from the keyring.
    Logout,
    Status(bulk::StatusArgs),
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
    Columns(list::ColumnsArgs),
    #[command(visible_alias = "download")]
    Pull(work::PullArgs),
    Edit(bulk::EditArgs),
    Replace(bulk::ReplaceArgs),
    Export(sheet::ExportArgs),
    Import(sheet::ImportArgs),
    ImportTags(tags::ImportTagsArgs),
    /// Undo the latest local edit.
    Undo,
    /// Redo the latest undone edit.
    Redo,
    /// The latest local edits, newest first, as undo sees them.
    History,
    Revert(bulk::RevertArgs),
    Changes(work::ChangesArgs),
    Check(checks::CheckArgs),
    Discard(work::DiscardArgs),
    Duplicate(bulk::DuplicateArgs),
    Push(work::PushArgs),
    Review(work::ReviewArgs),
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

/// Opens the core on the profile the options name and runs one command.
async fn run(cli: Cli) -> Result<(), CliError> {
    let request_timeout = match &cli.command {
        Command::Push(push) => push.timeout()?,
        _ => None,
    };
    let target = context::Target {
        profile: cli.profile,
        base_url: cli.base_url,
        workspace: cli.workspace,
    };
    let ctx = &Ctx::open(target, cli.json, request_timeout).await?;
    match cli.command {
        Command::Login(args) => session::login(ctx, args).await,
        Command::Logout => session::logout(ctx).await,
        Command::Status(args) if args.is_profile_status() => session::status(ctx),
        Command::Status(args) => bulk::set_status(ctx, args),
        Command::Advertisers { action: List::List } => list::advertisers(ctx).await,
        Command::Campaigns {
            action: CampaignList::List { advertiser },
        } => list::campaigns(ctx, advertiser).await,
        Command::Adorders { action: List::List } => list::ad_orders(ctx).await,
        Command::Audiences { action } => match action {
            AudienceAction::List => list::audiences(ctx).await,
            AudienceAction::Upload(args) => upload::upload(ctx, args).await,
        },
        Command::Columns(args) => list::columns_of(ctx, args),
        Command::Pull(args) => work::pull(ctx, args).await,
        Command::Edit(args) => bulk::edit(ctx, args),
        Command::Replace(args) => bulk::replace(ctx, args),
        Command::Export(args) => sheet::export(ctx, args),
        Command::Import(args) => sheet::import(ctx, args),
        Command::ImportTags(args) => tags::import_tags(ctx, args),
        Command::Undo => bulk::undo(ctx, false),
        Command::Redo => bulk::undo(ctx, true),
        Command::History => bulk::history(ctx),
        Command::Revert(args) => bulk::revert(ctx, args),
        Command::Changes(args) => work::changes(ctx, args),
        Command::Check(args) => checks::check(ctx, args).await,
        Command::Discard(args) => work::discard(ctx, args),
        Command::Duplicate(args) => bulk::duplicate(ctx, args),
        Command::Push(args) => work::push(ctx, args).await,
        Command::Review(args) => work::review(ctx, args),
    }
}
