//! The export format: a versioned JSON document that imports back identically, a CSV with
//! one row per run, and a plain-text summary to paste into an issue or a chat.
//!
//! docs/export-schema.md documents every field, its unit and its AIPerf / GuideLLM
//! equivalent; this module is the reference implementation of that document.
//!
//! # What goes in, what never does
//!
//! Everything measured about a run goes in, under the names of DESIGN.md §2 (the
//! serialized names of [`RunMetrics`] and [`Instants`]). The API key never does: requests
//! are exported as [`RequestDescription`]s, whose key headers are already masked, and every
//! output path masks them again ([`RunRecord::redacted`]) in case a description was built by
//! hand. Query parameters that usually carry a key (`key`, `api_key`, …) are blanked too.
//!
//! # Numbers
//!
//! Times are milliseconds on the page's `performance.now()` clock, as in
//! [`crate::timeline`]. Before writing JSON every floating-point number is rounded to 15
//! significant digits (see [`ExportDocument::canonicalized`]): any decimal with 15 digits
//! survives decimal → binary → decimal, so a document read back and written again is
//! byte-for-byte the same, while the loss (below a nanosecond for any realistic time) is far
//! under the browser's timer resolution.
//!
//! # Versions
//!
//! [`SCHEMA_VERSION`] is 6. Every change to the document's shape bumps it; this build reads
//! versions up to its own and refuses newer ones with [`ImportError::NewerVersion`]. Readers
//! ignore fields they do not know. See docs/export-schema.md, "Versioning".

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::{RunRecord, Transport};
use crate::request::secret::{is_secret_header, mask_secret_value, redact_url};

mod csv;
mod import;
mod text;

pub use csv::{csv_columns, runs_csv, CsvColumn, CsvHeader};
pub use import::ImportError;
pub use text::{summary_text, summary_text_with};

/// The value of the `schema` field: what says "this JSON is a TTFT Meter export".
pub const SCHEMA_NAME: &str = "ttft-meter/export";

/// The schema version this build writes, and the newest it reads.
pub const SCHEMA_VERSION: u32 = 6;

/// Where the measurement was taken, as the page saw it (all passed in by the app).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// `navigator.userAgent`.
    pub user_agent: String,
    /// The smallest step of `performance.now()` observed, in ms (0.005 when cross-origin
    /// isolated in Chromium, 0.1 otherwise); `None` when not measured.
    pub timer_resolution_ms: Option<f64>,
    /// `crossOriginIsolated`: whether COOP/COEP were in effect (finer timers, unrounded
    /// paint times).
    pub cross_origin_isolated: bool,
    /// The transport in use when the document was exported.
    pub transport: Transport,
    /// The page's origin (`location.origin`), e.g. `https://ttft.example`.
    pub page_origin: String,
}

/// One experiment's results. The experiment module owns the shape of `result`; `kind` and
/// `kind_version` say which shape it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// The experiment's kind, e.g. `prompt_length_sweep`.
    pub kind: String,
    /// The version of that kind's `result` shape, starting at 1.
    pub kind_version: u32,
    /// The results, as the experiment module serialized them.
    pub result: Value,
}

/// The whole export: environment, runs and experiment results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportDocument {
    /// Always [`SCHEMA_NAME`].
    pub schema: String,
    /// The schema version ([`SCHEMA_VERSION`] when written by this build).
    pub schema_version: u32,
    /// The TTFT Meter version that wrote the document.
    pub tool_version: String,
    /// When it was exported, as the app formatted it (ISO 8601 UTC).
    pub exported_at: String,
    /// Where the measurement was taken.
    pub environment: Environment,
    /// The runs, in the order they were made.
    pub runs: Vec<RunRecord>,
    /// Experiment results.
    pub experiments: Vec<ExperimentResult>,
}

/// The document could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// serde_json refused the document; in practice a NaN or infinite time, which JSON
    /// cannot carry, in a field that is not optional.
    #[error("The results could not be written as JSON ({detail}). A measured time is probably not a finite number; please report this.")]
    Json {
        /// serde_json's message.
        detail: String,
    },
}

impl From<serde_json::Error> for ExportError {
    fn from(error: serde_json::Error) -> Self {
        ExportError::Json {
            detail: error.to_string(),
        }
    }
}

impl RunRecord {
    /// The record as a canonical document holds it: [`redacted`](Self::redacted), with every
    /// float rounded as [`ExportDocument::canonicalized`] rounds it. A document whose runs are
    /// all canonical can be written without canonicalizing it again (the app's stored
    /// history does so: rounding thousands of runs on every save costs too much).
    pub fn canonicalized(&self) -> Result<RunRecord, ExportError> {
        let mut value = serde_json::to_value(self.redacted())?;
        canonicalize_numbers(&mut value);
        from_canonical_value(&value)
    }

    /// The record with every key-bearing header value masked and key-like query parameters
    /// blanked, whatever the caller put in. Idempotent. All outputs go through it.
    pub fn redacted(&self) -> RunRecord {
        let mut record = self.clone();
        record.settings.endpoint_url = redact_url(&record.settings.endpoint_url);
        if let Some(request) = record.settings.request.as_mut() {
            request.url = redact_url(&request.url);
            for (name, value) in request.headers.iter_mut() {
                if is_secret_header(name) {
                    *value = mask_secret_value(value);
                }
            }
        }
        record
    }
}

/// Reads a canonical `value` back through its text, as the stored history and imports are
/// read: one deserializer for all three keeps one copy of the records' decoding code in the
/// wasm (`from_value` would add a second one: about 57 KB raw, 22 KB gzip). Exact: every float
/// of a canonical value has at most 15 significant digits (as for imports, below). The error
/// reads as `from_value`'s would: without a position in a text the user never sees.
fn from_canonical_value<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<T, ExportError> {
    serde_json::from_str(&value.to_string()).map_err(|error| {
        let detail = error.to_string();
        let position = format!(" at line {} column {}", error.line(), error.column());
        ExportError::Json {
            detail: detail
                .strip_suffix(&position)
                .map_or_else(|| detail.clone(), str::to_owned),
        }
    })
}

/// `value` rounded to 15 significant digits: the most that survive decimal → f64 → decimal,
/// so the shortest representation serde_json writes reads back as the same f64 (its default
/// float parser is exact for such short decimals, not for 17-digit ones).
fn canonical_f64(value: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    format!("{value:.14e}").parse::<f64>().unwrap_or(value)
}

/// Rounds every floating-point number inside a JSON value (integers are left alone).
fn canonicalize_numbers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(rounded) = number
                .as_f64()
                .and_then(|float| serde_json::Number::from_f64(canonical_f64(float)))
            {
                *number = rounded;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(canonicalize_numbers),
        Value::Object(fields) => fields.values_mut().for_each(canonicalize_numbers),
        _ => {}
    }
}

impl ExportDocument {
    /// An empty document of this build's schema version; push runs and experiments into it.
    pub fn new(tool_version: &str, exported_at: &str, environment: Environment) -> ExportDocument {
        ExportDocument {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION,
            tool_version: tool_version.to_owned(),
            exported_at: exported_at.to_owned(),
            environment,
            runs: Vec::new(),
            experiments: Vec::new(),
        }
    }

    /// The document as it is written: this build's `schema` and `schema_version`, runs
    /// [redacted](RunRecord::redacted) and every float rounded to 15 significant digits.
    /// Importing [`to_json`](Self::to_json)'s output gives exactly this.
    ///
    /// A NaN or infinite time cannot be written in JSON: an optional one becomes `null` (not
    /// measured), a required one (`request_started`) makes this fail.
    pub fn canonicalized(&self) -> Result<ExportDocument, ExportError> {
        let redacted = ExportDocument {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION,
            runs: self.runs.iter().map(RunRecord::redacted).collect(),
            ..self.clone()
        };
        let mut value = serde_json::to_value(&redacted)?;
        canonicalize_numbers(&mut value);
        from_canonical_value(&value)
    }

    /// The JSON export (pretty-printed, fields in schema order). `from_json` of it gives
    /// [`canonicalized`](Self::canonicalized), and writing that again gives the same text.
    pub fn to_json(&self) -> Result<String, ExportError> {
        Ok(serde_json::to_string_pretty(&self.canonicalized()?)?)
    }

    /// Reads an export back; see [`ImportError`] for what can go wrong.
    pub fn from_json(text: &str) -> Result<ExportDocument, ImportError> {
        import::from_json(text, SCHEMA_NAME, SCHEMA_VERSION)
    }
}
