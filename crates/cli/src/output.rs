//! How commands print: a table (or JSON with `--json`) on standard output, progress and
//! notes on standard error, so a script can read standard output as it is.

use std::time::Duration;

use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::Value;

use crate::CliError;

/// Prints `value` as pretty JSON.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Prints `items` as JSON, or as a table under `header` with a row count.
pub fn output<T: Serialize>(
    as_json: bool,
    items: &[T],
    header: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) -> Result<(), CliError> {
    if as_json {
        return json(items);
    }
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.to_vec());
    for item in items {
        table.add_row(row(item));
    }
    println!("{table}");
    println!(
        "{} row{}",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// A spinner on standard error while something downloads or posts; hidden when not a
/// terminal.
pub fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(format!("fetching {what}"));
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Awaits `fut` under a spinner.
pub async fn with_spinner<T, E>(
    what: &str,
    fut: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let bar = spinner(what);
    let out = fut.await;
    bar.finish_and_clear();
    out
}

/// An enum's wire spelling (`VIDEO_COMPLETION_RATE`, `email_sha256`).
pub fn wire_text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A value as a diff shows it: `(absent)` for none.
pub fn shown(v: &Option<Value>) -> String {
    v.as_ref().map_or("(absent)".to_owned(), Value::to_string)
}
