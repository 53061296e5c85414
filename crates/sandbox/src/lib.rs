//! Flightdeck's local advertising service: every `/v1` endpoint of the service
//! interface, on SQLite. It is the app's embedded default and the server every test
//! of the client, the sync engine and the app talks to over real HTTP.
//!
//! [`Sandbox::open`] builds the state; [`Sandbox::router`] is the axum app;
//! [`Sandbox::serve`] runs it on a listener the caller bound, so tests can bind
//! `127.0.0.1:0` and know the address before the first request.

pub mod admin;
pub mod auth;
pub mod clock;
pub mod db;
pub mod error;
pub mod extract;
pub mod faults;
pub mod host;
pub mod oauth;
pub mod openapi;
pub mod routes;
pub mod schema_rules;
pub mod seed;
pub mod server;
pub mod store;
pub mod testing;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;

pub use error::{Error, Result};

/// Text of the 404 for paths the sandbox does not serve (and for `/_sandbox/` without its token).
pub const NO_SUCH_ENDPOINT: &str = "no such endpoint";

/// How to start a sandbox.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Database file; `None` keeps everything in memory.
    pub data: Option<PathBuf>,
    /// What to load into a fresh database.
    pub seed: Seed,
    /// Start the service clock at this Unix-ms instant (it runs on from there).
    pub clock_start: Option<i64>,
    /// Enables `/_sandbox/` for requests carrying this token.
    pub admin_token: Option<String>,
    /// How access and id tokens are signed: short HS256 tokens by default, or RS256
    /// tokens of the size a real identity provider issues.
    pub token_signing: auth::TokenSigning,
}

/// Initial data for a fresh database. A database that already has accounts is never re-seeded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Seed {
    /// The documented demo accounts (see the README).
    #[default]
    Demo,
    /// Nothing at all.
    None,
    /// A JSON seed file (see `seed::SeedFile`).
    File(PathBuf),
}

/// State shared by every handler.
#[derive(Clone)]
pub struct AppState {
    /// Storage.
    pub db: db::Db,
    /// Service time.
    pub clock: Arc<clock::Clock>,
    /// Token signing keys.
    pub keys: Arc<auth::Keys>,
    /// Injected faults.
    pub faults: Arc<faults::Faults>,
    /// Token for `/_sandbox/`; `None` disables it.
    pub admin_token: Option<Arc<str>>,
    /// Names served besides the loopback ones (see [`host`]).
    pub allowed_hosts: Arc<[String]>,
    /// The gate every argon2 verification passes.
    pub password_work: Arc<auth::PasswordWork>,
}

/// A sandbox ready to serve.
#[derive(Clone)]
pub struct Sandbox {
    state: AppState,
}

impl Sandbox {
    /// Opens the database, migrates it, and seeds it when fresh.
    pub fn open(config: &Config) -> Result<Self> {
        if let Some(token) = &config.admin_token {
            admin::check_token(token).map_err(Error::Config)?;
        }
        let db = db::Db::open(config.data.as_deref())?;
        let clock = Arc::new(clock::Clock::new(config.clock_start));
        seed::apply_if_fresh(&db, &config.seed, clock.now_ms())?;
        let keys = Arc::new(auth::Keys::load_or_create(&db, config.token_signing)?);
        Ok(Self {
            state: AppState {
                db,
                clock,
                keys,
                faults: Arc::new(faults::Faults::default()),
                admin_token: config.admin_token.as_deref().map(Arc::from),
                allowed_hosts: Arc::from(Vec::new()),
                password_work: Arc::new(auth::PasswordWork::new(auth::default_password_slots())),
            },
        })
    }

    /// Serves `hosts` (names or addresses; a port is ignored) besides the loopback names,
    /// for a sandbox bound to another interface. See [`host`].
    pub fn allow_hosts(mut self, hosts: Vec<String>) -> Self {
        self.state.allowed_hosts = Arc::from(hosts);
        self
    }

    /// The shared state, for tools and tests that work below HTTP.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The whole HTTP surface: `/v1`, `/openapi.json`, and `/_sandbox/` when enabled.
    pub fn router(&self) -> Router {
        let state = self.state.clone();
        Router::new()
            .merge(oauth::router())
            .merge(routes::router())
            .merge(openapi::router())
            .merge(admin::router())
            .fallback(|| async { Error::NotFound(NO_SUCH_ENDPOINT.into()) })
            .layer(axum::middleware::from_fn_with_state(
                state.clone(),
                faults::middleware,
            ))
            // Outermost: a request for another host gets no further, faults included.
            .layer(axum::middleware::from_fn_with_state(
                state.clone(),
                host::middleware,
            ))
            // Every request as a span: method and path (never the query, which can carry
            // an OAuth `state` or `code_challenge`, nor a header or body), then its status
            // and latency. Embedded in the app they go to the app's log at its level; the
            // binary logs to standard error (`FLIGHTDECK_LOG`).
            .layer(
                tower_http::trace::TraceLayer::new_for_http()
                    .make_span_with(|request: &axum::http::Request<axum::body::Body>| {
                        tracing::debug_span!(
                            "sandbox_request",
                            method = %request.method(),
                            path = %request.uri().path(),
                        )
                    })
                    .on_request(())
                    .on_response(
                        tower_http::trace::DefaultOnResponse::new()
                            .level(tracing::Level::DEBUG)
                            .latency_unit(tower_http::LatencyUnit::Millis),
                    ),
            )
            .with_state(state)
    }

    /// Serves on `listener` until `shutdown` completes.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        server::serve(listener, self.router(), shutdown).await
    }

    /// Binds `addr` and serves in a background task; for tests and the embedding app.
    pub async fn spawn(self, addr: SocketAddr) -> Result<Running> {
        let listener = bind(addr).await?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { addr, source })?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(self.serve(listener, async {
            let _ = rx.await;
        }));
        Ok(Running {
            addr,
            stop: Some(tx),
            task,
        })
    }

    /// Binds `addr` at once, then opens the database (seeding a fresh one) on a
    /// blocking thread and serves. An app that embeds the sandbox learns its address
    /// without waiting for the seed's password hashing; requests that come meanwhile
    /// wait in the listen queue. A failure to open ends the task: [`Running::stop`]
    /// returns it, and clients find nothing listening.
    pub async fn open_and_spawn(config: Config, addr: SocketAddr) -> Result<Running> {
        let listener = bind(addr).await?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { addr, source })?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let sandbox = tokio::task::spawn_blocking(move || Sandbox::open(&config)).await??;
            sandbox
                .serve(listener, async {
                    let _ = rx.await;
                })
                .await
        });
        Ok(Running {
            addr,
            stop: Some(tx),
            task,
        })
    }
}

async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })
}

/// A sandbox serving in the background. Dropping it stops the server.
pub struct Running {
    /// The bound address.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<()>>,
}

impl Running {
    /// `http://ADDR`, the base URL clients use.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Whether the server task has ended (stopped, or failed to open its database).
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Stops accepting, waits for the server task to end.
    pub async fn stop(mut self) -> Result<()> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await?
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
