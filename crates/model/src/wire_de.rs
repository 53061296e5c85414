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
    (@value $map:ident) => {
        $map.next_value()?
    };
    (@value $map:ident, $seed:expr) => {
        $map.next_value_seed($seed)?
    };
    (
        $name:ident {
            $( $field:ident : $wire:literal $( with $seed:expr )? ),+ $(,)?
        }
    ) => {
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
                                        $field = Some(wire_deserialize!(@value map $(, $seed)?));
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
