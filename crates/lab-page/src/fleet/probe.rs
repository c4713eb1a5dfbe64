//! Probe mode (`probe=N` in the embed configuration): N runs on page load against a keyless
//! endpoint, at most once per page session, with a visible notice and a Stop button.
//! ttft-core's [`ttft_core::probe`] decides; this module keeps the session flag and shows
//! the notice. docs/embedding.md has the cost and the consent text for embedders.

use leptos::prelude::*;
use ttft_core::probe::{self, ProbeError};

use crate::texts as t;
use ttft_web::i18n::use_i18n;

/// The `sessionStorage` flag set when probe mode starts: it runs at most once per tab.
pub const PROBE_RAN_SLOT: &str = "ttft-meter.probe.ran";

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// What probe mode is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeState {
    /// Not asked for.
    Off,
    /// Asked for but not run, and why.
    Refused(ProbeError),
    /// Running `runs` runs against `host`.
    Running {
        /// Runs asked for.
        runs: u32,
        /// The endpoint's host.
        host: String,
    },
    /// Finished (or stopped).
    Done {
        /// Runs asked for.
        runs: u32,
        /// Whether Stop ended it early.
        stopped: bool,
    },
}

impl ProbeState {
    /// A stable code for `data-state`.
    pub fn code(&self) -> &'static str {
        match self {
            ProbeState::Off => "off",
            ProbeState::Refused(_) => "refused",
            ProbeState::Running { .. } => "running",
            ProbeState::Done { stopped: false, .. } => "done",
            ProbeState::Done { stopped: true, .. } => "stopped",
        }
    }
}

/// Whether probe mode runs now, and how many runs: `None` when `probe=` was not given.
/// Starting it sets the session flag, so a reload does not run it again.
pub fn start(requested: Option<&str>, api_key: &str) -> Option<Result<u32, ProbeError>> {
    let requested = requested?;
    let already_ran = session_storage()
        .and_then(|storage| storage.get_item(PROBE_RAN_SLOT).ok().flatten())
        .is_some();
    let decided = probe::decide(requested, api_key, already_ran);
    if decided.is_ok() {
        if let Some(storage) = session_storage() {
            // Without storage the flag cannot be kept; the page then probes once per load.
            let _ = storage.set_item(PROBE_RAN_SLOT, "1");
        }
    }
    Some(decided)
}

/// The notice: what probe mode does (or why it did not run), with a Stop button while it
/// runs.
#[component]
pub fn ProbeNotice(
    /// The state.
    state: RwSignal<ProbeState>,
    /// Stops the runs.
    on_stop: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let lang = i18n.lang.get();
        let current = state.get();
        let text = match &current {
            ProbeState::Off => return None,
            ProbeState::Refused(error) => error.message(lang),
            ProbeState::Running { runs, host } => {
                t::PROBE_RUNNING.fill(lang, &[("host", &host), ("runs", &runs)])
            }
            ProbeState::Done {
                runs,
                stopped: false,
            } => t::PROBE_DONE.fill(lang, &[("runs", &runs)]),
            ProbeState::Done { stopped: true, .. } => t::PROBE_STOPPED.get(lang).to_owned(),
        };
        let running = matches!(current, ProbeState::Running { .. });
        Some(view! {
            <div class="notice probe-notice" class:info=!matches!(current, ProbeState::Refused(_)) data-testid="probe-notice" data-state=current.code() role="status">
                <span>{text}</span>
                {running.then(|| view! {
                    <button type="button" data-testid="probe-stop" on:click=move |_| on_stop.run(())>
                        {move || i18n.t(t::STOP)}
                    </button>
                })}
            </div>
        })
    }
}
