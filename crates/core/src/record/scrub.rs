//! The key scrubbed from every text of a run record with a [`KeyScrubber`]: the record's
//! own fields, its settings and request, its outcome and its diagnosis.

use ttft_stream::dialect::Usage;

use super::{DiagnosisText, ExperimentTag, RunRecord, RunSettings};
use crate::request::RequestDescription;
use crate::scrub::KeyScrubber;
use crate::timeline::RunOutcome;

impl RunRecord {
    /// Scrubs every string of a run record. The destructuring is exhaustive on purpose: a
    /// new field does not compile until it is scrubbed here (or said to hold no text).
    pub fn scrub_key(&mut self, scrubber: &KeyScrubber) {
        let RunRecord {
            run_index: _,
            started_at,
            settings,
            transport: _,
            cold: _,
            connection_evidence: _,
            warm_up: _,
            metrics: _,
            instants: _,
            usage,
            network: _,
            outcome,
            diagnosis_cause,
            diagnosis,
            experiment,
            arrival_delay_bound_ms: _,
            arrivals_wait_for_main_thread: _,
            main_thread_stall_ms: _,
            // Numbers and codes only: no provider text is kept in either.
            server_account: _,
            breakdown: _,
            timer: _,
            buffered_arrival: _,
            // Numbers and codes, and the relay's version: a short token, scrubbed all the same
            // (a provider's header of the same name would pass through the relay).
            relay,
        } = self;
        if let Some(version) = relay.as_mut().and_then(|relay| relay.version.as_mut()) {
            scrubber.scrub_in_place(version);
        }
        scrubber.scrub_in_place(started_at);
        scrub_settings(scrubber, settings);
        if let Some(Usage { raw, .. }) = usage {
            scrubber.scrub_json(raw);
        }
        scrub_outcome(scrubber, outcome);
        if let Some(cause) = diagnosis_cause {
            scrubber.scrub_in_place(cause);
        }
        if let Some(diagnosis) = diagnosis {
            diagnosis.scrub_key(scrubber);
        }
        if let Some(ExperimentTag {
            kind,
            session: _,
            arm,
        }) = experiment
        {
            scrubber.scrub_in_place(kind);
            scrubber.scrub_in_place(arm);
        }
    }
}

fn scrub_settings(scrubber: &KeyScrubber, settings: &mut RunSettings) {
    let RunSettings {
        protocol: _,
        endpoint_url,
        model,
        dialect: _,
        max_tokens: _,
        ttft_only: _,
        reasoning: _,
        request,
    } = settings;
    scrubber.scrub_in_place(endpoint_url);
    scrubber.scrub_in_place(model);
    if let Some(RequestDescription {
        protocol: _,
        method,
        url,
        headers,
        body,
        auth_style: _,
        key_sent: _,
    }) = request
    {
        scrubber.scrub_in_place(method);
        scrubber.scrub_in_place(url);
        for (name, value) in headers.iter_mut() {
            scrubber.scrub_in_place(name);
            scrubber.scrub_in_place(value);
        }
        scrubber.scrub_json(body);
    }
}

fn scrub_outcome(scrubber: &KeyScrubber, outcome: &mut RunOutcome) {
    match outcome {
        RunOutcome::StreamError { error } => scrubber.scrub_stream_error(error),
        RunOutcome::MalformedChunk { detail, at_ms: _ } => scrubber.scrub_in_place(detail),
        RunOutcome::Streaming
        | RunOutcome::Completed
        | RunOutcome::StoppedAfterFirstAnswer
        | RunOutcome::HttpError { .. }
        | RunOutcome::NetworkFailure { .. }
        | RunOutcome::EmptyStream
        | RunOutcome::NotSent
        | RunOutcome::EndedWithoutTerminal => {}
    }
}

impl DiagnosisText {
    /// A recorded diagnosis: its texts in both languages (they may quote a content type
    /// or a parser detail) and the provider's message.
    pub fn scrub_key(&mut self, scrubber: &KeyScrubber) {
        let DiagnosisText {
            message,
            fix,
            http_status: _,
            provider_message,
            relay_command,
        } = self;
        for text in [&mut message.en, &mut message.zh, &mut fix.en, &mut fix.zh] {
            scrubber.scrub_in_place(text);
        }
        for text in [provider_message, relay_command].into_iter().flatten() {
            scrubber.scrub_in_place(text);
        }
    }
}
