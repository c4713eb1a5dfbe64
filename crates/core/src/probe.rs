//! Probe mode for embedders: `probe=N` asks the widget to run N runs as soon as it loads,
//! so every visitor of a docs or status page measures the team's endpoint from where they
//! are (results go to the host page by postMessage and to the collector by OTLP).
//!
//! It is deliberately narrow: a keyless endpoint only (a visitor's browser must never spend
//! someone's key without them pressing Send), at most [`MAX_PROBE_RUNS`] runs, at most once
//! per page session (the page keeps a flag in `sessionStorage`), with a visible notice and a
//! Stop button. This module decides; the page reads the flag and starts the runs.

use crate::lang::Lang;
use crate::texts as t;

/// The most runs probe mode makes on one page load.
pub const MAX_PROBE_RUNS: u32 = 20;

/// Why probe mode does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// `probe=` is not a whole number from 1 to [`MAX_PROBE_RUNS`].
    BadCount {
        /// What was given (cut to 32 characters).
        given: String,
        /// [`MAX_PROBE_RUNS`].
        max: u32,
    },
    /// An API key is present: probe mode is for keyless endpoints only.
    KeyPresent,
    /// It already ran in this page session.
    AlreadyRan,
}

impl ProbeError {
    /// A stable code for `data-*` attributes and tests.
    pub fn code(&self) -> &'static str {
        match self {
            ProbeError::BadCount { .. } => "bad_count",
            ProbeError::KeyPresent => "key_present",
            ProbeError::AlreadyRan => "already_ran",
        }
    }

    /// The message in the user's language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ProbeError::BadCount { given, max } => {
                t::PROBE_ERROR_BAD_COUNT.fill(lang, &[("given", given), ("max", max)])
            }
            ProbeError::KeyPresent => t::PROBE_ERROR_KEY_PRESENT.get(lang).to_owned(),
            ProbeError::AlreadyRan => t::PROBE_ERROR_ALREADY_RAN.get(lang).to_owned(),
        }
    }
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ProbeError {}

/// Parses `probe=N`: a whole number of runs from 1 to [`MAX_PROBE_RUNS`].
pub fn parse_probe_runs(text: &str) -> Result<u32, ProbeError> {
    let trimmed = text.trim();
    match trimmed.parse::<u32>() {
        Ok(runs) if (1..=MAX_PROBE_RUNS).contains(&runs) => Ok(runs),
        _ => Err(ProbeError::BadCount {
            given: trimmed.chars().take(32).collect(),
            max: MAX_PROBE_RUNS,
        }),
    }
}

/// Whether probe mode runs now: the count parsed, no key typed or kept for this tab, and
/// not run before in this page session. Returns the number of runs.
pub fn decide(text: &str, api_key: &str, already_ran: bool) -> Result<u32, ProbeError> {
    let runs = parse_probe_runs(text)?;
    if !api_key.trim().is_empty() {
        return Err(ProbeError::KeyPresent);
    }
    if already_ran {
        return Err(ProbeError::AlreadyRan);
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_one_to_the_maximum_are_accepted() {
        assert_eq!(parse_probe_runs("3"), Ok(3));
        assert_eq!(parse_probe_runs(" 20 "), Ok(20));
        for bad in ["0", "21", "-1", "three", "", "2.5"] {
            let error = parse_probe_runs(bad).unwrap_err();
            assert_eq!(error.code(), "bad_count", "{bad}");
            assert!(error.to_string().contains("from 1 to 20"));
            assert!(!error.message(Lang::Zh).is_empty());
        }
    }

    #[test]
    fn a_key_or_an_earlier_probe_stops_it() {
        assert_eq!(decide("5", "", false), Ok(5));
        assert_eq!(decide("5", "  ", false), Ok(5));
        assert_eq!(decide("5", "sk-abc", false), Err(ProbeError::KeyPresent));
        assert_eq!(decide("5", "", true), Err(ProbeError::AlreadyRan));
        // A bad count is reported first: it is the embedder's mistake, the others the visitor's.
        assert_eq!(decide("x", "sk-abc", true).unwrap_err().code(), "bad_count");
        let message = ProbeError::KeyPresent.to_string();
        assert!(!message.contains("sk-"));
    }
}
