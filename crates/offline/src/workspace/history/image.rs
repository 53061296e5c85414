//! How a step stores the images of the rows it changed: a compact binary form, with a
//! long text the step holds twice (an inserted change's payload is its entity's working
//! copy) stored once and referred to, and the JSON form of older steps still read.

use std::hash::Hasher;

use rusqlite::types::{Value as SqlValue, ValueRef};
use serde_json::Value;

use super::{sql_value, table_columns};
use crate::{Error, Result};

/// What history keeps of one row at one moment: some of its columns, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Image(pub(super) Vec<(&'static str, SqlValue)>);

impl Image {
    pub(super) fn get(&self, col: &str) -> Option<&SqlValue> {
        self.0.iter().find(|(c, _)| *c == col).map(|(_, v)| v)
    }

    pub(super) fn text(&self, col: &str) -> Option<&str> {
        match self.get(col) {
            Some(SqlValue::Text(t)) => Some(t),
            _ => None,
        }
    }
}

/// First byte of an image stored in the binary form (older steps hold JSON text, which
/// starts with `{`).
pub(super) const IMAGE_FORMAT: u8 = 0xB1;

/// Texts at least this long that a step holds twice are stored once: an inserted change's
/// payload is the working copy its entity got, and its base the base its entity had, so
/// a bulk edit's images would otherwise carry every JSON text twice.
pub(super) const SHARED_MIN: usize = 64;

/// Where a text of a step was stored first: a row (table, rowid), its image before or
/// after, and the column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shared {
    pub(super) outbox: bool,
    pub(super) rid: i64,
    pub(super) after: bool,
    pub(super) col: u8,
}

/// The texts of a step stored so far, for [`Images::encode`] to refer to: by hash, the
/// first of a chain of texts in [`Images::bytes`].
#[derive(Default)]
struct Stored {
    heads: std::collections::HashMap<u64, usize, std::hash::BuildHasherDefault<TextHash>>,
    texts: Vec<StoredText>,
}

/// A text a step stored: where, for a reference to it, and where its bytes are.
struct StoredText {
    at: Shared,
    start: usize,
    len: usize,
    /// The next text with the same hash.
    next: Option<usize>,
}

/// A hash of long texts eight bytes at a step: SipHash costs more per text than storing
/// it twice saves, and these keys come from the buyer's own workspace, not from anyone
/// who could choose them to collide.
#[derive(Default)]
struct TextHash(u64);

impl std::hash::Hasher for TextHash {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.mix(u64::from_le_bytes(word));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.mix(u64::from_le_bytes(last) ^ (bytes.len() as u64));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl TextHash {
    pub(super) fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// The images of a step, encoded one after another into one buffer, as they are read
/// from SQLite's rows: no column is copied out of a row but into its image.
#[derive(Default)]
pub(super) struct Images {
    pub(super) bytes: Vec<u8>,
    stored: Stored,
}

impl Images {
    /// An image as stored: the marker, then per column its index in the table's column
    /// list, a type tag and the value (integers and reals as 8 little-endian bytes, text
    /// and blobs as a 4-byte length and the bytes, or, for a long text the step stored
    /// already, where it is: tag 5, table, rowid, side and column). The working copies it
    /// carries are JSON text, which as a JSON string would be escaped on every quote and
    /// unescaped again on undo. Returns where the image is in [`Images::bytes`].
    pub(super) fn encode<'v>(
        &mut self,
        outbox: bool,
        (rid, after): (i64, bool),
        columns: impl IntoIterator<Item = (u8, ValueRef<'v>)>,
    ) -> std::ops::Range<usize> {
        let start = self.bytes.len();
        self.bytes.push(IMAGE_FORMAT);
        for (index, value) in columns {
            let out = &mut self.bytes;
            out.push(index);
            let bytes = |out: &mut Vec<u8>, tag: u8, b: &[u8]| {
                out.push(tag);
                out.extend_from_slice(&u32::try_from(b.len()).unwrap_or(u32::MAX).to_le_bytes());
                out.extend_from_slice(b);
            };
            match value {
                ValueRef::Null => out.push(0),
                ValueRef::Integer(i) => {
                    out.push(1);
                    out.extend_from_slice(&i.to_le_bytes());
                }
                ValueRef::Real(f) => {
                    out.push(2);
                    out.extend_from_slice(&f.to_le_bytes());
                }
                ValueRef::Text(t) if t.len() >= SHARED_MIN => {
                    let hash = {
                        let mut h = TextHash::default();
                        h.write(t);
                        h.finish()
                    };
                    let mut next = self.stored.heads.get(&hash).copied();
                    let mut found = None;
                    while let Some(i) = next {
                        let text = &self.stored.texts[i];
                        if out.get(text.start..text.start + text.len) == Some(t) {
                            found = Some(text.at);
                            break;
                        }
                        next = text.next;
                    }
                    match found {
                        Some(s) => {
                            out.push(5);
                            out.push(u8::from(s.outbox));
                            out.extend_from_slice(&s.rid.to_le_bytes());
                            out.push(u8::from(s.after));
                            out.push(s.col);
                        }
                        None => {
                            bytes(out, 3, t);
                            let text = StoredText {
                                at: Shared {
                                    outbox,
                                    rid,
                                    after,
                                    col: index,
                                },
                                start: out.len() - t.len(),
                                len: t.len(),
                                next: self.stored.heads.get(&hash).copied(),
                            };
                            self.stored.heads.insert(hash, self.stored.texts.len());
                            self.stored.texts.push(text);
                        }
                    }
                }
                ValueRef::Text(t) => bytes(out, 3, t),
                ValueRef::Blob(b) => bytes(out, 4, b),
            }
        }
        start..self.bytes.len()
    }

    /// [`Images::encode`] of an image read back.
    #[cfg(test)]
    pub(super) fn encode_image(&mut self, tbl: &str, image: &Image, at: (i64, bool)) -> Vec<u8> {
        let cols = table_columns(tbl);
        let columns = image.0.iter().filter_map(|(col, v)| {
            let index = cols.iter().position(|c| c == col)?;
            Some((u8::try_from(index).ok()?, ValueRef::from(v)))
        });
        let range = self.encode(tbl == "outbox", at, columns);
        self.bytes[range].to_vec()
    }
}

/// An image, and the columns it holds as references to texts stored elsewhere in its step
/// (position in the image, and where), left `NULL` until [`step_rows`] fills them in.
pub(super) fn decode_image(tbl: &str, stored: SqlValue) -> Result<(Image, Vec<(usize, Shared)>)> {
    let corrupt = || Error::Corrupt("a history image is damaged".into());
    let cols = table_columns(tbl);
    let bytes = match stored {
        SqlValue::Blob(b) if b.first() == Some(&IMAGE_FORMAT) => b,
        // Steps recorded before the binary form: a JSON object of column values.
        SqlValue::Text(t) => return Ok((parse_json_image(cols, &t)?, Vec::new())),
        _ => return Err(corrupt()),
    };
    let mut image = Image::default();
    let mut refs = Vec::new();
    let mut at = 1;
    let mut take = |n: usize| -> Result<&[u8]> {
        let piece = bytes.get(at..at + n).ok_or_else(corrupt)?;
        at += n;
        Ok(piece)
    };
    loop {
        let Ok(head) = take(2) else { break };
        let (index, tag) = (usize::from(head[0]), head[1]);
        let col = *cols.get(index).ok_or_else(corrupt)?;
        let eight = |b: &[u8]| -> Result<[u8; 8]> { b.try_into().map_err(|_| corrupt()) };
        let value = match tag {
            0 => SqlValue::Null,
            1 => SqlValue::Integer(i64::from_le_bytes(eight(take(8)?)?)),
            2 => SqlValue::Real(f64::from_le_bytes(eight(take(8)?)?)),
            3 | 4 => {
                let len: [u8; 4] = take(4)?.try_into().map_err(|_| corrupt())?;
                let body = take(u32::from_le_bytes(len) as usize)?.to_vec();
                if tag == 3 {
                    SqlValue::Text(String::from_utf8(body).map_err(|_| corrupt())?)
                } else {
                    SqlValue::Blob(body)
                }
            }
            5 => {
                let head = take(10)?;
                let outbox = head[0] == 1;
                let rid = i64::from_le_bytes(eight(&head[1..9])?);
                let after = head[9] == 1;
                let col = take(1)?[0];
                refs.push((
                    image.0.len(),
                    Shared {
                        outbox,
                        rid,
                        after,
                        col,
                    },
                ));
                SqlValue::Null
            }
            _ => return Err(corrupt()),
        };
        image.0.push((col, value));
    }
    Ok((image, refs))
}

pub(super) fn parse_json_image(cols: &[&'static str], text: &str) -> Result<Image> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Err(Error::Corrupt("a history image is not an object".into()));
    };
    let mut image = Image::default();
    for (name, value) in &map {
        if let Some(col) = cols.iter().find(|c| **c == name.as_str()) {
            image.0.push((col, sql_value(value)));
        }
    }
    Ok(image)
}
