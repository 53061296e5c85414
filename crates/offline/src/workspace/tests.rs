//! Unit tests of the workspace file: its migrations, canonical text and key encodings.

use super::*;

#[test]
fn migrations_are_valid() {
    assert!(migrations().validate().is_ok());
}

#[test]
fn version_3_moves_conflict_details_out_of_the_message_text() -> Result<()> {
    let mut conn = Connection::open_in_memory()?;
    let migrate = |conn: &mut Connection, to: Option<usize>| {
        let m = migrations();
        match to {
            Some(v) => m.to_version(conn, v),
            None => m.to_latest(conn),
        }
        .map_err(|e| Error::Corrupt(e.to_string()))
    };
    migrate(&mut conn, Some(2))?;
    // What version 2's executor wrote for a conflict on `name`.
    let detail = r#"{"path":"name","base":"a","mine":"b","theirs":"c"}"#;
    let messages = serde_json::json!([
        {"level": "ERROR", "code": "CONFLICT", "field": "name",
         "message": format!(r#"name: changed on the ad platform too (was "a", yours "b", theirs "c") | {detail}"#)},
        {"level": "INFO", "code": "", "field": null, "message": "kept | as is"}
    ]);
    for status in ["conflict", "failed"] {
        conn.execute(
            "INSERT INTO outbox (kind, key, op, payload, status, messages, created_at, updated_at) \
             VALUES ('advertiser', 'id:1', 'update', '{}', ?1, ?2, 0, 0)",
            params![status, messages.to_string()],
        )?;
    }
    migrate(&mut conn, None)?;

    let row = |seq: i64| -> Result<(Option<String>, String)> {
        Ok(conn.query_row(
            "SELECT conflicts, messages FROM outbox WHERE seq = ?1",
            [seq],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    };
    let (conflicts, text) = row(1)?;
    let conflicts: Vec<crate::merge::FieldConflict> =
        parse_json(conflicts.as_deref().unwrap_or("null"))?;
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].path, "name");
    assert_eq!(conflicts[0].theirs, Some(Value::from("c")));
    let kept: Vec<ChangeMessage> = parse_json(&text)?;
    assert_eq!(
        kept[0].message,
        r#"name: changed on the ad platform too (was "a", yours "b", theirs "c")"#
    );
    assert_eq!(kept[1].message, "kept | as is");
    // Only changes in conflict are touched.
    let (conflicts, text) = row(2)?;
    assert_eq!(conflicts, None);
    assert_eq!(parse_json::<Value>(&text)?, messages);
    Ok(())
}

#[test]
fn version_6_keeps_steps_recorded_as_json_and_they_still_undo() -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| Error::Corrupt(e.to_string()))?;
    let path = dir.path().join("workspace.sqlite");
    {
        let mut conn = Connection::open(&path)?;
        migrations()
            .to_version(&mut conn, 5)
            .map_err(|e| Error::Corrupt(e.to_string()))?;
        conn.execute(
            "INSERT INTO entities (kind, key, remote_json, base_hash, working_json, updated_at) \
             VALUES ('advertiser', '1', '{\"name\":\"Old\"}', 'h', '{\"name\":\"New\"}', 0)",
            [],
        )?;
        conn.execute(
            "INSERT INTO history_step (label, created_at) VALUES ('Edit advertiser', 0)",
            [],
        )?;
        // A step as version 5 wrote it: JSON objects of column values.
        let before = r#"{"kind":"advertiser","key":"1","base_hash":"h","working_json":null,"remote_json":"{\"name\":\"Old\"}"}"#;
        let after = r#"{"kind":"advertiser","key":"1","base_hash":"h","working_json":"{\"name\":\"New\"}"}"#;
        conn.execute(
            "INSERT INTO history_row (step, tbl, rid, before, after) VALUES (1, 'entities', 1, ?1, ?2)",
            params![before, after],
        )?;
    }
    let mut ws = Workspace::open(&path)?;
    let undone = ws
        .undo()?
        .ok_or_else(|| Error::Corrupt("nothing to undo".into()))?;
    assert_eq!(undone.step.label, "Edit advertiser");
    let working: Option<String> = ws.conn.query_row(
        "SELECT working_json FROM entities WHERE rowid = 1",
        [],
        |r| r.get(0),
    )?;
    assert_eq!(working, None);
    ws.redo()?;
    let working: Option<String> = ws.conn.query_row(
        "SELECT working_json FROM entities WHERE rowid = 1",
        [],
        |r| r.get(0),
    )?;
    assert_eq!(working.as_deref(), Some(r#"{"name":"New"}"#));
    Ok(())
}

#[test]
fn version_4_turns_open_uploads_into_records() -> Result<()> {
    let mut conn = Connection::open_in_memory()?;
    migrations()
        .to_version(&mut conn, 3)
        .map_err(|e| Error::Corrupt(e.to_string()))?;
    let old = r#"{"identifiers":["a","b"]}"#;
    for (key, status) in [
        ("seg:fpsegm1", "pending"),
        ("local:abc", "failed"),
        ("seg:x", "applied"),
    ] {
        conn.execute(
            "INSERT INTO outbox (kind, key, op, payload, status, created_at, updated_at) \
             VALUES ('audience_segment', ?1, 'audience_data', ?2, ?3, 0, 0)",
            params![key, old, status],
        )?;
    }
    migrations()
        .to_latest(&mut conn)
        .map_err(|e| Error::Corrupt(e.to_string()))?;
    let row = |seq: i64| -> Result<(String, String)> {
        Ok(conn.query_row(
            "SELECT payload, parents FROM outbox WHERE seq = ?1",
            [seq],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    };
    let (payload, parents) = row(1)?;
    let records: flightdeck_model::AudienceData = parse_json(&payload)?;
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].service_segment_id, "fpsegm1");
    assert_eq!(records[0].country_code, "US");
    assert_eq!(records[0].values, ["a", "b"]);
    // The stored text is what the workspace itself writes (canonical).
    assert_eq!(payload, canonical(&parse_json::<Value>(&payload)?)?);
    assert_eq!(parents, "[]");
    // A draft's upload waits for the segment's id, like a new one.
    let (payload, parents) = row(2)?;
    let records: flightdeck_model::AudienceData = parse_json(&payload)?;
    assert_eq!(records[0].service_segment_id, "");
    let parents: Vec<crate::change::ParentRef> = parse_json(&parents)?;
    assert_eq!(parents.len(), 1);
    assert_eq!(parents[0].pointer, "/0/serviceSegmentId");
    assert_eq!(
        parents[0].target,
        EntityRef::new(Kind::AudienceSegment, Key::Local("abc".into()))
    );
    // Applied ones are history; they stay as they were.
    assert_eq!(row(3)?.0, old);
    Ok(())
}

#[test]
fn canonical_text_sorts_keys_at_every_level() -> Result<()> {
    let a: Value = serde_json::json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
    assert_eq!(
        canonical(&a)?,
        r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
    );
    let b: Value = serde_json::json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
    assert_eq!(hash_text(&canonical(&a)?), hash_text(&canonical(&b)?));
    Ok(())
}

#[test]
fn keys_round_trip_as_text() {
    for key in [Key::Id(42), Key::Segment("ab12".into()), Key::new_local()] {
        assert_eq!(key_from_text(&key_text(&key)).ok(), Some(key));
    }
}
