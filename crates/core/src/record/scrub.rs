//! The key scrubbed from every text of a run record ([`KeyScrubber`] on records): the
//! record's own fields, its settings and request, its outcome and its diagnosis.

use ttft_stream::dialect::Usage;

use super::{DiagnosisText, ExperimentTag, RunRecord, RunSettings};
use crate::request::RequestDescription;
use crate::scrub::KeyScrubber;
use crate::timeline::RunOutcome;

impl KeyScrubber {
    /// Scrubs every string of a run record. The destructuring is exhaustive on purpose: a
    /// new field does not compile until it is scrubbed here (or said to hold no text).
    pub fn scrub_record(&self, record: &mut RunRecord) {
        let RunRecord {
            run_index: _,
            started_at,
            settings,
            transport: _,
            cold: _,
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
        } = record;
        self.scrub_in_place(started_at);
        self.scrub_settings(settings);
        if let Some(Usage { raw, .. }) = usage {
            self.scrub_json(raw);
        }
        self.scrub_outcome(outcome);
        if let Some(cause) = diagnosis_cause {
            self.scrub_in_place(cause);
        }
        if let Some(diagnosis) = diagnosis {
            self.scrub_diagnosis_text(diagnosis);
        }
        if let Some(ExperimentTag {
            kind,
            session: _,
            arm,
        }) = experiment
        {
            self.scrub_in_place(kind);
            self.scrub_in_place(arm);
        }
    }

    fn scrub_settings(&self, settings: &mut RunSettings) {
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
        self.scrub_in_place(endpoint_url);
        self.scrub_in_place(model);
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
            self.scrub_in_place(method);
            self.scrub_in_place(url);
            for (name, value) in headers.iter_mut() {
                self.scrub_in_place(name);
                self.scrub_in_place(value);
            }
            self.scrub_json(body);
        }
    }

    fn scrub_outcome(&self, outcome: &mut RunOutcome) {
        match outcome {
            RunOutcome::StreamError { error } => self.scrub_stream_error(error),
            RunOutcome::MalformedChunk { detail, at_ms: _ } => self.scrub_in_place(detail),
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

    /// A recorded diagnosis: its texts in both languages (they may quote a content type
    /// or a parser detail) and the provider's message.
    pub fn scrub_diagnosis_text(&self, diagnosis: &mut DiagnosisText) {
        let DiagnosisText {
            message,
            fix,
            http_status: _,
            provider_message,
        } = diagnosis;
        for text in [&mut message.en, &mut message.zh, &mut fix.en, &mut fix.zh] {
            self.scrub_in_place(text);
        }
        if let Some(message) = provider_message {
            self.scrub_in_place(message);
        }
    }
}
