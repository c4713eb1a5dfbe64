//! Streamed text in the DOM: the first painted piece in its own timed element, the rest
//! appended once per animation frame in blocks, never re-rendered.

use leptos::prelude::*;
use ttft_core::blocks::{frame_share, plan_blocks, Fill};
use ttft_core::measure::ShownText;

/// Streamed text split around its first painted piece: the first (visible) text goes into
/// a fresh element with a unique `elementtiming` name so its paint can be timed.
///
/// The rest of a long answer is appended, never re-rendered: text that arrives between two
/// frames is batched and added as one text node at the next animation frame, so a
/// 100,000-token answer costs the page work in proportion to each piece, not to the whole.
#[derive(Clone, Copy)]
pub struct StreamedText {
    pub(crate) lead: RwSignal<String>,
    pub(crate) first: RwSignal<Option<(String, String)>>,
    /// Bytes of text appended after the first piece (drawn or pending).
    rest_len: RwSignal<usize>,
    pub(crate) rest_node: NodeRef<leptos::html::Span>,
    /// The block container after `rest`, where every block after the first goes: kept out
    /// of `rest`'s line (an inline holding blocks makes the browser lay out all of it again
    /// on every append: 50,000 lines then a long word took 200 ms frames).
    pub(crate) blocks_node: NodeRef<leptos::html::Span>,
    pending: StoredValue<String, LocalStorage>,
    flush_scheduled: StoredValue<bool, LocalStorage>,
    /// The block the next text goes into (`None`: the inline `rest` span itself).
    chunk: StoredValue<Option<web_sys::Element>, LocalStorage>,
    /// Blocks closed since the last frame: the next frame marks them settled (laid out once,
    /// their size remembered), and from then on the browser skips them when out of view.
    unsettled: StoredValue<Vec<web_sys::Element>, LocalStorage>,
    /// What that block holds. The inline `rest` counts as full from the start: it only
    /// finishes the first line (the first line break closes it), so the page's inline
    /// formatting context, which the browser lays out again whenever it changes, stays
    /// one line long whatever comes after.
    chunk_len: StoredValue<Fill, LocalStorage>,
    /// 0: append at every animation frame; else at most every this many ms (reasoning text,
    /// which streams while the run still waits for its first answer token).
    throttle_ms: f64,
    /// The first piece was just set: the rest waits one more frame, so the first text is
    /// laid out and painted alone.
    hold_one_frame: StoredValue<bool, LocalStorage>,
    /// How much was shown: the first `MAX_SHOWN_TEXT_BYTES`, then the text is cut.
    shown: StoredValue<ShownText, LocalStorage>,
    /// Whether the text was cut (a note says so).
    pub(crate) cut: RwSignal<bool>,
    /// Whether the blank lead was cut (a note after it says so).
    pub(crate) lead_cut: RwSignal<bool>,
}

/// The inline `rest` as [`plan_blocks`] sees it: full, so that its first line break closes
/// it.
const INLINE_FULL: Fill = Fill {
    bytes: ttft_core::blocks::BLOCK_BYTES,
    lines: 0,
};

/// Reasoning text is appended at most this often (ms): it streams while the run waits for
/// its first answer token, when the page should leave the main thread alone (in WebKit the
/// answer's arrival waits for it), and nobody reads thinking at 60 frames per second.
pub(crate) const REASONING_FLUSH_MS: f64 = 200.0;

impl StreamedText {
    pub(crate) fn new(throttle_ms: f64) -> Self {
        Self {
            lead: RwSignal::new(String::new()),
            first: RwSignal::new(None),
            rest_len: RwSignal::new(0),
            rest_node: NodeRef::new(),
            blocks_node: NodeRef::new(),
            pending: StoredValue::new_local(String::new()),
            flush_scheduled: StoredValue::new_local(false),
            chunk: StoredValue::new_local(None),
            unsettled: StoredValue::new_local(Vec::new()),
            chunk_len: StoredValue::new_local(INLINE_FULL),
            throttle_ms,
            hold_one_frame: StoredValue::new_local(false),
            shown: StoredValue::new_local(ShownText::default()),
            cut: RwSignal::new(false),
            lead_cut: RwSignal::new(false),
        }
    }

    pub(crate) fn clear(&self) {
        self.hold_one_frame.set_value(false);
        self.lead.set(String::new());
        self.first.set(None);
        self.rest_len.set(0);
        self.pending.update_value(String::clear);
        self.chunk.set_value(None);
        self.unsettled.set_value(Vec::new());
        self.chunk_len.set_value(INLINE_FULL);
        self.shown.set_value(ShownText::default());
        self.cut.set(false);
        self.lead_cut.set(false);
        if let Some(node) = self.rest_node.get_untracked() {
            node.set_text_content(None);
        }
        if let Some(node) = self.blocks_node.get_untracked() {
            node.set_text_content(None);
        }
    }

    pub(crate) fn push(&self, text: &str, paint_id: Option<String>) {
        // Blank text before the first visible text (the lead) is shown up to its bound
        // (ttft-core: 4 line breaks, 256 bytes); after it, only the first MAX_SHOWN_TEXT_BYTES
        // are shown. The measurement goes on.
        let leading = paint_id.is_none() && self.first.with_untracked(Option::is_none);
        let text = self
            .shown
            .try_update_value(|shown| {
                if leading {
                    shown.admit_lead(text).to_owned()
                } else {
                    shown.admit(text).to_owned()
                }
            })
            .unwrap_or_default();
        if !self.cut.get_untracked() && self.shown.with_value(ShownText::is_cut) {
            self.cut.set(true);
        }
        if leading
            && !self.lead_cut.get_untracked()
            && self.shown.with_value(ShownText::is_lead_cut)
        {
            self.lead_cut.set(true);
        }
        if text.is_empty() {
            return;
        }
        if let Some(paint_id) = paint_id {
            // The timed element holds at most a frame's share; a longer first piece (a
            // hostile 1 MiB event) goes on in the next frames like the rest.
            let share = frame_share(&text);
            self.first.set(Some((paint_id, text[..share].to_owned())));
            self.hold_one_frame.set_value(true);
            if share < text.len() {
                self.append_rest(&text[share..]);
            }
        } else if self.first.with_untracked(Option::is_none) {
            self.lead.update(|lead| lead.push_str(&text));
        } else {
            self.append_rest(&text);
        }
    }

    /// Queues `text` after the first piece, for the next frames.
    fn append_rest(&self, text: &str) {
        // Only "is there any" is shown reactively: no effect runs per token.
        if self.rest_len.get_untracked() == 0 {
            self.rest_len.set(text.len());
        } else {
            self.rest_len
                .update_untracked(|rest_len| *rest_len += text.len());
        }
        self.pending.update_value(|pending| pending.push_str(text));
        self.schedule_flush();
    }

    fn schedule_flush(&self) {
        self.schedule_flush_in(None);
    }

    /// Schedules the next [`flush`](Self::flush): at the next animation frame (or after the
    /// pane's throttle), or after `delay_ms` when given (a flood's calm).
    fn schedule_flush_in(&self, delay_ms: Option<f64>) {
        if self.flush_scheduled.get_value() {
            return;
        }
        let this = *self;
        let callback = wasm_bindgen::closure::Closure::once_into_js(move || {
            this.flush_scheduled.set_value(false);
            if this.hold_one_frame.get_value() {
                // The frame that paints the first text: the rest goes into the next one.
                this.hold_one_frame.set_value(false);
                return this.schedule_flush();
            }
            this.flush();
        });
        let scheduled = web_sys::window().is_some_and(|window| {
            let callback = wasm_bindgen::JsCast::unchecked_ref(&callback);
            let timeout_ms = delay_ms.unwrap_or(self.throttle_ms);
            if timeout_ms > 0.0 {
                window
                    .set_timeout_with_callback_and_timeout_and_arguments_0(
                        callback,
                        timeout_ms.ceil() as i32,
                    )
                    .is_ok()
            } else {
                window.request_animation_frame(callback).is_ok()
            }
        });
        self.flush_scheduled.set_value(scheduled);
    }

    /// Appends the pending text (plain text, never HTML) to the current block, starting a
    /// new block after each line break that completes 4 KB or 256 lines, and at 8 KB in a
    /// longer line ([`plan_blocks`]). A frame appends at most its share ([`frame_share`]:
    /// 8 KB, 256 lines); the rest goes into the next frames, so a flood never makes one
    /// long frame. While the page is flooded ([`crate::flood`]) nothing is appended: the
    /// text waits for the flood's end.
    pub(crate) fn flush(&self) {
        let Some(node) = self.rest_node.get_untracked() else {
            // Not mounted yet (the pane appears with its first text): try next frame.
            if !self.pending.with_value(String::is_empty) {
                self.schedule_flush();
            }
            return;
        };
        let calm_in_ms = crate::flood::calm_in_ms(crate::clock::now_ms());
        if calm_in_ms > 0.0 {
            if !self.pending.with_value(String::is_empty) {
                self.schedule_flush_in(Some(calm_in_ms));
            }
            return;
        }
        let share = self
            .pending
            .try_update_value(|pending| {
                let share = frame_share(pending);
                if share == pending.len() {
                    std::mem::take(pending)
                } else {
                    let rest = pending.split_off(share);
                    std::mem::replace(pending, rest)
                }
            })
            .unwrap_or_default();
        if share.is_empty() {
            return;
        }
        let rest: web_sys::Element = node.into();
        let Some(blocks) = self.blocks_node.get_untracked() else {
            return;
        };
        let blocks: web_sys::Element = blocks.into();
        // Blocks closed in earlier frames have been laid out: their sizes are known.
        for block in self
            .unsettled
            .try_update_value(std::mem::take)
            .unwrap_or_default()
        {
            block.set_class_name("chunk settled");
        }
        let mut current = self.chunk.get_value().unwrap_or_else(|| rest.clone());
        // ttft-core decides the cuts: every line break that completes 4 KB starts a block,
        // however much text this frame brings.
        let plan = plan_blocks(self.chunk_len.get_value(), &share);
        for piece in &plan.pieces {
            if piece.new_block {
                if let Some(block) = new_block(&blocks) {
                    if !current.is_same_node(Some(&rest)) {
                        self.unsettled
                            .update_value(|unsettled| unsettled.push(current));
                    }
                    current = block;
                }
            }
            if !piece.text.is_empty() {
                let _ = current.append_with_str_1(piece.text);
            }
        }
        if !current.is_same_node(Some(&rest)) {
            self.chunk.set_value(Some(current));
        }
        self.chunk_len.set_value(plan.filled);
        if !self.pending.with_value(String::is_empty) {
            self.schedule_flush();
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lead.with(String::is_empty)
            && self.first.with(Option::is_none)
            && self.rest_len.get() == 0
    }
}

/// A new block (`<span class="chunk">`, a block box) at the end of `blocks`.
fn new_block(blocks: &web_sys::Element) -> Option<web_sys::Element> {
    let block = blocks.owner_document()?.create_element("span").ok()?;
    block.set_class_name("chunk");
    blocks.append_child(&block).ok()?;
    Some(block)
}
