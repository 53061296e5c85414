//! Field edits as a buyer states them for many rows at once ("raise `max_bid` by 10%",
//! "clear `dailyBudget`", "prefix the name with `Q3 `"), applied to one entity's wire JSON.

use flightdeck_model::FieldError;
use flightdeck_model::validate::{self, codes};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// What to do to one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum Change {
    /// Set it to this wire value.
    Set(Value),
    /// Clear it: `null`, which the service takes as "clear" (an absent field means
    /// "keep"); an array becomes `[]`.
    Clear,
    /// Add an amount (negative to lower it), rounded to cents; a whole-number field stays
    /// whole.
    Add(f64),
    /// Change by a percentage (`10` raises by a tenth, `-25` lowers by a quarter), rounded
    /// like [`Change::Add`].
    Percent(f64),
    /// Put text before it.
    Prefix(String),
    /// Put text after it.
    Suffix(String),
}

/// One field and what to do to it. `field` is a wire path (`max_bid`, `frequencyCap.limit`,
/// `flights[0].maxBudget`); `[*]` stands for every item of an array (`flights[*].maxBudget`,
/// and `[*].maxBudget` for every cap of an ad order's flight caps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct FieldEdit {
    /// The wire path.
    pub field: String,
    /// What to do to it.
    pub change: Change,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
    All,
}

/// `a.b[2].c[*]` as segments; `None` when it is not a path.
pub(crate) fn parse_path(path: &str) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            segs.push(Seg::Key(name.to_owned()));
        } else if rest.is_empty() {
            return None;
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            let idx = &inner[..close];
            segs.push(if idx == "*" {
                Seg::All
            } else {
                Seg::Index(idx.parse().ok()?)
            });
            rest = &inner[close + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    (!segs.is_empty()).then_some(segs)
}

fn render(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        match s {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
            Seg::All => out.push_str("[*]"),
        }
    }
    out
}

/// Whether a field counts things (impressions, clicks, a frequency cap's limit), which
/// stay whole, rather than money, which is rounded to cents. Judged by the name: a
/// budget typed as `2` is still money.
fn counts_things(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path).to_ascii_lowercase();
    ["impression", "cap", "limit", "duration", "weight", "click"]
        .iter()
        .any(|w| last.contains(w))
}

/// Rounds to cents, or to a whole number for a whole-number field that counts things.
pub(crate) fn round_like(path: &str, current: &Number, x: f64) -> Option<Value> {
    if (current.is_i64() || current.is_u64()) && counts_things(path) {
        let r = x.round();
        // Whole numbers beyond i64 are not budgets or caps.
        if r.is_finite() && r.abs() < 9.0e18 {
            return Some(Value::from(r as i64));
        }
        return None;
    }
    let cents = (x * 100.0).round() / 100.0;
    Number::from_f64(cents).map(Value::Number)
}

/// Applies `edits` to `value` in order. Each edit that cannot apply (a percentage of a
/// text, a path through a non-object, a path or value nested deeper than
/// [`validate::limits::NESTING_MAX`]) is an error on its field; the others still apply.
pub fn apply(value: &mut Value, edits: &[FieldEdit]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for edit in edits {
        let Some(segs) = parse_path(&edit.field) else {
            errors.push(FieldError::new(
                &edit.field,
                codes::INVALID,
                format!("“{}” is not a field path", edit.field),
            ));
            continue;
        };
        // Checked before the walk, which builds one level per part: an entity deeper
        // than the workspace reads back could never be posted.
        let deep =
            validate::path_depth(&edit.field, segs.len()).and_then(|()| match &edit.change {
                Change::Set(v) => validate::value_depth(&edit.field, v),
                _ => Ok(()),
            });
        if let Err(e) = deep {
            errors.push(e);
            continue;
        }
        let mut at = Vec::new();
        walk(value, &segs, &mut at, &edit.change, &mut errors);
    }
    errors
}

fn walk(
    node: &mut Value,
    segs: &[Seg],
    at: &mut Vec<Seg>,
    change: &Change,
    errors: &mut Vec<FieldError>,
) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    match first {
        Seg::Key(k) => {
            if node.is_null() {
                // A dotted path builds the objects it goes through (`type.mediaType` on
                // a new draft makes `type`); clearing or counting on a field that is not
                // there leaves its parent as absent as it was.
                if rest.is_empty() && !matches!(change, Change::Set(_)) {
                    at.push(first.clone());
                    if let Err(e) = change_one(None, change, at) {
                        errors.push(e);
                    }
                    at.pop();
                    return;
                }
                *node = Value::Object(Map::new());
            }
            let Value::Object(map) = node else {
                errors.push(FieldError::new(
                    render(at),
                    codes::INVALID,
                    format!("{} has no field {k}", shown(at)),
                ));
                return;
            };
            at.push(first.clone());
            if rest.is_empty() {
                match change_one(map.get(k), change, at) {
                    Ok(Some(new)) => {
                        map.insert(k.clone(), new);
                    }
                    Ok(None) => {}
                    Err(e) => errors.push(e),
                }
            } else {
                let child = map.entry(k.clone()).or_insert(Value::Null);
                walk(child, rest, at, change, errors);
            }
            at.pop();
        }
        Seg::Index(_) | Seg::All => {
            let Value::Array(items) = node else {
                errors.push(FieldError::new(
                    render(at),
                    codes::INVALID,
                    format!("{} is not a list", shown(at)),
                ));
                return;
            };
            let range: Vec<usize> = match first {
                Seg::Index(i) if *i < items.len() => vec![*i],
                Seg::Index(i) => {
                    errors.push(FieldError::new(
                        format!("{}[{i}]", render(at)),
                        codes::INVALID,
                        format!("{} has no item {i}", shown(at)),
                    ));
                    return;
                }
                _ => (0..items.len()).collect(),
            };
            for i in range {
                at.push(Seg::Index(i));
                if rest.is_empty() {
                    match change_one(items.get(i), change, at) {
                        Ok(Some(new)) => items[i] = new,
                        Ok(None) => {}
                        Err(e) => errors.push(e),
                    }
                } else {
                    walk(&mut items[i], rest, at, change, errors);
                }
                at.pop();
            }
        }
    }
}

fn shown(at: &[Seg]) -> String {
    if at.is_empty() {
        "the entity".to_owned()
    } else {
        render(at)
    }
}

/// The new value of one field, `None` to leave it as it is.
fn change_one(
    current: Option<&Value>,
    change: &Change,
    at: &[Seg],
) -> Result<Option<Value>, FieldError> {
    let path = render(at);
    let err = |msg: String| FieldError::new(&path, codes::INVALID, msg);
    match change {
        Change::Set(v) => Ok(Some(v.clone())),
        Change::Clear => Ok(Some(match current {
            Some(Value::Array(_)) => Value::Array(Vec::new()),
            _ => Value::Null,
        })),
        Change::Add(_) | Change::Percent(_) => {
            let Some(Value::Number(n)) = current else {
                return Err(err(match current {
                    None | Some(Value::Null) => format!("{path} has no value to change"),
                    Some(_) => format!("{path} is not a number"),
                }));
            };
            let x = n.as_f64().unwrap_or_default();
            let new = match change {
                Change::Add(d) => x + d,
                Change::Percent(p) => x * (1.0 + p / 100.0),
                _ => x,
            };
            round_like(&path, n, new)
                .map(Some)
                .ok_or_else(|| err(format!("{path} would be out of range")))
        }
        Change::Prefix(t) | Change::Suffix(t) => {
            let text = match current {
                None | Some(Value::Null) => "",
                Some(Value::String(s)) => s,
                Some(_) => return Err(err(format!("{path} is not text"))),
            };
            Ok(Some(Value::String(
                if matches!(change, Change::Prefix(_)) {
                    format!("{t}{text}")
                } else {
                    format!("{text}{t}")
                },
            )))
        }
    }
}

/// The value a `--set F=V` or a spreadsheet cell means: JSON when it is JSON (a number,
/// `true`, a list), else the text itself.
pub fn parse_value(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

/// The value at a path without wildcards (`frequencyCap.limit`, `flights[1].maxBudget`).
pub fn get<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut node = value;
    for seg in parse_path(path)? {
        node = match seg {
            Seg::Key(k) => node.get(k)?,
            Seg::Index(i) => node.get(i)?,
            Seg::All => return None,
        };
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(field: &str, change: Change) -> FieldEdit {
        FieldEdit {
            field: field.into(),
            change,
        }
    }

    #[test]
    fn percent_and_amounts_round_to_cents_and_whole_numbers_stay_whole() {
        let mut v = json!({"max_bid": 1.25, "dailyFrequencyCap": 7, "frequencyCap": {"limit": 3}, "dailyBudget": 2});
        let errors = apply(
            &mut v,
            &[
                edit("max_bid", Change::Percent(10.0)),
                edit("dailyFrequencyCap", Change::Percent(10.0)),
                edit("frequencyCap.limit", Change::Add(2.0)),
                // Money typed as a whole number is still money.
                edit("dailyBudget", Change::Percent(12.5)),
            ],
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            v,
            json!({"max_bid": 1.38, "dailyFrequencyCap": 8, "frequencyCap": {"limit": 5}, "dailyBudget": 2.25})
        );
    }

    #[test]
    fn wildcard_reaches_every_item_and_clear_keeps_arrays_arrays() {
        let mut v = json!({"flights": [{"maxBudget": 100.0}, {"maxBudget": 50.5}], "iabCategory": ["IAB1"], "dailyBudget": 3.0});
        let errors = apply(
            &mut v,
            &[
                edit("flights[*].maxBudget", Change::Add(-0.5)),
                edit("iabCategory", Change::Clear),
                edit("dailyBudget", Change::Clear),
            ],
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            v,
            json!({"flights": [{"maxBudget": 99.5}, {"maxBudget": 50.0}], "iabCategory": [], "dailyBudget": null})
        );
    }

    #[test]
    fn an_edit_that_cannot_apply_names_its_field_and_the_others_still_apply() {
        let mut v = json!({"name": "Spring", "max_bid": null});
        let errors = apply(
            &mut v,
            &[
                edit("name", Change::Percent(5.0)),
                edit("max_bid", Change::Add(1.0)),
                edit("name", Change::Prefix("Q3 ".into())),
                edit("flights[3].maxBudget", Change::Set(json!(1))),
            ],
        );
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["name", "max_bid", "flights"]);
        assert_eq!(v["name"], "Q3 Spring");
    }

    #[test]
    fn paths_parse_and_render() {
        assert_eq!(
            parse_path("flights[*].maxBudget"),
            Some(vec![
                Seg::Key("flights".into()),
                Seg::All,
                Seg::Key("maxBudget".into())
            ])
        );
        assert_eq!(parse_path("[*].maxBudget").map(|s| s.len()), Some(2));
        assert_eq!(parse_path("a..b"), None);
        assert_eq!(parse_path("a[x]"), None);
        assert_eq!(get(&json!({"a": [{"b": 2}]}), "a[0].b"), Some(&json!(2)));
    }
}
