//! Flightdeck's core, shared by both hosts: the desktop app (`src-tauri`) and the
//! `flightdeck` CLI. Everything a host would otherwise decide for itself lives here once,
//! so the two read the same files and apply the same rules:
//!
//! - [`paths`]: the data directory and the one workspace file per profile and account;
//! - [`profiles`]: the saved profiles and the current account of each (`profiles.json`);
//! - [`Core`] and [`Account`]: the active profile, its session (tokens in the keyring,
//!   namespaced per service and account), its workspace, and the posting state
//!   ([`PostingGuard`]);
//! - [`pending`]: the pending-change views, with the kind's label and the row marker;
//! - [`checks`]: creative checks (warnings and infos) for a form, a selection and the
//!   pending changes, and a VAST URL fetched and checked on request;
//! - [`cells`]: cell editing in every table (what each column edits, cells as edits);
//! - [`fields`]: each kind's fields by the labels the buyer reads, and the one check
//!   of the names an edit gives;
//! - [`query`]: windowed tables and each table's columns; [`status`]: where a profile
//!   stands; [`upload`]: identifier uploads from a form or a file;
//! - [`scope`]: what a download may fetch for the signed-in kind of account;
//! - [`settings`] and [`logging`]: the app's settings (`settings.json`) and its log file;
//! - [`updates`]: the update feed for the chosen channel;
//! - [`files`]: files chosen in a host's dialog, as tokens, and whole-file writes;
//! - [`preview`]: creative previews: resources a tag loads, offline and live documents.
//! - [`tagsheet`]: tag-sheet import (presets, preview, drafts as one undo step).
//!
//! Hosts parse input, call one function here (or in `flightdeck-offline`), and map the
//! error. No Tauri, no terminal: both are hosts' business.

pub mod bulk;
pub mod cells;
pub mod checks;
pub mod edits;
pub mod error;
pub mod fields;
pub mod files;
pub mod forms;
pub mod logging;
pub mod offer;
pub mod paths;
pub mod pending;
pub mod preview;
pub mod profiles;
pub mod query;
pub mod scope;
mod session;
pub mod settings;
pub mod status;
pub mod tagsheet;
pub mod updates;
pub mod upload;

pub use error::{Error, Result};
pub use session::{
    Account, AdOrderCreatives, AssociatedCreative, Core, LISTED_CREATIVE_NOTE, OpenOptions,
    PartnerCallback, PendingPartner, PostingGuard, PullSummary, Selection, Signed,
};
