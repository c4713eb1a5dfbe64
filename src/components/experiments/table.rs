//! A plain table of strings: a report's table, the list of past experiments.

use leptos::prelude::*;

/// Headers and rows of cells, already in the page's language.
#[component]
pub(super) fn DataTable(
    /// Test id.
    testid: &'static str,
    /// Column headers.
    headers: Vec<String>,
    /// Cells, row by row.
    rows: Vec<Vec<String>>,
) -> impl IntoView {
    view! {
        <div class="table-scroll">
            <table class="experiment" data-testid=testid>
                <thead>
                    <tr>{headers.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|row| view! { <tr>{row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr> })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
