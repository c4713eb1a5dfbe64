//! Each chart's download buttons (SVG, PNG) and its data as a table.
//!
//! The SVG is serialized with the computed styles of every element inlined, because the
//! page's stylesheet (and its dark theme) does not travel with a downloaded file. PNG is that
//! SVG drawn on a canvas at twice the size.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use ttft_core::text::Text;

use crate::texts as t;
use crate::views::download::{download, download_blob};
use ttft_web::i18n::use_i18n;

/// Style properties copied into the file: what the stylesheet sets on chart elements.
const INLINED_PROPERTIES: [&str; 13] = [
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "stroke-linecap",
    "stroke-dasharray",
    "stroke-opacity",
    "opacity",
    "font-family",
    "font-size",
    "font-weight",
    "text-anchor",
    "dominant-baseline",
];

/// The PNG's scale over the SVG's view box (sharp on high-density screens).
const PNG_SCALE: f64 = 2.0;

fn chart_svg(test_id: &str) -> Option<web_sys::Element> {
    web_sys::window()?
        .document()?
        .query_selector(&format!("[data-testid='{test_id}'] svg"))
        .ok()
        .flatten()
}

/// Sets one style property through the CSSOM: a strict Content-Security-Policy
/// (`style-src 'self'`) refuses `style` attributes but not `element.style.setProperty`.
fn set_style(element: &web_sys::Element, name: &str, value: &str) {
    if let Ok(style) = js_sys::Reflect::get(element, &"style".into()) {
        let _ = style
            .unchecked_into::<web_sys::CssStyleDeclaration>()
            .set_property(name, value);
    }
}

/// Copies the computed style of `source` and its descendants onto `copy` (same shape).
fn inline_styles(window: &web_sys::Window, source: &web_sys::Element, copy: &web_sys::Element) {
    if let Ok(Some(computed)) = window.get_computed_style(source) {
        for name in INLINED_PROPERTIES {
            if let Ok(value) = computed.get_property_value(name) {
                if !value.is_empty() {
                    set_style(copy, name, &value);
                }
            }
        }
    }
    let sources = source.children();
    let copies = copy.children();
    for index in 0..sources.length() {
        if let (Some(source), Some(copy)) = (sources.item(index), copies.item(index)) {
            inline_styles(window, &source, &copy);
        }
    }
}

/// Height of the legend row added under a chart in downloaded files.
const LEGEND_HEIGHT_PX: f64 = 22.0;

/// Copies the figure's HTML legend (series names in their colours) into the SVG copy, as a
/// row under the chart, since a file has no page around it. Returns the height added.
fn append_legend(
    window: &web_sys::Window,
    svg: &web_sys::Element,
    copy: &web_sys::Element,
    width_px: f64,
    chart_height_px: f64,
) -> f64 {
    let (Some(document), Ok(Some(figure))) = (window.document(), svg.closest("figure")) else {
        return 0.0;
    };
    let Ok(items) = figure.query_selector_all(".legend li") else {
        return 0.0;
    };
    let mut x_px = 8.0;
    for index in 0..items.length() {
        let Some(item) = items
            .item(index)
            .and_then(|node| node.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let label = item.text_content().unwrap_or_default();
        let colour = window
            .get_computed_style(&item)
            .ok()
            .flatten()
            .and_then(|style| style.get_property_value("color").ok())
            .unwrap_or_default();
        let Ok(text) = document.create_element_ns(Some("http://www.w3.org/2000/svg"), "text")
        else {
            continue;
        };
        let _ = text.set_attribute("x", &x_px.to_string());
        let _ = text.set_attribute("y", &(chart_height_px + 15.0).to_string());
        set_style(&text, "fill", &colour);
        set_style(&text, "font", "600 12px system-ui, sans-serif");
        text.set_text_content(Some(&format!("— {label}")));
        let _ = copy.append_child(&text);
        // A rough advance at 12 px: Latin letters about 7 px, CJK characters a full em.
        let label_px: f64 = label
            .chars()
            .map(|character| if character.is_ascii() { 7.0 } else { 12.5 })
            .sum();
        x_px += label_px + 36.0;
        if x_px > width_px {
            break;
        }
    }
    if items.length() == 0 {
        0.0
    } else {
        LEGEND_HEIGHT_PX
    }
}

/// The chart as a standalone SVG document, with its size in px.
fn serialize(test_id: &str) -> Option<(String, f64, f64)> {
    let window = web_sys::window()?;
    let svg = chart_svg(test_id)?;
    let copy = svg
        .clone_node_with_deep(true)
        .ok()?
        .dyn_into::<web_sys::Element>()
        .ok()?;
    inline_styles(&window, &svg, &copy);
    let view_box: Vec<f64> = svg
        .get_attribute("viewBox")?
        .split_whitespace()
        .filter_map(|number| number.parse().ok())
        .collect();
    let (width_px, chart_height_px) = (*view_box.get(2)?, *view_box.get(3)?);
    let height_px =
        chart_height_px + append_legend(&window, &svg, &copy, width_px, chart_height_px);
    let _ = copy.set_attribute("viewBox", &format!("0 0 {width_px} {height_px}"));
    let _ = copy.set_attribute("xmlns", "http://www.w3.org/2000/svg");
    let _ = copy.set_attribute("width", &width_px.to_string());
    let _ = copy.set_attribute("height", &height_px.to_string());
    // A background, so the file reads the same on any viewer (the page's panel colour).
    let background = window
        .get_computed_style(&svg.closest(".panel").ok()??)
        .ok()??
        .get_property_value("background-color")
        .ok()?;
    set_style(&copy, "background", &background);
    let text = web_sys::XmlSerializer::new()
        .ok()?
        .serialize_to_string(&copy)
        .ok()?;
    Some((text, width_px, height_px))
}

fn download_svg(test_id: &str) {
    if let Some((text, ..)) = serialize(test_id) {
        download(&format!("{test_id}.svg"), "image/svg+xml", &text);
    }
}

/// Draws the SVG on a canvas once it loaded as an image, then downloads the canvas.
fn download_png(test_id: &str) -> Option<()> {
    let (text, width_px, height_px) = serialize(test_id)?;
    let document = web_sys::window()?.document()?;
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let image = web_sys::HtmlImageElement::new().ok()?;
    let canvas = document
        .create_element("canvas")
        .ok()?
        .dyn_into::<web_sys::HtmlCanvasElement>()
        .ok()?;
    canvas.set_width((width_px * PNG_SCALE) as u32);
    canvas.set_height((height_px * PNG_SCALE) as u32);
    let file_name = format!("{test_id}.png");
    let loaded_image = image.clone();
    let on_load = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
        let Some(context) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|context| context.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let _ = context.draw_image_with_html_image_element_and_dw_and_dh(
            &loaded_image,
            0.0,
            0.0,
            width_px * PNG_SCALE,
            height_px * PNG_SCALE,
        );
        let on_blob = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
            if let Some(blob) = blob {
                download_blob(&file_name, &blob);
            }
        });
        let _ = canvas.to_blob(on_blob.unchecked_ref());
    });
    image.set_onload(Some(on_load.unchecked_ref()));
    image.set_src(&web_sys::Url::create_object_url_with_blob(&blob).ok()?);
    Some(())
}

/// Rows a chart's data table shows: an ITL table of a 100,000-token stream would otherwise
/// put 100,000 rows into the page (the export has them all).
const MAX_TABLE_ROWS: usize = 500;

/// A column named by a metric's name (`ttfa_ms`), which reads the same in both languages.
pub(crate) const fn untranslated(name: &'static str) -> Text {
    Text::same(name)
}

/// Under a chart: SVG and PNG downloads, and the chart's data as a table.
#[component]
pub fn ChartTools(
    /// The chart figure's `data-testid` (also the file name).
    test_id: &'static str,
    /// Column headers.
    headers: Vec<Text>,
    /// The rows, already formatted.
    rows: Signal<Vec<Vec<String>>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let head = headers
        .into_iter()
        .map(|header| view! { <th scope="col">{move || i18n.t(header)}</th> })
        .collect_view();
    view! {
        <div class="chart-tools">
            <button type="button" class="small" data-testid=format!("{test_id}-svg") on:click=move |_| download_svg(test_id)>
                {move || i18n.t(t::DOWNLOAD_SVG)}
            </button>
            <button type="button" class="small" data-testid=format!("{test_id}-png") on:click=move |_| { download_png(test_id); }>
                {move || i18n.t(t::DOWNLOAD_PNG)}
            </button>
            <details class="chart-data">
                <summary>{move || i18n.t(t::DATA_TABLE)}</summary>
                <div class="table-scroll">
                    <table data-testid=format!("{test_id}-table")>
                        <thead><tr>{head}</tr></thead>
                        <tbody>
                            {move || rows.with(|rows| rows.iter().take(MAX_TABLE_ROWS).cloned().collect::<Vec<_>>()).into_iter().map(|cells| view! {
                                <tr>{cells.into_iter().map(|cell| view! { <td>{cell}</td> }).collect_view()}</tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                {move || {
                    let total = rows.with(Vec::len);
                    (total > MAX_TABLE_ROWS).then(|| view! {
                        <p class="meta">
                            {i18n.fill(t::CHART_TABLE_FIRST_ROWS, &[("max_table_rows", &MAX_TABLE_ROWS), ("total", &total)])}
                        </p>
                    })
                }}
            </details>
        </div>
    }
}
