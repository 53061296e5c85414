//! Enums the service may extend.
//!
//! The spec lists the values it has seen and says others exist ("Other allowed values:
//! not shown"). A listing that carries one new value must still decode, show the value
//! as it is, and send it back unchanged, so every enum on the wire is open: its known
//! values are variants, and anything else is kept in `Other` with the raw string.
//! Whether an unknown value is acceptable *on input* is a validation rule, decided per
//! field in [`crate::validate`], never by the decoder.

/// Decodes an open enum from a string without keeping the string: a known value is
/// matched where the decoder holds the text, and only an unknown one is copied (into
/// `Other`). Through `Cow<str>`, serde decodes an owned `String` first, one allocation
/// per enum member of every listed item. Errors read as serde's `String` gives them.
pub(crate) struct WireStr<T>(pub(crate) fn(&str) -> T);

impl<T> serde::de::Visitor<'_> for WireStr<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(v))
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<T, E> {
        match std::str::from_utf8(v) {
            Ok(s) => Ok((self.0)(s)),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(v), &self)),
        }
    }
}

/// What every open enum offers, so a rule can check "one of the known values" generically.
pub trait OpenEnum {
    /// The wire spelling.
    fn wire(&self) -> &str;
    /// Whether the value is one this crate knows.
    fn known(&self) -> bool;
    /// Every known wire spelling.
    fn known_wire() -> Vec<&'static str>;
}

/// Declares an open enum: unit variants with their wire spelling, plus `Other(String)`.
/// `aliases` are input spellings read as a known value in any case (`VCR`).
///
/// It serializes as the plain wire string, so the TypeScript side sees `string` and the
/// OpenAPI document a string with the known values as examples.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
        $( aliases { $( $alias:literal => $avariant:ident ),+ $(,)? } )?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::upper_case_acronyms, non_camel_case_types)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value the service sent that this crate does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The known values, in the spec's order.
            pub const KNOWN: &'static [$name] = &[$( $name::$variant ),+];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Other(s) => s.as_str(),
                }
            }

            /// The known value spelled `s`, or `Other(s)`.
            pub fn from_wire(s: &str) -> Self {
                match s {
                    $( $wire => $name::$variant, )+
                    $($( a if a.eq_ignore_ascii_case($alias) => $name::$avariant, )+)?
                    other => $name::Other(other.to_owned()),
                }
            }

            /// Whether this is one of the values the spec names.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }

            /// The known wire spellings, for messages and pick lists.
            pub fn known_names() -> Vec<&'static str> {
                vec![$( $wire ),+]
            }
        }

        impl $crate::OpenEnum for $name {
            fn wire(&self) -> &str {
                self.as_str()
            }
            fn known(&self) -> bool {
                self.is_known()
            }
            fn known_wire() -> Vec<&'static str> {
                Self::known_names()
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok(Self::from_wire(s))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_str($crate::open_enum::WireStr(Self::from_wire))
            }
        }

        open_enum_specta!($name);
        open_enum_openapi!($name, [$( $wire ),+]);
    };
}

#[cfg(feature = "specta")]
macro_rules! open_enum_specta {
    ($name:ident) => {
        impl ::specta::Type for $name {
            fn definition(types: &mut ::specta::Types) -> ::specta::datatype::DataType {
                <String as ::specta::Type>::definition(types)
            }
        }
    };
}

#[cfg(not(feature = "specta"))]
macro_rules! open_enum_specta {
    ($name:ident) => {};
}

#[cfg(feature = "openapi")]
macro_rules! open_enum_openapi {
    ($name:ident, [$( $wire:literal ),+]) => {
        // `ComposeSchema` (which gives `PartialSchema`) is what `Option<Option<T>>` fields need.
        impl ::utoipa::__dev::ComposeSchema for $name {
            fn compose(
                _: Vec<::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema>>,
            ) -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                ::utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(::utoipa::openapi::schema::Type::String)
                    .description(Some(concat!(
                        "Known values: ",
                        $( $wire, " " ),+,
                        "(the service may add others)"
                    )))
                    .examples([$( ::serde_json::json!($wire) ),+])
                    .into()
            }
        }
        impl ::utoipa::ToSchema for $name {}
    };
}

#[cfg(not(feature = "openapi"))]
macro_rules! open_enum_openapi {
    ($name:ident, [$( $wire:literal ),+]) => {};
}

#[cfg(test)]
mod tests {
    use crate::{AdOrder, OptimizationGoal};

    /// Known values, aliases, unknown values (kept as typed, escapes read) and the
    /// errors of anything but a string: as decoding through an owned `String` gave them.
    #[test]
    fn open_enums_decode_from_the_text_in_place() {
        let goal = |json: &str| serde_json::from_str::<OptimizationGoal>(json);
        assert_eq!(goal(r#""CPM""#).ok(), Some(OptimizationGoal::Cpm));
        assert_eq!(
            goal(r#""vcr""#).ok(),
            Some(OptimizationGoal::VideoCompletionRate)
        );
        assert_eq!(
            goal(r#""NEW_\u0047OAL""#).ok(),
            Some(OptimizationGoal::Other("NEW_GOAL".into()))
        );
        assert_eq!(
            serde_json::from_slice::<OptimizationGoal>(br#""CPC""#).ok(),
            Some(OptimizationGoal::Cpc)
        );
        let err = |json: &str| goal(json).map_err(|e| e.to_string()).err();
        assert_eq!(
            err("5").as_deref(),
            Some("invalid type: integer `5`, expected a string at line 1 column 1")
        );
        assert_eq!(
            err("null").as_deref(),
            Some("invalid type: null, expected a string at line 1 column 4")
        );
        let order: AdOrder =
            serde_json::from_str(r#"{"optimizationGoal":"CPA","goalMode":"SOMETHING_NEW"}"#)
                .expect("an ad order");
        assert_eq!(order.optimization_goal, Some(OptimizationGoal::Cpa));
        assert_eq!(
            order.goal_mode.as_ref().map(|m| m.as_str()),
            Some("SOMETHING_NEW")
        );
    }
}
