//! How deep a buyer may nest what they type: a field path (`a.b[0].c`, a spreadsheet
//! column, `--set a.b=…`) and a value typed into a field (a cell's JSON). Deeper input
//! is refused at its field, before it reaches an entity.
//!
//! Why a limit at all: serde_json reads JSON at most [`READABLE_NESTING_MAX`] arrays and
//! objects deep, and writes any depth. A value built deeper than that is stored fine and
//! can never be read back; each edit path's limit keeps entities well inside it.

use serde_json::Value;

use super::codes;
use crate::FieldError;

/// The deepest a field path may go (one level per name or index), and the deepest a value
/// typed into a field may nest its lists and objects (`[[1]]` nests 2).
///
/// The deepest field the wire names is 5 levels down (an ad order's
/// `audiences[0].exchanges.include[0]`), and the demo account's entities nest 3 levels at
/// most; 32 leaves room for whatever the service adds in fields Flightdeck does not name
/// (day parts, DAAST), while a path of 32 holding a value of 32, inside its entity, still
/// reads back (`1 + 2 × 32 = 65`, see [`READABLE_NESTING_MAX`]).
pub const NESTING_MAX: usize = 32;

/// The deepest JSON that serde_json reads: 127 arrays and objects (its recursion limit is
/// 128, and the 128th level fails). The local workspace refuses to store anything deeper,
/// since it could not read it back.
pub const READABLE_NESTING_MAX: usize = 127;

// The deepest path holding the deepest value, inside its entity (one more level), still
// reads back.
const _: () = assert!(2 * NESTING_MAX < READABLE_NESTING_MAX);

/// How many arrays and objects nest at the deepest point of `value`: 0 for a scalar, 1
/// for `[]` or `{"a": 1}`. Walks without recursion, so any value is measured.
pub fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, above)) = stack.pop() {
        match v {
            Value::Array(items) => {
                deepest = deepest.max(above + 1);
                stack.extend(items.iter().map(|i| (i, above + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(above + 1);
                stack.extend(map.values().map(|i| (i, above + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// The error of a field path of `levels` names and indexes, deeper than [`NESTING_MAX`].
pub fn path_depth(field: &str, levels: usize) -> Result<(), FieldError> {
    if levels <= NESTING_MAX {
        return Ok(());
    }
    Err(FieldError::new(
        field,
        codes::OUT_OF_RANGE,
        format!(
            "this field path goes {levels} levels deep; a field is at most {NESTING_MAX} levels deep"
        ),
    ))
}

/// The error of `value` typed into `field` when it nests deeper than [`NESTING_MAX`].
pub fn value_depth(field: &str, value: &Value) -> Result<(), FieldError> {
    let levels = nesting(value);
    if levels <= NESTING_MAX {
        return Ok(());
    }
    Err(FieldError::new(
        field,
        codes::OUT_OF_RANGE,
        format!(
            "this value nests lists and objects {levels} levels deep; a value may nest at most {NESTING_MAX}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn serde_json_reads_back_exactly_the_readable_depth() {
        let deepest: Value = serde_json::from_str(&nested(READABLE_NESTING_MAX)).expect("reads");
        assert_eq!(nesting(&deepest), READABLE_NESTING_MAX);
        let written = serde_json::to_string(&Value::Array(vec![deepest])).expect("writes");
        assert!(serde_json::from_str::<Value>(&written).is_err());
    }

    #[test]
    fn nesting_counts_lists_and_objects() {
        assert_eq!(nesting(&Value::from(1)), 0);
        assert_eq!(nesting(&serde_json::json!([])), 1);
        assert_eq!(
            nesting(&serde_json::json!({"a": [1, {"b": []}], "c": 2})),
            4
        );
    }
}
