//! Tag sheets in the shape of each ad server's export, made here (no vendor's file is
//! copied): a preamble of campaign rows, the header, one row per placement. Shared by
//! the tests, the bench (`benches/tagsheet.rs`) and the fixture generator
//! (`examples/tagsheet_fixtures.rs`, which writes `tests/fixtures/tagsheets/`).
#![allow(dead_code)]

/// A sheet before it is written.
pub struct Sheet {
    /// Rows above the header (advertiser, campaign, dates).
    pub preamble: Vec<Vec<String>>,
    /// The header's cells.
    pub header: Vec<String>,
    /// One row per placement.
    pub rows: Vec<Vec<String>>,
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|c| (*c).to_owned()).collect()
}

const SIZES: [(u32, u32); 4] = [(300, 250), (728, 90), (160, 600), (320, 50)];

/// A clean JavaScript tag: https only, a click macro, its size declared.
pub fn js_tag(i: usize, w: u32, h: u32) -> String {
    format!(
        "<meta name=\"ad.size\" content=\"width={w},height={h}\">\n\
         <ins class=\"adtag\" data-placement=\"{i}\" data-click=\"%%CLICK_URL_UNESC%%\"></ins>\n\
         <script src=\"https://ad.example-adserver.com/tag/{i}.js?ord=[timestamp]\" async></script>"
    )
}

/// A clean iframe tag.
pub fn iframe_tag(i: usize, w: u32, h: u32) -> String {
    format!(
        "<iframe src=\"https://ad.example-adserver.com/frame/{i}?click=%%CLICK_URL_ESC%%\" \
         width=\"{w}\" height=\"{h}\" frameborder=\"0\" scrolling=\"no\"></iframe>"
    )
}

/// A VAST tag URL with a cache-buster macro.
pub fn vast_url(i: usize) -> String {
    format!("https://vast.example-adserver.com/vast/4.2/{i}?cb=[CACHEBUSTING]")
}

fn preamble(server: &str) -> Vec<Vec<String>> {
    vec![
        s(&[server, "Tag export"]),
        s(&["Advertiser", "Acme Outdoor"]),
        s(&["Campaign", "Spring Launch 2026"]),
        s(&["Generated", "2026-03-02"]),
        Vec::new(),
    ]
}

/// Campaign Manager 360: placement id first, dimensions, JavaScript and iframe tags;
/// every fourth row a video placement with a VAST 4 tag.
pub fn cm360(n: usize) -> Sheet {
    let rows = (0..n)
        .map(|i| {
            let (w, h) = SIZES[i % SIZES.len()];
            let video = i % 4 == 3;
            vec![
                format!("{}", 380_000_100 + i),
                format!("Spring_Display_{w}x{h}_{i}"),
                if video {
                    "640x360".into()
                } else {
                    format!("{w}x{h}")
                },
                if video {
                    String::new()
                } else {
                    js_tag(i, w, h)
                },
                if video {
                    String::new()
                } else {
                    iframe_tag(i, w, h)
                },
                if video { vast_url(i) } else { String::new() },
                format!("https://shop.example.com/spring?p={i}"),
            ]
        })
        .collect();
    Sheet {
        preamble: preamble("Campaign Manager 360"),
        header: s(&[
            "Placement ID",
            "Placement Name",
            "Dimensions",
            "JavaScript Tag",
            "iFrames/JavaScript Tag",
            "VAST 4 Tag",
            "Click-through URL",
        ]),
        rows,
    }
}

/// Flashtalking: name first, size, JS and iFrame tags, click-through last.
pub fn flashtalking(n: usize) -> Sheet {
    let rows = (0..n)
        .map(|i| {
            let (w, h) = SIZES[i % SIZES.len()];
            vec![
                format!("FT Spring {w}x{h} #{i}"),
                format!("FT{}", 9_100 + i),
                format!("{w} x {h}"),
                js_tag(i, w, h),
                iframe_tag(i, w, h),
                format!("https://shop.example.com/ft?p={i}"),
            ]
        })
        .collect();
    Sheet {
        preamble: preamble("Flashtalking"),
        header: s(&[
            "Placement Name",
            "FT Placement ID",
            "Size",
            "JS Tag",
            "iFrame Tag",
            "Click Through URL",
        ]),
        rows,
    }
}

/// Innovid: video only, a VAST tag URL per placement.
pub fn innovid(n: usize) -> Sheet {
    let rows = (0..n)
        .map(|i| {
            vec![
                format!("{}", 7_700_000 + i),
                format!("CTV Spring :30 #{i}"),
                "1920x1080".into(),
                vast_url(i),
                format!("https://shop.example.com/ctv?p={i}"),
            ]
        })
        .collect();
    Sheet {
        preamble: preamble("Innovid"),
        header: s(&[
            "Innovid Placement ID",
            "Placement Name",
            "Player Size",
            "VAST Tag URL",
            "Click-Through URL",
        ]),
        rows,
    }
}

/// Amazon Ad Server (Sizmek): script and iframe tags, dimensions, a click URL.
pub fn sizmek(n: usize) -> Sheet {
    let rows = (0..n)
        .map(|i| {
            let (w, h) = SIZES[i % SIZES.len()];
            vec![
                format!("{}", 51_000_000 + i),
                format!("AAS Spring {w}x{h} {i}"),
                format!("{w}X{h}"),
                js_tag(i, w, h),
                iframe_tag(i, w, h),
                format!("https://shop.example.com/aas?p={i}"),
            ]
        })
        .collect();
    Sheet {
        preamble: preamble("Amazon Ad Server"),
        header: s(&[
            "Placement ID",
            "Placement Name",
            "Placement Dimensions",
            "Script Tag",
            "IFrame Tag",
            "Click URL",
        ]),
        rows,
    }
}

impl Sheet {
    fn all_rows(&self) -> impl Iterator<Item = &Vec<String>> {
        self.preamble
            .iter()
            .chain(std::iter::once(&self.header))
            .chain(&self.rows)
    }

    /// The sheet as an XLSX workbook of one worksheet, numbers as numbers (as the ad
    /// servers write placement ids).
    pub fn xlsx(&self) -> Vec<u8> {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        sheet.set_name("Tags").expect("sheet name");
        for (r, row) in self.all_rows().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                match cell.parse::<f64>() {
                    Ok(n) if !cell.is_empty() && cell.len() < 15 => {
                        sheet.write_number(r, c, n).expect("number")
                    }
                    _ => sheet.write_string(r, c, cell).expect("text"),
                };
            }
        }
        book.save_to_buffer().expect("workbook")
    }

    /// The sheet as CSV or TSV, quoted where a cell needs it.
    pub fn text(&self, delimiter: u8) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .from_writer(Vec::new());
        for row in self.all_rows() {
            w.write_record(row).expect("row");
        }
        w.into_inner().expect("flush")
    }
}
