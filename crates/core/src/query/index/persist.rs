//! The table index on disk, beside the workspace file (`<workspace>.index`), so a start
//! finds it ready instead of building it again (over 4 s at 1,000,000 rows).
//!
//! Flat and little-endian, each column written and read whole: a header (magic, format
//! version, a fingerprint of the columns this build extracts, the workspace's change
//! stamp, the kinds and rows), then per kind its columns, then a checksum of everything
//! before it. The file is only ever a cache: one that is missing, truncated, of another
//! version or another build, or whose stamp is not the workspace's, is ignored and the
//! index built as before. It is written to a temporary file renamed over the old one,
//! so a crash mid-write leaves the old file or none, never half of one.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::*;

const MAGIC: [u8; 8] = *b"FDINDEX\0";
/// Bumped whenever the layout below changes.
const FORMAT: u32 = 1;
/// Elements converted at a time between a column and its bytes.
const CHUNK: usize = 1 << 16;

/// Where the index of the workspace at `workspace` is kept.
pub(in crate::query) fn index_path(workspace: &Path) -> PathBuf {
    let mut s = workspace.as_os_str().to_owned();
    s.push(".index");
    PathBuf::from(s)
}

/// What this build extracts into the index: every kind's columns (ids, and which the
/// filter reads) and the crate's version. A file of another build, which may read cells
/// differently, is ignored.
fn fingerprint() -> u64 {
    let mut h = Fnv::default();
    h.bytes(env!("CARGO_PKG_VERSION").as_bytes());
    for kind in crate::query::TABLE_KINDS {
        h.bytes(kind.name().as_bytes());
        for c in specs(kind) {
            h.bytes(c.id.as_bytes());
            h.bytes(&[u8::from(c.search)]);
        }
    }
    h.0
}

/// FNV-1a: stable across builds and platforms, unlike the standard hasher.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
}

/// A checksum of the file's bytes, eight at a time: cheap next to reading them, and it
/// catches a file damaged in place (truncation shows as a short read anyway).
#[derive(Default)]
struct Sum(u64);

impl Sum {
    fn add(&mut self, b: &[u8]) {
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(x);
        }
        for &x in words.remainder() {
            self.0 = self.0.rotate_left(5) ^ u64::from(x);
        }
    }
}

/// A fixed-size value of a column, little-endian.
trait Le: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

impl Le for u8 {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self);
    }
    fn get(b: &[u8]) -> Self {
        b[0]
    }
}

impl Le for u32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        u32::from_le_bytes(arr(b))
    }
}

impl Le for u64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        u64::from_le_bytes(arr(b))
    }
}

impl Le for i64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        i64::from_le_bytes(arr(b))
    }
}

impl Le for f64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        f64::from_le_bytes(arr(b))
    }
}

impl Le for (u32, u32) {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    fn get(b: &[u8]) -> Self {
        (u32::get(b), u32::get(&b[4..]))
    }
}

/// Writes values and whole columns, summing what it writes.
struct Out<W: Write> {
    w: W,
    sum: Sum,
    buf: Vec<u8>,
}

impl<W: Write> Out<W> {
    fn raw(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.sum.add(b);
        self.w.write_all(b)
    }

    fn one<T: Le>(&mut self, v: T) -> std::io::Result<()> {
        self.buf.clear();
        v.put(&mut self.buf);
        let b = std::mem::take(&mut self.buf);
        let r = self.raw(&b);
        self.buf = b;
        r
    }

    fn column<T: Le>(&mut self, v: &[T]) -> std::io::Result<()> {
        self.one(v.len() as u64)?;
        for chunk in v.chunks(CHUNK) {
            let mut b = std::mem::take(&mut self.buf);
            b.clear();
            for &x in chunk {
                x.put(&mut b);
            }
            let r = self.raw(&b);
            self.buf = b;
            r?;
        }
        Ok(())
    }

    fn text(&mut self, s: &str) -> std::io::Result<()> {
        self.one(s.len() as u64)?;
        self.raw(s.as_bytes())
    }

    fn key(&mut self, k: &Key) -> std::io::Result<()> {
        match k {
            Key::Id(id) => {
                self.one(0u32)?;
                self.one(*id)
            }
            Key::Segment(s) => {
                self.one(1u32)?;
                self.text(s)
            }
            Key::Local(s) => {
                self.one(2u32)?;
                self.text(s)
            }
        }
    }

    fn entity(&mut self, e: &Option<EntityRef>) -> std::io::Result<()> {
        match e {
            None => self.one(0u32),
            Some(e) => {
                self.one(1u32)?;
                self.text(e.kind.name())?;
                self.key(&e.key)
            }
        }
    }
}

/// Why a file is not used. Never shown to the buyer: the index is built instead.
#[derive(Debug)]
pub(in crate::query) enum Unusable {
    /// No file, or it could not be read whole.
    Io(std::io::Error),
    /// Another format, another build, or a change since it was written.
    Stale(&'static str),
    /// Its bytes do not make an index.
    Damaged(&'static str),
}

impl From<std::io::Error> for Unusable {
    fn from(e: std::io::Error) -> Self {
        Unusable::Io(e)
    }
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Io(e) => write!(f, "{e}"),
            Unusable::Stale(why) | Unusable::Damaged(why) => f.write_str(why),
        }
    }
}

type Loaded<T> = std::result::Result<T, Unusable>;

/// Reads values and whole columns, summing what it reads; never allocates more than the
/// file has left to give.
struct In<R: Read> {
    r: R,
    left: u64,
    sum: Sum,
    buf: Vec<u8>,
}

impl<R: Read> In<R> {
    fn raw(&mut self, n: usize) -> Loaded<&[u8]> {
        if n as u64 > self.left {
            return Err(Unusable::Damaged("shorter than its contents say"));
        }
        self.buf.resize(n, 0);
        self.r.read_exact(&mut self.buf)?;
        self.left -= n as u64;
        self.sum.add(&self.buf);
        Ok(&self.buf)
    }

    fn one<T: Le>(&mut self) -> Loaded<T> {
        Ok(T::get(self.raw(T::SIZE)?))
    }

    fn len(&mut self, size: usize) -> Loaded<usize> {
        let n: u64 = self.one()?;
        if n.saturating_mul(size.max(1) as u64) > self.left {
            return Err(Unusable::Damaged("shorter than its contents say"));
        }
        usize::try_from(n).map_err(|_| Unusable::Damaged("a length past memory"))
    }

    fn column<T: Le>(&mut self) -> Loaded<Vec<T>> {
        let n = self.len(T::SIZE)?;
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let take = (n - v.len()).min(CHUNK);
            let b = self.raw(take * T::SIZE)?;
            v.extend(b.chunks_exact(T::SIZE).map(T::get));
        }
        Ok(v)
    }

    fn text(&mut self) -> Loaded<String> {
        let n = self.len(1)?;
        if n as u64 > self.left {
            return Err(Unusable::Damaged("shorter than its contents say"));
        }
        let mut b = vec![0u8; n];
        self.r.read_exact(&mut b)?;
        self.left -= n as u64;
        self.sum.add(&b);
        String::from_utf8(b).map_err(|_| Unusable::Damaged("text that is not UTF-8"))
    }

    fn count(&mut self) -> Loaded<usize> {
        let n: u32 = self.one()?;
        Ok(n as usize)
    }

    fn kind(&mut self) -> Loaded<Kind> {
        let name = self.text()?;
        Kind::from_name(&name).ok_or(Unusable::Damaged("an unknown kind"))
    }

    fn key(&mut self) -> Loaded<Key> {
        Ok(match self.one::<u32>()? {
            0 => Key::Id(self.one()?),
            1 => Key::Segment(self.text()?),
            2 => Key::Local(self.text()?),
            _ => return Err(Unusable::Damaged("an unknown key")),
        })
    }

    fn entity(&mut self) -> Loaded<Option<EntityRef>> {
        Ok(match self.one::<u32>()? {
            0 => None,
            1 => {
                let kind = self.kind()?;
                Some(EntityRef::new(kind, self.key()?))
            }
            _ => return Err(Unusable::Damaged("an unknown entity")),
        })
    }
}

/// The header's fields after the magic and format: fingerprint, stamp, kinds, rows.
const HEADER: usize = 8 + 4 + 8 + 8 + 4 + 8;

/// Writes `kinds` (each kind's index, its orders kept included; not the counts of
/// findings, counted again on first ask) to `path` as at `stamp`.
pub(in crate::query) fn write(
    path: &Path,
    stamp: i64,
    kinds: &[(Kind, &KindTable)],
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Private like the workspace: it holds the rows' text.
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut out = Out {
        w: std::io::BufWriter::with_capacity(1 << 20, tmp.as_file()),
        sum: Sum::default(),
        buf: Vec::with_capacity(CHUNK * 8),
    };
    out.raw(&MAGIC)?;
    out.one(FORMAT)?;
    out.one(fingerprint())?;
    out.one(stamp)?;
    out.one(kinds.len() as u32)?;
    out.one(kinds.iter().map(|(_, t)| t.len() as u64).sum::<u64>())?;
    for (kind, t) in kinds {
        write_kind(&mut out, *kind, t)?;
    }
    let sum = out.sum.0;
    out.w.write_all(&sum.to_le_bytes())?;
    out.w.flush()?;
    drop(out);
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn write_kind<W: Write>(out: &mut Out<W>, kind: Kind, t: &KindTable) -> std::io::Result<()> {
    out.text(kind.name())?;
    let columns: Vec<u32> = t
        .columns
        .iter()
        .map(|c| c.map_or(u32::MAX, u32::from))
        .collect();
    out.column(&columns)?;
    out.column(&t.keys)?;
    out.column(&t.local)?;
    let mut others: Vec<(&u32, &Key)> = t.others.iter().collect();
    others.sort_by_key(|(i, _)| **i);
    out.one(others.len() as u32)?;
    for (i, k) in others {
        out.one(*i)?;
        out.key(k)?;
    }
    out.one(t.lineages.len() as u32)?;
    for (p, a) in &t.lineages {
        out.entity(p)?;
        out.entity(a)?;
    }
    out.column(&t.lineage)?;
    out.column(&t.spans)?;
    out.text(&t.text)?;
    out.text(&t.edits)?;
    out.one(t.edits_live as u64)?;
    out.column(&t.types)?;
    out.one(t.hidden.len() as u32)?;
    for h in &t.hidden {
        out.column(h)?;
    }
    out.column(&t.default)?;
    let mut sorted: Vec<(&usize, &Arc<Vec<u32>>)> = t.sorted.iter().collect();
    sorted.sort_by_key(|(c, _)| **c);
    out.one(sorted.len() as u32)?;
    for (col, perm) in sorted {
        out.one(*col as u32)?;
        out.column(perm)?;
    }
    let mut codes: Vec<(&usize, &Codes)> = t.codes.iter().collect();
    codes.sort_by_key(|(c, _)| **c);
    out.one(codes.len() as u32)?;
    for (col, c) in codes {
        out.one(*col as u32)?;
        out.one(c.values.len() as u32)?;
        for v in &c.values {
            match v {
                Value::Empty => out.one(0u32)?,
                Value::Num(n) => {
                    out.one(1u32)?;
                    out.one(*n)?;
                }
                Value::Text(t) => {
                    out.one(2u32)?;
                    out.text(t)?;
                }
            }
        }
        out.column(&c.of)?;
    }
    Ok(())
}

/// The kinds of the index at `path`, if it was written by this build at `stamp` and
/// reads back whole.
pub(in crate::query) fn read(path: &Path, stamp: i64) -> Loaded<Vec<(Kind, KindTable)>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut input = In {
        r: std::io::BufReader::with_capacity(1 << 20, file),
        left: size.saturating_sub(8),
        sum: Sum::default(),
        buf: Vec::new(),
    };
    if size < (HEADER + 8) as u64 || input.raw(8)? != MAGIC {
        return Err(Unusable::Stale("not an index file"));
    }
    if input.one::<u32>()? != FORMAT {
        return Err(Unusable::Stale("another format"));
    }
    if input.one::<u64>()? != fingerprint() {
        return Err(Unusable::Stale("written by another build"));
    }
    if input.one::<i64>()? != stamp {
        return Err(Unusable::Stale("the workspace changed since"));
    }
    let n = input.count()?;
    let rows: u64 = input.one()?;
    let mut kinds = Vec::with_capacity(n.min(crate::query::TABLE_KINDS.len()));
    for _ in 0..n {
        kinds.push(read_kind(&mut input)?);
    }
    if kinds.iter().map(|(_, t)| t.len() as u64).sum::<u64>() != rows {
        return Err(Unusable::Damaged("rows other than its header says"));
    }
    let sum = input.sum.0;
    input.left += 8;
    if input.one::<u64>()? != sum || input.left != 0 {
        return Err(Unusable::Damaged("its checksum does not match"));
    }
    Ok(kinds)
}

fn read_kind<R: Read>(input: &mut In<R>) -> Loaded<(Kind, KindTable)> {
    let damaged = |why| Err(Unusable::Damaged(why));
    let kind = input.kind()?;
    let columns: Vec<u32> = input.column()?;
    let columns: Vec<Option<u8>> = columns.into_iter().map(|c| u8::try_from(c).ok()).collect();
    if columns != build::column_slots(kind) {
        return Err(Unusable::Stale("another set of columns"));
    }
    let mut t = KindTable::empty(columns);
    t.keys = input.column()?;
    let n = t.keys.len();
    let row = |i: u32| (i as usize) < n;
    t.local = input.column()?;
    if t.local.len() != n.div_ceil(64) {
        return damaged("a column of another length");
    }
    for _ in 0..input.count()? {
        let i: u32 = input.one()?;
        let key = input.key()?;
        if !row(i) {
            return damaged("a key past the rows");
        }
        t.by_other.insert(key.clone(), i);
        t.others.insert(i, key);
    }
    for _ in 0..input.count()? {
        let p = input.entity()?;
        let a = input.entity()?;
        t.lineages.push((p, a));
    }
    t.lineages.shrink_to_fit();
    t.lineage = input.column()?;
    t.spans = input.column()?;
    t.text = input.text()?;
    t.edits = input.text()?;
    t.edits_live = usize::try_from(input.one::<u64>()?).unwrap_or(usize::MAX);
    t.types = input.column()?;
    let hidden = input.count()?;
    if hidden != t.hidden.len() {
        return damaged("another count of hidden columns");
    }
    for h in &mut t.hidden {
        *h = input.column()?;
    }
    let default: Vec<u32> = input.column()?;
    let lineages = t.lineages.len();
    if t.lineage.len() != n
        || t.spans.len() != n
        || t.types.len() != n
        || default.len() != n
        || t.hidden.iter().any(|h| h.len() != n)
    {
        return damaged("a column of another length");
    }
    if t.lineage.iter().any(|&l| l as usize >= lineages) {
        return damaged("a lineage past the list");
    }
    if !is_order(&default) {
        return damaged("an order that is not one");
    }
    t.set_default(default);
    for _ in 0..input.count()? {
        let col = input.one::<u32>()? as usize;
        let perm: Vec<u32> = input.column()?;
        if col >= t.columns.len() || !is_order(&perm) || perm.len() != n {
            return damaged("an order that is not one");
        }
        t.sorted.insert(col, Arc::new(perm));
    }
    for _ in 0..input.count()? {
        let col = input.one::<u32>()? as usize;
        let k = input.count()?;
        if k > KEEP_DISTINCT || col >= t.columns.len() {
            return damaged("a coded column that is not one");
        }
        let mut values = Vec::with_capacity(k);
        for _ in 0..k {
            values.push(match input.one::<u32>()? {
                0 => Value::Empty,
                1 => Value::Num(input.one()?),
                2 => Value::Text(input.text()?.into()),
                _ => return damaged("an unknown value"),
            });
        }
        let of: Vec<u8> = input.column()?;
        if of.len() != n || of.iter().any(|&c| c as usize >= k) {
            return damaged("a coded column that is not one");
        }
        t.codes.insert(col, Codes { values, of });
    }
    Ok((kind, t))
}

/// Whether `perm` holds each row below its length exactly once.
fn is_order(perm: &[u32]) -> bool {
    let mut seen = vec![0u64; perm.len().div_ceil(64)];
    perm.iter().all(|&i| {
        let Some(w) = seen.get_mut((i / 64) as usize) else {
            return false;
        };
        let bit = 1u64 << (i % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    })
}
