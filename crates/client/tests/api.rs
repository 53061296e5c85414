//! The client against an in-process sandbox over real HTTP: every endpoint method, the
//! mapping of answers to errors, read-modify-write safety, retries and injected faults;
//! and canned answers carrying what the real service may add.

#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)]

mod common;

#[path = "api/adorders.rs"]
mod adorders;
#[path = "api/advertisers.rs"]
mod advertisers;
#[path = "api/audiences.rs"]
mod audiences;
#[path = "api/campaigns.rs"]
mod campaigns;
#[path = "api/creatives.rs"]
mod creatives;
#[path = "api/decode.rs"]
mod decode;
#[path = "api/faults.rs"]
mod faults;
#[path = "api/flight_caps.rs"]
mod flight_caps;
#[path = "api/listings.rs"]
mod listings;
#[path = "api/session.rs"]
mod session;
#[path = "api/site_lists.rs"]
mod site_lists;
#[path = "api/trafficking.rs"]
mod trafficking;
