//! The index's own behaviour: parallel filtering and sorting agree with one thread.

use super::*;

/// A kind large enough to be filtered on several threads gives the same rows, in the
/// same order, as one thread reading them all.
#[test]
fn a_large_kind_filters_to_the_same_rows_in_the_same_order() {
    let n = PARALLEL_ROWS * 2 + 7;
    let mut arena = String::new();
    let rows: Vec<IndexRow> = (0..n)
        .map(|i| {
            let text = format!("order {i}\u{1f}{}", i % 97);
            let len = u32::try_from(text.len()).unwrap_or(0);
            let at = u32::try_from(arena.len()).unwrap_or(0);
            arena.push_str(&text);
            IndexRow {
                target: EntityRef::new(Kind::AdOrder, Key::Id(i as i64)),
                parent: None,
                ancestor: None,
                order: (0, i as i64),
                text: (at, len),
                cells: vec![Cell::Text(0, len)].into_boxed_slice(),
                findings: None,
            }
        })
        .collect();
    let default: Vec<u32> = (0..n as u32).rev().collect();
    let mut table = KindTable {
        by_target: HashMap::new(),
        default: default.clone(),
        rows,
        text: arena,
        sorted: HashMap::new(),
        descending: None,
        last: None,
        findings_missing: true,
    };
    let sig = Signature {
        parent: None,
        filter: "order 12".into(),
        sort: None,
        has_findings: None,
    };
    let got = table.select(&sig);
    let expected: Vec<u32> = default
        .into_iter()
        .filter(|&i| {
            let t = std::str::from_utf8(row_text(&table.text, &table.rows[i as usize])).unwrap();
            t.contains("order") && t.contains("12")
        })
        .collect();
    assert!(expected.len() > 1000);
    assert_eq!(*got, expected);
}

/// A table of rows with a name (text) and a budget (a number, or empty).
fn table_of_rows(rows: &[(&str, Option<f64>)]) -> KindTable {
    let mut text = String::new();
    let rows: Vec<IndexRow> = rows
        .iter()
        .enumerate()
        .map(|(i, (name, budget))| index_row_of(&mut text, i as i64, name, *budget))
        .collect();
    let default: Vec<u32> = (0..rows.len() as u32).collect();
    KindTable {
        by_target: rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.target.clone(), i as u32))
            .collect(),
        default,
        rows,
        text,
        sorted: HashMap::new(),
        descending: None,
        last: None,
        findings_missing: true,
    }
}

fn index_row_of(text: &mut String, id: i64, name: &str, budget: Option<f64>) -> IndexRow {
    let at = text.len() as u32;
    let own = name.to_lowercase();
    text.push_str(&own);
    IndexRow {
        target: EntityRef::new(Kind::AdOrder, Key::Id(id)),
        parent: None,
        ancestor: None,
        order: (0, id),
        text: (at, own.len() as u32),
        cells: vec![
            Cell::Text(0, own.len() as u32),
            budget.map_or(Cell::Empty, Cell::Num),
        ]
        .into_boxed_slice(),
        findings: None,
    }
}

fn sig(filter: &str, sort: Option<(usize, bool)>) -> Signature {
    Signature {
        parent: None,
        filter: filter.into(),
        sort,
        has_findings: None,
    }
}

fn names(t: &KindTable, rows: &[u32]) -> Vec<String> {
    rows.iter()
        .map(|&i| {
            std::str::from_utf8(row_text(&t.text, &t.rows[i as usize]))
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Typing one more letter narrows the last result; it must be what a fresh filter
/// gives, in the same order.
#[test]
fn a_longer_filter_gives_what_a_fresh_one_gives() {
    let rows: Vec<(String, Option<f64>)> = (0..400)
        .map(|i| (format!("order {i} {}", ["cpm", "cpc", "cpa"][i % 3]), None))
        .collect();
    let rows: Vec<(&str, Option<f64>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut typed = table_of_rows(&rows);
    for prefix in [
        "o",
        "order 1",
        "order 12",
        "order 12 c",
        "order 12 cp",
        "order 12 cpc",
    ] {
        let got = typed.select(&sig(prefix, Some((0, true))));
        let fresh = table_of_rows(&rows).select(&sig(prefix, Some((0, true))));
        assert_eq!(got, fresh, "{prefix:?}");
    }
    let got = typed.select(&sig("order 12 cpc", None));
    let want: Vec<String> = (0..400)
        .filter(|i| i.to_string().contains("12") && i % 3 == 1)
        .map(|i| format!("order {i} cpc"))
        .collect();
    assert_eq!(names(&typed, &got), want);
}

/// Descending: high to low, equal values in the default order, empty cells last.
#[test]
fn descending_keeps_ties_in_default_order_and_empty_cells_last() {
    let mut t = table_of_rows(&[
        ("a", Some(5.0)),
        ("b", None),
        ("c", Some(7.0)),
        ("d", Some(5.0)),
        ("e", None),
        ("f", Some(1.0)),
    ]);
    let desc = t.select(&sig("", Some((1, true))));
    assert_eq!(names(&t, &desc), ["c", "a", "d", "f", "b", "e"]);
    let asc = t.select(&sig("", Some((1, false))));
    assert_eq!(names(&t, &asc), ["f", "a", "d", "c", "b", "e"]);
}

/// A re-read row moves in every kept order to where a fresh sort puts it.
#[test]
fn a_changed_row_lands_where_a_fresh_sort_puts_it() {
    let start: Vec<(String, Option<f64>)> = (0..200)
        .map(|i| {
            (
                format!("n{:03}", (i * 37) % 200),
                Some(f64::from((i * 11) % 13)),
            )
        })
        .collect();
    let mut now = start.clone();
    let borrowed: Vec<(&str, Option<f64>)> = now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut t = table_of_rows(&borrowed);
    t.ascending(0, false);
    t.ascending(1, true);
    for (i, name, budget) in [
        (17usize, "a first", None),
        (3, "zz last", Some(99.0)),
        (150, "n100", Some(4.0)),
    ] {
        let mut arena = std::mem::take(&mut t.text);
        let row = index_row_of(&mut arena, i as i64, name, budget);
        t.text = arena;
        let old = std::mem::replace(&mut t.rows[i], row);
        t.reposition(i as u32, Some(&old));
        now[i] = (name.to_owned(), budget);
    }
    let borrowed: Vec<(&str, Option<f64>)> = now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut fresh = table_of_rows(&borrowed);
    for sort in [
        Some((0, false)),
        Some((1, false)),
        Some((1, true)),
        Some((0, true)),
    ] {
        let got = t.select(&sig("", sort));
        let want = fresh.select(&sig("", sort));
        assert_eq!(names(&t, &got), names(&fresh, &want), "{sort:?}");
    }
}
