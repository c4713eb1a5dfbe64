//! W3C Trace Context on the model request, opt-in: a `traceparent` header naming the run's
//! span (`ttft_lab::otlp::RunIds::traceparent`), so a server that traces (vLLM with
//! OpenTelemetry, a gateway) makes its work a child of the browser's span, and the same ids
//! go into the OTLP span.
//!
//! The catch: `traceparent` is not a CORS-safelisted header, so the browser asks the server
//! in its preflight whether it may send it. A server that does not list it in
//! `Access-Control-Allow-Headers` refuses the preflight, and the page sees only "failed to
//! fetch", like a server that is down. The diagnosis tells them apart cheaply:
//! [`needs_check`] says when a failed run should be checked, [`check_request`] is the same
//! request without `traceparent` and with an empty JSON body (the server answers it at once,
//! with a 4xx, without generating anything), and when that request gets any HTTP answer,
//! [`confirm_refused`] gives the run its cause,
//! [`Cause::TraceContextRefused`](crate::diagnosis::Cause::TraceContextRefused). Without a
//! check, a failed run with `traceparent` still lists the header first among the likely
//! reasons ([`NetworkHint::TraceContextNotAllowed`](crate::diagnosis::NetworkHint)).

use serde_json::json;

use crate::diagnosis::{Cause, Diagnosis};
use crate::record::{DiagnosisText, RunRecord};
use crate::request::{has_traceparent, PreparedRequest, TRACEPARENT};

/// The `diagnosis_cause` of a run that failed before any answer.
const CONNECTION_FAILED: &str = "connection_failed";

/// Whether a finished run should be checked: it sent `traceparent` and failed before any
/// HTTP answer could be read.
pub fn needs_check(record: &RunRecord) -> bool {
    record.diagnosis_cause.as_deref() == Some(CONNECTION_FAILED)
        && record
            .settings
            .request
            .as_ref()
            .is_some_and(|request| has_traceparent(&request.headers))
}

/// The check: the same URL and headers without `traceparent`, with an empty JSON object as
/// the body, so the browser's preflight asks for the same headers but that one, and the
/// server refuses the body at once instead of generating. `None` when the request had no
/// `traceparent`.
pub fn check_request(request: &PreparedRequest) -> Option<PreparedRequest> {
    if !request
        .headers
        .iter()
        .any(|header| header.name.eq_ignore_ascii_case(TRACEPARENT))
    {
        return None;
    }
    let mut check = request.clone();
    check
        .headers
        .retain(|header| !header.name.eq_ignore_ascii_case(TRACEPARENT));
    check.body = json!({});
    Some(check)
}

/// The diagnosis of a run whose check was answered.
pub fn refused_diagnosis() -> Diagnosis {
    Diagnosis {
        cause: Cause::TraceContextRefused,
        http_status: None,
        provider_message: None,
        provider_cors: None,
        relay_upstream: None,
    }
}

/// Gives a checked run its cause when the check got an HTTP answer (any status): the
/// server is up and its CORS allows the request without `traceparent`, so the header was
/// what it refused. When the check failed too, the run keeps its diagnosis (the server is
/// down or refuses this page altogether). Returns whether the cause changed.
pub fn confirm_refused(record: &mut RunRecord, check_answered: bool) -> bool {
    if !check_answered || !needs_check(record) {
        return false;
    }
    let diagnosis = refused_diagnosis();
    record.diagnosis_cause = Some(diagnosis.cause.code().to_owned());
    record.diagnosis = Some(DiagnosisText::of(&diagnosis));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::measure::{FinishContext, Measurement, RunInput, RunPlan};
    use crate::protocol::ProtocolChoice;
    use crate::record::Transport;

    fn plan(traceparent: bool) -> RunPlan {
        let plan = RunPlan::parse(&RunInput {
            protocol: ProtocolChoice::Auto,
            base_url: "http://127.0.0.1:9/v1",
            api_key: "sk-test-abcdefgh",
            model: "sim-fast",
            prompt: "Hi",
            max_tokens: "",
            reasoning: false,
            timeout_s: "30",
            ttft_only: false,
        })
        .unwrap();
        if traceparent {
            plan.with_traceparent("00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01")
        } else {
            plan
        }
    }

    fn failed_record(plan: &RunPlan) -> RunRecord {
        let mut measurement = Measurement::new(plan, Some(10.0), 12.0, 1);
        let mut progress = Vec::new();
        measurement.on_failure(
            40.0,
            &crate::measure::FetchError {
                name: "TypeError".into(),
                message: "Failed to fetch".into(),
            },
            None,
            &mut progress,
        );
        measurement.finish(&FinishContext::new(
            "2026-01-01T00:00:00.000Z",
            Transport::Worker,
        ))
    }

    #[test]
    fn the_header_is_sent_and_recorded_and_listed_first_among_the_reasons() {
        let plan = plan(true);
        let header = plan
            .request()
            .headers
            .iter()
            .find(|header| header.name == TRACEPARENT)
            .unwrap();
        assert_eq!(
            header.value,
            "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01"
        );
        let record = failed_record(&plan);
        assert!(needs_check(&record));
        let message = record.diagnosis.as_ref().unwrap().message(Lang::En);
        assert!(
            message.contains("traceparent"),
            "the header comes first among the reasons: {message}"
        );
        assert!(!needs_check(&failed_record(&self::plan(false))));
    }

    #[test]
    fn the_check_is_the_same_request_without_the_header_and_with_an_empty_body() {
        let plan = plan(true);
        let check = check_request(plan.request()).unwrap();
        assert_eq!(check.url, plan.request().url);
        assert!(check
            .headers
            .iter()
            .all(|header| header.name != TRACEPARENT));
        assert_eq!(
            check.headers.len() + 1,
            plan.request().headers.len(),
            "every other header is kept, so the preflight asks for the same ones"
        );
        assert_eq!(check.body_text(), "{}");
        assert_eq!(check_request(self::plan(false).request()), None);
    }

    #[test]
    fn an_answered_check_names_the_header_and_an_unanswered_one_changes_nothing() {
        let plan = plan(true);
        let mut record = failed_record(&plan);
        let before = record.clone();
        assert!(!confirm_refused(&mut record, false));
        assert_eq!(record, before);
        assert!(confirm_refused(&mut record, true));
        assert_eq!(
            record.diagnosis_cause.as_deref(),
            Some("trace_context_refused")
        );
        let diagnosis = record.diagnosis.as_ref().unwrap();
        assert!(diagnosis
            .message(Lang::En)
            .contains("refuses the traceparent header in CORS"));
        assert!(diagnosis.fix(Lang::En).contains("Turn off trace context"));
        assert!(diagnosis.message(Lang::Zh).contains("traceparent"));
        // Once confirmed, it is not checked again.
        assert!(!needs_check(&record));
    }
}
