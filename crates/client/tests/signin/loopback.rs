//! The RFC 8252 loopback listener receiving the browser's redirect.

use std::time::{Duration, Instant};

use flightdeck_client::Error;
use flightdeck_client::auth::LoopbackListener;
use reqwest::StatusCode;
use tokio::io::AsyncWriteExt;

use crate::support::{http, param};

#[tokio::test]
async fn the_listener_takes_the_callback_and_ignores_other_paths() {
    let listener = LoopbackListener::bind().await.unwrap();
    let uri = listener.redirect_uri().clone();
    assert_eq!(uri.scheme(), "http");
    assert_eq!(uri.host_str(), Some("127.0.0.1"));
    assert_eq!(uri.path(), "/callback");
    assert!(uri.port().is_some_and(|p| p != 0));

    let browser = tokio::spawn({
        let uri = uri.clone();
        async move {
            let http = http();
            let favicon = http
                .get(uri.join("/favicon.ico").unwrap())
                .send()
                .await
                .unwrap()
                .status();
            let post = http.post(uri.clone()).send().await.unwrap().status();
            // A pre-connection that never sends anything must not hold up the real one.
            let mut idle = tokio::net::TcpStream::connect(uri.socket_addrs(|| None).unwrap()[0])
                .await
                .unwrap();
            idle.write_all(b"GET /call").await.unwrap();
            let mut callback = uri.clone();
            callback.set_query(Some("code=the%20code&state=st-1"));
            let resp = http.get(callback).send().await.unwrap();
            let status = resp.status();
            let content_type = resp.headers()["content-type"].to_str().unwrap().to_owned();
            let page = resp.text().await.unwrap();
            drop(idle);
            (favicon, post, status, content_type, page)
        }
    });
    let started = Instant::now();
    let redirect = listener
        .wait(Duration::from_secs(10), "st-1")
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "held up by the idle connection"
    );
    let (favicon, post, status, content_type, page) = browser.await.unwrap();
    assert_eq!(favicon, StatusCode::NOT_FOUND);
    assert_eq!(post, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(
        page.contains("Signed in — you can close this window"),
        "{page}"
    );

    assert_eq!(redirect.path(), "/callback");
    assert_eq!(redirect.port(), uri.port());
    assert_eq!(param(&redirect, "code").as_deref(), Some("the code"));
    assert_eq!(param(&redirect, "state").as_deref(), Some("st-1"));
}

#[tokio::test]
async fn the_listener_gives_up_after_its_timeout() {
    let listener = LoopbackListener::bind().await.unwrap();
    let started = Instant::now();
    let err = listener
        .wait(Duration::from_millis(300), "st-1")
        .await
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(5));
    match err {
        Error::SignIn(text) => assert!(text.contains("no answer from the browser"), "{text}"),
        other => panic!("expected Error::SignIn, got {other:?}"),
    }
}

#[tokio::test]
async fn a_slow_request_head_is_cut_off() {
    let listener = LoopbackListener::bind()
        .await
        .unwrap()
        .with_header_timeout(Duration::from_millis(200));
    let addr = listener.redirect_uri().socket_addrs(|| None).unwrap()[0];
    let slow = tokio::spawn(async move {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /callback?code=x&state=y HTTP/1.1\r\n")
            .await
            .unwrap();
        // Never finishes the head; the listener answers 400 and closes.
        let mut answer = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
            .await
            .unwrap();
        answer
    });
    let err = listener
        .wait(Duration::from_millis(800), "y")
        .await
        .unwrap_err();
    assert!(matches!(err, Error::SignIn(_)), "{err:?}");
    let answer = slow.await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

/// A hit with another `state` (a forged link, or an older attempt's) is answered and
/// ignored: the listener keeps waiting and takes the real callback after it.
#[tokio::test]
async fn a_callback_with_another_state_is_refused_and_waiting_goes_on() {
    let listener = LoopbackListener::bind().await.unwrap();
    let uri = listener.redirect_uri().clone();
    let browser = tokio::spawn(async move {
        let http = http();
        let mut forged = uri.clone();
        forged.set_query(Some("code=forged&state=not-yours"));
        let forged = http.get(forged).send().await.unwrap();
        let forged = (forged.status(), forged.text().await.unwrap());
        let mut real = uri.clone();
        real.set_query(Some("code=real&state=st-2"));
        let real = http.get(real).send().await.unwrap().status();
        (forged, real)
    });
    let redirect = listener
        .wait(Duration::from_secs(10), "st-2")
        .await
        .unwrap();
    let ((forged_status, forged_page), real_status) = browser.await.unwrap();
    assert_eq!(forged_status, StatusCode::BAD_REQUEST);
    assert!(
        forged_page.contains("not for the sign-in in progress"),
        "{forged_page}"
    );
    assert_eq!(real_status, StatusCode::OK);
    assert_eq!(param(&redirect, "code").as_deref(), Some("real"));
}
