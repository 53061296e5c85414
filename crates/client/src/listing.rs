//! Listings decoded while they download, on every core.
//!
//! A listing of 100,000 ad orders is 50 MB. Read whole and then decoded on one thread,
//! `all_ad_orders()` took 4–5 times what `curl` takes to fetch it: typed decoding costs
//! several times the transfer on loopback. Here the answer is cut into runs of whole
//! items as its chunks arrive (only the envelope and the extent of each item are parsed)
//! and one thread per core takes turns cutting the next run and decoding it, so decoding
//! overlaps the download and uses every core. A thread without work cuts, so cutting,
//! which every run waits for, is never starved by decoding.
//!
//! Only one copy of the listing is held: the decoded items, and of the answer only the
//! runs being cut and decoded. The channel from the download to the decoder is bounded,
//! so a download faster than decoding waits instead of piling up the answer in memory.
//! The answer is refused beyond the listing limit ([`crate::ClientConfig::max_listing_bytes`])
//! with [`crate::Error::ListingTooLarge`], by its declared length before anything is
//! read, else as it arrives.
//!
//! Answers up to [`DECODE_INLINE_MAX`] are decoded whole, as every other answer is.
//! Larger ones are cut up when they have the usual shape: an object whose `entity` is an
//! array, with `messages` and unknown members anywhere around it. Every other shape is
//! also refused by decoding the whole answer as `Envelope<Vec<E>>`, so a listing decodes
//! to the same value either way, or fails with [`crate::Error::Decode`]; the error names
//! the item that did not decode (`entity[9999]: …`) or where the shape broke.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use tokio::sync::mpsc as feed;

use bytes::{Bytes, BytesMut};
use flightdeck_model::Message;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::client::{
    DECODE_INLINE_MAX, Failure, RAW_BODY_KEEP, Raw, Reply, decode_envelope, decode_off_runtime,
};
use crate::{Error, ServerMessage};

/// Bytes of items per run: small enough that decoding starts early and the threads
/// share the work evenly, large enough that taking turns costs nothing.
const RUN_BYTES: usize = 256 * 1024;
/// Most decoding threads per listing.
const MAX_THREADS: usize = 4;
/// Pieces of the answer received and not yet taken by the decoder: beyond this the
/// download waits, so the answer does not pile up while decoding catches up.
const FEED_PIECES: usize = 64;
/// Largest piece sent to the decoder. Chunks are cut into pieces of at most this size
/// (sharing their bytes, not copied), so the channel holds at most about
/// `FEED_PIECES * FEED_PIECE` bytes, whatever size the chunks come in.
const FEED_PIECE: usize = 64 * 1024;

/// Sends `chunk` to the decoder in pieces; false when the decoder has stopped.
async fn feed_chunk(feed: &feed::Sender<Option<Bytes>>, mut chunk: Bytes) -> bool {
    while !chunk.is_empty() {
        let piece = chunk.split_to(chunk.len().min(FEED_PIECE));
        if feed.send(Some(piece)).await.is_err() {
            return false;
        }
    }
    true
}

/// Reads a 2xx listing answer of `listing` (the path, for the error). Answers up to
/// [`DECODE_INLINE_MAX`] are decoded whole; larger ones while they download.
pub(crate) async fn read<E>(
    mut response: reqwest::Response,
    limit: usize,
    listing: &str,
) -> Result<Reply<Vec<E>>, Failure>
where
    E: DeserializeOwned + Send + 'static,
{
    let status = response.status();
    let headers = response.headers().clone();
    let expected = response.content_length();
    let too_large = || {
        Failure::Other(Error::ListingTooLarge {
            listing: listing.to_owned(),
            limit,
        })
    };
    if expected.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let mut head = Vec::new();
    let mut received = 0;
    while received <= DECODE_INLINE_MAX {
        match response.chunk().await.map_err(Failure::from_reqwest)? {
            Some(chunk) => {
                received += chunk.len();
                if received > limit {
                    return Err(too_large());
                }
                head.push(chunk);
            }
            None => return decode_whole(status, headers, &head).await,
        }
    }

    // The start of the answer, for the error of a listing that does not decode.
    let mut start = Vec::with_capacity(RAW_BODY_KEEP);
    for chunk in &head {
        let room = RAW_BODY_KEEP - start.len();
        start.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    let (feed, input) = feed::channel(FEED_PIECES);
    let decoding = tokio::task::spawn_blocking(move || decode::<E>(input, expected));
    // From here the chunks are the decoder's only: nothing here keeps a copy.
    let mut open = true;
    for chunk in head {
        // A decoder that stopped has failed, and says why below.
        if !feed_chunk(&feed, chunk).await {
            open = false;
            break;
        }
    }
    while open {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                received += chunk.len();
                if received > limit {
                    // Dropping `feed` without the end mark stops the decoding threads.
                    return Err(too_large());
                }
                open = feed_chunk(&feed, chunk).await;
            }
            Ok(None) => {
                let _ = feed.send(None).await;
                open = false;
            }
            // Dropping `feed` without the end mark stops the decoding threads.
            Err(e) => return Err(Failure::from_reqwest(e)),
        }
    }
    drop(feed);
    let broken = match decoding.await {
        Ok(Ok(reply)) => return Ok(reply),
        Ok(Err(broken)) => broken.detail,
        Err(e) => format!("the decoding task failed: {e}"),
    };
    Err(Failure::Other(Error::Decode {
        status: status.as_u16(),
        detail: broken,
        raw_body: String::from_utf8_lossy(&start).into_owned(),
    }))
}

/// Decodes the body in one piece, as every other answer is.
async fn decode_whole<E>(
    status: StatusCode,
    headers: HeaderMap,
    chunks: &[Bytes],
) -> Result<Reply<Vec<E>>, Failure>
where
    E: DeserializeOwned + Send + 'static,
{
    let raw = Raw {
        status,
        headers,
        body: chunks.concat(),
    };
    decode_off_runtime(raw, decode_envelope::<Vec<E>>)
        .await
        .map_err(Failure::Other)
}

/// Decodes a listing from its chunks (`None` marks the end) on this thread and helpers
/// from the blocking pool. Fails when the shape is not the usual one, an item did not
/// decode, or the download stopped.
///
/// The helpers are pool threads rather than threads started per listing: a new thread
/// gets an allocator arena that has given its memory back, and decoding there was
/// markedly slower in measurements (150–230 ms against 110–140 ms for the same half of
/// 100,000 ad orders).
fn decode<E>(
    input: feed::Receiver<Option<Bytes>>,
    expected: Option<u64>,
) -> Result<Reply<Vec<E>>, Broken>
where
    E: DeserializeOwned + Send + 'static,
{
    let shared = Arc::new(Shared {
        cutter: Mutex::new(Cutter::new(input)),
        order: Mutex::new(Order::new(expected)),
        failed: AtomicBool::new(false),
        broken: Mutex::new(None),
    });
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, MAX_THREADS);
    let (helper_done, helpers_done) = mpsc::channel::<()>();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        for _ in 1..threads {
            let shared = Arc::clone(&shared);
            let done = helper_done.clone();
            // A helper that never runs drops `done` all the same.
            runtime.spawn_blocking(move || {
                work(&shared);
                drop(done);
            });
        }
    }
    drop(helper_done);
    work(&shared);
    // Waits until every helper has hung up.
    while helpers_done.recv().is_ok() {}
    let lost = || Broken::new("a decoding thread failed");
    if shared.failed.load(Ordering::Relaxed) {
        let broken = shared.broken.lock().ok().and_then(|mut b| b.take());
        return Err(broken.unwrap_or_else(lost));
    }
    let mut cutter = shared.cutter.lock().map_err(|_| lost())?;
    if !cutter.finished {
        return Err(lost());
    }
    let order = std::mem::replace(
        &mut *shared.order.lock().map_err(|_| lost())?,
        Order::new(None),
    );
    let entity = order.finish(cutter.runs).ok_or_else(lost)?;
    Ok(Reply {
        entity,
        messages: std::mem::take(&mut cutter.messages)
            .into_iter()
            .map(ServerMessage::from_wire)
            .collect(),
    })
}

/// Why a listing did not decode, for [`Error::Decode`]'s detail.
#[derive(Debug)]
struct Broken {
    detail: String,
}

impl Broken {
    fn new(detail: impl Into<String>) -> Self {
        Broken {
            detail: detail.into(),
        }
    }
}

/// What the decoding threads share.
struct Shared<E> {
    cutter: Mutex<Cutter>,
    order: Mutex<Order<E>>,
    /// Set when the listing cannot be decoded; every thread then stops.
    failed: AtomicBool,
    /// Why, as the first thread to fail saw it.
    broken: Mutex<Option<Broken>>,
}

impl<E> Shared<E> {
    fn fail(&self, why: Broken) {
        if let Ok(mut broken) = self.broken.lock()
            && broken.is_none()
        {
            *broken = Some(why);
        }
        self.failed.store(true, Ordering::Relaxed);
    }
}

/// One decoding thread: cuts the next run, decodes it, puts its items in place, until
/// the listing is done or has failed.
fn work<E: DeserializeOwned>(shared: &Shared<E>) {
    while !shared.failed.load(Ordering::Relaxed) {
        let next = match shared.cutter.lock() {
            Ok(mut cutter) => cutter.next_run(),
            Err(_) => Next::Failed(Broken::new("a decoding thread failed")),
        };
        let run = match next {
            Next::Run(run) => run,
            Next::Done => return,
            Next::Failed(why) => return shared.fail(why),
        };
        // The run is checked for UTF-8 once, so that each item is parsed as text and
        // its strings are not checked again one by one (a few per cent of the decoding time).
        // A run that is not UTF-8 is parsed as bytes, which names the item and the
        // place as before.
        let text = std::str::from_utf8(&run.bytes).ok();
        let mut items = Vec::with_capacity(run.items.len());
        for (i, range) in run.items.iter().enumerate() {
            // Items start and end beside ASCII punctuation or whitespace, so their
            // extents are character boundaries; `get` keeps that from being assumed.
            let decoded = match text.and_then(|t| t.get(range.clone())) {
                Some(item) => serde_json::from_str::<E>(item),
                None => serde_json::from_slice::<E>(&run.bytes[range.clone()]),
            };
            match decoded {
                Ok(item) => items.push(item),
                Err(e) => {
                    return shared.fail(Broken::new(format!("entity[{}]: {e}", run.first + i)));
                }
            }
        }
        match shared.order.lock() {
            Ok(mut order) => order.insert(run.seq, run.bytes.len(), items),
            Err(_) => return shared.fail(Broken::new("a decoding thread failed")),
        }
    }
}

/// Items of the listing, whole, as a thread decodes them.
struct Run {
    /// Position of the run in the listing.
    seq: usize,
    /// Index in the listing of the run's first item.
    first: usize,
    bytes: Bytes,
    /// Each item's extent in `bytes`.
    items: Vec<Range<usize>>,
}

/// Decoded runs, put in listing order as they come.
struct Order<E> {
    items: Vec<E>,
    /// The run whose items come next.
    next: usize,
    /// Runs decoded before one that precedes them.
    early: BTreeMap<usize, Vec<E>>,
    /// Bytes of the whole answer, when announced.
    expected: Option<u64>,
}

impl<E> Order<E> {
    fn new(expected: Option<u64>) -> Self {
        Order {
            items: Vec::new(),
            next: 0,
            early: BTreeMap::new(),
            expected,
        }
    }

    fn insert(&mut self, seq: usize, run_bytes: usize, mut items: Vec<E>) {
        if seq != self.next {
            self.early.insert(seq, items);
            return;
        }
        if self.items.capacity() == 0 {
            // Sized once from the first run, so the list is not copied as it grows. The
            // length is the service's word: a reservation that cannot be made is skipped.
            if let (Some(expected), Some(per_item)) =
                (self.expected, run_bytes.checked_div(items.len()))
            {
                let estimate = usize::try_from(expected).unwrap_or(0) / per_item.max(1);
                let _ = self
                    .items
                    .try_reserve(estimate.saturating_add(estimate / 16));
            }
        }
        self.items.append(&mut items);
        self.next += 1;
        while let Some(mut items) = self.early.remove(&self.next) {
            self.items.append(&mut items);
            self.next += 1;
        }
    }

    /// Every item, when runs `0..runs` are all in.
    fn finish(self, runs: usize) -> Option<Vec<E>> {
        (self.next == runs && self.early.is_empty()).then_some(self.items)
    }
}

/// What [`Cutter::next_run`] gives a thread.
enum Next {
    Run(Run),
    /// Every run is handed out.
    Done,
    /// Not the usual shape, not JSON, or the download stopped.
    Failed(Broken),
}

/// What [`Cutter::read`] got to.
#[derive(Debug, PartialEq, Eq)]
enum Cut {
    /// The input so far is used up.
    NeedMore,
    /// Items of [`RUN_BYTES`] are read.
    RunReady,
    /// The envelope is complete and nothing but whitespace follows.
    Done,
    /// Not the usual shape, or not JSON.
    Unusual,
}

/// Where the cutter is in the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the opening brace.
    Start,
    /// After `{`: a member name or `}`.
    FirstName,
    /// After `,`: a member name.
    Name,
    /// After a member name: the colon.
    Colon(Member),
    /// After the colon: the value.
    Value(Member),
    /// After a member's value: `,` or `}`.
    AfterValue,
    /// Inside `entity`, after `[`: an item or `]`.
    FirstItem,
    /// Inside `entity`, after `,`: an item.
    Item,
    /// After an item: `,` or `]`.
    AfterItem,
    /// After the closing brace: whitespace only.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Entity,
    Messages,
    Unknown,
}

/// What [`Cutter::value`] found.
enum Parsed<T> {
    Value(T),
    /// The value runs past the input so far.
    Short,
    /// Not JSON, or not a `T`.
    Bad,
}

/// Cuts the answer, as it arrives, into runs of whole items. The envelope's members
/// are parsed by `serde_json` (unknown ones as `IgnoredAny`); of an item only its end is
/// found ([`item_len`]), and the thread that decodes it checks the rest.
struct Cutter {
    input: feed::Receiver<Option<Bytes>>,
    /// Bytes of the answer dropped from the front of `buf`, to say where it broke.
    dropped: usize,
    /// Items handed out.
    handed_out: usize,
    /// The input ended inside a value.
    truncated: bool,
    /// No more input will come.
    last: bool,
    /// Every run is handed out.
    finished: bool,
    buf: BytesMut,
    /// First byte of `buf` not yet read.
    pos: usize,
    /// Bytes after `pos` needed before a value that ran past the input is tried again,
    /// so a value much larger than a chunk is parsed a few times, not once per chunk.
    wait_for: usize,
    at: At,
    seen_entity: bool,
    seen_messages: bool,
    messages: Vec<Message>,
    /// Items read and not handed out, as extents in `buf`.
    items: Vec<Range<usize>>,
    /// Runs handed out.
    runs: usize,
}

impl Cutter {
    fn new(input: feed::Receiver<Option<Bytes>>) -> Self {
        Cutter {
            input,
            dropped: 0,
            handed_out: 0,
            truncated: false,
            last: false,
            finished: false,
            buf: BytesMut::new(),
            pos: 0,
            wait_for: 0,
            at: At::Start,
            seen_entity: false,
            seen_messages: false,
            messages: Vec::new(),
            items: Vec::new(),
            runs: 0,
        }
    }

    /// The next run, waiting for input as needed. Items already read are handed out
    /// before waiting, so that the other threads are not idle while the network is slow.
    fn next_run(&mut self) -> Next {
        loop {
            if self.finished {
                return Next::Done;
            }
            match self.read() {
                Cut::RunReady => return Next::Run(self.take_run()),
                Cut::Done => {
                    self.finished = true;
                    if !self.items.is_empty() {
                        return Next::Run(self.take_run());
                    }
                }
                Cut::Unusual if !self.truncated => return Next::Failed(self.unusual()),
                Cut::Unusual => return Next::Failed(self.ended()),
                Cut::NeedMore if self.last => return Next::Failed(self.ended()),
                Cut::NeedMore => {
                    let stopped = || Next::Failed(Broken::new("the download stopped"));
                    let chunk = match self.input.try_recv() {
                        Ok(chunk) => chunk,
                        Err(feed::error::TryRecvError::Empty) if !self.items.is_empty() => {
                            return Next::Run(self.take_run());
                        }
                        Err(feed::error::TryRecvError::Empty) => match self.input.blocking_recv() {
                            Some(chunk) => chunk,
                            None => return stopped(),
                        },
                        Err(feed::error::TryRecvError::Disconnected) => return stopped(),
                    };
                    match chunk {
                        Some(chunk) => {
                            if self.items.is_empty() && self.pos > 0 {
                                // Nothing read so far is needed again.
                                let _ = self.buf.split_to(self.pos);
                                self.dropped += self.pos;
                                self.pos = 0;
                            }
                            // Room for a whole run at once. Grown a piece at a time, a
                            // buffer whose front is still being decoded was reallocated
                            // from 64 KiB up, doubling, and its bytes copied each time:
                            // about twice the listing copied again, into fresh pages.
                            if self.buf.capacity() - self.buf.len() < chunk.len() {
                                self.buf.reserve(chunk.len() + RUN_BYTES + FEED_PIECE);
                            }
                            self.buf.extend_from_slice(&chunk);
                        }
                        None => self.last = true,
                    }
                }
            }
        }
    }

    /// Reads as far as the input goes, or until a run is ready.
    fn read(&mut self) -> Cut {
        let last = self.last;
        loop {
            self.skip_whitespace();
            let Some(&next) = self.buf.get(self.pos) else {
                return match self.at {
                    At::End if last && self.seen_entity => Cut::Done,
                    At::End if last => Cut::Unusual,
                    _ if last => {
                        self.truncated = true;
                        Cut::Unusual
                    }
                    _ => Cut::NeedMore,
                };
            };
            self.at = match self.at {
                At::Start if next == b'{' => self.punct(At::FirstName),
                At::FirstName | At::Name if next == b'"' => {
                    let name = match self.value::<String>() {
                        Parsed::Value(name) => name,
                        Parsed::Short => return Cut::NeedMore,
                        Parsed::Bad => return Cut::Unusual,
                    };
                    At::Colon(match name.as_str() {
                        "entity" => Member::Entity,
                        "messages" => Member::Messages,
                        _ => Member::Unknown,
                    })
                }
                At::Colon(member) if next == b':' => self.punct(At::Value(member)),
                At::Value(Member::Entity) if next == b'[' && !self.seen_entity => {
                    self.seen_entity = true;
                    self.punct(At::FirstItem)
                }
                At::Value(Member::Messages) if !self.seen_messages => {
                    self.messages = match self.value::<Vec<Message>>() {
                        Parsed::Value(messages) => messages,
                        Parsed::Short => return Cut::NeedMore,
                        Parsed::Bad => return Cut::Unusual,
                    };
                    self.seen_messages = true;
                    At::AfterValue
                }
                At::Value(Member::Unknown) => match self.value::<IgnoredAny>() {
                    Parsed::Value(IgnoredAny) => At::AfterValue,
                    Parsed::Short => return Cut::NeedMore,
                    Parsed::Bad => return Cut::Unusual,
                },
                At::AfterValue if next == b',' => self.punct(At::Name),
                At::AfterValue if next == b'}' => self.punct(At::End),
                At::FirstItem if next == b']' => self.punct(At::AfterValue),
                At::FirstItem | At::Item => {
                    let start = self.pos;
                    match self.item() {
                        Parsed::Value(()) => {}
                        Parsed::Short => return Cut::NeedMore,
                        Parsed::Bad => return Cut::Unusual,
                    }
                    self.items.push(start..self.pos);
                    self.at = At::AfterItem;
                    if self.pos - self.items[0].start >= RUN_BYTES {
                        return Cut::RunReady;
                    }
                    At::AfterItem
                }
                At::AfterItem if next == b',' => self.punct(At::Item),
                At::AfterItem if next == b']' => self.punct(At::AfterValue),
                _ => return Cut::Unusual,
            };
        }
    }

    /// Steps over one punctuation byte.
    fn punct(&mut self, then: At) -> At {
        self.pos += 1;
        then
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.buf.get(self.pos) {
            self.pos += 1;
        }
    }

    /// Parses the value at `pos`, moving past it.
    ///
    /// A value is taken only when a byte follows it (or at the end of the input): `12`
    /// at the end of a chunk may be the start of `123`.
    fn value<T: DeserializeOwned>(&mut self) -> Parsed<T> {
        let rest = &self.buf[self.pos..];
        if !self.last && rest.len() < self.wait_for {
            return Parsed::Short;
        }
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<T>();
        match values.next() {
            Some(Ok(value)) if self.last || values.byte_offset() < rest.len() => {
                self.pos += values.byte_offset();
                self.wait_for = 0;
                Parsed::Value(value)
            }
            Some(Ok(_)) => {
                self.wait_for = rest.len() + 1;
                Parsed::Short
            }
            // Not only "unexpected end": a number cut after `5.` or `1e` is "invalid".
            // An error in the middle of the input stays an error when more comes, and
            // is reported once it has all come.
            Some(Err(_)) | None if !self.last => {
                self.wait_for = rest.len().saturating_mul(2);
                Parsed::Short
            }
            Some(Err(e)) => {
                self.truncated = e.is_eof();
                Parsed::Bad
            }
            None => {
                self.truncated = true;
                Parsed::Bad
            }
        }
    }

    /// Moves past the item at `pos` by finding where it ends, without parsing it: the
    /// thread that decodes the item parses it in full, refusing it (`entity[i]: …`)
    /// when it is not one whole JSON value of the type. Finding the end follows only
    /// strings (and their escapes) and the nesting of brackets, so cutting, which every
    /// decoding thread waits for, costs a fraction of a parse.
    ///
    /// A scalar item is taken only when a byte follows it (or at the end of the input),
    /// as in [`Cutter::value`].
    fn item(&mut self) -> Parsed<()> {
        let rest = &self.buf[self.pos..];
        if !self.last && rest.len() < self.wait_for {
            return Parsed::Short;
        }
        match item_len(rest) {
            Some(len) => {
                self.pos += len;
                self.wait_for = 0;
                Parsed::Value(())
            }
            None if rest.first().is_some_and(|b| b"]}:,".contains(b)) => Parsed::Bad,
            None if !self.last => {
                self.wait_for = rest.len().saturating_mul(2);
                Parsed::Short
            }
            None if rest.is_empty() || matches!(rest[0], b'{' | b'[' | b'"') => {
                self.truncated = true;
                Parsed::Bad
            }
            // A scalar that ends the input: its decoding says whether it is one.
            None => {
                self.pos += rest.len();
                Parsed::Value(())
            }
        }
    }

    /// The items read so far, as a run; drops what precedes `pos`.
    fn take_run(&mut self) -> Run {
        let bytes = self.buf.split_to(self.pos).freeze();
        self.dropped += self.pos;
        self.pos = 0;
        let items = std::mem::take(&mut self.items);
        let run = Run {
            seq: self.runs,
            first: self.handed_out,
            bytes,
            items,
        };
        self.handed_out += run.items.len();
        self.runs += 1;
        run
    }

    /// The answer ended before its JSON did.
    fn ended(&self) -> Broken {
        Broken::new(format!(
            "the listing ends after {} bytes, in the middle of its JSON",
            self.dropped + self.buf.len()
        ))
    }

    /// Where the shape stopped being the usual one, and what follows.
    fn unusual(&self) -> Broken {
        let rest = &self.buf[self.pos.min(self.buf.len())..];
        let shown: String = String::from_utf8_lossy(&rest[..rest.len().min(80)]).into_owned();
        Broken::new(format!(
            "the listing is not the expected {{\"messages\": [...], \"entity\": [...]}} JSON at \
             byte {}: {shown:?}",
            self.dropped + self.pos
        ))
    }
}

/// Length of the JSON value at the start of `bytes` as far as brackets and strings
/// tell: through the bracket that closes an object or array, the quote that closes a
/// string, or up to the byte that ends a scalar (`,`, `]`, `}` or whitespace). `None`
/// when it runs past `bytes`, or when `bytes` starts with what cannot start a value.
fn item_len(bytes: &[u8]) -> Option<usize> {
    match *bytes.first()? {
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = 0;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => i += string_len(&bytes[i..])? - 1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        b'"' => string_len(bytes),
        b']' | b'}' | b':' | b',' => None,
        _ => bytes
            .iter()
            .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t'))
            .filter(|&len| len > 0),
    }
}

/// Length of the string that starts `bytes` (at its opening quote), closing quote
/// included; `None` when it runs past `bytes`.
fn string_len(bytes: &[u8]) -> Option<usize> {
    let mut i = 1;
    loop {
        i += bytes
            .get(i..)?
            .iter()
            .position(|b| matches!(b, b'"' | b'\\'))?;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        // An escape: the byte after the backslash is never the closing quote.
        i += 2;
    }
}

#[cfg(test)]
mod tests;
