//! Kinds and entities as a person names them on the command line. A kind is read by
//! [`Kind::parse`] (`ad_order`, `ad order`, `adorder`, `ad-orders`), so the CLI has no
//! list of kinds of its own; help lists [`Kind::name`]s. Two short aliases stay for
//! the kinds with long names: `caps` (flight caps) and `segment` (audience segment).

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::Workspace;

use crate::CliError;

/// The short aliases, beside what [`Kind::parse`] reads.
const ALIASES: [(&str, Kind); 2] = [
    ("caps", Kind::FlightCaps),
    ("segment", Kind::AudienceSegment),
];

/// The kind a person typed: [`Kind::parse`] or an alias.
pub fn parse(text: &str) -> Option<Kind> {
    let alias = |t: &str| {
        ALIASES
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(t.trim()))
    };
    Kind::parse(text).or_else(|| alias(text).map(|(_, k)| *k))
}

/// Reads a kind for clap, one of those `only` keeps; its possible values (in help) are
/// their names.
#[derive(Clone, Copy)]
pub struct Kinds(fn(Kind) -> bool);

/// The kinds the buyer edits on their own ([`Kind::editable`]).
pub const EDITABLE: Kinds = Kinds(Kind::editable);

/// The kinds with a table ([`Kind::has_table`]).
pub const TABLES: Kinds = Kinds(Kind::has_table);

impl Kinds {
    fn all(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |k| (self.0)(*k))
    }
}

impl TypedValueParser for Kinds {
    type Value = Kind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Kind, clap::Error> {
        let text = value.to_string_lossy();
        match parse(&text).filter(|k| (self.0)(*k)) {
            Some(kind) => Ok(kind),
            None => {
                let names: Vec<&str> = self.all().map(Kind::name).collect();
                let what = arg.map_or_else(|| "KIND".to_owned(), |a| a.get_id().to_string());
                Err(clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!(
                        "invalid value '{text}' for '{what}': not a kind (one of {})\n",
                        names.join(", ")
                    ),
                )
                .with_cmd(cmd))
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.all().map(|k| {
            let aliases = ALIASES
                .iter()
                .filter(move |(_, a)| *a == k)
                .map(|(a, _)| *a);
            PossibleValue::new(k.name()).aliases(aliases)
        })))
    }
}

/// The entity a command names: a numeric id (a segment's serviceSegmentId), or a draft by
/// the start of its key, as `changes` shows it (`draft 1a2b3c4d`, `1a2b3c4d`).
pub fn target(ws: &Workspace, kind: Kind, id: &str) -> Result<EntityRef, CliError> {
    let id = id.trim();
    let draft = id
        .strip_prefix("draft")
        .map(|rest| rest.trim_start_matches([' ', ':']));
    if draft.is_none() {
        let remote = match kind {
            Kind::AudienceSegment => Some(Key::Segment(id.to_owned())),
            _ => id.parse().ok().map(Key::Id),
        };
        if let Some(key) = remote {
            let t = EntityRef::new(kind, key);
            if ws.get(&t)?.is_some() {
                return Ok(t);
            }
        }
    }
    let prefix = draft.unwrap_or(id);
    let drafts: Vec<EntityRef> = if prefix.is_empty() {
        Vec::new()
    } else {
        ws.list(kind)?
            .into_iter()
            .map(|e| e.target)
            .filter(|t| matches!(&t.key, Key::Local(l) if l.starts_with(prefix)))
            .collect()
    };
    match drafts.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CliError::Usage(format!(
            "{} {id} is not in the workspace: run `flightdeck pull` first \
             (drafts are named as `flightdeck changes` shows them)",
            kind.label()
        ))),
        _ => Err(CliError::Usage(format!(
            "{} drafts start with {prefix}; give more of the key",
            drafts.len()
        ))),
    }
}
