//! What a run sends, parsed once from what the user typed ("parse, don't validate"): a
//! [`RunPlan`] can always be sent, and everything wrong with the input is an
//! [`InputError`] that names the field and says what to type instead.

use crate::lang::Lang;
use crate::protocol::ProtocolChoice;
use crate::record::{ExperimentTag, RunSettings};
use crate::request::TRACEPARENT;
use crate::request::{
    normalize_base_url, prepare_request, ApiKey, BodyError, Endpoint, Header, KeyError,
    PreparedRequest, PromptSpec, UrlError,
};
use crate::scrub::KeyScrubber;
use crate::texts as t;
use ttft_stream::dialect::Dialect;

/// Bounds of the run count, so a typo cannot start ten thousand requests.
pub const MAX_RUNS: u32 = 200;
/// The per-run timeout when none is typed, seconds.
pub const DEFAULT_TIMEOUT_S: u32 = 120;
/// The longest per-run timeout accepted, seconds.
pub const MAX_TIMEOUT_S: u32 = 3_600;
/// The largest `max_tokens` accepted.
pub const MAX_OUTPUT_TOKENS: u32 = 1_000_000;

/// The form's fields as typed.
#[derive(Debug, Clone, Copy)]
pub struct RunInput<'a> {
    /// The protocol choice.
    pub protocol: ProtocolChoice,
    /// The base URL as typed.
    pub base_url: &'a str,
    /// The API key as typed (may be empty: local servers need none).
    pub api_key: &'a str,
    /// The model id.
    pub model: &'a str,
    /// The prompt.
    pub prompt: &'a str,
    /// The output limit as typed (empty: the server's default).
    pub max_tokens: &'a str,
    /// Ask for reasoning where the protocol has a switch.
    pub reasoning: bool,
    /// The per-run timeout in seconds as typed (empty: [`DEFAULT_TIMEOUT_S`]).
    pub timeout_s: &'a str,
    /// Abort right after the first answer token.
    pub ttft_only: bool,
}

/// A series of runs as typed: the run, how many, and whether a warm-up run goes first.
#[derive(Debug, Clone, Copy)]
pub struct SeriesInput<'a> {
    /// The run.
    pub run: RunInput<'a>,
    /// The number of measured runs as typed (empty: 1).
    pub runs: &'a str,
    /// Run one unmeasured warm-up first (opens the connection, fills caches).
    pub warm_up: bool,
}

/// Which number field an [`InputError::Count`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountField {
    /// Measured runs.
    Runs,
    /// `max_tokens`.
    MaxTokens,
    /// Timeout per run, seconds.
    TimeoutS,
}

impl CountField {
    /// The field's label, as the form shows it.
    fn label(self, lang: Lang) -> &'static str {
        match self {
            CountField::Runs => t::INPUT_FIELD_RUNS.get(lang),
            CountField::MaxTokens => "max_tokens",
            CountField::TimeoutS => t::INPUT_FIELD_TIMEOUT_S.get(lang),
        }
    }
}

/// What is wrong with the input; nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The base URL cannot be called.
    Url(UrlError),
    /// The key cannot be sent in a header.
    Key(KeyError),
    /// The body cannot be built (no model, a thinking budget Anthropic refuses).
    Body(BodyError),
    /// A number field is not a whole number in its range.
    Count {
        /// Which field.
        field: CountField,
        /// What was typed.
        input: String,
        /// The smallest accepted value.
        min: u32,
        /// The largest accepted value.
        max: u32,
    },
}

impl InputError {
    /// The message for the user, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            InputError::Url(error) => error.message(lang),
            InputError::Key(error) => error.message(lang),
            InputError::Body(error) => error.message(lang),
            InputError::Count {
                field,
                input,
                min,
                max,
            } => t::INPUT_COUNT_OUT_OF_RANGE.fill(
                lang,
                &[
                    ("field", &field.label(lang)),
                    ("input", &input),
                    ("min", &min),
                    ("max", &max),
                ],
            ),
        }
    }

    /// A stable code naming the field (`base_url`, `api_key`, `model`, `runs`, …), for
    /// `data-field` attributes.
    pub fn field_code(&self) -> &'static str {
        match self {
            InputError::Url(_) => "base_url",
            InputError::Key(_) => "api_key",
            InputError::Body(BodyError::MissingModel) => "model",
            InputError::Body(_) => "max_tokens",
            InputError::Count { field, .. } => match field {
                CountField::Runs => "runs",
                CountField::MaxTokens => "max_tokens",
                CountField::TimeoutS => "timeout_s",
            },
        }
    }
}

/// A whole number in `[min, max]`, or `None` when nothing was typed.
pub fn parse_count(
    field: CountField,
    text: &str,
    min: u32,
    max: u32,
) -> Result<Option<u32>, InputError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    match trimmed.parse::<u32>() {
        Ok(value) if (min..=max).contains(&value) => Ok(Some(value)),
        _ => Err(InputError::Count {
            field,
            // Bounded: the message quotes it.
            input: trimmed.chars().take(40).collect(),
            min,
            max,
        }),
    }
}

/// One run, ready to send: the endpoint, the key, the body and how to measure it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// The endpoint derived from the typed base URL (warnings included).
    pub endpoint: Endpoint,
    /// The key, when one was typed.
    pub key: Option<ApiKey>,
    /// What to ask (model, prompt, limits, reasoning options).
    pub spec: PromptSpec,
    /// The stream dialect, or `None` to detect it from the stream.
    pub dialect: Option<Dialect>,
    /// Whether reasoning was asked for.
    pub reasoning: bool,
    /// The whole run's deadline, ms from `request_started`.
    pub timeout_ms: f64,
    /// Abort right after the first answer token ("TTFT only" mode).
    pub ttft_only: bool,
    /// The experiment this run belongs to, if any.
    pub experiment: Option<ExperimentTag>,
    request: PreparedRequest,
    /// Scrubs every key the page holds (the tab's earlier keys, other tabs' keys) from what
    /// comes back, besides this run's own; `None`: this run's key only.
    held_keys: Option<KeyScrubber>,
}

impl RunPlan {
    /// Parses the form's fields into a plan, or says what is wrong.
    pub fn parse(input: &RunInput<'_>) -> Result<RunPlan, InputError> {
        let protocol = input.protocol.resolve(input.base_url);
        let endpoint = normalize_base_url(input.base_url, protocol).map_err(InputError::Url)?;
        let key = ApiKey::parse(input.api_key).map_err(InputError::Key)?;
        let max_tokens = parse_count(
            CountField::MaxTokens,
            input.max_tokens,
            1,
            MAX_OUTPUT_TOKENS,
        )?;
        let timeout_s = parse_count(CountField::TimeoutS, input.timeout_s, 1, MAX_TIMEOUT_S)?
            .unwrap_or(DEFAULT_TIMEOUT_S);
        let mut spec = PromptSpec::new(input.model.trim(), input.prompt);
        spec.max_output_tokens = max_tokens;
        if input.reasoning {
            spec = spec.with_reasoning(protocol);
        }
        RunPlan::new(
            endpoint,
            key,
            spec,
            input.reasoning,
            f64::from(timeout_s) * 1000.0,
            input.ttft_only,
        )
    }

    /// A plan from parsed parts; fails only when the body cannot be built.
    pub fn new(
        endpoint: Endpoint,
        key: Option<ApiKey>,
        spec: PromptSpec,
        reasoning: bool,
        timeout_ms: f64,
        ttft_only: bool,
    ) -> Result<RunPlan, InputError> {
        let request =
            prepare_request(&endpoint, &spec, key.as_ref(), None).map_err(InputError::Body)?;
        Ok(RunPlan {
            endpoint,
            key,
            spec,
            dialect: None,
            reasoning,
            timeout_ms,
            ttft_only,
            experiment: None,
            request,
            held_keys: None,
        })
    }

    /// The same plan asking something else (an experiment's prompt, model or limit).
    pub fn varied(&self, vary: impl FnOnce(&mut PromptSpec)) -> Result<RunPlan, InputError> {
        let mut spec = self.spec.clone();
        vary(&mut spec);
        let mut plan = RunPlan::new(
            self.endpoint.clone(),
            self.key.clone(),
            spec,
            self.reasoning,
            self.timeout_ms,
            self.ttft_only,
        )?;
        plan.dialect = self.dialect;
        plan.experiment = self.experiment.clone();
        Ok(plan)
    }

    /// The same plan whose request also carries a W3C `traceparent` header (trace context,
    /// opt-in: [`crate::trace_context`]); the record's request description shows it.
    pub fn with_traceparent(&self, traceparent: &str) -> RunPlan {
        let mut plan = self.clone();
        plan.request
            .headers
            .retain(|header| !header.name.eq_ignore_ascii_case(TRACEPARENT));
        plan.request.headers.push(Header {
            name: TRACEPARENT.to_owned(),
            value: traceparent.to_owned(),
        });
        plan
    }

    /// The request to send (holds the key: for the transport only).
    pub fn request(&self) -> &PreparedRequest {
        &self.request
    }

    /// This plan, scrubbing also every key of `held` (the keys the page holds besides the
    /// one this run sends) from what the provider sends back.
    pub fn scrubbing_also<'a>(mut self, held: impl IntoIterator<Item = &'a str>) -> RunPlan {
        let mut keys: Vec<String> = held.into_iter().map(str::to_owned).collect();
        keys.extend(self.key.as_ref().map(|key| key.expose().to_owned()));
        self.held_keys = KeyScrubber::for_keys(keys.iter().map(String::as_str));
        self
    }

    /// The scrubber of this run: every key it knows ([`RunPlan::scrubbing_also`]), else its
    /// own key; `None` without a key.
    pub fn scrubber(&self) -> Option<KeyScrubber> {
        self.held_keys.clone().or_else(|| {
            self.key
                .as_ref()
                .and_then(|key| KeyScrubber::new(key.expose()))
        })
    }

    /// What the record keeps of this plan (never the key); `dialect` is the one detected.
    pub fn settings(&self, dialect: Option<Dialect>) -> RunSettings {
        RunSettings {
            protocol: self.endpoint.protocol,
            endpoint_url: self.endpoint.endpoint_url.clone(),
            model: self.spec.model.clone(),
            dialect,
            max_tokens: self.spec.max_output_tokens,
            ttft_only: self.ttft_only,
            reasoning: self.reasoning,
            request: Some(self.request.describe()),
        }
    }
}

/// A series: the run, how many measured runs, and whether a warm-up goes first.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPlan {
    /// Each run.
    pub run: RunPlan,
    /// Measured runs (the warm-up not included), 1 to [`MAX_RUNS`].
    pub measured_runs: u32,
    /// Whether an unmeasured warm-up run goes first.
    pub warm_up: bool,
}

impl SeriesPlan {
    /// Parses the form, or says what is wrong with it.
    pub fn parse(input: &SeriesInput<'_>) -> Result<SeriesPlan, InputError> {
        let measured_runs = parse_count(CountField::Runs, input.runs, 1, MAX_RUNS)?.unwrap_or(1);
        Ok(SeriesPlan {
            run: RunPlan::parse(&input.run)?,
            measured_runs,
            warm_up: input.warm_up,
        })
    }

    /// Runs in the series, the warm-up included.
    pub fn total_runs(&self) -> u32 {
        self.measured_runs + u32::from(self.warm_up)
    }
}
