//! Decoding of the wire structs that keep unknown members in `extra`.
//!
//! `#[serde(flatten)]` on `extra` gives the right behaviour, but serde's derive reads
//! each unknown member into its private `Content` tree first and converts that tree into
//! a `serde_json::Value` afterwards. A service that adds a member adds it to every object
//! of a listing: with one unknown member per object, 100,000 ad orders took 400–540 ms
//! to decode that way and 340–380 ms with the visitor [`wire_deserialize!`] writes, which
//! reads an unknown member straight into a `Value` (benches/decode.rs). Without unknown
//! members both take about 200 ms.
//!
//! Serialization stays derived (flatten costs little on that side), so the serde
//! attributes on each struct remain the names `Serialize`, specta and utoipa see. The
//! macro's field list repeats those names; `tests/wire_names.rs` fills every field, encodes
//! and decodes, and requires the same value back with nothing in `extra`, so a name that
//! differs between the two fails there.

/// Implements `Deserialize` for a struct with an `extra: Extra` field from the list of
/// its other fields and their wire names.
///
/// It behaves as the derive with `#[serde(default)]` on every field and
/// `#[serde(flatten)] extra` did:
/// - a missing member leaves the field at its `Default`;
/// - a member given twice is a `duplicate field` error;
/// - any other member is kept in `extra` as a `serde_json::Value`, in input order (a
///   repeated unknown member keeps its first position and its last value);
/// - only a JSON object is accepted (as with flatten, not an array of field values), and
///   the "expected" text of a type error is `struct Name`.
///
/// `field: "wireName" with seed` decodes the member through `seed`, a
/// [`serde::de::DeserializeSeed`] (the seeds in [`crate::serde_util`] stand for the
/// `deserialize_with` functions there) instead of the field type's own `Deserialize`.
///
/// The generated struct expression lists every field, so a field left out of the list
/// does not compile.
macro_rules! wire_deserialize {
    (@value $map:ident, field $name:ident . $field:ident) => {{
        #[allow(unused_imports)]
        use $crate::wire_de::{ListField as _, PlainField as _};
        $map.next_value_seed((&&$crate::wire_de::field_of(|s: &$name| &s.$field)).seed())?
    }};
    (@value $map:ident, $seed:expr , field $name:ident . $field:ident) => {
        $map.next_value_seed($seed)?
    };
    (
        $name:ident {
            $( $field:ident : $wire:literal $( with $seed:expr )? ),+ $(,)?
        }
    ) => {
        impl $name {
            /// The members this type names on the wire, in declaration order: what a
            /// host may offer as its fields, and the names a hand-typed edit is checked
            /// against (a member outside them would be sent to the service as typed).
            pub const WIRE_MEMBERS: &'static [&'static str] = &[$( $wire ),+];
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                #[allow(non_camel_case_types)]
                enum Key {
                    $( $field, )+
                    Unknown(::std::string::String),
                }

                impl Key {
                    fn of(key: &str) -> Option<Self> {
                        match key {
                            $( $wire => Some(Key::$field), )+
                            _ => None,
                        }
                    }
                }

                struct KeySeed;

                impl<'de> ::serde::de::DeserializeSeed<'de> for KeySeed {
                    type Value = Key;
                    fn deserialize<D>(self, deserializer: D) -> ::std::result::Result<Key, D::Error>
                    where
                        D: ::serde::Deserializer<'de>,
                    {
                        deserializer.deserialize_identifier(self)
                    }
                }

                impl<'de> ::serde::de::Visitor<'de> for KeySeed {
                    type Value = Key;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str("field identifier")
                    }
                    fn visit_str<E>(self, key: &str) -> ::std::result::Result<Key, E>
                    where
                        E: ::serde::de::Error,
                    {
                        Ok(Key::of(key).unwrap_or_else(|| Key::Unknown(key.to_owned())))
                    }
                    fn visit_string<E>(self, key: ::std::string::String) -> ::std::result::Result<Key, E>
                    where
                        E: ::serde::de::Error,
                    {
                        Ok(Key::of(&key).unwrap_or(Key::Unknown(key)))
                    }
                    fn visit_bytes<E>(self, key: &[u8]) -> ::std::result::Result<Key, E>
                    where
                        E: ::serde::de::Error,
                    {
                        match ::std::str::from_utf8(key) {
                            Ok(key) => self.visit_str(key),
                            Err(_) => Err(E::invalid_value(::serde::de::Unexpected::Bytes(key), &self)),
                        }
                    }
                }

                struct StructVisitor;

                impl<'de> ::serde::de::Visitor<'de> for StructVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($name)))
                    }
                    fn visit_map<A>(self, mut map: A) -> ::std::result::Result<$name, A::Error>
                    where
                        A: ::serde::de::MapAccess<'de>,
                    {
                        $( let mut $field = None; )+
                        let mut extra = $crate::common::Extra::new();
                        while let Some(key) = map.next_key_seed(KeySeed)? {
                            match key {
                                $(
                                    Key::$field => {
                                        if $field.is_some() {
                                            return Err(<A::Error as ::serde::de::Error>::duplicate_field($wire));
                                        }
                                        $field = Some(wire_deserialize!(@value map $(, $seed)? , field $name . $field));
                                    }
                                )+
                                Key::Unknown(key) => {
                                    let value: ::serde_json::Value = map.next_value()?;
                                    extra.insert(key, value);
                                }
                            }
                        }
                        Ok($name {
                            $( $field: $field.unwrap_or_default(), )+
                            extra,
                        })
                    }
                }

                deserializer.deserialize_map(StructVisitor)
            }
        }
    };
}

use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};

/// The type of a field, for picking how [`wire_deserialize!`] decodes it.
pub(crate) struct FieldOf<T>(PhantomData<fn() -> T>);

/// The type of the field `field` returns, from a closure such as `|s: &Name| &s.field`
/// (a macro sees field names, not their types).
pub(crate) fn field_of<S, T>(_field: fn(&S) -> &T) -> FieldOf<T> {
    FieldOf(PhantomData)
}

/// Most bytes reserved up front from a length the input announces, as serde does.
const PREALLOC_MAX_BYTES: usize = 1024 * 1024;

/// Fields decoded as their type's own `Deserialize` does. Chosen when [`ListField`]
/// does not apply: `(&&field_of(..)).seed()` tries `&&FieldOf<T>` first, then `&FieldOf<T>`.
pub(crate) trait PlainField {
    type Seed;
    fn seed(self) -> Self::Seed;
}

impl<T> PlainField for &FieldOf<T> {
    type Seed = PhantomData<T>;
    fn seed(self) -> PhantomData<T> {
        PhantomData
    }
}

/// `Vec` and `Option<Vec>` fields: as serde's own impls, except for the first
/// allocation. JSON does not announce an array's length, so serde's `Vec` starts empty and
/// its first push reserves room for four items: an ad order with its one audience carried
/// room for three more (1.2 KB, more than the 712-byte ad order itself). Here an array of
/// unknown length starts with room for exactly one item, then grows as `Vec` does.
/// 100,000 decoded ad orders take 117 MB less memory; decoding them on one thread where
/// that memory is not already mapped (the client bench) went from 310–326 ms to 237 ms.
pub(crate) trait ListField {
    type Seed;
    fn seed(self) -> Self::Seed;
}

impl<T> ListField for &&FieldOf<Vec<T>> {
    type Seed = VecSeed<T>;
    fn seed(self) -> VecSeed<T> {
        VecSeed(PhantomData)
    }
}

impl<T> ListField for &&FieldOf<Option<Vec<T>>> {
    type Seed = OptionSeed<VecSeed<T>>;
    fn seed(self) -> Self::Seed {
        OptionSeed(VecSeed(PhantomData))
    }
}

/// `Vec<T>` as serde's impl decodes it (same calls, same "a sequence" in errors), sized
/// as described on [`ListField`].
pub(crate) struct VecSeed<T>(PhantomData<fn() -> T>);

impl<'de, T: serde::Deserialize<'de>> DeserializeSeed<'de> for VecSeed<T> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for VecSeed<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let announced = seq
            .size_hint()
            .map(|n| n.min(PREALLOC_MAX_BYTES / std::mem::size_of::<T>().max(1)));
        let mut items = Vec::with_capacity(announced.unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            if items.capacity() == 0 {
                items.reserve_exact(1);
            }
            items.push(item);
        }
        Ok(items)
    }
}

/// `Option<T>` as serde's impl decodes it (`null` is `None`), with `T` decoded by a seed.
pub(crate) struct OptionSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for OptionSeed<S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for OptionSeed<S> {
    type Value = Option<S::Value>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(deserializer).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::{AdOrder, AdOrderAudience};

    /// The same fields decoded by serde's own `Option<Vec<T>>`.
    #[derive(Deserialize)]
    struct Plain {
        #[serde(default)]
        audiences: Option<Vec<AdOrderAudience>>,
        #[serde(default)]
        channels: Option<Vec<String>>,
    }

    /// Values, absences and errors (the same text, at the same place) are serde's.
    #[test]
    fn list_fields_decode_as_serde_decodes_them() {
        let audiences = [
            "null",
            "[]",
            r#"[{"id":1,"weight":100}]"#,
            r#"[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}]"#,
            "5",
            "{}",
            r#""x""#,
            "[1]",
            "[{}",
        ];
        for value in audiences {
            let json = format!(r#"{{"audiences":{value}}}"#);
            let ours = serde_json::from_str::<AdOrder>(&json).map(|o| o.audiences);
            let serdes = serde_json::from_str::<Plain>(&json).map(|p| p.audiences);
            match (ours, serdes) {
                (Ok(ours), Ok(serdes)) => assert_eq!(ours, serdes, "{json}"),
                (Err(ours), Err(serdes)) => {
                    assert_eq!(ours.to_string(), serdes.to_string(), "{json}")
                }
                (ours, serdes) => panic!("{json}: {ours:?} against {serdes:?}"),
            }
        }
        for value in ["null", "[]", r#"["Display","CTV"]"#, "[1]", "true"] {
            let json = format!(r#"{{"channels":{value}}}"#);
            let ours = serde_json::from_str::<AdOrder>(&json).map(|o| o.channels);
            let serdes = serde_json::from_str::<Plain>(&json).map(|p| p.channels);
            assert_eq!(
                ours.map_err(|e| e.to_string()),
                serdes.map_err(|e| e.to_string()),
                "{json}"
            );
        }
        let absent = serde_json::from_str::<AdOrder>("{}").map(|o| o.audiences);
        assert!(matches!(absent, Ok(None)));
    }
}
