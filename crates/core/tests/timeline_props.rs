//! Property tests for the timeline metrics.

use proptest::prelude::*;
use ttft_core::timeline::RunTimeline;
use ttft_stream::dialect::DecodedEvent;

proptest! {
    #[test]
    fn metrics_are_consistent(
        gaps in prop::collection::vec((0.0f64..500.0, 0u8..4), 1..60),
        start in 0.0f64..1e6,
    ) {
        let mut run = RunTimeline::new(None, start);
        let mut now = start;
        let mut text_times = Vec::new();
        for (index, (gap, kind)) in gaps.iter().enumerate() {
            now += gap;
            // 0: no text, 1: reasoning, 2: answer, 3: whitespace answer
            let event = DecodedEvent {
                index,
                reasoning: if *kind == 1 { "r".into() } else { String::new() },
                answer: match kind { 2 => "a".into(), 3 => " ".into(), _ => String::new() },
                ..Default::default()
            };
            if *kind != 0 {
                text_times.push(now);
            }
            run.on_event(now, &event);
        }
        run.on_stream_end(now + 1.0);
        let m = run.metrics();
        prop_assert_eq!(m.itl_gaps.count() as usize, text_times.len().saturating_sub(1));
        if let (Some(ttft), Some(ttfa)) = (m.ttft_ms, m.ttfa_ms) {
            prop_assert!(ttft <= ttfa);
        }
        if let (Some(ttfa), Some(visible)) = (m.ttfa_ms, m.ttfa_visible_ms) {
            prop_assert!(ttfa <= visible);
        }
        if let Some(decode) = m.decode_ms {
            let sum: f64 = m.itl_gaps.sample_ms().iter().sum();
            prop_assert!((decode - sum).abs() < 1e-6 * decode.max(1.0));
            prop_assert!(decode >= 0.0);
        }
        prop_assert_eq!(m.ttft_ms.is_some(), !text_times.is_empty());
        prop_assert!(m.first_chunk_ms.is_some_and(|first| m.ttft_ms.is_none_or(|ttft| first <= ttft)));
        prop_assert!(m.e2e_ms.is_some_and(|e2e| e2e >= 0.0));
    }
}
