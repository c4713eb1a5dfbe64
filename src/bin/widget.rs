//! The lean widget's entry point (the page's `index.html`): installs the crash banner, then
//! starts the page ([`ttft_meter::widget::start`]: the lab, or the widget mounted). The lab
//! (`lab/`) is `src/main.rs`.

fn main() {
    ttft_meter::crash::install();
    ttft_meter::widget::start();
}
