//! Before the first run: what the server says about itself. Its context windows (llama.cpp
//! `/props`, the `/models` list) and the token counts the plan asks for (its `/tokenize`,
//! or the usage of a non-streamed request). The requests and the reading of their answers
//! are ttft-core's ([`ttft_lab::experiment::counting`]); here they are only sent, each
//! bounded in time and size and aborted by Stop. Calibration requests are not measured
//! runs: they are not kept in the session, and the report counts them.

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::future::join_all;
use ttft_core::measure::RunPlan;
use ttft_core::request::MODELS_TIMEOUT_MS;
use ttft_lab::experiment::counting::{
    count_request, model_info_url, props_url, ContextWindows, CountStep, TokenCounter,
    MAX_COUNT_BODY_BYTES, MAX_INFO_BODY_BYTES,
};
use ttft_lab::experiment::params::Inputs;
use ttft_lab::experiment::sizing::TokenCount;
use ttft_lab::experiment::{Experiment, ExperimentSession, Setup, SetupError};

use super::ExperimentControl;
use ttft_web::clock::Timer;
use ttft_web::transport::{main_thread, HttpRequest};

/// Sends `request` and reads its body up to `max_bytes`, within `timeout_ms`; `None` when
/// nothing usable came back (network error, timeout, Stop, a body past the bound).
async fn fetch_text(
    request: &HttpRequest,
    timeout_ms: f64,
    max_bytes: usize,
    control: &ExperimentControl,
) -> Option<(u16, String)> {
    if control.stopped() {
        return None;
    }
    let controller = web_sys::AbortController::new().ok()?;
    let signal = controller.signal();
    let aborting = controller.clone();
    let id = control.begin(Rc::new(move || aborting.abort()));
    let timeout = {
        let controller = controller.clone();
        Timer::once(timeout_ms, move || controller.abort())
    };
    let answer = async {
        let response = main_thread::open(request, &signal).await.ok()?;
        let status = response.head.status;
        let body = response.text_bounded(max_bytes).await.ok()??;
        Some((status, body))
    }
    .await;
    drop(timeout);
    control.end(id);
    answer
}

/// A GET of `url` with the plan's headers (the key: servers guard these routes with it),
/// without a content type.
fn get(plan: &RunPlan, url: String) -> HttpRequest {
    let mut request = HttpRequest::from(plan.request());
    request.method = "GET";
    request.url = url;
    request.body = None;
    request
        .headers
        .retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
    request
}

/// The context windows the server publishes (`/props` for the form's model, and the
/// `/models` list), asked together.
async fn context_windows(plan: &RunPlan, control: &ExperimentControl) -> ContextWindows {
    let props = get(plan, props_url(&plan.endpoint, &plan.spec.model));
    let models = get(plan, plan.endpoint.models_url.clone());
    let model_info = get(plan, model_info_url(&plan.endpoint));
    let ok_body = |answer: Option<(u16, String)>| {
        answer.and_then(|(status, body)| (status == 200).then_some(body))
    };
    let (props, models, model_info) = futures_util::future::join3(
        fetch_text(&props, MODELS_TIMEOUT_MS, MAX_INFO_BODY_BYTES, control),
        fetch_text(&models, MODELS_TIMEOUT_MS, MAX_INFO_BODY_BYTES, control),
        fetch_text(&model_info, MODELS_TIMEOUT_MS, MAX_INFO_BODY_BYTES, control),
    )
    .await;
    let (props, models, model_info) = (ok_body(props), ok_body(models), ok_body(model_info));
    ContextWindows::read(props.as_deref(), models.as_deref(), model_info.as_deref())
}

/// The server's count of `text`: cached, else asked the way that works on this server
/// (the next way when one turns out not to work); `None` when no way answers.
async fn count_tokens(
    counter: &RefCell<TokenCounter>,
    plan: &RunPlan,
    text: &str,
    control: &ExperimentControl,
) -> Option<TokenCount> {
    if let Some(count) = counter.borrow().cached(text) {
        return Some(count);
    }
    loop {
        let method = counter.borrow().method()?;
        let request = HttpRequest::from(&count_request(plan, method, text).ok()?);
        let answer = fetch_text(&request, plan.timeout_ms, MAX_COUNT_BODY_BYTES, control).await;
        if control.stopped() {
            return None;
        }
        let step = counter.borrow_mut().answer(
            method,
            text,
            plan.endpoint.protocol,
            answer
                .as_ref()
                .map(|(status, body)| (*status, body.as_str())),
        );
        match step {
            CountStep::Counted(count) => return Some(count),
            CountStep::TryNext => continue,
            CountStep::Uncounted => return None,
        }
    }
}

/// Configures `experiment` for this server: learns its context windows, plans, and answers
/// the plan's token-count questions (each round's texts counted together) until it is
/// sized. Stop ends the counting; the plan then keeps the sizes reached.
pub(super) async fn prepare(
    experiment: &'static dyn Experiment,
    inputs: &Inputs,
    mut setup: Setup,
    base: &RunPlan,
    control: &ExperimentControl,
) -> Result<Box<dyn ExperimentSession>, SetupError> {
    let windows = context_windows(base, control).await;
    setup.context_window_tokens = windows
        .for_model(&base.spec.model, true)
        .map(|(tokens, _)| tokens);
    setup.model_windows = windows.model_windows();
    let counter = RefCell::new(TokenCounter::new());
    loop {
        let mut planning = experiment.configure(inputs, &setup)?;
        let mut learned_window = None;
        while !planning.needs_counts().is_empty() && !control.stopped() {
            let texts: Vec<String> = planning
                .needs_counts()
                .iter()
                .map(|query| query.text.clone())
                .collect();
            let answers = join_all(
                texts
                    .iter()
                    .map(|text| count_tokens(&counter, base, text, control)),
            )
            .await;
            // A server that publishes no window (llama-cpp-python) names it when it refuses
            // a text for length: plan again within it (the counts so far stay cached).
            if setup.context_window_tokens.is_none() {
                learned_window = counter.borrow().overflow_window();
                if learned_window.is_some() {
                    break;
                }
            }
            planning.with_counts(&answers);
        }
        match learned_window {
            Some(window) => setup.context_window_tokens = Some(window),
            None => return planning.finish(),
        }
    }
}
