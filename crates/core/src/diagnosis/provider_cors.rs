//! What each provider lets a web page do (CORS), as last reported, with the date and the
//! source: shown when a run to it fails as a network error, beside the relay command
//! (docs/relay.md). The rows follow docs/provider-cors.md's table; a provider's CORS can change
//! overnight (Z.ai's preflight lost its headers in September 2026), so every row says when it
//! was checked and by whom, and none decides a diagnosis alone: the page's own probe
//! (`FailureContext::answers_without_cors`) does.
//!
//! ```
//! use ttft_core::diagnosis::{provider_cors, CorsStanding};
//!
//! let dashscope = provider_cors("dashscope.aliyuncs.com").unwrap();
//! assert_eq!(dashscope.standing, CorsStanding::Refuses);
//! assert_eq!(provider_cors("ark.cn-beijing.volces.com").unwrap().name, "Volcengine Ark (Doubao)");
//! assert!(provider_cors("example.com").is_none());
//! ```

use serde::{Deserialize, Serialize};

/// What a provider lets a page do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CorsStanding {
    /// Its preflight passes for the key and content-type headers.
    Allows,
    /// It allows a fixed list of headers: an extra header (an SDK's) turns the preflight into
    /// a refusal.
    AllowsFixedHeaders,
    /// Only with a request header that opts in (Anthropic's), and an organisation may refuse.
    OptIn,
    /// Reported to refuse pages (no CORS headers on its preflight).
    Refuses,
    /// Reported both ways, or changed recently.
    Mixed,
    /// No report either way.
    Unknown,
}

impl CorsStanding {
    /// The stable code (`refuses`, …), as the record stores it.
    pub fn code(self) -> &'static str {
        match self {
            CorsStanding::Allows => "allows",
            CorsStanding::AllowsFixedHeaders => "allows_fixed_headers",
            CorsStanding::OptIn => "opt_in",
            CorsStanding::Refuses => "refuses",
            CorsStanding::Mixed => "mixed",
            CorsStanding::Unknown => "unknown",
        }
    }
}

/// One provider's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderCors {
    /// Host names it answers on: the host itself or any of its subdomains matches.
    pub hosts: &'static [&'static str],
    /// Shown name.
    pub name: &'static str,
    /// What it lets a page do.
    pub standing: CorsStanding,
    /// When that was last reported (ISO date).
    pub checked: &'static str,
    /// Who reported it.
    pub source: &'static str,
}

/// The rows, from docs/provider-cors.md (2026-12).
pub const PROVIDER_CORS: &[ProviderCors] = &[
    ProviderCors {
        hosts: &["api.openai.com"],
        name: "OpenAI",
        standing: CorsStanding::Allows,
        checked: "2026-08-20",
        source: "Niek/chatgpt-web#330",
    },
    ProviderCors {
        hosts: &["openrouter.ai"],
        name: "OpenRouter",
        standing: CorsStanding::AllowsFixedHeaders,
        checked: "2026-09-18",
        source: "GD4AI/obsidian-llm-wiki#741",
    },
    ProviderCors {
        hosts: &["api.deepseek.com"],
        name: "DeepSeek",
        standing: CorsStanding::Allows,
        checked: "2026-09-18",
        source: "GD4AI/obsidian-llm-wiki#741, anomalyco/opencode#41224",
    },
    ProviderCors {
        hosts: &["siliconflow.cn", "siliconflow.com"],
        name: "SiliconFlow",
        standing: CorsStanding::Allows,
        checked: "2025-02-06",
        source: "immersive-translate#2520",
    },
    ProviderCors {
        hosts: &["dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"],
        name: "Alibaba DashScope / Bailian",
        standing: CorsStanding::Refuses,
        checked: "2026-02-28",
        source: "codexu/note-gen#915, LobeChat qwen.ts",
    },
    ProviderCors {
        hosts: &["ark.cn-beijing.volces.com", "volces.com"],
        name: "Volcengine Ark (Doubao)",
        standing: CorsStanding::Refuses,
        checked: "2026-08-03",
        source: "infinite-canvas#150, NitroRCr/AIaW#20",
    },
    ProviderCors {
        hosts: &["api.moonshot.cn", "api.moonshot.ai"],
        name: "Moonshot (Kimi)",
        standing: CorsStanding::Allows,
        checked: "2026-09-18",
        source: "GD4AI/obsidian-llm-wiki#741",
    },
    ProviderCors {
        hosts: &["api.z.ai", "open.bigmodel.cn"],
        name: "Zhipu BigModel / Z.ai",
        standing: CorsStanding::Mixed,
        checked: "2026-09-09",
        source: "zai-org/feedback#590",
    },
    ProviderCors {
        hosts: &["qianfan.baidubce.com"],
        name: "Baidu Qianfan",
        standing: CorsStanding::Unknown,
        checked: "2026-12-01",
        source: "docs/provider-cors.md (no report)",
    },
    ProviderCors {
        hosts: &["api.minimax.chat", "api.minimaxi.com", "api.minimax.io"],
        name: "MiniMax",
        standing: CorsStanding::Allows,
        checked: "2026-08-28",
        source: "wecode-ai/Wegent#3079",
    },
    ProviderCors {
        hosts: &["api.groq.com"],
        name: "Groq",
        standing: CorsStanding::Allows,
        checked: "2024-07-27",
        source: "davidmigloz/langchain_dart#510",
    },
    ProviderCors {
        hosts: &["api.together.xyz"],
        name: "Together",
        standing: CorsStanding::Allows,
        checked: "2024-07-27",
        source: "davidmigloz/langchain_dart#510",
    },
    ProviderCors {
        hosts: &["api.fireworks.ai"],
        name: "Fireworks",
        standing: CorsStanding::Mixed,
        checked: "2025-02-05",
        source: "bracesproul/site-rag#6",
    },
    ProviderCors {
        hosts: &["api.mistral.ai"],
        name: "Mistral",
        standing: CorsStanding::AllowsFixedHeaders,
        checked: "2026-03-01",
        source: "infio-copilot#146",
    },
    ProviderCors {
        hosts: &["api-inference.modelscope.cn"],
        name: "ModelScope",
        standing: CorsStanding::AllowsFixedHeaders,
        checked: "2026-03-06",
        source: "modelscope#1637",
    },
    ProviderCors {
        hosts: &["generativelanguage.googleapis.com"],
        name: "Gemini (OpenAI-compatible)",
        standing: CorsStanding::Allows,
        checked: "2026-09-18",
        source: "GD4AI/obsidian-llm-wiki#741",
    },
    ProviderCors {
        hosts: &["api.x.ai"],
        name: "xAI",
        standing: CorsStanding::Unknown,
        checked: "2026-12-01",
        source: "docs/provider-cors.md (no report)",
    },
    ProviderCors {
        hosts: &["openai.azure.com"],
        name: "Azure OpenAI",
        standing: CorsStanding::Allows,
        checked: "2023-07-20",
        source: "Azure/azure-rest-api-specs#24904",
    },
    ProviderCors {
        hosts: &["gateway.ai.cloudflare.com"],
        name: "Cloudflare AI Gateway",
        standing: CorsStanding::Mixed,
        checked: "2024-05-14",
        source: "cloudflare/workers-sdk#5817",
    },
    ProviderCors {
        hosts: &["ai-gateway.vercel.sh"],
        name: "Vercel AI Gateway",
        standing: CorsStanding::Refuses,
        checked: "2026-12-01",
        source: "LobeChat vercelaigateway.ts",
    },
    ProviderCors {
        hosts: &["api.portkey.ai"],
        name: "Portkey",
        standing: CorsStanding::Unknown,
        checked: "2026-12-01",
        source: "Portkey-AI/gateway src/index.ts (no CORS middleware)",
    },
    ProviderCors {
        hosts: &["api.anthropic.com"],
        name: "Anthropic",
        standing: CorsStanding::OptIn,
        checked: "2026-07-31",
        source: "open-pencil#436",
    },
    ProviderCors {
        hosts: &["api.cerebras.ai"],
        name: "Cerebras",
        standing: CorsStanding::Unknown,
        checked: "2026-12-01",
        source: "docs/provider-cors.md (no report)",
    },
];

/// The row of the provider answering on `host` (lower case, without port): the host itself or
/// a subdomain of one of its hosts.
pub fn provider_cors(host: &str) -> Option<&'static ProviderCors> {
    PROVIDER_CORS.iter().find(|row| {
        row.hosts.iter().any(|known| {
            host == *known
                || host
                    .strip_suffix(known)
                    .is_some_and(|rest| rest.ends_with('.'))
        })
    })
}

/// What the page keeps of a provider's row with a failed run (owned, for the stored record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderCorsNote {
    /// Shown name.
    pub name: String,
    /// What it lets a page do.
    pub standing: CorsStanding,
    /// When that was last reported.
    pub checked: String,
    /// Who reported it.
    pub source: String,
}

impl From<&ProviderCors> for ProviderCorsNote {
    fn from(row: &ProviderCors) -> ProviderCorsNote {
        ProviderCorsNote {
            name: row.name.to_owned(),
            standing: row.standing,
            checked: row.checked.to_owned(),
            source: row.source.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_themselves_and_their_subdomains_only() {
        assert_eq!(
            provider_cors("my-resource.openai.azure.com").map(|row| row.name),
            Some("Azure OpenAI")
        );
        assert_eq!(
            provider_cors("dashscope-intl.aliyuncs.com").map(|row| row.standing),
            Some(CorsStanding::Refuses)
        );
        // A look-alike that only ends with the same letters is not the provider.
        assert!(provider_cors("notapi.openai.com.evil.test").is_none());
        assert!(provider_cors("evilapi.openai.com").is_none());
        assert!(provider_cors("aliyuncs.com").is_none());
    }

    #[test]
    fn every_row_says_when_and_who() {
        for row in PROVIDER_CORS {
            assert!(!row.hosts.is_empty(), "{}", row.name);
            let date = row.checked.as_bytes();
            assert!(
                date.len() == 10 && date[4] == b'-' && date[7] == b'-',
                "{}: an ISO date, not {:?}",
                row.name,
                row.checked
            );
            assert!(!row.source.is_empty(), "{}", row.name);
            for host in row.hosts {
                assert_eq!(*host, host.to_ascii_lowercase());
                // No row shadows another's host.
                assert_eq!(
                    provider_cors(host).map(|found| found.name),
                    Some(row.name),
                    "{host}"
                );
            }
        }
    }
}
