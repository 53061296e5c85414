//! The accept loop: HTTP/1.1 on a caller-bound listener, one task per connection.
//!
//! It is written out (rather than `axum::serve`) for two reasons:
//!
//! - Each connection gets a [`ConnectionKiller`] in every request's extensions, so the
//!   `dropAfterCommit` fault ([`crate::faults`]) can close the socket after the handler
//!   committed, without sending a response.
//! - Shutdown is bounded: once `shutdown` completes the listener is closed, idle
//!   connections are closed, and in-flight requests get [`DRAIN_TIMEOUT`] to finish
//!   before the remaining connections are cut.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::error::Result;
use crate::faults::ConnectionKiller;

/// How long in-flight requests may run on after shutdown was requested.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Serves `router` on `listener` until `shutdown` completes, then drains (see the
/// module docs). Accept errors are survived, so this only returns after `shutdown`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let mut shutdown = std::pin::pin!(shutdown);
    let (closing_tx, closing_rx) = watch::channel(false);
    let mut connections = JoinSet::new();

    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(serve_connection(stream, router.clone(), closing_rx.clone()));
                }
                Err(e) => {
                    if !is_connection_error(&e) {
                        // Typically out of file descriptors: back off instead of spinning.
                        tracing::warn!(error = %e, "sandbox: accepting a connection failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            },
            // Reap finished connection tasks so the set does not grow without bound.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }

    drop(listener);
    // Every connection task finishes its current request and closes; idle ones close now.
    let _ = closing_tx.send(true);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
    Ok(())
}

/// Serves one connection until the client closes it, shutdown closes it, or a
/// `dropAfterCommit` fault kills it.
async fn serve_connection(stream: TcpStream, router: Router, mut closing: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let killer = ConnectionKiller::new();
    let request_killer = killer.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(request_killer.clone());
        router.clone().oneshot(req)
    });

    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let mut shutting_down = false;
    loop {
        tokio::select! {
            // Errors here are the client's (reset, malformed request): nothing to do.
            _ = conn.as_mut() => return,
            // Returning drops the connection future and with it the socket: the client
            // sees the connection close with no response.
            () = killer.killed() => return,
            _ = closing.wait_for(|closing| *closing), if !shutting_down => {
                shutting_down = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Errors that concern one incoming connection only, not the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}
