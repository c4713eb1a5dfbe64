//! OpenAI Chat Completions chunks (docs/stream-formats.md §2, §3).

use serde_json::json;

use super::{
    flood_frames, hostile, json_str, json_str_array, Frame, Pane, StreamError, WriterInput,
    FLOOD_TEXT_MARK,
};
use crate::profile::ReasoningStyle;

fn chat_id(input: &WriterInput<'_>) -> String {
    format!("chatcmpl-sim{:06}", input.request_id)
}

const FINGERPRINT: &str = "fp_ttft_sim";

/// One `data:` chunk with a single choice.
fn chunk(input: &WriterInput<'_>, delta: &str, finish_reason: Option<&str>) -> String {
    let usage = if input.include_usage {
        ",\"usage\":null"
    } else {
        ""
    };
    let finish = finish_reason.map_or("null".to_string(), json_str);
    format!(
        "data: {{\"id\":\"{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\
         \"model\":{model},\"system_fingerprint\":\"{FINGERPRINT}\",\"choices\":[{{\"index\":0,\
         \"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]{usage}}}\n\n",
        id = chat_id(input),
        created = input.created_s,
        model = json_str(input.model),
    )
}

/// Seconds, as Groq and SambaNova write them.
fn seconds(ms: f64) -> f64 {
    (ms / 1000.0 * 1e6).round() / 1e6
}

/// Milliseconds with 3 decimals, as llama.cpp writes them.
fn millis(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// llama.cpp's `timings` (docs/stream-formats.md §12), as a `,"timings":{…}` field, when
/// asked for: it rides on the stream's last chunk (the usage chunk, else the finish chunk).
fn llamacpp_timings(input: &WriterInput<'_>) -> String {
    let plan = input.plan;
    let usage = input.usage;
    let decode_ms = plan.end_ms - plan.first_token_ms();
    let mut fields = String::new();
    if input.account.styles.llamacpp {
        let prompt_n = usage.uncached_tokens();
        let timings = json!({
            "cache_n": usage.cached_tokens,
            "prompt_n": prompt_n,
            "prompt_ms": millis(plan.prefill_ms),
            "prompt_per_token_ms": millis(plan.prefill_ms / f64::from(prompt_n.max(1))),
            "predicted_n": usage.output_tokens(),
            "predicted_ms": millis(decode_ms),
            "predicted_per_token_ms": millis(decode_ms / f64::from(usage.output_tokens().max(1))),
        });
        fields.push_str(&format!(",\"timings\":{timings}"));
    }
    fields
}

/// Groq's `x_groq` (docs/stream-formats.md §12), as a `,"x_groq":{…}` field, when asked
/// for: it rides on the finish chunk.
fn groq_x_groq(input: &WriterInput<'_>) -> String {
    let plan = input.plan;
    let usage = input.usage;
    let queue_ms = plan.queue_ms - input.account.gateway_ms;
    let decode_ms = plan.end_ms - plan.first_token_ms();
    let mut fields = String::new();
    if input.account.styles.groq {
        let x_groq = json!({
            "id": format!("req_sim{:06}", input.request_id),
            "usage": {
                "queue_time": seconds(queue_ms),
                "prompt_tokens": usage.prompt_tokens,
                "prompt_time": seconds(plan.prefill_ms),
                "completion_tokens": usage.output_tokens(),
                "completion_time": seconds(decode_ms),
                "total_tokens": usage.prompt_tokens + usage.output_tokens(),
                "total_time": seconds(plan.prefill_ms + decode_ms),
            },
        });
        fields.push_str(&format!(",\"x_groq\":{x_groq}"));
    }
    fields
}

/// The server's queue (the plan's, less the gateway's part), its prompt processing and its
/// decode, ms.
fn server_times(input: &WriterInput<'_>) -> (f64, f64, f64) {
    let plan = input.plan;
    (
        plan.queue_ms - input.account.gateway_ms,
        plan.prefill_ms,
        plan.end_ms - plan.first_token_ms(),
    )
}

/// The accounts that ride on the finish chunk when asked for (docs/stream-formats.md §12):
/// Cerebras' `time_info` (seconds) and Fireworks' `perf_metrics` (seconds, hyphenated keys),
/// as `,"key":{…}` fields.
fn finish_chunk_accounts(input: &WriterInput<'_>) -> String {
    let (queue_ms, prefill_ms, decode_ms) = server_times(input);
    let usage = input.usage;
    let mut fields = String::new();
    if input.account.styles.cerebras {
        let time_info = json!({
            "queue_time": seconds(queue_ms),
            "prompt_time": seconds(prefill_ms),
            "completion_time": seconds(decode_ms),
            "total_time": seconds(queue_ms + prefill_ms + decode_ms),
            "created": input.created_s,
        });
        fields.push_str(&format!(",\"time_info\":{time_info}"));
    }
    if input.account.styles.fireworks {
        let perf_metrics = json!({
            "prompt-tokens": usage.prompt_tokens,
            "cached-prompt-tokens": usage.cached_tokens,
            "server-time-to-first-token": seconds(queue_ms + prefill_ms),
            "server-processing-time": seconds(queue_ms + prefill_ms + decode_ms),
        });
        fields.push_str(&format!(",\"perf_metrics\":{perf_metrics}"));
    }
    fields
}

/// The accounts that ride on the usage chunk when asked for: vLLM's `metrics` (ms; its time
/// to first token counts from scheduling, the queue excluded) and NVIDIA NIM's `stats` (ms).
fn usage_chunk_accounts(input: &WriterInput<'_>) -> String {
    let (queue_ms, prefill_ms, decode_ms) = server_times(input);
    let usage = input.usage;
    let output_tokens = usage.output_tokens();
    let mut fields = String::new();
    if input.account.styles.vllm {
        let metrics = json!({
            "time_to_first_token_ms": millis(prefill_ms),
            "generation_time_ms": millis(decode_ms),
            "queue_time_ms": millis(queue_ms),
        });
        fields.push_str(&format!(",\"metrics\":{metrics}"));
    }
    if input.account.styles.nim {
        let stats = json!({
            "type": "NIM LLM Model Stats",
            "version": "0.1.0",
            "llm_input_token_length": usage.prompt_tokens,
            "llm_output_token_length": output_tokens,
            "generation_time_in_ms": millis(prefill_ms + decode_ms),
            "time_in_queue_in_ms": millis(queue_ms),
            "response_tokens": {
                "response_token_length": output_tokens,
                "time_to_first_token_in_ms": millis(prefill_ms),
            },
        });
        fields.push_str(&format!(",\"stats\":{stats}"));
    }
    fields
}

/// The timing fields in usage, when asked for, as `,"key":value` pairs: SambaNova's
/// (seconds) and LocalAI's (`Extra-Usage`: ms).
fn usage_account(input: &WriterInput<'_>) -> String {
    let mut fields = String::new();
    if input.account.styles.localai {
        let (_, prefill_ms, decode_ms) = server_times(input);
        fields.push_str(&format!(
            ",\"timing_prompt_processing\":{},\"timing_token_generation\":{}",
            millis(prefill_ms),
            millis(decode_ms)
        ));
    }
    if !input.account.styles.sambanova {
        return fields;
    }
    let plan = input.plan;
    let decode_ms = plan.end_ms - plan.first_token_ms();
    let tokens_per_s = if decode_ms > 0.0 {
        f64::from(input.usage.output_tokens()) / (decode_ms / 1000.0)
    } else {
        0.0
    };
    fields.push_str(&format!(
        ",\"time_to_first_token\":{},\"total_latency\":{},\"completion_tokens_per_sec\":{}",
        seconds(plan.first_token_ms()),
        seconds(plan.end_ms),
        (tokens_per_s * 1000.0).round() / 1000.0
    ));
    fields
}

fn usage_json(input: &WriterInput<'_>) -> String {
    if input.hostile_usage {
        return format!(
            "{{\"prompt_tokens\":{p},\"completion_tokens\":{c},\"total_tokens\":{t},\
             \"prompt_tokens_details\":{{\"cached_tokens\":{k}}},\
             \"completion_tokens_details\":{{\"reasoning_tokens\":{r}}}}}",
            p = hostile::HUGE,
            c = hostile::NEGATIVE,
            t = hostile::HUGE,
            k = hostile::FRACTION,
            r = hostile::OVERFLOW,
        );
    }
    let usage = input.usage;
    format!(
        "{{\"prompt_tokens\":{p},\"completion_tokens\":{c},\"total_tokens\":{t},\
         \"prompt_tokens_details\":{{\"cached_tokens\":{k}}},\
         \"completion_tokens_details\":{{\"reasoning_tokens\":{r}}}{account}}}",
        account = usage_account(input),
        p = usage.prompt_tokens,
        c = usage.output_tokens(),
        t = usage.prompt_tokens + usage.output_tokens(),
        k = usage.cached_tokens,
        r = usage.reasoning_tokens,
    )
}

fn role_delta(style: ReasoningStyle) -> &'static str {
    match style {
        ReasoningStyle::ReasoningContent => {
            r#"{"role":"assistant","content":null,"reasoning_content":""}"#
        }
        ReasoningStyle::Reasoning | ReasoningStyle::Think | ReasoningStyle::ThinkNoOpen => {
            r#"{"role":"assistant","content":""}"#
        }
        ReasoningStyle::None => r#"{"role":"assistant","content":"","refusal":null}"#,
    }
}

/// Inline-tag reasoning: the first reasoning token opens `<think>` (unless `open_tag` is
/// false: DeepSeek-R1 without a parser sends no opening tag), the last closes it, so the
/// first reasoning text and the first answer text arrive exactly at their token times.
fn think_text(index: usize, count: usize, token: &str, open_tag: bool) -> String {
    let open = if index == 0 && open_tag {
        "<think>\n"
    } else {
        ""
    };
    let close = if index + 1 == count {
        "\n</think>\n\n"
    } else {
        ""
    };
    format!("{open}{token}{close}")
}

fn reasoning_delta(style: ReasoningStyle, index: usize, count: usize, token: &str) -> String {
    match style {
        ReasoningStyle::ReasoningContent => {
            format!(
                "{{\"content\":null,\"reasoning_content\":{}}}",
                json_str(token)
            )
        }
        ReasoningStyle::Reasoning => format!("{{\"reasoning\":{}}}", json_str(token)),
        ReasoningStyle::Think | ReasoningStyle::ThinkNoOpen => {
            let open_tag = style == ReasoningStyle::Think;
            format!(
                "{{\"content\":{}}}",
                json_str(&think_text(index, count, token, open_tag))
            )
        }
        ReasoningStyle::None => String::new(),
    }
}

fn answer_delta(style: ReasoningStyle, token: &str) -> String {
    match style {
        ReasoningStyle::ReasoningContent => {
            format!(
                "{{\"content\":{},\"reasoning_content\":null}}",
                json_str(token)
            )
        }
        _ => format!("{{\"content\":{}}}", json_str(token)),
    }
}

/// The role chunk, with the keep-alives before or after it.
fn push_preamble(input: &WriterInput<'_>, frames: &mut Vec<Frame>) {
    let role = chunk(input, role_delta(input.style), None);
    if input.early {
        frames.push(Frame::bytes(0.0, role.clone()));
    }
    input.keepalives(frames);
    if !input.early {
        frames.push(Frame::bytes(input.plan.first_token_ms(), role));
    }
}

/// The answer's chunks, or the flood in their place.
fn push_answer(input: &WriterInput<'_>, frames: &mut Vec<Frame>) {
    let plan = input.plan;
    if !input.flood.is_empty() {
        let at_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
        let template = chunk(input, &answer_delta(input.style, FLOOD_TEXT_MARK), None);
        frames.extend(flood_frames(at_ms, &template, input.flood, None));
        return;
    }
    for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
        frames.push(Frame::token(
            *at_ms,
            chunk(input, &answer_delta(input.style, token), None),
        ));
    }
}

/// The finish chunk (with the accounts), the usage chunk when asked for, `[DONE]`.
fn push_finish(input: &WriterInput<'_>, frames: &mut Vec<Frame>) {
    let plan = input.plan;
    let finish_delta = match input.style {
        ReasoningStyle::ReasoningContent => r#"{"content":"","reasoning_content":null}"#,
        _ => "{}",
    };
    let finish_reason = if input.truncated { "length" } else { "stop" };
    let mut finish = chunk(input, finish_delta, Some(finish_reason));
    // Accounts ride on a chunk's end: before its closing brace (and "\n\n").
    let mut finish_account = groq_x_groq(input);
    finish_account.push_str(&finish_chunk_accounts(input));
    if !input.include_usage {
        finish_account.push_str(&llamacpp_timings(input));
    }
    finish.insert_str(finish.len() - 3, &finish_account);
    frames.push(Frame::bytes(plan.end_ms, finish));
    if input.include_usage {
        let usage_chunk = format!(
            "data: {{\"id\":\"{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\
             \"model\":{model},\"system_fingerprint\":\"{FINGERPRINT}\",\"choices\":[],\
             \"usage\":{usage}{timings}{accounts}}}\n\n",
            timings = llamacpp_timings(input),
            accounts = usage_chunk_accounts(input),
            id = chat_id(input),
            created = input.created_s,
            model = json_str(input.model),
            usage = usage_json(input),
        );
        frames.push(Frame::bytes(plan.end_ms, usage_chunk));
    }
    frames.push(Frame::bytes(plan.end_ms, "data: [DONE]\n\n".to_string()));
}

/// The chunks of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let mut frames = Vec::new();
    push_preamble(input, &mut frames);
    if input.reasoning_visible() {
        let count = input.reasoning.len();
        for (index, (at_ms, token)) in plan.reasoning_at_ms.iter().zip(input.reasoning).enumerate()
        {
            let delta = reasoning_delta(input.style, index, count, token);
            frames.push(Frame::token(*at_ms, chunk(input, &delta, None)));
        }
    }
    push_answer(input, &mut frames);
    push_finish(input, &mut frames);
    frames
}

/// The `key_split_panes` stream: one chunk per pane, reasoning or answer in the input's
/// style, between the usual role chunk and end.
pub fn pane_frames(input: &WriterInput<'_>, panes: &[Pane]) -> Vec<Frame> {
    let mut frames = Vec::new();
    push_preamble(input, &mut frames);
    for pane in panes {
        let delta = if pane.reasoning {
            reasoning_delta(input.style, 0, 2, &pane.text)
        } else {
            answer_delta(input.style, &pane.text)
        };
        frames.push(Frame::token(pane.at_ms, chunk(input, &delta, None)));
    }
    push_finish(input, &mut frames);
    frames
}

/// An error event after HTTP 200, as OpenAI sends it (Python spacing as on the wire; the
/// standard one is recorded); no `[DONE]` follows.
pub fn error_event(error: &StreamError<'_>) -> String {
    let code = error.code.map_or(String::new(), |code| {
        format!(", \"code\": {}", json_str(code))
    });
    let seen = error.seen.map_or(String::new(), |keys| {
        format!(", \"seen\": {}", json_str_array(keys, ", "))
    });
    format!(
        "data: {{\"error\": {{\"message\": {}, \"type\": {}{code}{seen}}}}}\n\n",
        json_str(error.message),
        json_str(error.openai_type)
    )
}

/// The start of the `huge_line` fault's data line: a chunk whose content never ends.
pub fn huge_line_prefix(input: &WriterInput<'_>) -> String {
    format!(
        "data: {{\"id\":\"{}\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\
         \"delta\":{{\"content\":\"",
        chat_id(input)
    )
}

/// A chunk cut off in the middle of its JSON.
pub fn malformed(input: &WriterInput<'_>) -> String {
    format!(
        "data: {{\"id\":\"{}\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\
         \"delta\":{{\"content\":\"\n\n",
        chat_id(input)
    )
}

/// The `stream: false` body.
pub fn completion(input: &WriterInput<'_>) -> String {
    let answer: String = input.answer.concat();
    let reasoning: String = input.reasoning.concat();
    let mut message = json!({"role": "assistant", "content": answer, "refusal": null});
    if input.reasoning_visible() {
        match input.style {
            ReasoningStyle::ReasoningContent => message["reasoning_content"] = json!(reasoning),
            ReasoningStyle::Reasoning => message["reasoning"] = json!(reasoning),
            ReasoningStyle::Think => {
                message["content"] = json!(format!("<think>\n{reasoning}\n</think>\n\n{answer}"))
            }
            ReasoningStyle::ThinkNoOpen => {
                message["content"] = json!(format!("{reasoning}\n</think>\n\n{answer}"))
            }
            ReasoningStyle::None => {}
        }
    }
    // The usage is spliced in as written, so the hostile counts keep their exact digits.
    json!({
        "id": chat_id(input),
        "object": "chat.completion",
        "created": input.created_s,
        "model": input.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": if input.truncated { "length" } else { "stop" },
        }],
        "usage": USAGE_PLACEHOLDER,
        "system_fingerprint": FINGERPRINT,
    })
    .to_string()
    .replacen(&json_str(USAGE_PLACEHOLDER), &usage_json(input), 1)
}

/// Stands for the usage object in the `stream: false` body until it is spliced in.
const USAGE_PLACEHOLDER: &str = "\u{0}usage\u{0}";
