//! `ExportTraceServiceRequest` bodies: one CLIENT span per run, named
//! `{gen_ai.operation.name} {gen_ai.request.model}` as gen-ai-spans.md says, with events for
//! the first reasoning token, the first answer token and their paints.

use serde_json::{json, Value};

use ttft_core::protocol::Protocol;
use ttft_core::record::RunRecord;
use ttft_core::timeline::{PaintMethod, PaintTime};

use super::json::{object, u64_string, AttrValue, Attributes, SPAN_KIND_CLIENT, STATUS_CODE_ERROR};
use super::names::{attr, event, OPERATION_CHAT, SCHEMA_URL, SCOPE_NAME};
use super::options::{ExportOptions, OtlpError};
use super::resource::cut;
use super::resource::{ResourceFacts, RunIds, WallClock};
use super::run::{
    base_attributes, error_type, is_exportable, operation_end_ms, perceived_from_code,
};

/// Most prompt text sent when the embedder opted in (bytes; longer prompts are cut and the
/// span says so with `ttft_meter.prompt.truncated`).
pub const MAX_PROMPT_BYTES: usize = 8 * 1024;

/// `presentation_time`, `render_time` or `raf_message_channel`.
fn paint_method_code(method: PaintMethod) -> &'static str {
    match method {
        PaintMethod::PresentationTime => "presentation_time",
        PaintMethod::RenderTime => "render_time",
        PaintMethod::RafMessageChannel => "raf_message_channel",
    }
}

/// The text of a message `content`: a string, or the `text` of its parts.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        _ => None,
    }
}

/// The prompt's messages `(role, text)` from a request body of any of our protocols:
/// `messages` (Chat Completions, Anthropic Messages) or `input` (Responses).
fn prompt_messages(body: &Value) -> Vec<(String, String)> {
    let list = body.get("messages").or_else(|| body.get("input"));
    match list {
        Some(Value::String(text)) => vec![("user".to_owned(), text.clone())],
        Some(Value::Array(messages)) => messages
            .iter()
            .filter_map(|message| {
                let role = message
                    .get("role")
                    .and_then(Value::as_str)
                    .unwrap_or("user");
                let text = content_text(message.get("content")?)?;
                Some((role.to_owned(), text))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `gen_ai.input.messages` in the structured form of the conventions' input-messages schema
/// (`[{role, parts: [{type: "text", content}]}]`), cut to [`MAX_PROMPT_BYTES`] in total.
/// Returns the value and whether anything was cut.
fn input_messages_value(messages: &[(String, String)]) -> (Value, bool) {
    let mut budget = MAX_PROMPT_BYTES;
    let mut truncated = false;
    let kv = |key: &str, value: Value| json!({ "key": key, "value": value });
    let values: Vec<Value> = messages
        .iter()
        .map(|(role, text)| {
            let kept = cut(text, budget);
            truncated |= kept.len() < text.len();
            budget -= kept.len();
            let part = json!({ "kvlistValue": { "values": [
                kv("type", json!({ "stringValue": "text" })),
                kv("content", json!({ "stringValue": kept })),
            ] } });
            json!({ "kvlistValue": { "values": [
                kv("role", json!({ "stringValue": role })),
                kv("parts", json!({ "arrayValue": { "values": [part] } })),
            ] } })
        })
        .collect();
    (json!({ "arrayValue": { "values": values } }), truncated)
}

/// A run through ttft-relay: `ttft_meter.via_relay` and what the relay said; a buffered
/// answer: `ttft_meter.buffered_arrival`. Nothing for a direct run that streamed.
fn relay_attributes(attributes: &mut Attributes, record: &RunRecord) {
    let relay = record.relay.as_ref();
    attributes
        .opt_bool(attr::VIA_RELAY, relay.map(|_| true))
        .opt_str(
            attr::RELAY_VERSION,
            relay.and_then(|relay| relay.version.as_deref()),
        )
        .opt_str(
            attr::RELAY_CONNECTION,
            relay.and_then(|relay| relay.conn).map(|conn| conn.code()),
        )
        .opt_str(
            attr::RELAY_PROTOCOL,
            relay
                .and_then(|relay| relay.proto)
                .map(|proto| proto.code()),
        )
        .opt_str(
            attr::RELAY_ERROR,
            relay
                .and_then(|relay| relay.error)
                .map(|error| error.code()),
        )
        .opt_bool(
            attr::BUFFERED_ARRIVAL,
            record.buffered_arrival.map(|_| true),
        );
}

/// The span's attributes.
fn span_attributes(record: &RunRecord, options: &ExportOptions) -> Attributes {
    let metrics = &record.metrics;
    let mut attributes = base_attributes(record, options.provider_name.as_deref());
    attributes
        .opt_str(attr::ERROR_TYPE, error_type(&record.outcome).as_deref())
        .bool(attr::GEN_AI_REQUEST_STREAM, true)
        .opt_count(
            attr::GEN_AI_REQUEST_MAX_TOKENS,
            record.settings.max_tokens.map(u64::from),
        )
        .double(
            attr::GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
            metrics.first_chunk_ms.map(|ms| ms / 1000.0),
        );
    if let Some(usage) = &record.usage {
        attributes
            .opt_count(attr::GEN_AI_USAGE_INPUT_TOKENS, usage.prompt_tokens)
            .opt_count(attr::GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens)
            .opt_count(
                attr::GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
                usage.cached_prompt_tokens,
            )
            .opt_count(
                attr::GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
                usage.cache_creation_tokens,
            )
            .opt_count(
                attr::GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
                usage.reasoning_tokens,
            );
    }
    match record.settings.protocol {
        Protocol::OpenAiChat => {
            attributes.str(attr::OPENAI_API_TYPE, "chat_completions");
        }
        Protocol::OpenAiResponses => {
            attributes.str(attr::OPENAI_API_TYPE, "responses");
        }
        Protocol::AnthropicMessages => {}
    }
    if let Some(status) = metrics.http_status {
        attributes.int(attr::HTTP_RESPONSE_STATUS_CODE, i64::from(status));
    }
    let protocol = record.network.as_ref().and_then(|network| network.protocol);
    if let Some((name, version)) = protocol.and_then(|protocol| protocol.otel_name_version()) {
        attributes
            .str(attr::NETWORK_PROTOCOL_NAME, name)
            .str(attr::NETWORK_PROTOCOL_VERSION, version);
    }
    attributes
        .int(attr::RUN_INDEX, i64::from(record.run_index))
        .str(attr::RUN_OUTCOME, record.outcome.code())
        .opt_str(attr::DIAGNOSIS_CAUSE, record.diagnosis_cause.as_deref())
        .opt_bool(attr::CONNECTION_COLD, record.cold)
        .opt_str(
            attr::WAIT_VERDICT,
            record
                .breakdown
                .as_ref()
                .and_then(ttft_core::timeline::WaitVerdict::of)
                .map(|verdict| verdict.cause.code()),
        )
        .opt_bool(
            attr::TIMER_ISOLATED,
            record.timer.map(|timer| timer.cross_origin_isolated),
        )
        .double(
            attr::TIMER_STEP_MS,
            record.timer.and_then(|timer| timer.step_ms),
        )
        .bool(attr::WARM_UP, record.warm_up)
        .str(attr::TRANSPORT, record.transport.code())
        .bool(attr::TTFT_ONLY, record.settings.ttft_only)
        .str(
            attr::PERCEIVED_FROM,
            perceived_from_code(metrics.perceived_from),
        )
        .double(attr::TTFT_MS, metrics.ttft_ms)
        .double(attr::TTFA_MS, metrics.ttfa_ms)
        .double(attr::TTFR_MS, metrics.ttfr_ms)
        .double(attr::FIRST_CHUNK_MS, metrics.first_chunk_ms)
        .double(attr::SETUP_MS, metrics.setup_ms)
        .double(attr::PERCEIVED_TTFT_MS, metrics.perceived_ttft_ms)
        .double(attr::PERCEIVED_TTFA_MS, metrics.perceived_ttfa_ms)
        .double(attr::ANSWER_UI_DELAY_MS, metrics.answer_ui_delay_ms)
        .double(attr::REASONING_UI_DELAY_MS, metrics.reasoning_ui_delay_ms)
        .double(attr::E2E_MS, metrics.e2e_ms)
        .double(attr::ITL_MS, metrics.itl_ms)
        .double(attr::OUTPUT_TPS, metrics.output_tps);
    relay_attributes(&mut attributes, record);
    if options.include_prompt {
        let messages = record
            .settings
            .request
            .as_ref()
            .map(|request| prompt_messages(&request.body))
            .unwrap_or_default();
        if !messages.is_empty() {
            let (value, truncated) = input_messages_value(&messages);
            attributes.set(attr::GEN_AI_INPUT_MESSAGES, AttrValue::Any(value));
            if truncated {
                attributes.bool(attr::PROMPT_TRUNCATED, true);
            }
        }
    }
    attributes
}

/// One span event.
fn span_event(clock: &WallClock, at_ms: f64, name: &str, attributes: &Attributes) -> Option<Value> {
    let time = clock.unix_nanos(at_ms)?;
    let mut fields = vec![("timeUnixNano", u64_string(time)), ("name", json!(name))];
    if !attributes.is_empty() {
        fields.push(("attributes", attributes.to_json()));
    }
    Some(object(fields))
}

fn paint_event(clock: &WallClock, paint: Option<PaintTime>, name: &str) -> Option<Value> {
    let paint = paint?;
    let mut attributes = Attributes::new();
    attributes.str(attr::PAINT_METHOD, paint_method_code(paint.method));
    span_event(clock, paint.at_ms, name, &attributes)
}

/// The span of one run; `None` for a run that was never sent or has not ended.
pub fn span(
    record: &RunRecord,
    ids: RunIds,
    clock: &WallClock,
    options: &ExportOptions,
) -> Result<Option<Value>, OtlpError> {
    if !is_exportable(record) {
        return Ok(None);
    }
    let instants = &record.instants;
    let start_ms = instants.request_started;
    let start = clock
        .unix_nanos(start_ms)
        .ok_or(OtlpError::TimeOutOfRange { page_ms: start_ms })?;
    let paints = [instants.reasoning_painted, instants.answer_painted]
        .into_iter()
        .flatten()
        .map(|paint| paint.at_ms);
    // The span holds every event: the end is the operation's end or the last paint.
    let end_ms = operation_end_ms(record)
        .into_iter()
        .chain(paints)
        .filter(|at| at.is_finite())
        .fold(start_ms, f64::max);
    let end = clock.unix_nanos(end_ms).unwrap_or(start);
    let no_attributes = Attributes::new();
    let events: Vec<Value> = [
        instants
            .first_reasoning
            .and_then(|at| span_event(clock, at, event::FIRST_REASONING_TOKEN, &no_attributes)),
        instants
            .first_answer
            .and_then(|at| span_event(clock, at, event::FIRST_ANSWER_TOKEN, &no_attributes)),
        paint_event(
            clock,
            instants.reasoning_painted,
            event::FIRST_REASONING_PAINTED,
        ),
        paint_event(clock, instants.answer_painted, event::FIRST_ANSWER_PAINTED),
    ]
    .into_iter()
    .flatten()
    .collect();
    let error = error_type(&record.outcome);
    let status = error.as_ref().map(|error| {
        json!({
            "code": STATUS_CODE_ERROR,
            "message": format!("{} ({error})", record.outcome.code()),
        })
    });
    let name = format!("{OPERATION_CHAT} {}", record.settings.model);
    Ok(Some(object(vec![
        ("traceId", json!(ids.trace_id.to_hex())),
        ("spanId", json!(ids.span_id.to_hex())),
        ("name", json!(name)),
        ("kind", json!(SPAN_KIND_CLIENT)),
        ("startTimeUnixNano", u64_string(start)),
        ("endTimeUnixNano", u64_string(end)),
        ("attributes", span_attributes(record, options).to_json()),
        // proto3 JSON leaves empty repeated fields out.
        (
            "events",
            if events.is_empty() {
                Value::Null
            } else {
                Value::Array(events)
            },
        ),
        ("status", status.unwrap_or(Value::Null)),
    ])))
}

/// The `ResourceSpans` entry for `runs`; `None` when no run makes a span.
pub fn resource_spans(
    runs: &[(RunRecord, RunIds)],
    resource: &ResourceFacts,
    clock: &WallClock,
    options: &ExportOptions,
) -> Result<Option<Value>, OtlpError> {
    let mut spans = Vec::new();
    for (record, ids) in runs {
        if let Some(span) = span(record, *ids, clock, options)? {
            spans.push(span);
        }
    }
    if spans.is_empty() {
        return Ok(None);
    }
    Ok(Some(json!({
        "resource": { "attributes": resource.attributes()?.to_json() },
        "scopeSpans": [{
            "scope": { "name": SCOPE_NAME, "version": resource.service_version },
            "spans": spans,
            "schemaUrl": SCHEMA_URL,
        }],
        "schemaUrl": SCHEMA_URL,
    })))
}

/// A whole `ExportTraceServiceRequest` for `runs`, as the JSON text to POST to `/v1/traces`;
/// `None` when there is nothing to send.
pub fn traces_request(
    runs: &[(RunRecord, RunIds)],
    resource: &ResourceFacts,
    clock: &WallClock,
    options: &ExportOptions,
) -> Result<Option<String>, OtlpError> {
    Ok(resource_spans(runs, resource, clock, options)?
        .map(|entry| json!({ "resourceSpans": [entry] }).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_messages_come_from_every_protocols_body() {
        let chat = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Say "}, {"type": "text", "text": "hi"}]}
        ]});
        assert_eq!(
            prompt_messages(&chat),
            vec![
                ("system".to_owned(), "Be brief.".to_owned()),
                ("user".to_owned(), "Say hi".to_owned())
            ]
        );
        let responses = json!({"model": "m", "input": "Say hi"});
        assert_eq!(
            prompt_messages(&responses),
            vec![("user".to_owned(), "Say hi".to_owned())]
        );
        assert!(prompt_messages(&json!({"model": "m"})).is_empty());
    }

    #[test]
    fn a_long_prompt_is_cut_to_the_budget_and_flagged() {
        let long = "字".repeat(MAX_PROMPT_BYTES);
        let (value, truncated) = input_messages_value(&[("user".to_owned(), long)]);
        assert!(truncated);
        let text = value.to_string();
        assert!(text.len() < MAX_PROMPT_BYTES + 400, "{}", text.len());
    }
}
