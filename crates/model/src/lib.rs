//! Wire types of the advertising service and the rules that make a request valid.
//!
//! Field names are exactly those on the wire. Types that travel both ways keep
//! fields the crate does not name in `extra`, so a read-modify-write keeps them.
//! The rules live here once: the sandbox enforces them, the client and the app
//! show their errors, and nothing else re-implements them.

#[macro_use]
mod open_enum;
#[macro_use]
mod wire_de;

pub mod adorder;
pub mod advertiser;
pub mod audience;
pub mod campaign;
pub mod common;
pub mod creative;
mod error;
pub mod serde_util;
pub mod sitelist;
pub mod token;
pub mod trafficking;
pub mod validate;

pub use adorder::*;
pub use advertiser::*;
pub use audience::*;
pub use campaign::*;
pub use common::*;
pub use creative::*;
pub use error::{Error, FieldError, ValidationErrors};
pub use open_enum::OpenEnum;
pub use sitelist::*;
pub use token::*;
pub use trafficking::*;
