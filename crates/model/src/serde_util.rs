//! Small serde adapters for the wire's quirks.

use std::marker::PhantomData;

use serde::de::DeserializeSeed;
use serde::{Deserialize, Deserializer};

/// Deserializes a field that distinguishes "absent" (`None`, via `#[serde(default)]`)
/// from "null" (`Some(None)`) and a value (`Some(Some(v))`).
///
/// On an update, absent leaves the stored value alone while null clears it, so the
/// two must not collapse into one `None`.
pub fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `agencyId` arrives as a Number or a String holding digits; it is always sent back as a Number.
pub fn number_or_string<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Num(i64),
        Str(String),
    }
    match Option::<Raw>::deserialize(d)? {
        None => Ok(None),
        Some(Raw::Num(n)) => Ok(Some(n)),
        Some(Raw::Str(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("expected a number, got \"{s}\""))),
    }
}

/// `advertiserIds` is an array, but a listing sample shows a single number.
pub fn one_or_many<'de, D>(d: D) -> Result<Option<Vec<i64>>, D::Error>
where
    D: Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        One(i64),
        Many(Vec<i64>),
    }
    Ok(match Option::<Raw>::deserialize(d)? {
        None => None,
        Some(Raw::One(n)) => Some(vec![n]),
        Some(Raw::Many(v)) => Some(v),
    })
}

// The functions above as `DeserializeSeed`s, which is what the visitors written by
// `wire_deserialize!` take: a visitor cannot name the deserializer type of each member,
// so it cannot call a `deserialize_with` function directly.

/// [`nullable`] as a seed.
pub(crate) struct NullableSeed<T>(PhantomData<fn() -> T>);

/// The seed of [`nullable`] for a field of type `Nullable<T>`.
pub(crate) fn nullable_seed<T>() -> NullableSeed<T> {
    NullableSeed(PhantomData)
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for NullableSeed<T> {
    type Value = Option<Option<T>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        nullable(d)
    }
}

/// [`number_or_string`] as a seed.
pub(crate) struct NumberOrStringSeed;

impl<'de> DeserializeSeed<'de> for NumberOrStringSeed {
    type Value = Option<i64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        number_or_string(d)
    }
}

/// [`one_or_many`] as a seed.
pub(crate) struct OneOrManySeed;

impl<'de> DeserializeSeed<'de> for OneOrManySeed {
    type Value = Option<Vec<i64>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        one_or_many(d)
    }
}
