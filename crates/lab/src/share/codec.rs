//! The link's binary form: a few strings, then one column per field, every number a LEB128
//! varint, times as zigzag-coded differences from the previous run's value in tenths of a
//! millisecond (consecutive runs differ by tens to hundreds of ms: one or two bytes).
//!
//! ```text
//! version (2)        byte 2 (format 1, without the http column, is still read)
//! tool, at           string, string            string = varint length, UTF-8 bytes
//! facts              byte of flags (host, model, protocol, env, slo, prompt), then each set one
//! cohorts, outcomes  varint count, strings
//! runs               varint count n, then n values per column:
//!   index            zigzag(delta) varints
//!   label            0 = none, else length + 1 and the bytes
//!   cohort           0 = none, else table index + 1
//!   outcome          table index
//!   cold             0 = unknown, 1 = false, 2 = true
//!   http             0 = not recorded, else 1 + its place in HttpProtocol::ALL (format 2)
//!   7 time columns   0 = none, else zigzag(delta in tenths) + 1
//! ```
//!
//! Reading never allocates more than the input can hold: a count or length is checked
//! against the bytes left before anything is made, so a short link cannot expand into a large
//! one (the decompression bomb of general-purpose compressors has no equivalent here).

use ttft_core::timeline::HttpProtocol;

use super::Wire;

/// The format version byte.
const VERSION: u8 = 2;
/// The first format, without the `http` column: still read.
const VERSION_1: u8 = 1;

pub(super) struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn varint(&mut self, mut value: u64) {
        loop {
            let low = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.bytes.push(low);
                return;
            }
            self.bytes.push(low | 0x80);
        }
    }

    fn string(&mut self, text: &str) {
        self.varint(text.len() as u64);
        self.bytes.extend_from_slice(text.as_bytes());
    }

    fn strings(&mut self, texts: &[String]) {
        self.varint(texts.len() as u64);
        for text in texts {
            self.string(text);
        }
    }

    fn times(&mut self, column: &[Option<f64>]) {
        let mut previous = 0i64;
        for value in column {
            match value.map(|ms| (ms * 10.0).round() as i64) {
                None => self.varint(0),
                Some(tenths) => {
                    self.varint(zigzag(tenths - previous) + 1);
                    previous = tenths;
                }
            }
        }
    }
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// The bytes of `wire` (validated by the caller).
pub(super) fn write(wire: &Wire) -> Vec<u8> {
    write_format(wire, VERSION)
}

/// The bytes of `wire` in format `version` (format 1 has no `http` column; tests write it to
/// prove old links still read).
pub(super) fn write_format(wire: &Wire, version: u8) -> Vec<u8> {
    let mut out = Writer {
        bytes: vec![version],
    };
    out.string(&wire.tool);
    out.string(&wire.at);
    let facts = [
        &wire.host,
        &wire.model,
        &wire.protocol,
        &wire.env,
        &wire.slo,
        &wire.prompt,
    ];
    let flags = facts
        .iter()
        .enumerate()
        .filter(|(_, fact)| fact.is_some())
        .fold(0u8, |flags, (bit, _)| flags | (1 << bit));
    out.bytes.push(flags);
    for fact in facts.into_iter().flatten() {
        out.string(fact);
    }
    out.strings(&wire.cohorts);
    out.strings(&wire.outcomes);
    out.varint(wire.index.len() as u64);
    let mut previous = 0i64;
    for index in &wire.index {
        out.varint(zigzag(i64::from(*index) - previous));
        previous = i64::from(*index);
    }
    for label in &wire.label {
        match label {
            None => out.varint(0),
            Some(text) => {
                out.varint(text.len() as u64 + 1);
                out.bytes.extend_from_slice(text.as_bytes());
            }
        }
    }
    for cohort in &wire.cohort {
        out.varint(cohort.map_or(0, |index| u64::from(index) + 1));
    }
    for outcome in &wire.outcome {
        out.varint(u64::from(*outcome));
    }
    for cold in &wire.cold {
        out.varint(match cold {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        });
    }
    for http in wire.http.iter().filter(|_| version != VERSION_1) {
        let place = http.and_then(|protocol| HttpProtocol::ALL.iter().position(|p| *p == protocol));
        out.varint(place.map_or(0, |place| place as u64 + 1));
    }
    for column in [
        &wire.ttft,
        &wire.ttfa,
        &wire.ttfr,
        &wire.perceived_ttfa,
        &wire.first_chunk,
        &wire.e2e,
        &wire.itl,
    ] {
        out.times(column);
    }
    out.bytes
}

/// What went wrong reading, for [`super::ShareError::Damaged`].
pub(super) type ReadError = String;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, ReadError> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| "it ends too early".to_owned())?;
        self.at += 1;
        Ok(byte)
    }

    fn varint(&mut self) -> Result<u64, ReadError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a number is too long".to_owned())
    }

    /// A count or length that the bytes left can hold (each item takes at least one byte).
    fn count(&mut self) -> Result<usize, ReadError> {
        let count = self.varint()?;
        usize::try_from(count)
            .ok()
            .filter(|count| *count <= self.left())
            .ok_or_else(|| {
                format!(
                    "it announces {count} items but has {} bytes left",
                    self.left()
                )
            })
    }

    fn text(&mut self, len: usize) -> Result<String, ReadError> {
        let bytes = self
            .bytes
            .get(self.at..self.at.saturating_add(len))
            .ok_or_else(|| "a text runs past the end".to_owned())?;
        self.at += len;
        String::from_utf8(bytes.to_vec()).map_err(|_| "a text is not UTF-8".to_owned())
    }

    fn string(&mut self) -> Result<String, ReadError> {
        let len = self.count()?;
        self.text(len)
    }

    fn strings(&mut self) -> Result<Vec<String>, ReadError> {
        let count = self.count()?;
        (0..count).map(|_| self.string()).collect()
    }

    fn small(&mut self) -> Result<u16, ReadError> {
        u16::try_from(self.varint()?).map_err(|_| "an index is too large".to_owned())
    }

    fn times(&mut self, count: usize) -> Result<Vec<Option<f64>>, ReadError> {
        let mut previous = 0i64;
        (0..count)
            .map(|_| match self.varint()? {
                0 => Ok(None),
                coded => {
                    previous = previous
                        .checked_add(unzigzag(coded - 1))
                        .ok_or_else(|| "a time overflows".to_owned())?;
                    Ok(Some(previous as f64 / 10.0))
                }
            })
            .collect()
    }
}

/// Reads the bytes back into a [`Wire`] (bounds of values are checked by the caller).
pub(super) fn read(bytes: &[u8]) -> Result<Wire, ReadError> {
    let mut input = Reader { bytes, at: 0 };
    let version = input.byte()?;
    if version != VERSION && version != VERSION_1 {
        return Err(format!(
            "format {version}, this build reads {VERSION_1} and {VERSION}"
        ));
    }
    let tool = input.string()?;
    let at = input.string()?;
    let flags = input.byte()?;
    if flags >> 6 != 0 {
        return Err("unknown facts".to_owned());
    }
    let mut facts: Vec<Option<String>> = Vec::with_capacity(6);
    for bit in 0..6 {
        facts.push(if flags & (1 << bit) != 0 {
            Some(input.string()?)
        } else {
            None
        });
    }
    let cohorts = input.strings()?;
    let outcomes = input.strings()?;
    let count = input.count()?;
    let mut previous = 0i64;
    let mut index = Vec::with_capacity(count);
    for _ in 0..count {
        previous += unzigzag(input.varint()?);
        index.push(u32::try_from(previous).map_err(|_| "a run index is out of range".to_owned())?);
    }
    let mut label = Vec::with_capacity(count);
    for _ in 0..count {
        label.push(match input.count()? {
            0 => None,
            len => Some(input.text(len - 1)?),
        });
    }
    let mut cohort = Vec::with_capacity(count);
    for _ in 0..count {
        cohort.push(match input.small()? {
            0 => None,
            coded => Some(coded - 1),
        });
    }
    let outcome = (0..count)
        .map(|_| input.small())
        .collect::<Result<Vec<_>, _>>()?;
    let mut cold = Vec::with_capacity(count);
    for _ in 0..count {
        cold.push(match input.varint()? {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            _ => return Err("a connection flag is not 0, 1 or 2".to_owned()),
        });
    }
    let mut http = Vec::with_capacity(count);
    for _ in 0..count {
        http.push(if version == VERSION_1 {
            None
        } else {
            match input.varint()? {
                0 => None,
                coded => Some(
                    *usize::try_from(coded - 1)
                        .ok()
                        .and_then(|place| HttpProtocol::ALL.get(place))
                        .ok_or_else(|| "an HTTP version is unknown".to_owned())?,
                ),
            }
        });
    }
    let mut columns = Vec::with_capacity(7);
    for _ in 0..7 {
        columns.push(input.times(count)?);
    }
    if input.left() != 0 {
        return Err(format!("{} bytes are left over", input.left()));
    }
    let mut facts = facts.into_iter();
    let mut fact = move || facts.next().flatten();
    let mut columns = columns.into_iter();
    let mut column = move || columns.next().unwrap_or_default();
    Ok(Wire {
        tool,
        at,
        host: fact(),
        model: fact(),
        protocol: fact(),
        env: fact(),
        slo: fact(),
        prompt: fact(),
        cohorts,
        outcomes,
        index,
        label,
        cohort,
        outcome,
        cold,
        http,
        ttft: column(),
        ttfa: column(),
        ttfr: column(),
        perceived_ttfa: column(),
        first_chunk: column(),
        e2e: column(),
        itl: column(),
    })
}
