//! W3C trace context on the model request (opt-in): the plan gets a `traceparent` naming
//! the run's span, and a run that fails before any answer is checked with the same request
//! without the header (ttft-core's [`ttft_core::trace_context`] decides what and why).

use ttft_core::measure::RunPlan;
use ttft_core::record::RunRecord;
use ttft_core::trace_context;
use ttft_lab::otlp::RunIds;

use ttft_web::clock::Timer;
use ttft_web::transport::{main_thread, HttpRequest};

/// How long the check may take.
const CHECK_TIMEOUT_MS: f64 = 10_000.0;

/// The plan to send: with `traceparent` for these ids when trace context is on.
pub fn plan_for(plan: &RunPlan, ids: &RunIds, trace_context_on: bool) -> RunPlan {
    if trace_context_on {
        plan.with_traceparent(&ids.traceparent())
    } else {
        plan.clone()
    }
}

/// When a run with `traceparent` failed before any answer: sends the check (the same
/// request without the header, with an empty body) and names the header as the cause when
/// the check is answered. Returns whether it did.
pub async fn check_failed_run(plan: &RunPlan, record: &mut RunRecord) -> bool {
    if !trace_context::needs_check(record) {
        return false;
    }
    let Some(check) = trace_context::check_request(plan.request()) else {
        return false;
    };
    let Ok(controller) = web_sys::AbortController::new() else {
        return false;
    };
    let _deadline = {
        let controller = controller.clone();
        Timer::once(CHECK_TIMEOUT_MS, move || controller.abort())
    };
    let answered = main_thread::open(&HttpRequest::from(&check), &controller.signal())
        .await
        .is_ok();
    // The check's answer is a refusal of its empty body: nothing to read.
    controller.abort();
    trace_context::confirm_refused(record, answered)
}
