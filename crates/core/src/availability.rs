//! How available the page's main thread was while a run waited for its first answer token,
//! and what that means for its arrival times (issue 13; docs/engines.md).
//!
//! The fetch worker stamps every read where the bytes arrive. In Chromium and Firefox that
//! stamp does not wait for the page's main thread; in WebKit it does: a Worker's network
//! traffic passes through the main thread, so a request posted while the main thread is busy
//! leaves late, and a read that arrives during a long task is stamped when the task ends.
//! (With the main-thread transport every stamp waits for it, in every engine.)
//!
//! So each run measures the main thread's availability from `request_started` until its
//! first answer token (or its end, when none comes): the glue beats a heartbeat every
//! [`HEARTBEAT_INTERVAL_MS`] and reports Long Animation Frames / Long Tasks where the engine
//! has them. The longest stretch without a beat (or the longest long task) inside that
//! window is the run's **arrival-delay bound**: where arrivals wait for the main thread, no
//! arrival in the window can have been stamped later than that after it came. Where they do
//! not, the bound is recorded anyway (it says how busy the page was) and not flagged.
//!
//! The heartbeat goes on until the run's record is made, for the whole run's **stall**
//! ([`MainThreadMonitor::stall_ms`]): the longest the page could not run anything. It catches
//! what no observer reports, a flood of short tasks (a stream of millions of tiny events)
//! that keeps timers, input and paints waiting, and a run over 50 ms says so.
//!
//! ```
//! use ttft_core::measure::MainThreadMonitor;
//!
//! let mut monitor = MainThreadMonitor::new(1_000.0); // request_started
//! for beat_ms in [1_008.0, 1_016.0, 1_324.0, 1_332.0] {
//!     monitor.on_beat(beat_ms); // the main thread was busy from about 1016 to 1324 ms
//! }
//! monitor.close_at(1_330.0); // the first answer token was stamped at 1330 ms
//! monitor.on_beat(1_340.0);
//! monitor.on_beat(1_500.0); // busy again after it: the run's stall, not the bound
//! monitor.finish(1_330.0, 1_500.0);
//! assert!(!monitor.wants_beats());
//! assert_eq!(monitor.bound_ms(), Some(308.0));
//! assert_eq!(monitor.stall_ms(), Some(308.0));
//! ```

/// Every how many ms the glue beats the heartbeat (a timer on the main thread). The bound of
/// an idle page is about this, plus a rendering frame.
pub const HEARTBEAT_INTERVAL_MS: f64 = 8.0;

/// Above this bound a run is flagged where arrivals wait for the main thread: 50 ms is the
/// W3C Long Tasks API's definition of a long task, and well above what an idle page shows
/// (the heartbeat interval plus a frame, about 10 to 25 ms). Below it, the possible error
/// is within the widget's own frame-level noise.
pub const ARRIVAL_DELAY_THRESHOLD_MS: f64 = 50.0;

/// A browser engine, as far as measuring in it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserEngine {
    /// Blink (Chrome, Edge, Opera, Chromium, Android WebView).
    Chromium,
    /// Gecko (Firefox).
    Gecko,
    /// WebKit (Safari, every browser on iOS, WebKitGTK, WPE).
    WebKit,
    /// Not recognised.
    Other,
}

impl BrowserEngine {
    /// The engine named by `navigator.userAgent`.
    ///
    /// Every engine's string contains "Mozilla/5.0", and Blink's also "AppleWebKit" and
    /// "Safari": Blink says "Chrome/" (or "Chromium/", "HeadlessChrome/"), Gecko "Gecko/"
    /// with "Firefox/" (iOS browsers are WebKit whatever they are called: "CriOS", "FxiOS",
    /// "EdgiOS" carry no "Chrome/" and no "Firefox/").
    pub fn from_user_agent(user_agent: &str) -> BrowserEngine {
        let has = |needle: &str| user_agent.contains(needle);
        if has("Chrome/") || has("Chromium/") {
            BrowserEngine::Chromium
        } else if has("Firefox/") && has("Gecko/") {
            BrowserEngine::Gecko
        } else if has("AppleWebKit/") {
            BrowserEngine::WebKit
        } else {
            BrowserEngine::Other
        }
    }

    /// The engine's code (`chromium`, `gecko`, `webkit`, `other`).
    pub fn code(self) -> &'static str {
        match self {
            BrowserEngine::Chromium => "chromium",
            BrowserEngine::Gecko => "gecko",
            BrowserEngine::WebKit => "webkit",
            BrowserEngine::Other => "other",
        }
    }

    /// Whether a dedicated Worker's network traffic waits for the page's main thread.
    ///
    /// True in WebKit, measured (docs/engines.md, "WebKit: Worker arrivals depend on the
    /// main thread": a bare Worker `fetch()` left 400 ms late behind a 400 ms busy loop, and
    /// its first content was stamped when the loop ended), and by design: WebKit loads a
    /// worker's requests through its document's loader on the main thread. False in
    /// Chromium and Firefox (the same test: on time). Unknown engines count as dependent,
    /// so their runs are flagged rather than trusted.
    ///
    /// Decided by engine rather than by a start-up probe: a probe would have to block the
    /// user's main thread for a few hundred ms and send a request at every page load, and
    /// a loaded machine can make Chromium's arrivals late by a few ms too, so a short probe
    /// cannot tell the two apart reliably.
    pub fn worker_arrivals_wait_for_main_thread(self) -> bool {
        matches!(self, BrowserEngine::WebKit | BrowserEngine::Other)
    }
}

/// The main thread's availability over one run's window: from `request_started` until the
/// first answer token was stamped (or the run ended). Fed by the glue with heartbeat times
/// and long tasks, all ms on the page clock.
#[derive(Debug, Clone, PartialEq)]
pub struct MainThreadMonitor {
    since_ms: f64,
    until_ms: Option<f64>,
    last_beat_ms: f64,
    beats: u64,
    longest_gap_ms: f64,
    longest_task_ms: f64,
    closed: bool,
    /// The whole run (from `since_ms` to [`MainThreadMonitor::finish`]): the last beat,
    /// the longest gap and the longest long task, and whether the run has finished.
    run_last_beat_ms: f64,
    run_gap_ms: f64,
    run_task_ms: f64,
    finished: bool,
}

impl MainThreadMonitor {
    /// Starts watching at `since_ms` (`request_started`).
    pub fn new(since_ms: f64) -> MainThreadMonitor {
        MainThreadMonitor {
            since_ms,
            until_ms: None,
            last_beat_ms: since_ms,
            beats: 0,
            longest_gap_ms: 0.0,
            longest_task_ms: 0.0,
            closed: false,
            run_last_beat_ms: since_ms,
            run_gap_ms: 0.0,
            run_task_ms: 0.0,
            finished: false,
        }
    }

    /// The heartbeat ran at `now_ms`: the main thread was free then. The stretch since the
    /// previous beat counts for the part inside the window.
    pub fn on_beat(&mut self, now_ms: f64) {
        if !self.finished && now_ms.is_finite() && now_ms >= self.run_last_beat_ms {
            self.run_gap_ms = self.run_gap_ms.max(now_ms - self.run_last_beat_ms);
            self.run_last_beat_ms = now_ms;
        }
        if self.closed || !now_ms.is_finite() || now_ms < self.last_beat_ms {
            return;
        }
        let end_ms = self
            .until_ms
            .map_or(now_ms, |until_ms| now_ms.min(until_ms));
        let start_ms = self.last_beat_ms.max(self.since_ms);
        if end_ms > start_ms {
            self.longest_gap_ms = self.longest_gap_ms.max(end_ms - start_ms);
        }
        self.last_beat_ms = now_ms;
        self.beats += 1;
        if self.until_ms.is_some_and(|until_ms| now_ms >= until_ms) {
            self.closed = true;
        }
    }

    /// A long task or long animation frame from `start_ms` lasting `duration_ms` (Long Tasks
    /// / LoAF entries): counts for its part inside the window.
    pub fn on_busy(&mut self, start_ms: f64, duration_ms: f64) {
        if !start_ms.is_finite() || !duration_ms.is_finite() || duration_ms <= 0.0 {
            return;
        }
        let run_part_ms = start_ms + duration_ms - start_ms.max(self.since_ms);
        if run_part_ms > 0.0 {
            self.run_task_ms = self.run_task_ms.max(run_part_ms);
        }
        let end_ms = (start_ms + duration_ms).min(self.until_ms.unwrap_or(f64::INFINITY));
        let inside_ms = end_ms - start_ms.max(self.since_ms);
        if inside_ms > 0.0 {
            self.longest_task_ms = self.longest_task_ms.max(inside_ms);
        }
    }

    /// The window ends at `until_ms` (the first answer token's stamp, or the run's end); the
    /// first call wins. The next beat closes it.
    pub fn close_at(&mut self, until_ms: f64) {
        if self.until_ms.is_some() || !until_ms.is_finite() {
            return;
        }
        self.until_ms = Some(until_ms);
        if self.beats > 0 && self.last_beat_ms >= until_ms {
            self.closed = true;
        }
    }

    /// Whether the heartbeat is still needed: until the run has finished (the window of
    /// the arrival-delay bound closes earlier; the whole run's stall is watched to the end).
    pub fn wants_beats(&self) -> bool {
        !self.finished
    }

    /// Ends the window at `window_end_ms` (the first answer token, or the run's end) and the
    /// whole run's watch at `now_ms` (the run's record is being made): the stretch since the
    /// last beat counts as if a beat came then.
    pub fn finish(&mut self, window_end_ms: f64, now_ms: f64) {
        if !self.closed {
            self.close_at(window_end_ms);
            self.on_beat(window_end_ms.min(now_ms));
            self.closed = true;
        }
        if !self.finished {
            self.on_beat(now_ms);
            self.finished = true;
        }
    }

    /// The longest time the main thread was unavailable during the whole run, from
    /// `request_started` to its record (heartbeat gap or long task), ms; `None` when the
    /// glue never beat. Past [`ARRIVAL_DELAY_THRESHOLD_MS`] the run says so: its later
    /// stamps made on the main thread (paints; arrivals where they wait for it) and the
    /// page's responsiveness suffered, even when no long task was reported (a flood of
    /// short tasks delays everything queued behind them, which no observer reports).
    pub fn stall_ms(&self) -> Option<f64> {
        (self.beats > 0 || self.run_task_ms > 0.0).then(|| self.run_gap_ms.max(self.run_task_ms))
    }

    /// The longest time the main thread was unavailable inside the window (heartbeat gap or
    /// long task), ms; `None` when the glue never beat (nothing was watched).
    pub fn bound_ms(&self) -> Option<f64> {
        (self.beats > 0 || self.longest_task_ms > 0.0)
            .then(|| self.longest_gap_ms.max(self.longest_task_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_from_their_user_agents() {
        let cases = [
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36", BrowserEngine::Chromium),
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36", BrowserEngine::Chromium),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", BrowserEngine::Chromium),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0", BrowserEngine::Gecko),
            ("Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15", BrowserEngine::WebKit),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", BrowserEngine::WebKit),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1", BrowserEngine::WebKit),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15", BrowserEngine::WebKit),
            ("curl/8.5.0", BrowserEngine::Other),
        ];
        for (user_agent, engine) in cases {
            assert_eq!(
                BrowserEngine::from_user_agent(user_agent),
                engine,
                "{user_agent}"
            );
        }
        assert!(BrowserEngine::WebKit.worker_arrivals_wait_for_main_thread());
        assert!(!BrowserEngine::Chromium.worker_arrivals_wait_for_main_thread());
        assert!(!BrowserEngine::Gecko.worker_arrivals_wait_for_main_thread());
    }

    #[test]
    fn an_idle_page_has_a_bound_of_one_beat() {
        let mut monitor = MainThreadMonitor::new(100.0);
        let mut now_ms = 100.0;
        while now_ms < 400.0 {
            now_ms += HEARTBEAT_INTERVAL_MS;
            monitor.on_beat(now_ms);
        }
        monitor.close_at(395.0);
        // The window is closed; the whole run is still watched.
        assert!(monitor.wants_beats());
        assert_eq!(monitor.bound_ms(), Some(HEARTBEAT_INTERVAL_MS));
        monitor.finish(395.0, 400.0);
        assert!(!monitor.wants_beats());
        assert_eq!(monitor.stall_ms(), Some(HEARTBEAT_INTERVAL_MS));
    }

    /// Issue 23: a flood after the first answer token (short tasks back to back, which no
    /// long-task observer reports) shows in the whole run's stall, not in the window's bound.
    #[test]
    fn a_stall_after_the_first_token_is_the_runs_stall() {
        let mut monitor = MainThreadMonitor::new(1_000.0);
        let mut now_ms = 1_000.0;
        for _ in 0..10 {
            now_ms += HEARTBEAT_INTERVAL_MS;
            monitor.on_beat(now_ms);
        }
        monitor.close_at(now_ms); // first answer token at 1080 ms
        monitor.on_beat(now_ms + 8.0);
        monitor.on_beat(now_ms + 8.0 + 1_372.0); // the timers waited 1372 ms behind a flood
        monitor.on_busy(now_ms + 2_000.0, 394.0); // and a 394 ms task later
        monitor.finish(now_ms, now_ms + 3_000.0);
        assert_eq!(monitor.bound_ms(), Some(HEARTBEAT_INTERVAL_MS));
        assert_eq!(monitor.stall_ms(), Some(3_000.0 - 8.0 - 1_372.0));
        let mut task_only = MainThreadMonitor::new(0.0);
        task_only.on_busy(-10.0, 30.0); // 20 ms of it inside the run
        assert_eq!(task_only.stall_ms(), Some(20.0));
    }

    #[test]
    fn only_the_window_counts() {
        // Busy before the request (a previous run's rendering) and after the first answer.
        let mut monitor = MainThreadMonitor::new(1_000.0);
        monitor.on_busy(700.0, 290.0);
        monitor.on_beat(1_010.0);
        monitor.on_beat(1_018.0);
        monitor.close_at(1_020.0);
        monitor.on_beat(1_600.0); // a 582 ms gap, of which 2 ms inside the window
        monitor.on_beat(1_608.0); // after the close: ignored
        monitor.on_busy(1_030.0, 500.0);
        assert_eq!(monitor.bound_ms(), Some(10.0));
        // A task overlapping the start counts from the start.
        monitor.on_busy(990.0, 60.0);
        assert_eq!(monitor.bound_ms(), Some(20.0));
    }

    #[test]
    fn a_long_task_beats_the_heartbeat_and_a_run_without_beats_has_no_bound() {
        let mut monitor = MainThreadMonitor::new(0.0);
        assert_eq!(monitor.bound_ms(), None);
        monitor.on_busy(50.0, 120.0);
        assert_eq!(monitor.bound_ms(), Some(120.0));
        monitor.finish(30.0, 30.0);
        assert_eq!(monitor.bound_ms(), Some(120.0));
        assert!(!monitor.wants_beats());
        // finish() counts the stretch since the last beat.
        let mut quiet = MainThreadMonitor::new(0.0);
        quiet.on_beat(8.0);
        quiet.finish(70.0, 70.0);
        assert_eq!(quiet.bound_ms(), Some(62.0));
        assert_eq!(quiet.stall_ms(), Some(62.0));
    }
}
