//! Byte offsets to 1-based line numbers, for findings inside XML and HTML.
//!
//! A line ends at `\n`, `\r\n` or a lone `\r`, as HTML and XML parsers (and the editors
//! a buyer reads the field in) count them, so an XML line and an HTML line agree.

/// Line breaks in `bytes`; `next` is the byte after it, which decides whether a
/// trailing `\r` is half of a `\r\n` (counted at its `\n`).
fn breaks(bytes: &[u8], next: Option<u8>) -> usize {
    let mut n = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => n += 1,
            b'\r' if bytes.get(i + 1).copied().or(next) != Some(b'\n') => n += 1,
            _ => {}
        }
    }
    n
}

fn add(line: u32, breaks: usize) -> u32 {
    line.saturating_add(u32::try_from(breaks).unwrap_or(u32::MAX))
}

/// Counts lines forward through one text, so a pass over a document that asks for
/// ever later offsets counts each line break once.
pub(crate) struct LineCursor<'a> {
    text: &'a [u8],
    offset: usize,
    line: u32,
}

impl<'a> LineCursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text: text.as_bytes(),
            offset: 0,
            line: 1,
        }
    }

    /// The line holding byte `offset` (clamped to the text). An offset before the last
    /// one asked for is counted again from the start.
    pub(crate) fn line_at(&mut self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        let span = self.text.get(self.offset..offset).unwrap_or_default();
        self.line = add(self.line, breaks(span, self.text.get(offset).copied()));
        self.offset = offset;
        self.line
    }
}

/// The line of byte `offset` in `text`, which starts on line `first`.
pub(crate) fn line_in(first: u32, text: &str, offset: usize) -> u32 {
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let span = bytes.get(..offset).unwrap_or_default();
    add(first, breaks(span, bytes.get(offset).copied()))
}
