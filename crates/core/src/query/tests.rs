//! The index's own behaviour: parallel filtering and sorting agree with one thread, kept
//! orders follow saves, and saves do not grow the index.

use super::*;

/// A test cell: text, a number the filter reads, or nothing.
#[derive(Clone, Copy)]
enum C<'a> {
    Text(&'a str),
    Num(f64),
    /// A number the filter does not read (a date): kept in the first hidden column.
    Hidden(f64),
    Empty,
}

/// A row of ad order `id` with `cells`, its text appended to `arena`.
fn fresh(arena: &mut String, id: i64, cells: &[C<'_>]) -> Fresh {
    let start = arena.len();
    let mut types = 0;
    let mut hidden = [0.0; MAX_HIDDEN];
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            arena.push('\u{1f}');
        }
        match c {
            C::Text(t) => {
                types |= TEXT << (2 * i);
                arena.push_str(&t.to_lowercase());
            }
            C::Num(n) => {
                types |= NUM << (2 * i);
                push_number(arena, *n);
            }
            C::Hidden(n) => {
                types |= NUM << (2 * i);
                hidden[0] = *n;
            }
            C::Empty => {}
        }
    }
    Fresh {
        target: EntityRef::new(Kind::AdOrder, Key::Id(id)),
        parent: None,
        ancestor: None,
        order: id,
        span: (start as u32, (arena.len() - start) as u32),
        types,
        hidden,
    }
}

/// A table whose columns keep their numbers as `columns` says, of `rows` (id, cells).
fn table(columns: Vec<Option<u8>>, rows: &[(i64, Vec<C<'_>>)]) -> KindTable {
    let mut t = KindTable::empty(columns);
    let mut lineages = HashMap::new();
    for (id, cells) in rows {
        let f = fresh(&mut t.text, *id, cells);
        t.push(f, &mut lineages);
    }
    t.finish();
    t
}

/// A kind large enough to be filtered on several threads gives the same rows, in the
/// same order, as one thread reading them all.
#[test]
fn a_large_kind_filters_to_the_same_rows_in_the_same_order() {
    let n = PARALLEL_ROWS * 2 + 7;
    let names: Vec<(String, String)> = (0..n)
        .map(|i| (format!("order {i}"), (i % 97).to_string()))
        .collect();
    // Ids run backwards (the default order is not the rows' memory order), then
    // forwards (it is).
    for backwards in [true, false] {
        let rows: Vec<(i64, Vec<C<'_>>)> = names
            .iter()
            .enumerate()
            .map(|(i, (a, b))| {
                let id = if backwards { n - i } else { i };
                (id as i64, vec![C::Text(a), C::Text(b)])
            })
            .collect();
        let mut table = table(vec![None, None], &rows);
        let got = table.select(&sig("order 12", None));
        let matches = |i: &u32| {
            let t = std::str::from_utf8(table.row_text(*i)).unwrap();
            t.contains("order") && t.contains("12")
        };
        let expected: Vec<u32> = if backwards {
            (0..n as u32).rev().filter(matches).collect()
        } else {
            (0..n as u32).filter(matches).collect()
        };
        assert!(expected.len() > 1000);
        assert_eq!(*got, expected, "ids backwards: {backwards}");
    }
}

/// A quick window's first rows are the first rows of the full selection, in each order
/// and through a typed word at a time; it says whether more follow, and gives way to the
/// full selection for a rare filter, a small kind, or a result already kept.
#[test]
fn a_quick_head_is_the_start_of_the_full_selection() {
    let n = PARALLEL_ROWS + 100;
    let names: Vec<String> = (0..n)
        .map(|i| format!("order {i} {}", ["cpm", "cpc", "cpa"][i % 3]))
        .collect();
    let rows: Vec<(&str, Option<f64>)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), Some(((i * 7919) % 1000) as f64)))
        .collect();
    let mut typed = table_of_rows(&rows);
    let mut fresh = table_of_rows(&rows);
    for sort in [None, Some((0, false)), Some((1, false)), Some((1, true))] {
        for prefix in ["o", "order 1", "order 12", "order 12 cpc"] {
            let s = sig(prefix, sort);
            let full = fresh.select(&s);
            let (head, more) = typed
                .head(&s, 50)
                .unwrap_or_else(|| panic!("{prefix:?} {sort:?}: no head"));
            assert_eq!(head[..], full[..50], "{prefix:?} {sort:?}");
            assert!(more, "{prefix:?} {sort:?}");
            // The next keystroke narrows from the last full selection, as without heads.
            assert_eq!(typed.select(&s), full, "{prefix:?} {sort:?}");
        }
    }
    // Kept: the full selection answers.
    assert!(
        typed
            .head(&sig("order 12 cpc", Some((1, true))), 50)
            .is_none()
    );
    // Fewer than asked in the first eighth of the rows: counted in full instead.
    assert!(typed.head(&sig("order 5010", None), 50).is_none());
    // A small kind is always counted.
    let mut small = table_of_rows(&rows[..1000]);
    assert!(small.head(&sig("order", None), 50).is_none());
}

/// A table of rows with a name (text) and a budget (a number, or empty).
fn table_of_rows(rows: &[(&str, Option<f64>)]) -> KindTable {
    let rows: Vec<(i64, Vec<C<'_>>)> = rows
        .iter()
        .enumerate()
        .map(|(i, (name, budget))| (i as i64, name_and_budget(name, *budget)))
        .collect();
    table(vec![None, Some(0)], &rows)
}

fn name_and_budget(name: &str, budget: Option<f64>) -> Vec<C<'_>> {
    vec![C::Text(name), budget.map_or(C::Empty, C::Hidden)]
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
        .map(|&i| match t.cell(i, 0) {
            Cell::Text(s) => s.to_owned(),
            other => panic!("{other:?}"),
        })
        .collect()
}

/// While the default order is the rows' memory order (a download in id order), a
/// filter reads its result off the bit set of matches; a row put between others (an id
/// the download had not) ends that, and the filter lists it at its place by id, not last.
#[test]
fn a_row_put_between_others_is_filtered_in_its_place() {
    let labels: Vec<String> = (0..300).map(|i| format!("order {i}")).collect();
    let mut all: Vec<(i64, &str)> = labels
        .iter()
        .enumerate()
        .map(|(i, n)| ((i * 2) as i64, n.as_str()))
        .collect();
    let rows: Vec<(i64, Vec<C<'_>>)> = all
        .iter()
        .map(|&(id, n)| (id, name_and_budget(n, None)))
        .collect();
    let mut t = table(vec![None, Some(0)], &rows);
    let want = |all: &[(i64, &str)]| -> Vec<String> {
        let mut by_id = all.to_vec();
        by_id.sort_by_key(|&(id, _)| id);
        by_id
            .iter()
            .filter(|(_, n)| n.contains('1'))
            .map(|(_, n)| (*n).to_owned())
            .collect()
    };
    let got = t.select(&sig("1", None));
    assert_eq!(names(&t, &got), want(&all));

    let mut scratch = String::new();
    let row = fresh(&mut scratch, 3, &name_and_budget("order 1 new", None));
    t.put(row, &scratch);
    all.push((3, "order 1 new"));
    t.select(&sig("order", None));
    let got = t.select(&sig("1", None));
    assert_eq!(names(&t, &got), want(&all));
    assert_eq!(names(&t, &got)[..2], ["order 1", "order 1 new"]);
}

/// Keystrokes that each scan every row fill the buffer of a result nobody holds any
/// more (fresh memory each time would be zeroed by the kernel again), and reusing it
/// gives exactly what a fresh table gives.
#[test]
fn a_filter_refills_the_buffer_of_a_result_nobody_holds() {
    let rows: Vec<(String, Option<f64>)> = (0..400)
        .map(|i| (format!("order {i} {}", ["cpm", "cpc", "cpa"][i % 3]), None))
        .collect();
    let rows: Vec<(&str, Option<f64>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut t = table_of_rows(&rows);
    let first = t.select(&sig("cpm", None));
    let buffer = first.as_ptr();
    drop(first);
    for filter in ["cpc", "1 cpa", "cpa"] {
        // A filter every row matches (its result is the order itself, shared) hands the
        // last result's buffer back.
        t.select(&sig("order", Some((0, true))));
        let got = t.select(&sig(filter, None));
        let fresh = table_of_rows(&rows).select(&sig(filter, None));
        assert_eq!(got, fresh, "{filter:?}");
        assert_eq!(got.as_ptr(), buffer, "{filter:?} took a fresh buffer");
    }
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

/// Each keystroke reads only the rows the last one kept, and not for the words they are
/// known to hold; saves between keystrokes (a row that starts or stops matching) must
/// not leave a stale result behind. Every step gives what a fresh table gives.
#[test]
fn keystrokes_between_saves_give_what_a_fresh_filter_gives() {
    let mut now: Vec<(String, Option<f64>)> = (0..3000)
        .map(|i| (format!("order {i} {}", ["cpm", "cpc", "cpa"][i % 3]), None))
        .collect();
    let fresh_of = |now: &[(String, Option<f64>)], s: &Signature| {
        let borrowed: Vec<(&str, Option<f64>)> =
            now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let mut t = table_of_rows(&borrowed);
        let got = t.select(s);
        names(&t, &got)
    };
    let borrowed: Vec<(&str, Option<f64>)> = now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut t = table_of_rows(&borrowed);
    // (row saved before the keystroke, its new name)
    let steps: [(&str, Option<(usize, &str)>); 12] = [
        ("o", None),
        ("or", None),
        ("order", Some((5, "renamed"))),
        ("order 1", None),
        ("order 12", None),
        ("order 12", Some((1200, "order 1200 moved"))),
        ("order 12 c", Some((7, "order 12 new"))),
        ("order 12 cp", None),
        ("order 12 cpa", Some((1202, "order 12x cpm"))),
        ("order 1", None),
        ("order 1 order", None),
        ("order 1 order 2", Some((2999, "order 12 cpa"))),
    ];
    for sort in [None, Some((0, true))] {
        for (filter, save) in steps {
            if let Some((i, name)) = save {
                let mut scratch = String::new();
                let row = fresh(&mut scratch, i as i64, &name_and_budget(name, None));
                t.put(row, &scratch);
                now[i] = (name.to_owned(), None);
            }
            let s = sig(filter, sort);
            let got = t.select(&s);
            assert_eq!(names(&t, &got), fresh_of(&now, &s), "{filter:?} {sort:?}");
        }
        // The next round types from an empty filter.
        t.select(&sig("", sort));
    }
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

/// Numbers the filter reads sort as numbers, before text, empty cells last, in both
/// directions; a column of few values sorts the same whether kept or not.
#[test]
fn numbers_in_the_search_text_sort_as_numbers() {
    let cells = [
        C::Num(10.0),
        C::Text("x"),
        C::Num(9.5),
        C::Empty,
        C::Num(-2.0),
        C::Num(100.0),
    ];
    let rows: Vec<(i64, Vec<C<'_>>)> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| (i as i64, vec![C::Text("n"), *c]))
        .collect();
    let mut t = table(vec![None, None], &rows);
    assert_eq!(*t.select(&sig("", Some((1, false)))), [4, 2, 0, 5, 1, 3]);
    assert_eq!(*t.select(&sig("", Some((1, true)))), [1, 5, 0, 2, 4, 3]);
    assert_eq!(*t.select(&sig("9.5", None)), [2]);
}

/// Sorts `col` ahead as [`Tables::presort`] does: copied out, sorted, kept.
fn presort(t: &mut KindTable, col: usize) {
    let copy = t.copy_column(col);
    let sorted = copy.sort();
    t.install(&copy, sorted);
}

/// A re-read row moves in every kept order to where a fresh sort puts it.
#[test]
fn a_changed_row_lands_where_a_fresh_sort_puts_it() {
    // More distinct values than a column of few values has, so both orders are kept.
    let n = 600;
    let start: Vec<(String, Option<f64>)> = (0..n)
        .map(|i| {
            (
                format!("n{:03}", (i * 37) % n),
                Some(f64::from(((i * 11) % 401) as u32)),
            )
        })
        .collect();
    let mut now = start.clone();
    let borrowed: Vec<(&str, Option<f64>)> = now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut t = table_of_rows(&borrowed);
    presort(&mut t, 0);
    presort(&mut t, 1);
    for (i, name, budget) in [
        (17usize, "a first", None),
        (3, "zz last", Some(999.0)),
        (150, "n100", Some(4.0)),
        (17, "m middle", Some(7.0)),
    ] {
        let mut scratch = String::new();
        let row = fresh(&mut scratch, i as i64, &name_and_budget(name, budget));
        t.put(row, &scratch);
        now[i] = (name.to_owned(), budget);
    }
    let borrowed: Vec<(&str, Option<f64>)> = now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut rebuilt = table_of_rows(&borrowed);
    for sort in [
        Some((0, false)),
        Some((1, false)),
        Some((1, true)),
        Some((0, true)),
    ] {
        let got = t.select(&sig("", sort));
        let want = rebuilt.select(&sig("", sort));
        assert_eq!(names(&t, &got), names(&rebuilt, &want), "{sort:?}");
    }
    let found = t.select(&sig("zz", None));
    assert_eq!(names(&t, &found), ["zz last"]);
}

/// Saving the same rows again and again does not grow the index: the text of rows saved
/// since the build is compacted, and a kept order grows by a sliver, not by doubling.
#[test]
fn saves_do_not_grow_the_index() {
    let rows: Vec<(String, Option<f64>)> = (0..20_000)
        .map(|i| (format!("order {i}"), Some(f64::from(i))))
        .collect();
    let borrowed: Vec<(&str, Option<f64>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let mut t = table_of_rows(&borrowed);
    presort(&mut t, 0);
    presort(&mut t, 1);
    let before = t.heap_bytes();
    let long = "x".repeat(200);
    for round in 0..2_000 {
        let i = (round * 7) % 100;
        let name = format!("{long} {round}");
        let mut scratch = String::new();
        let row = fresh(&mut scratch, i as i64, &name_and_budget(&name, Some(1.0)));
        t.put(row, &scratch);
    }
    // One new row too (a draft made), which must not double every column.
    let mut scratch = String::new();
    let row = fresh(&mut scratch, 1_000_000, &name_and_budget("new", None));
    t.put(row, &scratch);
    let grown = t.heap_bytes() - before;
    assert!(grown < 200_000, "grew {grown} bytes");
    assert_eq!(t.len(), 20_001);
}

/// Every kind's columns fit the index's cell types and hidden numbers.
#[test]
fn every_kind_fits_the_index() {
    for kind in TABLE_KINDS {
        let slots = column_slots(kind);
        assert!(slots.len() <= MAX_COLUMNS, "{kind:?}");
        assert!(slots.iter().flatten().count() <= MAX_HIDDEN, "{kind:?}");
    }
}

/// What a sort shows, computed the slow way: every row by value, stable in the default
/// order (ids ascending here), empty cells last in both directions.
fn by_value(t: &KindTable, col: usize, descending: bool) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..t.len() as u32).collect();
    rows.sort_by(|&a, &b| {
        let (x, y) = (t.cell(a, col), t.cell(b, col));
        match (x == Cell::Empty, y == Cell::Empty, descending) {
            (false, false, true) => y.cmp_asc(&x),
            _ => x.cmp_asc(&y),
        }
    });
    rows
}

/// A column of few values is sorted by counting, in both directions, to the same rows a
/// full sort gives, and stays so as saves change its values: a new value, and one value
/// too many, after which it is sorted as a column of many values.
#[test]
fn a_column_of_few_values_sorts_as_a_full_sort_would() {
    let cells = |i: i64| {
        vec![
            C::Text(["paused", "active", "", "Draft", "active"][(i % 5) as usize]),
            match i % 4 {
                0 => C::Num(2.5),
                1 => C::Empty,
                2 => C::Num(-1.0),
                _ => C::Text("n/a"),
            },
            if i % 3 == 0 {
                C::Empty
            } else {
                C::Hidden((i % 7) as f64)
            },
        ]
    };
    let rows: Vec<(i64, Vec<C<'_>>)> = (0..3000).map(|i| (i, cells(i))).collect();
    let mut t = table(vec![None, None, Some(0)], &rows);
    let check = |t: &mut KindTable, what: &str| {
        for col in 0..3 {
            for descending in [false, true] {
                let got = t.select(&sig("", Some((col, descending))));
                assert_eq!(
                    *got,
                    by_value(t, col, descending),
                    "{what}: column {col}, descending {descending}"
                );
            }
        }
    };
    check(&mut t, "built");
    assert!(
        t.codes.len() == 3 && t.sorted.is_empty(),
        "coded, no order kept"
    );
    let mut scratch = String::new();
    let row = fresh(
        &mut scratch,
        7,
        &[C::Text("archived"), C::Num(0.0), C::Hidden(99.0)],
    );
    t.put(row, &scratch);
    check(&mut t, "after a save with new values");
    for i in 0..300 {
        let mut scratch = String::new();
        let name = format!("value {i}");
        let row = fresh(&mut scratch, i, &[C::Text(&name), C::Num(1.0), C::Empty]);
        t.put(row, &scratch);
    }
    check(&mut t, "after one value too many");
    assert!(!t.codes.contains_key(&0) && t.sorted.contains_key(&0));
}

/// After a save, the view asking again (the same filter and sort) gets the rows a fresh
/// build gives, in the same order: the saved row moved in the last result and in every
/// order held, without filtering or sorting every row again.
#[test]
fn a_view_asked_again_after_saves_shows_what_a_rebuild_shows() {
    let n = 700;
    let start: Vec<(String, Option<f64>)> = (0..n)
        .map(|i| {
            (
                format!("n{:03}", (i * 37) % n),
                (i % 9 != 0).then(|| f64::from(((i * 11) % 401) as u32)),
            )
        })
        .collect();
    let saves = [
        (17usize, "a first", None),
        (3, "zz last", Some(999.0)),
        (150, "n100", Some(4.0)),
        (17, "n1 moved", Some(7.0)),
        (699, "n1 last row", None),
        (5, "gone from n1", Some(4.0)),
    ];
    for view in [
        sig("", None),
        sig("", Some((0, false))),
        sig("", Some((0, true))),
        sig("", Some((1, true))),
        sig("n1", None),
        sig("n1", Some((1, false))),
        sig("n1", Some((1, true))),
        sig("n1", Some((0, true))),
        // Every row matches "n" at first, so the result is a kept order itself until a
        // save takes a row out of it.
        sig("n", None),
        sig("n", Some((1, true))),
    ] {
        let borrowed: Vec<(&str, Option<f64>)> =
            start.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        let mut t = table_of_rows(&borrowed);
        presort(&mut t, 0);
        presort(&mut t, 1);
        t.select(&view);
        let mut now = start.clone();
        for (i, name, budget) in saves {
            let mut scratch = String::new();
            let row = fresh(&mut scratch, i as i64, &name_and_budget(name, budget));
            t.put(row, &scratch);
            now[i] = (name.to_owned(), budget);
            let borrowed: Vec<(&str, Option<f64>)> =
                now.iter().map(|(n, b)| (n.as_str(), *b)).collect();
            let mut rebuilt = table_of_rows(&borrowed);
            let got = t.select(&view);
            let want = rebuilt.select(&view);
            assert_eq!(
                names(&t, &got),
                names(&rebuilt, &want),
                "{:?} {:?} after saving row {i}",
                view.filter,
                view.sort
            );
        }
    }
}
