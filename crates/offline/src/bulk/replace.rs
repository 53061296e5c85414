//! Find and replace in the text of entities: names, URLs and pixels, creative copy.

use std::collections::BTreeMap;

use flightdeck_model::FieldError;
use flightdeck_model::validate::codes;
use regex::{NoExpand, Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What to find, what to put instead, and where.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Find {
    /// The text (or regular expression) to find.
    pub find: String,
    /// What replaces each match; with `regex`, `$1` and `${name}` insert groups.
    pub replace: String,
    /// Upper and lower case differ.
    #[serde(default)]
    pub match_case: bool,
    /// Matches only whole words.
    #[serde(default)]
    pub whole_word: bool,
    /// `find` is a regular expression.
    #[serde(default)]
    pub regex: bool,
    /// Only these fields (wire paths, `[*]` for list items: `name`, `native.mediaUrls[*]`);
    /// empty: every text field ([`is_text_field`]).
    #[serde(default)]
    pub fields: Vec<String>,
}

/// A compiled [`Find`].
pub struct Matcher {
    re: Regex,
    replace: String,
    expand: bool,
    fields: Vec<String>,
}

/// Matches for one field, summed over the entities.
pub type Counts = BTreeMap<String, usize>;

impl Matcher {
    /// Compiles `find`; a bad regular expression is an error on `find`.
    pub fn new(find: &Find) -> Result<Matcher, FieldError> {
        if find.find.is_empty() {
            return Err(FieldError::new("find", codes::REQUIRED, "say what to find"));
        }
        let mut pattern = if find.regex {
            find.find.clone()
        } else {
            regex::escape(&find.find)
        };
        if find.whole_word {
            pattern = format!(r"\b(?:{pattern})\b");
        }
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(!find.match_case)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| {
                FieldError::new(
                    "find",
                    codes::INVALID,
                    format!("not a regular expression: {e}"),
                )
            })?;
        Ok(Matcher {
            re,
            replace: find.replace.clone(),
            expand: find.regex,
            fields: find.fields.clone(),
        })
    }

    /// Replaces in every chosen text field of `value`, counting matches per field (list
    /// items counted under `[*]`). Returns the total.
    pub fn apply(&self, value: &mut Value, counts: &mut Counts) -> usize {
        let mut path = String::new();
        self.walk(value, &mut path, counts)
    }

    fn chosen(&self, path: &str) -> bool {
        if self.fields.is_empty() {
            is_text_field(path)
        } else {
            self.fields.iter().any(|f| f == path)
        }
    }

    fn walk(&self, node: &mut Value, path: &mut String, counts: &mut Counts) -> usize {
        match node {
            Value::String(text) => {
                if !self.chosen(path) {
                    return 0;
                }
                let n = self.re.find_iter(text).count();
                if n > 0 {
                    let new = if self.expand {
                        self.re
                            .replace_all(text, self.replace.as_str())
                            .into_owned()
                    } else {
                        self.re
                            .replace_all(text, NoExpand(&self.replace))
                            .into_owned()
                    };
                    *text = new;
                    *counts.entry(path.clone()).or_default() += n;
                }
                n
            }
            Value::Object(map) => {
                let mut total = 0;
                for (k, v) in map.iter_mut() {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    total += self.walk(v, path, counts);
                    path.truncate(len);
                }
                total
            }
            Value::Array(items) => {
                let len = path.len();
                path.push_str("[*]");
                let total = items.iter_mut().map(|v| self.walk(v, path, counts)).sum();
                path.truncate(len);
                total
            }
            _ => 0,
        }
    }
}

/// Whether a field holds text a buyer writes (names, URLs, pixels, creative copy) rather
/// than an id, a code or an enum value, judged by its last name (`landingPageUrl`,
/// `impressionTrackingPixel_1`, `native.headline`, `video.mediaUrls[*]`).
pub fn is_text_field(path: &str) -> bool {
    let last = path
        .rsplit('.')
        .next()
        .unwrap_or(path)
        .trim_end_matches("[*]")
        .to_ascii_lowercase();
    const TEXT: [&str; 14] = [
        "name",
        "url",
        "urls",
        "pixel",
        "domain",
        "html",
        "htmlasset",
        "headline",
        "caption",
        "sponsoredby",
        "description",
        "xml",
        "imageicon",
        "title",
    ];
    // Ends in "name" but holds a code from a fixed list.
    if last == "timezonename" {
        return false;
    }
    TEXT.iter().any(|t| last.ends_with(t)) || last.contains("trackingpixel")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn find(f: &str, r: &str) -> Find {
        Find {
            find: f.into(),
            replace: r.into(),
            ..Find::default()
        }
    }

    #[test]
    fn replaces_in_text_fields_only_and_counts_per_field() {
        let m = Matcher::new(&find("http://old.example", "https://new.example")).expect("find");
        let mut v = json!({
            "name": "HTTP://OLD.example promo",
            "landingPageUrl": "http://old.example/a?b=http://old.example",
            "impressionTrackingPixel_1": "http://old.example/px",
            "externalCreativeid": "http://old.example",
            "video": {"mediaUrls": ["http://old.example/1.mp4", "x"]}
        });
        let mut counts = Counts::new();
        assert_eq!(m.apply(&mut v, &mut counts), 5);
        assert_eq!(
            v["landingPageUrl"],
            "https://new.example/a?b=https://new.example"
        );
        assert_eq!(v["name"], "https://new.example promo");
        assert_eq!(v["externalCreativeid"], "http://old.example");
        assert_eq!(counts["landingPageUrl"], 2);
        assert_eq!(counts["video.mediaUrls[*]"], 1);
    }

    #[test]
    fn match_case_whole_word_and_regex() {
        let mut counts = Counts::new();
        let mut v = json!({"name": "Spring spring springtime"});
        let m = Matcher::new(&Find {
            match_case: true,
            whole_word: true,
            ..find("spring", "fall")
        })
        .expect("find");
        m.apply(&mut v, &mut counts);
        assert_eq!(v["name"], "Spring fall springtime");

        let m = Matcher::new(&Find {
            regex: true,
            ..find(r"(\d{4})-Q(\d)", "Q$2 $1")
        })
        .expect("find");
        let mut v = json!({"name": "Brand 2025-Q3"});
        m.apply(&mut v, &mut counts);
        assert_eq!(v["name"], "Brand Q3 2025");

        // Literal replacement text keeps its dollar signs.
        let m = Matcher::new(&find("price", "$5")).expect("find");
        let mut v = json!({"name": "price"});
        m.apply(&mut v, &mut counts);
        assert_eq!(v["name"], "$5");
    }

    #[test]
    fn a_bad_expression_is_an_error_on_find() {
        let e = Matcher::new(&Find {
            regex: true,
            ..find("(", "")
        })
        .err()
        .expect("refused");
        assert_eq!(e.field, "find");
    }

    #[test]
    fn chosen_fields_limit_the_replace() {
        let m = Matcher::new(&Find {
            fields: vec!["name".into()],
            ..find("a", "b")
        })
        .expect("find");
        let mut v = json!({"name": "a", "landingPageUrl": "a"});
        m.apply(&mut v, &mut Counts::new());
        assert_eq!(v, json!({"name": "b", "landingPageUrl": "a"}));
    }
}
