//! The deterministic timing model: pure functions of the profile, the prompt and the
//! arrival time. No clock is read here; the server passes `now_ms` in.

use crate::profile::Profile;

/// Prefill duration in ms for `uncached_tokens` prompt tokens:
/// `prefill_ms` if the profile fixes it, else `base_ms + a·n + b·n²`; plus
/// `reserve_ms_per_max_token · max_tokens` when the request sets `max_tokens`.
pub fn prefill_ms(profile: &Profile, uncached_tokens: u32, max_tokens: Option<u32>) -> f64 {
    let n = f64::from(uncached_tokens);
    let compute_ms = match profile.prefill_ms {
        Some(fixed_ms) => fixed_ms,
        None => profile.base_ms + profile.a_ms_per_token * n + profile.b_ms_per_token2 * n * n,
    };
    let reserve_ms = profile.reserve_ms_per_max_token * f64::from(max_tokens.unwrap_or(0));
    compute_ms + reserve_ms
}

/// A slot booking: which slot, and when the request starts using it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Booking {
    /// Slot index.
    pub slot: usize,
    /// Request id that owns the booking.
    pub request_id: u64,
    /// When the request got the slot (server clock, ms).
    pub start_ms: f64,
    /// When the booking ends if the request runs to completion (server clock, ms).
    pub end_ms: f64,
}

impl Booking {
    /// Time spent waiting for the slot, ms.
    pub fn queue_ms(&self, arrival_ms: f64) -> f64 {
        self.start_ms - arrival_ms
    }
}

/// A fixed number of server slots served in FIFO order. As every request's duration is
/// known on arrival, booking at arrival gives each request its exact queue time at once
/// (the list schedule of an M-server FIFO queue).
#[derive(Clone, Debug)]
pub struct SlotSchedule {
    free_at_ms: Vec<f64>,
    owner: Vec<Option<u64>>,
}

impl SlotSchedule {
    /// `slots` slots (at least 1), all free from time 0.
    pub fn new(slots: usize) -> Self {
        let slots = slots.max(1);
        Self {
            free_at_ms: vec![0.0; slots],
            owner: vec![None; slots],
        }
    }

    /// The slot that frees first (lowest index on ties): where [`Self::book`] puts a request.
    pub fn first_free_slot(&self) -> usize {
        let mut slot = 0;
        for (index, free_at) in self.free_at_ms.iter().enumerate() {
            if *free_at < self.free_at_ms[slot] {
                slot = index;
            }
        }
        slot
    }

    /// The slots a request arriving at `arrival_ms` could start on at once, in the order
    /// [`Self::book`] prefers them (earliest freed, lowest index on ties); when none is free,
    /// only the slot that frees first.
    pub fn candidates(&self, arrival_ms: f64) -> Vec<usize> {
        let mut free: Vec<usize> = (0..self.free_at_ms.len())
            .filter(|slot| self.free_at_ms[*slot] <= arrival_ms)
            .collect();
        free.sort_by(|a, b| self.free_at_ms[*a].total_cmp(&self.free_at_ms[*b]));
        if free.is_empty() {
            free.push(self.first_free_slot());
        }
        free
    }

    /// Books the slot that frees first (lowest index on ties) for a request arriving at
    /// `arrival_ms` that holds it for `duration_ms` once started.
    pub fn book(&mut self, request_id: u64, arrival_ms: f64, duration_ms: f64) -> Booking {
        let slot = self.first_free_slot();
        self.book_on(slot, request_id, arrival_ms, duration_ms)
    }

    /// Books `slot` (taken modulo the slot count) for a request arriving at `arrival_ms`:
    /// it starts when the slot frees, FIFO behind earlier bookings of that slot.
    pub fn book_on(
        &mut self,
        slot: usize,
        request_id: u64,
        arrival_ms: f64,
        duration_ms: f64,
    ) -> Booking {
        let slot = slot % self.free_at_ms.len();
        let start_ms = arrival_ms.max(self.free_at_ms[slot]);
        let end_ms = start_ms + duration_ms;
        self.free_at_ms[slot] = end_ms;
        self.owner[slot] = Some(request_id);
        Booking {
            slot,
            request_id,
            start_ms,
            end_ms,
        }
    }

    /// The request ended at `now_ms` (completed, failed, or the client went away). If it is
    /// still the last booking of its slot, the slot frees now; otherwise later bookings were
    /// already promised their times and keep them.
    pub fn release(&mut self, booking: &Booking, now_ms: f64) {
        if self.owner[booking.slot] == Some(booking.request_id) && now_ms < booking.end_ms {
            self.free_at_ms[booking.slot] = now_ms.max(booking.start_ms);
        }
    }
}

/// Queue times of requests arriving at `arrivals_ms` (in arrival order) with the given
/// durations, on `slots` slots. A convenience over [`SlotSchedule`] for tables.
pub fn queue_times_ms(slots: usize, arrivals_ms: &[f64], durations_ms: &[f64]) -> Vec<f64> {
    let mut schedule = SlotSchedule::new(slots);
    arrivals_ms
        .iter()
        .zip(durations_ms)
        .enumerate()
        .map(|(id, (arrival, duration))| {
            schedule
                .book(id as u64, *arrival, *duration)
                .queue_ms(*arrival)
        })
        .collect()
}

/// The output of one request: how many tokens of each kind, and whether a cap cut it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputCounts {
    /// Reasoning tokens generated.
    pub reasoning_tokens: u32,
    /// Answer tokens generated.
    pub answer_tokens: u32,
    /// `max_tokens` stopped generation.
    pub truncated: bool,
}

/// Applies `max_tokens` (reasoning counts first, as on real reasoning models).
pub fn output_counts(profile: &Profile, max_tokens: Option<u32>) -> OutputCounts {
    let cap = max_tokens.unwrap_or(u32::MAX);
    let reasoning_tokens = profile.reasoning_tokens.min(cap);
    let answer_tokens = profile.answer_tokens.min(cap - reasoning_tokens);
    OutputCounts {
        reasoning_tokens,
        answer_tokens,
        truncated: reasoning_tokens + answer_tokens
            < profile.reasoning_tokens + profile.answer_tokens,
    }
}

/// When everything of one request happens, in ms after its arrival.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamPlan {
    /// Wait for a slot.
    pub queue_ms: f64,
    /// Prefill duration (jitter included).
    pub prefill_ms: f64,
    /// Arrival of each reasoning token (generated, whether or not it is streamed).
    pub reasoning_at_ms: Vec<f64>,
    /// Arrival of each answer token.
    pub answer_at_ms: Vec<f64>,
    /// `: keep-alive` comments (during queue and prefill).
    pub keepalive_at_ms: Vec<f64>,
    /// When the stream ends (the last token, or the end of prefill if there is none).
    pub end_ms: f64,
}

impl StreamPlan {
    /// The first token of any kind: `queue + prefill`.
    pub fn first_token_ms(&self) -> f64 {
        self.queue_ms + self.prefill_ms
    }

    /// The first answer token, if any.
    pub fn first_answer_ms(&self) -> Option<f64> {
        self.answer_at_ms.first().copied()
    }

    /// How long the request holds its slot once started.
    pub fn slot_duration_ms(&self) -> f64 {
        self.end_ms - self.queue_ms
    }
}

/// Plans the decode of `counts` tokens after `queue_ms + prefill_ms`: token `k` (reasoning
/// first, then answer) arrives at `queue + prefill + Σ itl_gaps[0..k]`. `itl_gaps_ms`
/// supplies each gap (the profile's `itl_ms`, plus jitter if any).
pub fn plan_stream(
    profile: &Profile,
    queue_ms: f64,
    prefill_ms: f64,
    counts: OutputCounts,
    mut itl_gap_ms: impl FnMut() -> f64,
) -> StreamPlan {
    let first_ms = queue_ms + prefill_ms;
    let total = counts.reasoning_tokens + counts.answer_tokens;
    let mut times = Vec::with_capacity(total as usize);
    let mut at_ms = first_ms;
    for index in 0..total {
        if index > 0 {
            at_ms += itl_gap_ms();
        }
        times.push(at_ms);
    }
    let answer_at_ms = times.split_off(counts.reasoning_tokens as usize);
    let keepalive_at_ms = if profile.keepalive_ms > 0.0 {
        let mut beats = Vec::new();
        let mut beat_ms = profile.keepalive_ms;
        while beat_ms < first_ms {
            beats.push(beat_ms);
            beat_ms += profile.keepalive_ms;
        }
        beats
    } else {
        Vec::new()
    };
    StreamPlan {
        queue_ms,
        prefill_ms,
        reasoning_at_ms: times,
        answer_at_ms,
        keepalive_at_ms,
        end_ms: at_ms,
    }
}

/// SplitMix64: a tiny, seeded, portable generator for jitter (so runs repeat exactly).
#[derive(Clone, Debug)]
pub struct Jitter {
    state: u64,
    max_ms: f64,
}

impl Jitter {
    /// Uniform jitter in `[0, max_ms)`, seeded by `seed` and the request number.
    pub fn new(seed: u64, request_id: u64, max_ms: f64) -> Self {
        Self {
            state: seed ^ request_id.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            max_ms,
        }
    }

    /// The next extra delay, ms (always 0 when `max_ms` is 0).
    pub fn next_ms(&mut self) -> f64 {
        if self.max_ms <= 0.0 {
            return 0.0;
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // 53 random bits -> [0, 1).
        let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
        unit * self.max_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ReasoningStyle;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn prefill_formula_table() {
        let profile = Profile {
            base_ms: 300.0,
            a_ms_per_token: 0.5,
            b_ms_per_token2: 0.0002,
            ..Profile::default()
        };
        let table: &[(u32, Option<u32>, f64)] = &[
            (0, None, 300.0),
            (1000, None, 300.0 + 500.0 + 200.0),
            (4000, None, 300.0 + 2000.0 + 3200.0),
            (1000, Some(1000), 1000.0),
        ];
        for (n, max_tokens, expected) in table {
            assert!(
                approx(prefill_ms(&profile, *n, *max_tokens), *expected),
                "n={n}"
            );
        }
        let reserving = Profile {
            reserve_ms_per_max_token: 0.1,
            ..profile.clone()
        };
        assert!(approx(prefill_ms(&reserving, 0, Some(1000)), 400.0));
        let fixed = Profile {
            prefill_ms: Some(200.0),
            ..profile
        };
        assert!(approx(prefill_ms(&fixed, 123_456, None), 200.0));
    }

    #[test]
    fn queueing_table() {
        // (slots, arrivals, durations, expected queue times)
        type Row = (usize, &'static [f64], &'static [f64], &'static [f64]);
        let table: &[Row] = &[
            (1, &[0.0, 0.0], &[500.0, 500.0], &[0.0, 500.0]),
            (
                1,
                &[0.0, 100.0, 200.0],
                &[500.0, 500.0, 100.0],
                &[0.0, 400.0, 800.0],
            ),
            (
                2,
                &[0.0, 0.0, 0.0],
                &[300.0, 500.0, 100.0],
                &[0.0, 0.0, 300.0],
            ),
            (
                2,
                &[0.0, 0.0, 0.0, 0.0],
                &[300.0, 500.0, 100.0, 100.0],
                &[0.0, 0.0, 300.0, 400.0],
            ),
            (
                4,
                &[0.0, 10.0, 20.0],
                &[100.0, 100.0, 100.0],
                &[0.0, 0.0, 0.0],
            ),
            (1, &[0.0, 1000.0], &[500.0, 500.0], &[0.0, 0.0]),
        ];
        for (slots, arrivals, durations, expected) in table {
            let got = queue_times_ms(*slots, arrivals, durations);
            assert_eq!(&got, expected, "slots={slots} arrivals={arrivals:?}");
        }
    }

    #[test]
    fn early_release_frees_the_slot_for_later_arrivals_only() {
        let mut schedule = SlotSchedule::new(1);
        let first = schedule.book(1, 0.0, 1000.0);
        schedule.release(&first, 100.0);
        assert_eq!(schedule.book(2, 150.0, 100.0).start_ms, 150.0);
        // A booking that is no longer the last of its slot keeps the later one's promise.
        let mut schedule = SlotSchedule::new(1);
        let first = schedule.book(1, 0.0, 1000.0);
        let second = schedule.book(2, 0.0, 1000.0);
        schedule.release(&first, 100.0);
        assert_eq!(second.start_ms, 1000.0);
        assert_eq!(schedule.book(3, 200.0, 10.0).start_ms, 2000.0);
    }

    #[test]
    fn candidates_are_the_free_slots_in_booking_order() {
        let mut schedule = SlotSchedule::new(3);
        schedule.book_on(0, 1, 0.0, 100.0);
        schedule.book_on(2, 2, 0.0, 50.0);
        assert_eq!(schedule.candidates(10.0), vec![1]);
        assert_eq!(schedule.candidates(60.0), vec![1, 2]);
        assert_eq!(schedule.candidates(200.0), vec![1, 2, 0]);
        schedule.book_on(1, 3, 0.0, 80.0);
        // None free: the slot that frees first.
        assert_eq!(schedule.candidates(10.0), vec![2]);
        assert_eq!(schedule.book_on(2, 4, 10.0, 5.0).start_ms, 50.0);
    }

    #[test]
    fn plan_matches_the_brief_example() {
        let profile = Profile {
            prefill_ms: Some(200.0),
            reasoning_tokens: 10,
            answer_tokens: 5,
            itl_ms: 50.0,
            reasoning_style: ReasoningStyle::ReasoningContent,
            early_role: true,
            keepalive_ms: 60.0,
            ..Profile::default()
        };
        let counts = output_counts(&profile, None);
        let plan = plan_stream(
            &profile,
            0.0,
            prefill_ms(&profile, 99, None),
            counts,
            || 50.0,
        );
        assert_eq!(plan.first_token_ms(), 200.0);
        assert_eq!(plan.reasoning_at_ms.first(), Some(&200.0));
        assert_eq!(plan.first_answer_ms(), Some(700.0));
        assert_eq!(plan.end_ms, 200.0 + 14.0 * 50.0);
        assert_eq!(plan.keepalive_at_ms, vec![60.0, 120.0, 180.0]);
        assert_eq!(plan.slot_duration_ms(), plan.end_ms);
    }

    #[test]
    fn max_tokens_caps_output_not_prefill() {
        let profile = Profile {
            reasoning_tokens: 10,
            answer_tokens: 20,
            ..Profile::default()
        };
        let table: &[(Option<u32>, u32, u32, bool)] = &[
            (None, 10, 20, false),
            (Some(100), 10, 20, false),
            (Some(15), 10, 5, true),
            (Some(4), 4, 0, true),
        ];
        for (cap, reasoning, answer, truncated) in table {
            let counts = output_counts(&profile, *cap);
            assert_eq!(
                counts,
                OutputCounts {
                    reasoning_tokens: *reasoning,
                    answer_tokens: *answer,
                    truncated: *truncated
                }
            );
        }
        assert_eq!(
            prefill_ms(&profile, 10, Some(1)),
            prefill_ms(&profile, 10, None)
        );
    }

    #[test]
    fn jitter_is_seeded_and_bounded() {
        let draw = |seed| {
            let mut jitter = Jitter::new(seed, 7, 10.0);
            (0..100).map(|_| jitter.next_ms()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        assert!(draw(3).iter().all(|ms| (0.0..10.0).contains(ms)));
        assert_eq!(Jitter::new(1, 1, 0.0).next_ms(), 0.0);
    }
}
