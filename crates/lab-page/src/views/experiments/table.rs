//! A plain table of strings: a report's table, the list of past experiments.

use leptos::prelude::*;

/// A table with test id `testid`: headers and rows of cells, already in the page's
/// language. `verdicts`, when given, puts each row's verdict codes on it (`data-verdict`:
/// the first; `data-verdicts`: all, space-separated).
pub(super) fn data_table(
    testid: &'static str,
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    verdicts: Vec<(String, String)>,
) -> impl IntoView {
    let mut verdicts = verdicts.into_iter();
    view! {
        <div class="table-scroll">
            <table class="experiment" data-testid=testid>
                <thead>
                    <tr>{headers.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|row| {
                            let (first, all) = verdicts.next().unzip();
                            view! {
                                <tr data-verdict=first data-verdicts=all>
                                    {row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
