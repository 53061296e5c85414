//! How an audience upload becomes requests: split under the service's size limit, gzip
//! large bodies, and add the answers up.
//!
//! [`plan`] is pure (records and a limit in, pieces out) so the boundaries are tested as
//! a table; the client builds, encodes and sends one request at a time, so a large file
//! is never held twice in memory. It is public so that an offline queue can split an
//! upload when it is queued, one change per request: each request then has its own
//! exactly-once bookkeeping, and [`crate::Client::audience_add_data`] sends a change that
//! fits as exactly one request.
//!
//! Each request's JSON is kept within the limit *before* compression. The service says
//! "at most 10 MB a request" without saying whether it measures the compressed or the
//! inflated body; under the limit before compression is under it either way, and gzip then
//! only makes the request smaller (it is used only when it does).

use std::io::Write;
use std::ops::Range;

use flightdeck_model::{AudienceData, AudienceDataRecord, AudienceDataResult};

use crate::error::{Error, Result};

/// The field an upload's preparation failures name: its identifiers as a whole.
pub(crate) const UPLOAD_FIELD: &str = "values";

/// Request bodies larger than this are sent gzip-compressed. Below it, compressing costs
/// more time than it saves on the wire.
pub const AUDIENCE_GZIP_MIN_BYTES: usize = 64 * 1024;

/// One record's share of one request: the record at `record` in the caller's slice with
/// only `values[values]`. A record that fits in a request is one whole piece; a larger
/// one is cut into pieces that each keep its `serviceSegmentId`, `countryCode` and
/// unknown fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Index of the record in the caller's slice.
    pub record: usize,
    /// The values of that record this piece carries.
    pub values: Range<usize>,
}

/// The pieces of each request, in order, each request's JSON body at most `max_bytes`.
///
/// Records are kept whole and in order, several to a request, when they fit; a record
/// that does not fit in a request of its own is split across requests, filling the
/// current one first. No records gives one empty request, so the service still answers
/// (and, for example, reports an unknown segment). A value, or a record without its
/// values, that cannot fit in any request is an [`Error::Invalid`] naming it
/// (`[i].values[j]` or `[i]`).
pub fn plan(records: &[AudienceDataRecord], max_bytes: usize) -> Result<Vec<Vec<Piece>>> {
    // `[` and `]`.
    const BRACKETS: usize = 2;
    let mut requests = Vec::new();
    let mut current: Vec<Piece> = Vec::new();
    let mut size = BRACKETS;
    for (i, record) in records.iter().enumerate() {
        let base = json_len(&without_values(record));
        let lens: Vec<usize> = record.values.iter().map(json_len).collect();
        let whole = base + lens.iter().sum::<usize>() + lens.len().saturating_sub(1);
        let comma = usize::from(!current.is_empty());
        if size + comma + whole <= max_bytes {
            current.push(Piece {
                record: i,
                values: 0..lens.len(),
            });
            size += comma + whole;
            continue;
        }
        if BRACKETS + whole <= max_bytes {
            // Fits in a request of its own: start one rather than cut the record.
            requests.push(std::mem::take(&mut current));
            current.push(Piece {
                record: i,
                values: 0..lens.len(),
            });
            size = BRACKETS + whole;
            continue;
        }
        if BRACKETS + base > max_bytes {
            return Err(too_large(
                format!("[{i}]"),
                BRACKETS + base,
                max_bytes,
                true,
            ));
        }
        // Too large for any one request, so it has values: cut them across requests.
        let mut next = 0;
        while next < lens.len() {
            let comma = usize::from(!current.is_empty());
            // Values from `next` that fit after the record's fixed part.
            let mut piece = size + comma + base;
            let mut end = next;
            while end < lens.len() {
                let add = lens[end] + usize::from(end > next);
                if piece + add > max_bytes {
                    break;
                }
                piece += add;
                end += 1;
            }
            if end == next {
                if current.is_empty() {
                    return Err(too_large(
                        format!("[{i}].values[{next}]"),
                        BRACKETS + base + lens[next],
                        max_bytes,
                        false,
                    ));
                }
                requests.push(std::mem::take(&mut current));
                size = BRACKETS;
                continue;
            }
            current.push(Piece {
                record: i,
                values: next..end,
            });
            size = piece;
            next = end;
            if next < lens.len() {
                requests.push(std::mem::take(&mut current));
                size = BRACKETS;
            }
        }
    }
    if !current.is_empty() || requests.is_empty() {
        requests.push(current);
    }
    Ok(requests)
}

/// The body of one request of a [`plan`]. Pieces index `records`, which must have the
/// shape the plan was made from (the same records and value counts).
pub fn body(records: &[AudienceDataRecord], pieces: &[Piece]) -> AudienceData {
    pieces
        .iter()
        .filter_map(|p| {
            let r = records.get(p.record)?;
            Some(AudienceDataRecord {
                values: r.values.get(p.values.clone())?.to_vec(),
                ..without_values(r)
            })
        })
        .collect()
}

/// The bodies of the requests `records` take, each at most `max_bytes` of JSON: [`plan`]
/// and [`body`] together.
pub fn split(records: &[AudienceDataRecord], max_bytes: usize) -> Result<Vec<AudienceData>> {
    Ok(plan(records, max_bytes)?
        .iter()
        .map(|pieces| body(records, pieces))
        .collect())
}

/// A request body as sent.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) bytes: Vec<u8>,
    /// `Content-Encoding: gzip`.
    pub(crate) gzip: bool,
}

/// JSON, gzipped when larger than [`AUDIENCE_GZIP_MIN_BYTES`] and compression helps.
pub(crate) fn encode(body: &AudienceData) -> Result<Encoded> {
    // Failures here are about this upload, not the client's set-up: an `Invalid` error
    // fails the one change, where a `Config` error would stop a whole push.
    let json = serde_json::to_vec(body).map_err(|e| Error::Invalid {
        field: UPLOAD_FIELD.to_owned(),
        message: format!("the upload could not be written as JSON: {e}"),
    })?;
    if json.len() <= AUDIENCE_GZIP_MIN_BYTES {
        return Ok(Encoded {
            bytes: json,
            gzip: false,
        });
    }
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(json.len() / 2),
        flate2::Compression::default(),
    );
    let packed = gz
        .write_all(&json)
        .and_then(|()| gz.finish())
        .map_err(|e| Error::Invalid {
            field: UPLOAD_FIELD.to_owned(),
            message: format!("the upload could not be compressed: {e}"),
        })?;
    Ok(if packed.len() < json.len() {
        Encoded {
            bytes: packed,
            gzip: true,
        }
    } else {
        Encoded {
            bytes: json,
            gzip: false,
        }
    })
}

/// Adds one request's answer to the total of an upload: counts added, the last answer's
/// `message` and unknown fields, non-empty details joined with `; ` (prefixed with the
/// request's number when the upload took several, since record positions in a service's
/// details count from the start of that request).
pub(crate) fn add(
    total: &mut AudienceDataResult,
    answer: AudienceDataResult,
    request: usize,
    requests: usize,
) {
    total.published = total.published.saturating_add(answer.published);
    total.failed_publishes = total
        .failed_publishes
        .saturating_add(answer.failed_publishes);
    total.bad_records = total.bad_records.saturating_add(answer.bad_records);
    if !answer.bad_records_details.is_empty() {
        if !total.bad_records_details.is_empty() {
            total.bad_records_details.push_str("; ");
        }
        if requests > 1 {
            total
                .bad_records_details
                .push_str(&format!("request {} of {requests}: ", request + 1));
        }
        total
            .bad_records_details
            .push_str(&answer.bad_records_details);
    }
    total.message = answer.message;
    total.extra = answer.extra;
}

fn without_values(r: &AudienceDataRecord) -> AudienceDataRecord {
    AudienceDataRecord {
        service_segment_id: r.service_segment_id.clone(),
        country_code: r.country_code.clone(),
        values: Vec::new(),
        extra: r.extra.clone(),
    }
}

/// Bytes of `v` as compact JSON, counted without building the text.
fn json_len<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Strings and records of strings always serialize; a failure would only under-count,
    // and the service would then answer 413 rather than anything be lost.
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

fn too_large(field: String, bytes: usize, max: usize, without_values: bool) -> Error {
    let what = if without_values {
        "is, even without its values, "
    } else {
        "is "
    };
    Error::Invalid {
        field,
        message: format!(
            "{what}{bytes} bytes as an upload request, more than the {max} bytes one request \
             may carry; it cannot be sent in any request"
        ),
    }
}

#[cfg(test)]
mod tests {
    use flightdeck_model::AUDIENCE_UPLOAD_MAX_BYTES;
    use serde_json::json;

    use super::*;

    fn record(country: &str, values: Vec<String>) -> AudienceDataRecord {
        AudienceDataRecord {
            service_segment_id: "fpsegmabc".into(),
            country_code: country.into(),
            values,
            extra: Default::default(),
        }
    }

    fn hashes(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:064x}")).collect()
    }

    /// The bodies a plan sends, each checked against the limit as serialized.
    fn bodies(records: &[AudienceDataRecord], max: usize) -> Vec<AudienceData> {
        let planned = plan(records, max).expect("plan");
        planned
            .iter()
            .map(|pieces| {
                let b = body(records, pieces);
                let len = serde_json::to_vec(&b).expect("json").len();
                assert!(len <= max, "a body of {len} bytes over the limit {max}");
                b
            })
            .collect()
    }

    /// Every value of `records`, per country, in order.
    fn flat(records: &[AudienceDataRecord]) -> Vec<(String, String)> {
        records
            .iter()
            .flat_map(|r| r.values.iter().map(|v| (r.country_code.clone(), v.clone())))
            .collect()
    }

    #[test]
    fn a_body_exactly_at_the_limit_is_one_request_and_one_byte_more_is_two() {
        let records = vec![record("US", hashes(10))];
        let exact = serde_json::to_vec(&records).expect("json").len();
        assert_eq!(bodies(&records, exact), vec![records.clone()]);

        let split = bodies(&records, exact - 1);
        assert_eq!(split.len(), 2);
        assert_eq!(flat(&split.concat()), flat(&records));
        assert_eq!(split[0][0].values.len(), 9, "the first request is filled");
    }

    #[test]
    fn one_huge_record_is_cut_into_records_that_keep_segment_and_country() {
        let mut big = record("DE", hashes(1000));
        big.extra.insert("source".into(), json!("crm"));
        let records = vec![big];
        let split = bodies(&records, 10_000);
        assert!(split.len() > 1, "{}", split.len());
        for b in &split {
            assert_eq!(b.len(), 1);
            assert_eq!(b[0].service_segment_id, "fpsegmabc");
            assert_eq!(b[0].country_code, "DE");
            assert_eq!(b[0].extra.get("source"), Some(&json!("crm")));
            assert!(!b[0].values.is_empty());
        }
        assert_eq!(flat(&split.concat()), flat(&records));
        // Every request but the last is filled: no more requests than needed.
        // 2 brackets, the record without values, then 66 bytes a value and 1 a comma.
        let base = json_len(&without_values(&records[0]));
        let per_request = (10_000 - 2 - base + 1) / 67;
        assert_eq!(split.len(), 1000_usize.div_ceil(per_request));
    }

    #[test]
    fn many_small_records_share_requests_and_stay_whole_and_in_order() {
        let records: Vec<_> = (0..100)
            .map(|i| record(if i % 2 == 0 { "US" } else { "FR" }, hashes(3)))
            .collect();
        let one = serde_json::to_vec(&records[0]).expect("json").len();
        let max = 2 + 10 * one + 9;
        let split = bodies(&records, max);
        assert_eq!(split.len(), 10);
        assert!(split.iter().all(|b| b.len() == 10));
        assert_eq!(split.concat(), records, "whole records, same order");
    }

    #[test]
    fn a_record_that_fits_alone_moves_to_the_next_request_whole() {
        let records = vec![record("US", hashes(6)), record("GB", hashes(6))];
        let one = serde_json::to_vec(&records[0]).expect("json").len();
        let split = bodies(&records, 2 + one + 100);
        assert_eq!(
            split,
            vec![vec![records[0].clone()], vec![records[1].clone()]]
        );
    }

    #[test]
    fn a_large_record_after_small_ones_fills_the_current_request_first() {
        let records = vec![record("US", hashes(2)), record("GB", hashes(50))];
        let split = bodies(&records, 1500);
        assert_eq!(
            split[0].len(),
            2,
            "the small record and a piece of the large one"
        );
        assert_eq!(split[0][1].country_code, "GB");
        assert_eq!(flat(&split.concat()), flat(&records));
    }

    #[test]
    fn what_cannot_fit_anywhere_is_an_error_naming_the_field() {
        let mut records = vec![record("US", hashes(3))];
        records[0].values[1] = "x".repeat(500);
        let Err(Error::Invalid { field, message }) = plan(&records, 400) else {
            panic!("expected an error");
        };
        assert_eq!(field, "[0].values[1]");
        assert!(message.contains("400 bytes"), "{message}");

        let records = vec![record("US", hashes(1)), record(&"Z".repeat(500), hashes(1))];
        let Err(Error::Invalid { field, .. }) = plan(&records, 400) else {
            panic!("expected an error");
        };
        assert_eq!(field, "[1]");
    }

    #[test]
    fn split_gives_the_bodies_of_the_plan_and_each_fits_as_one_request() {
        let records = vec![record("US", hashes(50)), record("GB", hashes(5))];
        let split = split(&records, 1500).expect("split");
        assert_eq!(split, bodies(&records, 1500));
        for b in &split {
            let len = serde_json::to_vec(b).expect("json").len();
            assert_eq!(plan(b, 1500).expect("plan").len(), 1, "{len} bytes");
        }
    }

    #[test]
    fn empty_uploads_and_empty_records_are_still_sent() {
        assert_eq!(plan(&[], 100).expect("plan"), vec![Vec::new()]);
        let records = vec![record("US", Vec::new())];
        assert_eq!(bodies(&records, 1000), vec![records.clone()]);
    }

    #[test]
    fn escaped_values_are_measured_as_sent() {
        let records = vec![record("US", vec!["a\"b\\c\u{1}é".into(); 40])];
        for max in [120, 200, 333, 1000] {
            let split = bodies(&records, max);
            assert_eq!(flat(&split.concat()), flat(&records), "limit {max}");
        }
    }

    #[test]
    fn large_bodies_are_gzipped_and_small_ones_are_not() {
        let small = vec![record("US", hashes(10))];
        let e = encode(&small).expect("encode");
        assert!(!e.gzip);
        assert_eq!(e.bytes, serde_json::to_vec(&small).expect("json"));

        let large = vec![record("US", hashes(5000))];
        let e = encode(&large).expect("encode");
        assert!(e.gzip);
        let mut json = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&e.bytes[..]), &mut json)
            .expect("gunzip");
        assert_eq!(json, serde_json::to_vec(&large).expect("json"));
        assert!(
            e.bytes.len() < json.len() * 2 / 3,
            "{} of {}",
            e.bytes.len(),
            json.len()
        );
    }

    #[test]
    fn a_full_request_stays_under_the_service_limit_as_sent() {
        let records = vec![record("US", hashes(200_000))];
        let planned = plan(&records, AUDIENCE_UPLOAD_MAX_BYTES).expect("plan");
        assert_eq!(planned.len(), 2);
        for pieces in &planned {
            let e = encode(&body(&records, pieces)).expect("encode");
            assert!(e.gzip && e.bytes.len() <= AUDIENCE_UPLOAD_MAX_BYTES);
        }
    }

    #[test]
    fn answers_add_up() {
        let mut total = AudienceDataResult::default();
        let ok = |n| AudienceDataResult {
            message: "Audience data payload processed.".into(),
            published: n,
            ..AudienceDataResult::default()
        };
        add(&mut total, ok(3), 0, 3);
        add(&mut total, ok(4), 1, 3);
        add(
            &mut total,
            AudienceDataResult {
                message: "invalid payload: 2 bad record(s)".into(),
                bad_records: 2,
                failed_publishes: 1,
                bad_records_details: "[0].countryCode: bad".into(),
                ..AudienceDataResult::default()
            },
            2,
            3,
        );
        assert_eq!(
            (total.published, total.failed_publishes, total.bad_records),
            (7, 1, 2)
        );
        assert_eq!(total.message, "invalid payload: 2 bad record(s)");
        assert_eq!(
            total.bad_records_details,
            "request 3 of 3: [0].countryCode: bad"
        );
    }
}
