//! Deterministic output text: fixed word lists, cycled, one list entry per token.

const ANSWER_EN: &[&str] = &[
    "Here",
    " is",
    " a",
    " simulated",
    " answer",
    " from",
    " ttft",
    "-sim",
    ".",
    " Each",
    " token",
    " arrives",
    " after",
    " a",
    " fixed",
    " interval",
    ",",
    " so",
    " the",
    " timing",
    " is",
    " known",
    " exactly",
    ".",
];
const REASONING_EN: &[&str] = &[
    "Let", " me", " think", " about", " this", " step", " by", " step", ".", " The", " user",
    " wants", " a", " short", " reply", ";", " I", " will", " keep", " it", " simple", ".",
];
const ANSWER_ZH: &[&str] = &[
    "这是", "一个", "模拟", "的", "回答", "。", "每个", "词元", "按", "固定", "间隔", "到达", "，",
    "所以", "时间", "是", "确定", "的", "。",
];
const REASONING_ZH: &[&str] = &[
    "让", "我", "一步", "一步", "地", "想", "。", "用户", "需要", "简短", "的", "回答", "。",
];

/// Repeats `words` up to `count` tokens; in English a repeat starts with a space, so the
/// last sentence and the next one do not run together ("simple.Let").
fn cycle(words: &[&str], count: u32, spaced_repeats: bool) -> Vec<String> {
    words
        .iter()
        .cycle()
        .take(count as usize)
        .enumerate()
        .map(|(index, word)| {
            if spaced_repeats && index >= words.len() && index % words.len() == 0 {
                format!(" {word}")
            } else {
                (*word).to_string()
            }
        })
        .collect()
}

/// The `count` answer tokens (Chinese if the prompt has CJK ideographs). With
/// `paragraph_tokens` > 0, every `paragraph_tokens`-th token starts a new paragraph
/// (`\n\n` in place of its leading space), as real answers come in paragraphs.
pub fn answer_tokens(count: u32, chinese: bool, paragraph_tokens: u32) -> Vec<String> {
    let mut tokens = cycle(if chinese { ANSWER_ZH } else { ANSWER_EN }, count, !chinese);
    if paragraph_tokens > 0 {
        for token in tokens
            .iter_mut()
            .skip(paragraph_tokens as usize)
            .step_by(paragraph_tokens as usize)
        {
            *token = format!("\n\n{}", token.trim_start());
        }
    }
    tokens
}

/// The `count` reasoning tokens (Chinese if the prompt has CJK ideographs).
pub fn reasoning_tokens(count: u32, chinese: bool) -> Vec<String> {
    cycle(
        if chinese { REASONING_ZH } else { REASONING_EN },
        count,
        !chinese,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_deterministically() {
        let tokens = answer_tokens(26, false, 0);
        assert_eq!(tokens.len(), 26);
        assert_eq!(tokens[0], "Here");
        assert_eq!(
            tokens[24], " Here",
            "a repeat is spaced from the sentence before"
        );
        assert_eq!(answer_tokens(1, true, 0), vec!["这是"]);
        assert!(reasoning_tokens(0, false).is_empty());
    }

    #[test]
    fn paragraphs_every_n_tokens() {
        let text: String = answer_tokens(10, false, 4).concat();
        assert_eq!(
            text,
            "Here is a simulated\n\nanswer from ttft-sim\n\n. Each"
        );
        let plain: String = answer_tokens(10, false, 0).concat();
        assert!(!plain.contains('\n'));
    }
}
