//! Small serde adapters for the wire's quirks.

use std::marker::PhantomData;

use serde::de::{DeserializeSeed, SeqAccess, Unexpected, Visitor};
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
///
/// Written as a visitor rather than an untagged enum, whose error ("data did not match
/// any variant of untagged enum Raw") names a Rust type and not what to send.
pub fn number_or_string<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    d.deserialize_any(OptionalId::new(
        "a whole number or a string of digits",
        IdForm::NumberOrString,
    ))
}

/// `advertiserIds` is an array, but a listing sample shows a single number.
pub fn one_or_many<'de, D>(d: D) -> Result<Option<Vec<i64>>, D::Error>
where
    D: Deserializer<'de>,
{
    d.deserialize_any(OptionalIds)
}

/// Which input forms [`OptionalId`] takes besides a whole number.
#[derive(Clone, Copy)]
enum IdForm {
    Number,
    NumberOrString,
}

/// An optional whole number: null, an integer, an integral float (`3.0`, which JSON
/// Schema counts as an integer), or with [`IdForm::NumberOrString`] a string of digits.
struct OptionalId {
    expecting: &'static str,
    form: IdForm,
}

impl OptionalId {
    fn new(expecting: &'static str, form: IdForm) -> Self {
        Self { expecting, form }
    }
}

impl<'de> Visitor<'de> for OptionalId {
    type Value = Option<i64>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        whole(v)
            .map(Some)
            .ok_or_else(|| E::invalid_value(Unexpected::Float(v), &self))
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        match self.form {
            IdForm::NumberOrString => s
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| E::custom(format!("expected a number, got \"{s}\""))),
            IdForm::Number => Err(E::invalid_type(Unexpected::Str(s), &self)),
        }
    }
}

/// One whole number or an array of them ([`one_or_many`]), or null.
struct OptionalIds;

impl<'de> Visitor<'de> for OptionalIds {
    type Value = Option<Vec<i64>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of whole numbers, or one whole number")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(vec![v]))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .map(|n| Some(vec![n]))
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        whole(v)
            .map(|n| Some(vec![n]))
            .ok_or_else(|| E::invalid_value(Unexpected::Float(v), &self))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(WholeNumber)? {
            out.push(item);
        }
        Ok(Some(out))
    }
}

/// One whole number, an integral float included.
struct WholeNumber;

impl<'de> DeserializeSeed<'de> for WholeNumber {
    type Value = i64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<i64, D::Error> {
        let id = d.deserialize_any(OptionalId::new("a whole number", IdForm::Number))?;
        id.ok_or_else(|| serde::de::Error::invalid_type(Unexpected::Unit, &"a whole number"))
    }
}

/// `v` as an integer when it has no fraction and fits exactly: JSON Schema's `integer`
/// admits `1.0`, and serde's integers do not.
pub fn whole(v: f64) -> Option<i64> {
    /// 2^53: past it an f64 no longer holds every integer exactly.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    // In range and integral: the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    (v.fract() == 0.0 && v.abs() <= EXACT).then_some(v as i64)
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
