//! The widget's entry point (the page's `index.html`): installs the crash banner, then starts
//! the page ([`ttft_widget::start`]: the lab, or the widget mounted).

fn main() {
    ttft_web::crash::install();
    ttft_widget::start();
}
