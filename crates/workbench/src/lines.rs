//! Byte offsets to 1-based line numbers, for findings inside XML and HTML.

/// Counts lines forward through one text, so a pass over a document that asks for
/// ever later offsets counts each newline once.
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
        let newlines = self
            .text
            .get(self.offset..offset)
            .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.offset = offset;
        self.line
    }
}

/// How many lines `text` spans before byte `offset`, added to `first` (the line the
/// text starts on).
pub(crate) fn line_in(first: u32, text: &str, offset: usize) -> u32 {
    let newlines = text
        .as_bytes()
        .get(..offset.min(text.len()))
        .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
    first.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX))
}
