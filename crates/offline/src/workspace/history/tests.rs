//! The history's own encodings and purge, tested on their own: images as stored and
//! read back, and dropped steps leaving the history.

#![allow(clippy::unwrap_used)]
use super::image::{IMAGE_FORMAT, SHARED_MIN};
use super::*;

#[test]
fn an_image_comes_back_as_it_was_stored() {
    let image = Image(vec![
        ("seq", SqlValue::Integer(-7)),
        ("kind", SqlValue::Text("ad_order".into())),
        (
            "payload",
            SqlValue::Text(r#"{"name":"Say \"hi\" – ünïcode"}"#.into()),
        ),
        ("base", SqlValue::Null),
        ("attempts", SqlValue::Real(1.5)),
        ("result", SqlValue::Blob(vec![0, 255, 3])),
    ]);
    let stored = Images::default().encode_image("outbox", &image, (1, true));
    assert_eq!(
        decode_image("outbox", SqlValue::Blob(stored)).unwrap(),
        (image, Vec::new())
    );
}

#[test]
fn a_long_text_a_step_holds_twice_is_stored_once() {
    let json = format!(r#"{{"name":"{}"}}"#, "x".repeat(SHARED_MIN));
    let entity = Image(vec![("working_json", SqlValue::Text(json.clone()))]);
    let change = Image(vec![
        ("payload", SqlValue::Text(json.clone())),
        ("errors", SqlValue::Text("[]".into())),
    ]);
    let mut images = Images::default();
    let first = images.encode_image("entities", &entity, (4, true));
    let second = images.encode_image("outbox", &change, (9, true));
    assert!(second.len() < json.len(), "the copy is a reference");
    let (_, refs) = decode_image("entities", SqlValue::Blob(first)).unwrap();
    assert!(refs.is_empty());
    let (image, refs) = decode_image("outbox", SqlValue::Blob(second)).unwrap();
    assert_eq!(image.get("payload"), Some(&SqlValue::Null));
    assert_eq!(image.text("errors"), Some("[]"));
    let working = ENTITY_COLUMNS.iter().position(|c| *c == "working_json");
    assert_eq!(
        refs,
        [(
            0,
            Shared {
                outbox: false,
                rid: 4,
                after: true,
                col: u8::try_from(working.unwrap()).unwrap(),
            }
        )]
    );
}

#[test]
fn steps_recorded_as_json_are_still_read() {
    let text =
        r#"{"kind":"ad_order","key":"7","working_json":"{\"a\":1}","base_hash":null,"gone":1}"#;
    let (image, _) = decode_image("entities", SqlValue::Text(text.into())).unwrap();
    assert_eq!(image.text("working_json"), Some(r#"{"a":1}"#));
    assert_eq!(image.get("base_hash"), Some(&SqlValue::Null));
    assert_eq!(image.get("gone"), None);
}

#[test]
fn dropped_steps_leave_the_history_at_once_and_their_rows_on_purge() {
    let mut conn = Connection::open_in_memory().unwrap();
    super::super::migrations().to_latest(&mut conn).unwrap();
    for (id, undone) in [(1, 0), (2, 1), (3, 1)] {
        conn.execute(
            "INSERT INTO history_step (id, label, created_at, undone) VALUES (?1, 'Edit', 0, ?2)",
            params![id, undone],
        )
        .unwrap();
        for rid in 0..5 {
            conn.execute(
                "INSERT INTO history_row (step, tbl, rid, before, after) VALUES (?1, 'entities', ?2, NULL, NULL)",
                params![id, rid],
            )
            .unwrap();
        }
    }
    // What a new edit does to the redo branch.
    conn.execute(
        &format!("UPDATE history_step SET undone = {DROPPED} WHERE undone = 1"),
        [],
    )
    .unwrap();
    assert!(step_of(&conn, 2).is_err());
    assert_eq!(step_of(&conn, 1).unwrap().id, 1);

    assert!(purge_dropped(&conn).unwrap());
    let left: Vec<i64> = conn
        .prepare("SELECT DISTINCT step FROM history_row ORDER BY step")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(left, [1]);
    let steps: i64 = conn
        .query_row("SELECT count(*) FROM history_step", [], |r| r.get(0))
        .unwrap();
    assert_eq!(steps, 1);
    assert!(!purge_dropped(&conn).unwrap());
}

#[test]
fn a_damaged_image_is_an_error_not_a_panic() {
    let image = Image(vec![("key", SqlValue::Text("12345".into()))]);
    let mut stored = Images::default().encode_image("entities", &image, (1, false));
    stored.truncate(stored.len() - 2);
    assert!(matches!(
        decode_image("entities", SqlValue::Blob(stored)),
        Err(Error::Corrupt(_))
    ));
    assert!(decode_image("entities", SqlValue::Blob(vec![IMAGE_FORMAT, 200, 0])).is_err());
}
