//! `login`, `logout` and `status`: the same sign-ins as the app (`Core::sign_in_user`,
//! the data partner's browser sign-in), with tokens in the OS keyring, and where the
//! profile stands (`Account::status`).

use std::io::{BufRead, IsTerminal};
use std::time::Duration;

use flightdeck_client::auth::LoopbackListener;
use flightdeck_client::{Error, SecretString};

use crate::{CliError, Ctx};

/// Sign in; tokens go to the OS keyring.
#[derive(clap::Args)]
pub struct LoginArgs {
    /// Advertiser or agency username (asks for the password).
    #[arg(long, conflicts_with = "partner")]
    user: Option<String>,
    /// Sign in as this data-partner client id, through the browser (OAuth2 + PKCE).
    #[arg(long)]
    partner: Option<String>,
    /// Read the password (or client secret) from the first line of standard input.
    #[arg(long)]
    password_stdin: bool,
}

/// `flightdeck login`.
pub async fn login(ctx: &Ctx, args: LoginArgs) -> Result<(), CliError> {
    let core = &ctx.core;
    let base_url = core.active()?.config.base_url.clone();
    if let Some(client_id) = args.partner {
        let prompt = format!("Client secret for {client_id}: ");
        let secret = read_secret(args.password_stdin, &prompt)?;
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
            let outcome = core.finish_partner(redirect.as_str()).await?;
            match outcome.ignored_because() {
                None => break,
                Some(why) => eprintln!("Ignored a sign-in link: {why}. Still waiting."),
            }
        }
        eprintln!("Signed in as data partner {client_id} at {base_url}.");
        return Ok(());
    }
    let username = match args.user {
        Some(u) => u,
        None => prompt_line("Username: ")?,
    };
    let password = read_secret(args.password_stdin, &format!("Password for {username}: "))?;
    core.sign_in_user(&username, password).await?;
    eprintln!("Signed in as {username} at {base_url} (tokens are in the OS keyring).");
    Ok(())
}

/// `flightdeck logout`.
pub async fn logout(ctx: &Ctx) -> Result<(), CliError> {
    ctx.core.sign_out().await?;
    eprintln!("Signed out (pending changes stay in the workspace).");
    Ok(())
}

/// `flightdeck status`: the profile, who is signed in, the workspace, what waits.
pub fn status(ctx: &Ctx) -> Result<(), CliError> {
    let s = ctx.account.status()?;
    if ctx.json {
        return crate::output::json(&s);
    }
    println!("profile: {} ({}) at {}", s.name, s.profile, s.service);
    match &s.signed_in {
        Some(a) if a.partner => println!("signed in: data partner {}", a.account),
        Some(a) => println!("signed in: {}", a.account),
        None => println!("signed in: nobody"),
    }
    println!("workspace: {}", s.workspace.display());
    println!("pending changes: {}", s.pending);
    if let Some(why) = s.post_waiting.as_ref().or(s.notice.as_ref()) {
        println!("note: {why}");
    }
    Ok(())
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
