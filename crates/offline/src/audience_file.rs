//! Reading a buyer's file of audience identifiers: one per line, or one column of a CSV
//! export (a CRM's e-mail hashes, a list of mobile ids). Shared by the app's segment form
//! and `flightdeck audiences upload`, so both read a file the same way.
//!
//! What makes an identifier valid for a segment's data type is a rule of
//! `flightdeck-model` (`validate::audience_data`), checked when the upload is queued;
//! this module only finds the values.

use std::collections::HashSet;

use crate::{Error, Result};

/// Header names taken as the identifier column when the caller names none (compared
/// without case, spaces, `-` and `_`): generic names and the service's data types.
const IDENTIFIER_HEADERS: &[&str] = &[
    "value",
    "values",
    "identifier",
    "identifiers",
    "id",
    "ids",
    "email",
    "emailsha256",
    "hashedemail",
    "sha256",
    "phone",
    "phonesha256",
    "phonenumber",
    "phonenumbersha256",
    "addresssha256",
    "ip",
    "cookie",
    "mobileid",
    "maid",
    "idfa",
    "gaid",
];

/// The identifiers of `text`, in file order, trimmed, without blank lines and without
/// exact duplicates.
///
/// `text` is either a list with one identifier per line, or a CSV (delimited by `,`, `;`
/// or tab) whose first line is a header. `column` names the header to take (without
/// regard to case); without it the only column is taken, or the one header that names
/// identifiers (`value`, `identifier`, `id`, `email`, `email_sha256`, `phone` …). A
/// one-column file starts with a header only when it is such a name (or `column`).
///
/// Errors name the headers the file has when the column is missing or ambiguous, and
/// the line of a malformed CSV row.
pub fn identifiers(text: &str, column: Option<&str>) -> Result<Vec<String>> {
    let (text, first, delimiter) = shape(text);
    let values = match delimiter {
        Some(d) => csv_column(text, d, column)?,
        None => single_column(text, first, column)?,
    };
    let mut seen = HashSet::with_capacity(values.len());
    Ok(values
        .into_iter()
        .filter(|v| !v.is_empty() && seen.insert(v.clone()))
        .collect())
}

/// The column names of a delimited file (its header line), for a column picker; empty
/// for a file with one value per line, which has nothing to pick.
pub fn columns(text: &str) -> Result<Vec<String>> {
    let (text, _, delimiter) = shape(text);
    let Some(delimiter) = delimiter else {
        return Ok(Vec::new());
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| Error::Invalid(format!("the file's header line cannot be read: {e}")))?;
    Ok(headers.iter().map(str::to_owned).collect())
}

/// The text without a byte-order mark, its first non-blank line, and the delimiter that
/// line uses (`,` `;` or tab), if any: a line without one is a one-column file.
fn shape(text: &str) -> (&str, &str, Option<u8>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let delimiter = [b',', b';', b'\t']
        .into_iter()
        .find(|d| first.as_bytes().contains(d));
    (text, first, delimiter)
}

/// A file with one value per line, perhaps under a header.
fn single_column(text: &str, first: &str, column: Option<&str>) -> Result<Vec<String>> {
    let has_header = match column {
        Some(name) if same_header(first, name) => true,
        Some(name) => {
            return Err(Error::Invalid(format!(
                "the file has no column named \"{name}\": it has one column{}",
                if first.is_empty() {
                    String::new()
                } else {
                    format!(" (first line \"{first}\")")
                }
            )));
        }
        None => is_identifier_header(first),
    };
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .skip(usize::from(has_header))
        .map(str::to_owned)
        .collect())
}

/// One column of a CSV with a header line.
fn csv_column(text: &str, delimiter: u8, column: Option<&str>) -> Result<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| Error::Invalid(format!("the file's header line cannot be read: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    let listed = || {
        headers
            .iter()
            .map(|h| format!("\"{h}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let index = match column {
        Some(name) => headers
            .iter()
            .position(|h| same_header(h, name))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "the file has no column named \"{name}\"; its columns are {}",
                    listed()
                ))
            })?,
        None if headers.len() == 1 => 0,
        None => {
            let candidates: Vec<usize> = (0..headers.len())
                .filter(|&i| is_identifier_header(&headers[i]))
                .collect();
            match candidates.as_slice() {
                [one] => *one,
                [] => {
                    return Err(Error::Invalid(format!(
                        "the file has several columns and none is named like identifiers \
                         (value, identifier, email, phone …); choose the column: {}",
                        listed()
                    )));
                }
                _ => {
                    return Err(Error::Invalid(format!(
                        "the file has several identifier-like columns; choose the column: {}",
                        listed()
                    )));
                }
            }
        }
    };
    let mut out = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            Error::Invalid(format!(
                "line {} of the file is not valid CSV: {e}",
                e.position()
                    .map_or(n + 2, |p| usize::try_from(p.line()).unwrap_or(n + 2))
            ))
        })?;
        if let Some(v) = record.get(index) {
            out.push(v.to_owned());
        }
    }
    Ok(out)
}

/// Header names compare without case, spaces, `-` and `_` (`Email SHA256` = `email_sha256`).
fn normalized(h: &str) -> String {
    h.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '"'))
        .flat_map(char::to_lowercase)
        .collect()
}

fn same_header(h: &str, name: &str) -> bool {
    h.trim().eq_ignore_ascii_case(name.trim()) || normalized(h) == normalized(name)
}

fn is_identifier_header(h: &str) -> bool {
    let n = normalized(h);
    IDENTIFIER_HEADERS.contains(&n.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str, column: Option<&str>) -> Vec<String> {
        match identifiers(text, column) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn columns_are_the_header_of_a_delimited_file_only() {
        let cols = columns("\u{feff}email_sha256;crm id\nab;1\n").expect("columns");
        assert_eq!(cols, ["email_sha256", "crm id"]);
        assert!(columns("ab\ncd\n").expect("one column").is_empty());
        assert!(columns("").expect("empty file").is_empty());
    }

    fn err(text: &str, column: Option<&str>) -> String {
        match identifiers(text, column) {
            Ok(v) => panic!("expected an error, got {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn one_per_line_is_trimmed_deduplicated_and_kept_in_order() {
        let text = "\u{feff}b2\r\n  a1  \n\n\t\nb2\nc3\na1\n";
        assert_eq!(ok(text, None), ["b2", "a1", "c3"]);
    }

    #[test]
    fn a_single_column_keeps_its_first_line_unless_it_is_a_header() {
        assert_eq!(ok("email_sha256\nab\ncd\n", None), ["ab", "cd"]);
        assert_eq!(ok("Email\nab\n", None), ["ab"]);
        assert_eq!(ok("ab\ncd\n", None), ["ab", "cd"]);
        // A header the caller names is skipped whatever it is called.
        assert_eq!(ok("hashes\nab\n", Some("HASHES")), ["ab"]);
        let e = err("ab\ncd\n", Some("email"));
        assert!(e.contains("no column named \"email\""), "{e}");
    }

    #[test]
    fn a_csv_column_is_found_by_name_or_by_the_only_identifier_header() {
        let csv = "first name,Email,country\nAnn,a@x.io,US\nBo, b@x.io ,US\nCy,a@x.io,US\n";
        assert_eq!(ok(csv, None), ["a@x.io", "b@x.io"]);
        assert_eq!(ok(csv, Some("country")), ["US"]);
        assert_eq!(ok(csv, Some("FIRST NAME")), ["Ann", "Bo", "Cy"]);
        // Semicolons and tabs too, quotes honoured.
        assert_eq!(ok("id;note\n\"x;1\";a\ny;b\n", None), ["x;1", "y"]);
        assert_eq!(ok("note\tphone\nq\t555\n", None), ["555"]);
        // Rows shorter than the header are skipped, not an error.
        assert_eq!(ok("note,value\nonly\nn,v\n", None), ["v"]);
    }

    #[test]
    fn an_unclear_column_is_refused_with_the_headers_listed() {
        let e = err("id,email\n1,a@x.io\n", None);
        assert!(e.contains("\"id\", \"email\""), "{e}");
        let e = err("name,city\nAnn,Oslo\n", None);
        assert!(e.contains("choose the column: \"name\", \"city\""), "{e}");
        let e = err("name,city\nAnn,Oslo\n", Some("email"));
        assert!(
            e.contains("no column named \"email\"; its columns are \"name\", \"city\""),
            "{e}"
        );
    }

    #[test]
    fn an_empty_file_has_no_identifiers() {
        assert!(ok("", None).is_empty());
        assert!(ok("\n \n", None).is_empty());
        assert!(ok("value\n", None).is_empty());
    }
}
