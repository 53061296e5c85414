//! Black-box tests of the `/v1` resources over real HTTP on loopback. Bodies are checked
//! as `serde_json::Value`, so a wrong field name on the wire cannot hide behind the
//! crate's own types.

mod adorders;
mod advertisers;
mod audiences;
mod campaigns;
#[path = "../common/mod.rs"]
mod common;
mod creatives;
mod requests;
mod rules;
mod sitelists;
mod support;
mod trafficking;
