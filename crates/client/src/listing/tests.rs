//! Unit tests of the listing decoder: answers cut at every place, in order and whole.

#![allow(clippy::unwrap_used)]

use flightdeck_model::{AdOrder, Envelope, MessageLevel};
use serde_json::{Value, json};

use super::*;

/// Decodes `body` fed as `chunks` pieces cut at `cuts`, on this thread only.
fn decode_cut<E: DeserializeOwned + Send + 'static>(
    body: &[u8],
    cuts: &[usize],
) -> Option<Reply<Vec<E>>> {
    let (feed, input) = feed::channel(cuts.len() + 2);
    let mut start = 0;
    for &cut in cuts.iter().chain([body.len()].iter()) {
        feed.blocking_send(Some(Bytes::copy_from_slice(&body[start..cut])))
            .unwrap();
        start = cut;
    }
    feed.blocking_send(None).unwrap();
    decode::<E>(input, Some(body.len() as u64)).ok()
}

/// What decoding the whole body gives.
fn whole<E: DeserializeOwned>(body: &[u8]) -> Option<(Vec<E>, Vec<ServerMessage>)> {
    let envelope: Envelope<Vec<E>> = serde_json::from_slice(body).ok()?;
    Some((
        envelope.entity,
        envelope
            .messages
            .into_iter()
            .map(ServerMessage::from_wire)
            .collect(),
    ))
}

fn parts<E>(reply: Option<Reply<Vec<E>>>) -> Option<(Vec<E>, Vec<ServerMessage>)> {
    reply.map(|r| (r.entity, r.messages))
}

/// Members around the list, whitespace everywhere, and items whose strings hold the
/// punctuation the cutter follows.
const AWKWARD: &str = " \n{ \"before\" : {\"a\": [1, {\"b\": \"]}\"}]} ,\r\n\t\"messages\":[{\"level\":\"INFO\",\"code\":\"C\",\"message\":\"name: kept\"}],
    \"entity\" : [ {\"id\": 1, \"s\": \"a,b]}{[\\\"\\\\\", \"n\": -1.5e3},
    [1, 2.25, [\"x\"]] , \"text \\u00e9\" ,12345,true,null,
    {\"id\": 2, \"nested\": {\"deep\": [[[]]]}}\t] , \"after\": 7.125 } \n";

#[test]
fn every_cut_of_an_awkward_listing_decodes_like_the_whole_body() {
    let body = AWKWARD.as_bytes();
    let expected = whole::<Value>(body);
    assert!(expected.as_ref().is_some_and(|(items, _)| items.len() == 7));
    assert_eq!(parts(decode_cut::<Value>(body, &[])), expected);
    for cut in 0..=body.len() {
        assert_eq!(
            parts(decode_cut::<Value>(body, &[cut])),
            expected,
            "cut at {cut}"
        );
    }
    let bytes: Vec<usize> = (1..body.len()).collect();
    assert_eq!(parts(decode_cut::<Value>(body, &bytes)), expected);
    let messages = expected.map(|(_, m)| m).unwrap_or_default();
    assert_eq!(messages[0].level, MessageLevel::Info);
    assert_eq!(messages[0].field.as_deref(), Some("name"));
}

/// Items much larger than a chunk, and chunks of every size around them.
#[test]
fn items_larger_than_chunks_are_read_whole() {
    let items: Vec<Value> = (0..40)
        .map(|i| json!({"id": i, "note": "x".repeat(i * 3_000), "tags": ["a", "b"]}))
        .collect();
    let body = serde_json::to_vec(&json!({"messages": [], "entity": items})).unwrap();
    let expected = whole::<Value>(&body);
    for step in [1_000, 4_095, 4_097, 9_000, 65_536] {
        let cuts: Vec<usize> = (1..body.len() / step).map(|i| i * step).collect();
        assert_eq!(
            parts(decode_cut::<Value>(&body, &cuts)),
            expected,
            "chunks of {step}"
        );
    }
}

#[test]
fn messages_after_the_list_and_empty_lists_are_read() {
    for body in [
        r#"{"entity":[{"id":1}],"messages":[{"level":"WARNING","code":"W","message":"late"}]}"#,
        r#"{"entity":[]}"#,
        r#"{"messages":[],"entity":[ ]}"#,
    ] {
        let expected = whole::<Value>(body.as_bytes());
        assert!(expected.is_some(), "{body}");
        for cut in 0..=body.len() {
            assert_eq!(
                parts(decode_cut::<Value>(body.as_bytes(), &[cut])),
                expected,
                "{body} cut at {cut}"
            );
        }
    }
}

/// Every shape the cutter does not follow asks for the fallback, which then decodes
/// (or refuses) the body as a whole; none of them is read differently.
#[test]
fn unusual_or_broken_answers_ask_for_the_fallback() {
    for body in [
        r#"{"messages":[],"entity":null}"#,
        r#"{"messages":[],"entity":{"id":1}}"#,
        r#"{"messages":[]}"#,
        r#"{"entity":[1],"entity":[2]}"#,
        r#"{"messages":[],"messages":[],"entity":[]}"#,
        r#"{"messages":null,"entity":[]}"#,
        r#"[[],[1]]"#,
        r#"{"entity":[1,]}"#,
        r#"{"entity":[1 2]}"#,
        r#"{"entity":[1]} x"#,
        r#"{"entity":[1]}}"#,
        r#"{"entity":[{"id":1},{"id":2}"#,
        r#"{"entity":[1.]}"#,
        r#"{"entity":["\x"]}"#,
        // Balanced brackets around what is not JSON: the cutter only finds the end,
        // the item's decoding refuses it.
        r#"{"entity":[{"a" 1}]}"#,
        r#"{"entity":[{"a":[1}]]}"#,
        r#"{"entity":[{"a":"\q"}]}"#,
        r#"{"entity":[tru]}"#,
        r#"{"entity":[{"a":1}{"b":2}]}"#,
        "",
        "not json",
    ] {
        for cut in 0..=body.len() {
            assert!(
                decode_cut::<Value>(body.as_bytes(), &[cut]).is_none(),
                "{body} cut at {cut}"
            );
        }
    }
}

#[test]
fn an_item_that_is_not_the_type_asks_for_the_fallback() {
    let body = br#"{"messages":[],"entity":[{"id":1},{"id":"two"}]}"#;
    assert!(decode_cut::<AdOrder>(body, &[20]).is_none());
    assert!(decode_cut::<AdOrder>(br#"{"entity":[{"id":1}]}"#, &[]).is_some());
}

/// Text beyond ASCII decodes as the whole body does, wherever the chunks are cut, and a
/// byte that is not UTF-8 is refused naming its item, with the error parsing that
/// item's bytes gives.
#[test]
fn text_beyond_ascii_and_bytes_that_are_not_utf8() {
    let good =
        "{\"entity\":[{\"name\":\"Caf\u{e9} \u{2615} \u{1f680}\"},{\"name\":\"x\"}]}".as_bytes();
    let expected = whole::<Value>(good);
    assert!(expected.as_ref().is_some_and(|(items, _)| items.len() == 2));
    for cut in 0..=good.len() {
        assert_eq!(
            parts(decode_cut::<Value>(good, &[cut])),
            expected,
            "cut at {cut}"
        );
    }

    let mut bad = br#"{"entity":[{"name":"ok"},{"name":"#.to_vec();
    bad.extend_from_slice(b"\"\xff\"}]}");
    let (feed, input) = feed::channel(2);
    feed.blocking_send(Some(Bytes::from(bad.clone()))).unwrap();
    feed.blocking_send(None).unwrap();
    let refused = decode::<Value>(input, None).err().unwrap();
    let item = bad.iter().rposition(|&b| b == b'{').unwrap()..bad.len() - 2;
    let item_error = serde_json::from_slice::<Value>(&bad[item]).unwrap_err();
    assert_eq!(refused.detail, format!("entity[1]: {item_error}"));
}

#[test]
fn a_download_that_stops_asks_for_the_fallback() {
    let (feed, input) = feed::channel(2);
    feed.blocking_send(Some(Bytes::from_static(br#"{"entity":[{"id":1},"#)))
        .unwrap();
    drop(feed);
    assert!(decode::<Value>(input, None).is_err());
}

/// Many runs, decoded by the blocking pool's threads and put back in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_listing_keeps_its_order_across_threads() {
    let items: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": i, "name": format!("Order {i}"), "audiences": [{"id": i, "weight": 100}]}))
        .collect();
    let body = serde_json::to_vec(&json!({"messages": [], "entity": items})).unwrap();
    assert!(body.len() > 4 * RUN_BYTES);
    let cuts: Vec<usize> = (1..body.len() / 40_000).map(|i| i * 40_000 + i).collect();
    let reply = tokio::task::spawn_blocking(move || {
        let decoded = decode_cut::<AdOrder>(&body, &cuts);
        (decoded, whole::<AdOrder>(&body))
    })
    .await
    .unwrap();
    let (decoded, expected) = reply;
    let decoded = parts(decoded).unwrap();
    assert_eq!(decoded.0.len(), 20_000);
    assert_eq!(Some(decoded), expected);
}
