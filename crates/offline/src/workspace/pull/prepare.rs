//! A listing's items hashed, and their keys as text, before they are compared and
//! written: on every core, as a 100,000-order account is 60 MB of JSON.

use super::super::{hash_text, key_text};
use super::Item;
use crate::change::{EntityRef, Key};
use flightdeck_model::Id;

pub(super) struct Prepared {
    pub(super) key: Key,
    pub(super) key_text: String,
    pub(super) text: String,
    pub(super) hash: String,
    pub(super) parent: Option<EntityRef>,
    pub(super) scope: Option<Id>,
}

/// Hashes a listing on every core: a 100,000-order account is 60 MB of JSON.
pub(super) fn prepare(items: Vec<Item>) -> Vec<Prepared> {
    let one = |item: Item| Prepared {
        key_text: key_text(&item.key),
        key: item.key,
        hash: hash_text(&item.text),
        text: item.text,
        parent: item.parent,
        scope: item.scope,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || items.len() < 2_000 {
        return items.into_iter().map(one).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut chunks: Vec<Vec<Item>> = Vec::with_capacity(threads);
    let mut items = items.into_iter();
    loop {
        let chunk: Vec<Item> = items.by_ref().take(per).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.into_iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            // A lost chunk would read as "removed on the server": re-raise instead.
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
