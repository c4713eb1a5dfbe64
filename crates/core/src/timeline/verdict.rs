//! The verdict on a wait: which cause took the most time, in plain words, and the remedy the
//! field gives for it (a long prompt, a cold start, a far network, a queue, reasoning, the
//! page's own work). Decided on one run's [`WaitBreakdown`] or on the medians of many.

use serde::{Deserialize, Serialize};

use super::breakdown::{WaitBreakdown, WaitPart};
use crate::lang::Lang;
use crate::texts as t;

/// What a verdict can blame: a part, or parts that share one remedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitCause {
    /// Through ttft-relay: the browser, the loopback and the relay's own work.
    Relay,
    /// Opening a connection and the CORS preflight: the first contact's costs.
    ColdStart,
    /// The network round trip.
    Network,
    /// The gateway's own time.
    Gateway,
    /// The server's queue.
    Queue,
    /// Prompt processing.
    Prompt,
    /// The gateway and server, not split by them (queue and prompt together).
    Server,
    /// Reasoning before the answer.
    Reasoning,
    /// The page: before the request and painting the answer.
    Page,
}

impl WaitCause {
    /// Every cause.
    pub const ALL: [WaitCause; 9] = [
        WaitCause::Relay,
        WaitCause::ColdStart,
        WaitCause::Network,
        WaitCause::Gateway,
        WaitCause::Queue,
        WaitCause::Prompt,
        WaitCause::Server,
        WaitCause::Reasoning,
        WaitCause::Page,
    ];

    /// The parts this cause covers.
    pub fn parts(self) -> &'static [WaitPart] {
        match self {
            WaitCause::Relay => &[WaitPart::Relay],
            WaitCause::ColdStart => &[WaitPart::Connection, WaitPart::Preflight],
            WaitCause::Network => &[WaitPart::Network],
            WaitCause::Gateway => &[WaitPart::Gateway],
            WaitCause::Queue => &[WaitPart::Queue],
            WaitCause::Prompt => &[WaitPart::Prompt],
            WaitCause::Server => &[WaitPart::Server],
            WaitCause::Reasoning => &[WaitPart::Reasoning],
            WaitCause::Page => &[WaitPart::Browser, WaitPart::Paint],
        }
    }

    /// The serialized code, for `data-*` attributes and tests.
    pub fn code(self) -> &'static str {
        match self {
            WaitCause::Relay => "relay",
            WaitCause::ColdStart => "cold_start",
            WaitCause::Network => "network",
            WaitCause::Gateway => "gateway",
            WaitCause::Queue => "queue",
            WaitCause::Prompt => "prompt",
            WaitCause::Server => "server",
            WaitCause::Reasoning => "reasoning",
            WaitCause::Page => "page",
        }
    }

    /// What to do about it, in `lang`.
    pub fn remedy(self, lang: Lang) -> &'static str {
        match self {
            WaitCause::Relay => t::VERDICT_REMEDY_RELAY,
            WaitCause::ColdStart => t::VERDICT_REMEDY_COLD_START,
            WaitCause::Network => t::VERDICT_REMEDY_NETWORK,
            WaitCause::Gateway => t::VERDICT_REMEDY_GATEWAY,
            WaitCause::Queue => t::VERDICT_REMEDY_QUEUE,
            WaitCause::Prompt => t::VERDICT_REMEDY_PROMPT,
            WaitCause::Server => t::VERDICT_REMEDY_SERVER,
            WaitCause::Reasoning => t::VERDICT_REMEDY_REASONING,
            WaitCause::Page => t::VERDICT_REMEDY_PAGE,
        }
        .get(lang)
    }

    /// Its name in a sentence, in `lang`; `network_included`: the server part holds the
    /// network too (no round trip was known).
    pub fn name(self, lang: Lang, network_included: bool) -> &'static str {
        match self {
            WaitCause::Relay => t::VERDICT_CAUSE_RELAY,
            WaitCause::ColdStart => t::VERDICT_CAUSE_COLD_START,
            WaitCause::Network => t::VERDICT_CAUSE_NETWORK,
            WaitCause::Gateway => t::VERDICT_CAUSE_GATEWAY,
            WaitCause::Queue => t::VERDICT_CAUSE_QUEUE,
            WaitCause::Prompt => t::VERDICT_CAUSE_PROMPT,
            WaitCause::Server if network_included => t::VERDICT_CAUSE_SERVER_AND_NETWORK,
            WaitCause::Server => t::VERDICT_CAUSE_SERVER,
            WaitCause::Reasoning => t::VERDICT_CAUSE_REASONING,
            WaitCause::Page => t::VERDICT_CAUSE_PAGE,
        }
        .get(lang)
    }
}

/// The largest cause of a wait.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WaitVerdict {
    /// What took the most time.
    pub cause: WaitCause,
    /// Its time, ms.
    pub ms: f64,
    /// The whole wait it is a share of, ms: `perceived_ttfa_ms` when the click and the paint
    /// are known, else `ttfa_ms`.
    pub total_ms: f64,
    /// Whether the server part holds the network too (no round trip was known).
    pub network_included: bool,
    /// Whether the server reported part of its time, so that its part is what it left out.
    #[serde(default)]
    pub server_reported: bool,
    /// Whether the network part is mostly the request's upload, as the server reported it.
    #[serde(default)]
    pub mostly_upload: bool,
    /// Whether the wait was split through ttft-relay: the connection, the network and the
    /// server are the relay's to the provider and the provider's own.
    #[serde(default)]
    pub via_relay: bool,
}

impl WaitVerdict {
    /// The verdict on one run.
    pub fn of(breakdown: &WaitBreakdown) -> Option<WaitVerdict> {
        let network_included = breakdown.round_trip.is_none();
        let verdict = WaitVerdict::from_times(|part| breakdown.ms(part), network_included)?;
        let upload_ms = breakdown.upload_ms().unwrap_or(0.0);
        Some(WaitVerdict {
            server_reported: breakdown.has_server_account(),
            mostly_upload: verdict.cause == WaitCause::Network && 2.0 * upload_ms > verdict.ms,
            via_relay: breakdown.relay.is_some(),
            ..verdict
        })
    }

    /// The verdict on any part times (one run's, or medians over runs): the cause with the
    /// most time; `None` when no part has any.
    fn from_times(
        ms: impl Fn(WaitPart) -> Option<f64>,
        network_included: bool,
    ) -> Option<WaitVerdict> {
        let total_ms: f64 = WaitPart::ALL.iter().filter_map(|part| ms(*part)).sum();
        let (cause, cause_ms) = WaitCause::ALL
            .into_iter()
            .map(|cause| {
                let sum: f64 = cause.parts().iter().filter_map(|part| ms(*part)).sum();
                (cause, sum)
            })
            .fold(None::<(WaitCause, f64)>, |best, (cause, sum)| match best {
                Some((_, best_ms)) if best_ms >= sum => best,
                _ => Some((cause, sum)),
            })?;
        (cause_ms > 0.0).then_some(WaitVerdict {
            cause,
            ms: cause_ms,
            total_ms,
            network_included,
            server_reported: false,
            mostly_upload: false,
            via_relay: false,
        })
    }

    /// Its share of the whole wait, 0 to 1.
    pub fn share(&self) -> f64 {
        if self.total_ms > 0.0 {
            (self.ms / self.total_ms).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// The sentence: what took the most time, how much, and of what.
    pub fn headline(&self, lang: Lang) -> String {
        let relay = self.via_relay;
        let cause = match self.cause {
            WaitCause::Network if self.mostly_upload => t::VERDICT_CAUSE_UPLOAD.get(lang),
            WaitCause::ColdStart if relay => t::VERDICT_CAUSE_RELAY_COLD_START.get(lang),
            WaitCause::Network if relay => t::VERDICT_CAUSE_RELAY_NETWORK.get(lang),
            WaitCause::Server if relay && !self.server_reported && !self.network_included => {
                t::VERDICT_CAUSE_RELAY_SERVER.get(lang)
            }
            WaitCause::Server if self.server_reported && self.network_included => {
                t::VERDICT_CAUSE_SERVER_REST_AND_NETWORK.get(lang)
            }
            WaitCause::Server if self.server_reported => t::VERDICT_CAUSE_SERVER_REST.get(lang),
            cause => cause.name(lang, self.network_included),
        };
        t::VERDICT_HEADLINE.fill(
            lang,
            &[
                ("cause", &cause),
                ("ms", &format!("{:.0}", self.ms)),
                ("share", &format!("{:.0}", self.share() * 100.0)),
                ("total", &format!("{:.0}", self.total_ms)),
            ],
        )
    }

    /// What to do about it.
    pub fn remedy(&self, lang: Lang) -> &'static str {
        let relay = self.via_relay;
        match self.cause {
            WaitCause::Network if self.mostly_upload => t::VERDICT_REMEDY_UPLOAD.get(lang),
            WaitCause::ColdStart if relay => t::VERDICT_REMEDY_RELAY_COLD_START.get(lang),
            WaitCause::Network if relay => t::VERDICT_REMEDY_RELAY_NETWORK.get(lang),
            WaitCause::Server if relay => t::VERDICT_REMEDY_RELAY_SERVER.get(lang),
            cause => cause.remedy(lang),
        }
    }
}

/// Where the wait went over several runs: the median (p50) of each part among the runs that
/// got an answer token (a run without a part counts 0 for it; the click and the paint count
/// only where they were measured), and the verdict on those medians.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitSummary {
    /// Runs with a breakdown.
    pub runs: usize,
    /// Each part's median, ms, in the order of the wait (parts no run had are left out).
    pub p50_ms: Vec<(WaitPart, f64)>,
    /// The largest cause of the medians.
    pub verdict: Option<WaitVerdict>,
}

impl WaitSummary {
    /// The summary of `breakdowns`; `None` when there are none.
    pub fn of<'a>(breakdowns: impl IntoIterator<Item = &'a WaitBreakdown>) -> Option<WaitSummary> {
        let breakdowns: Vec<&WaitBreakdown> = breakdowns.into_iter().collect();
        if breakdowns.is_empty() {
            return None;
        }
        let p50_ms: Vec<(WaitPart, f64)> = WaitPart::ALL
            .into_iter()
            .filter_map(|part| {
                let values: Vec<f64> = breakdowns
                    .iter()
                    .filter_map(|breakdown| breakdown.ms(part))
                    .filter(|ms| ms.is_finite())
                    .collect();
                let any = values.iter().any(|ms| *ms > 0.0);
                let median = crate::stats::percentile(&values, 0.5).ok().flatten()?;
                any.then_some((part, median))
            })
            .collect();
        // The network was inside the server part in most runs when most had no round trip.
        let without_round_trip = breakdowns
            .iter()
            .filter(|breakdown| breakdown.round_trip.is_none())
            .count();
        let network_included = 2 * without_round_trip > breakdowns.len();
        let lookup = |part: WaitPart| {
            p50_ms
                .iter()
                .find(|(known, _)| *known == part)
                .map(|(_, ms)| *ms)
        };
        // Split through ttft-relay in most runs: the relay's words.
        let through_relay = breakdowns
            .iter()
            .filter(|breakdown| breakdown.relay.is_some())
            .count();
        let verdict =
            WaitVerdict::from_times(lookup, network_included).map(|verdict| WaitVerdict {
                via_relay: 2 * through_relay > breakdowns.len(),
                ..verdict
            });
        Some(WaitSummary {
            runs: breakdowns.len(),
            p50_ms,
            verdict,
        })
    }

    /// The median of `part`, when some run had it.
    pub fn p50(&self, part: WaitPart) -> Option<f64> {
        self.p50_ms
            .iter()
            .find(|(known, _)| *known == part)
            .map(|(_, ms)| *ms)
    }

    /// The JSON of messages and summaries: `{"runs", "p50_ms": {part: ms}, "verdict": code}`.
    pub fn to_json(&self) -> serde_json::Value {
        let p50: serde_json::Map<String, serde_json::Value> = self
            .p50_ms
            .iter()
            .map(|(part, ms)| (part.code().to_owned(), serde_json::json!(ms)))
            .collect();
        serde_json::json!({
            "runs": self.runs,
            "p50_ms": p50,
            "verdict": self.verdict.map(|verdict| verdict.cause.code()),
        })
    }
}
