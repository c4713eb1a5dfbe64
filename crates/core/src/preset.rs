//! Presets: a base URL, a protocol and a model to start from, for the kinds of server the
//! widget is pointed at most. Pure data; the page fills in its own origin for the bundled
//! simulator.

use crate::protocol::Protocol;

/// A base-URL template for a kind of server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Stable id (the `preset` URL parameter).
    pub id: &'static str,
    /// Shown name.
    pub name: &'static str,
    /// Base URL; `{origin}` stands for the page's origin (the bundled simulator).
    pub base_url: &'static str,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// A model to start from (empty: pick or type one).
    pub model: &'static str,
}

impl Preset {
    /// The base URL with `{origin}` filled in.
    pub fn base_url_for(&self, page_origin: &str) -> String {
        self.base_url.replace("{origin}", page_origin)
    }
}

/// The preset of the bundled simulator (the page's own origin).
pub const SIMULATOR: Preset = Preset {
    id: "sim",
    name: "ttft-sim (bundled simulator)",
    base_url: "{origin}/v1",
    protocol: Protocol::OpenAiChat,
    model: "sim-reasoning",
};

/// Local servers, gateways, hosted APIs and the bundled simulator. Ports are each server's
/// default.
pub const PRESETS: &[Preset] = &[
    SIMULATOR,
    Preset {
        id: "vllm",
        name: "vLLM (localhost:8000; --enable-per-request-metrics: its queue and prefill)",
        base_url: "http://localhost:8000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "sglang",
        name: "SGLang (localhost:30000)",
        base_url: "http://localhost:30000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "llamacpp",
        name: "llama.cpp server (localhost:8080)",
        base_url: "http://localhost:8080/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "ollama",
        name: "Ollama (localhost:11434)",
        base_url: "http://localhost:11434/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "nim",
        name:
            "NVIDIA NIM (localhost:8000; NIM_PER_REQ_METRICS_ENABLE=1: its queue and first token)",
        base_url: "http://localhost:8000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "localai",
        name: "LocalAI (localhost:8080)",
        base_url: "http://localhost:8080/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "tgi",
        name: "Text Generation Inference (localhost:8080; legacy: archived in 2026)",
        base_url: "http://localhost:8080/v1",
        protocol: Protocol::OpenAiChat,
        model: "tgi",
    },
    Preset {
        id: "new-api",
        name: "New API / One API gateway (localhost:3000)",
        base_url: "http://localhost:3000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "litellm",
        name: "LiteLLM proxy (localhost:4000)",
        base_url: "http://localhost:4000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "openai",
        name: "OpenAI",
        base_url: "https://api.openai.com/v1",
        protocol: Protocol::OpenAiChat,
        model: "gpt-4o-mini",
    },
    Preset {
        id: "openai-responses",
        name: "OpenAI Responses API",
        base_url: "https://api.openai.com/v1",
        protocol: Protocol::OpenAiResponses,
        model: "gpt-5-mini",
    },
    Preset {
        id: "openrouter",
        name: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "deepseek",
        name: "DeepSeek",
        base_url: "https://api.deepseek.com/v1",
        protocol: Protocol::OpenAiChat,
        model: "deepseek-chat",
    },
    Preset {
        id: "cerebras",
        name: "Cerebras (reports its queue and prefill)",
        base_url: "https://api.cerebras.ai/v1",
        protocol: Protocol::OpenAiChat,
        model: "llama3.1-8b",
    },
    Preset {
        id: "fireworks",
        name: "Fireworks (asked for its time to first token)",
        base_url: "https://api.fireworks.ai/inference/v1",
        protocol: Protocol::OpenAiChat,
        model: "accounts/fireworks/models/llama-v3p1-8b-instruct",
    },
    Preset {
        id: "anthropic",
        name: "Anthropic",
        base_url: "https://api.anthropic.com/v1",
        protocol: Protocol::AnthropicMessages,
        model: "claude-sonnet-4-5",
    },
];

/// Where the page asks whether its own origin is ttft-sim (relative to the page, so a page
/// under a sub-path of another host asks its own host's path and gets a 404).
pub const SIMULATOR_PROBE_PATH: &str = "./__sim/info";

/// The simulator's API base from its `/__sim/info` answer
/// (`{"name":"ttft-sim","api_base":"/v1",…}`); `None` for anything else (a static host's 404
/// page, another server's JSON). The base is a path on the page's origin.
pub fn simulator_api_base(body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Info {
        name: String,
        api_base: Option<String>,
    }
    let info: Info = serde_json::from_str(body).ok()?;
    if info.name != "ttft-sim" {
        return None;
    }
    let base = info.api_base.unwrap_or_else(|| "/v1".to_owned());
    (base.starts_with('/') && !base.starts_with("//") && base.len() < 64).then_some(base)
}

/// A preset by id.
pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ttft_sim_is_taken_for_the_simulator() {
        assert_eq!(
            simulator_api_base(r#"{"name":"ttft-sim","version":"0.1.0","api_base":"/v1"}"#),
            Some("/v1".to_owned())
        );
        assert_eq!(
            simulator_api_base(r#"{"name":"ttft-sim"}"#),
            Some("/v1".to_owned())
        );
        assert_eq!(
            simulator_api_base(r#"{"name":"other","api_base":"/v1"}"#),
            None
        );
        assert_eq!(
            simulator_api_base(r#"{"name":"ttft-sim","api_base":"//evil.example"}"#),
            None
        );
        assert_eq!(simulator_api_base("<html>404</html>"), None);
    }

    #[test]
    fn ids_are_unique_and_the_simulator_uses_the_page_origin() {
        for (index, preset) in PRESETS.iter().enumerate() {
            assert!(PRESETS[index + 1..]
                .iter()
                .all(|other| other.id != preset.id));
            assert_eq!(find(preset.id), Some(preset));
        }
        assert_eq!(
            SIMULATOR.base_url_for("http://127.0.0.1:8787"),
            "http://127.0.0.1:8787/v1"
        );
    }
}
