//! The display-neutral report of an experiment: what one generic view draws.
//!
//! A [`Report`] holds verdict sentences (with stable codes for `data-*` attributes and
//! tests), notes on method (where token counts came from, calibration requests, clipped
//! sizes, how a cache hit was judged), exact figures (for `data-*` attributes), one table
//! (columns with units, rows of cells) and one chart (series of points, reference lines,
//! fitted curves, colours named by meaning). Texts are in both languages ([`Bilingual`]); cells
//! format themselves ([`Cell::display`]), so the view only places strings.

use serde::{Deserialize, Serialize};

use super::sizing::CountSource;
use crate::chart;
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::{Fit, Summary};

/// The same text in both languages (a model name, a number, a metric's code).
pub fn same_text(text: impl Into<String>) -> Bilingual {
    let text = text.into();
    Bilingual::new(text.clone(), text)
}

/// One conclusion: a sentence saying what the numbers mean and what to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Stable code (`near_linear`, `cache_works`): for `data-*` attributes and tests.
    pub code: String,
    /// The sentence.
    pub text: Bilingual,
}

/// An exact value of the report, for machines (`data-<key>` attributes, exports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Attribute name without `data-` (`slope-ms-per-token`).
    pub key: String,
    /// The value.
    pub value: FigureValue,
}

/// A figure's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FigureValue {
    /// A number (full precision).
    Number(f64),
    /// A yes/no.
    Flag(bool),
    /// A word or list ("sim-fast sim-linear-prefill").
    Word(String),
}

impl FigureValue {
    /// As an attribute value.
    pub fn attribute(&self) -> String {
        match self {
            FigureValue::Number(value) => value.to_string(),
            FigureValue::Flag(value) => value.to_string(),
            FigureValue::Word(value) => value.clone(),
        }
    }
}

/// The unit of a column or an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// No unit (names, labels).
    None,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// Milliseconds per 1,000 tokens.
    MsPer1kTokens,
    /// Tokens.
    Tokens,
    /// A count of runs, waves or streams.
    Count,
    /// A share in [0, 1], shown as a percentage.
    Share,
    /// A ratio of two values of the same unit.
    Ratio,
}

impl Unit {
    /// The symbol put after a column's label ("p50 ms"); `None` when the label says it.
    pub fn symbol(self) -> Option<&'static str> {
        match self {
            Unit::Ms => Some("ms"),
            Unit::S => Some("s"),
            Unit::MsPer1kTokens => Some("ms / 1k tokens"),
            Unit::None | Unit::Tokens | Unit::Count | Unit::Share | Unit::Ratio => None,
        }
    }
}

/// A table column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Label.
    pub label: Bilingual,
    /// Unit of its cells.
    pub unit: Unit,
}

impl Column {
    /// A column.
    pub fn new(label: Bilingual, unit: Unit) -> Column {
        Column { label, unit }
    }

    /// The header: label and unit symbol ("p50 ms").
    pub fn header(&self, lang: Lang) -> String {
        match self.unit.symbol() {
            Some(symbol) => format!("{} {symbol}", self.label.get(lang)),
            None => self.label.get(lang).to_owned(),
        }
    }
}

/// A table cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Cell {
    /// No value ("—").
    Empty,
    /// A number shown with a fixed number of decimals.
    Number {
        /// The value.
        value: f64,
        /// Decimals shown.
        decimals: u8,
    },
    /// A whole number.
    Count(u64),
    /// A share in [0, 1], shown as a rounded percentage.
    Share(f64),
    /// Yes or no.
    Flag(bool),
    /// Text.
    Text(Bilingual),
}

impl Cell {
    /// Milliseconds, rounded to whole ms.
    pub fn ms(value: Option<f64>) -> Cell {
        Cell::number(value, 0)
    }

    /// A number with `decimals`, or empty.
    pub fn number(value: Option<f64>, decimals: u8) -> Cell {
        match value.filter(|v| v.is_finite()) {
            Some(value) => Cell::Number { value, decimals },
            None => Cell::Empty,
        }
    }

    /// A whole number.
    pub fn count(value: usize) -> Cell {
        Cell::Count(value as u64)
    }

    /// A share, or empty.
    pub fn share(value: Option<f64>) -> Cell {
        value
            .filter(|v| v.is_finite())
            .map_or(Cell::Empty, Cell::Share)
    }

    /// The same text in both languages.
    pub fn word(text: impl Into<String>) -> Cell {
        Cell::Text(same_text(text))
    }

    /// The cell as shown.
    pub fn display(&self, lang: Lang) -> String {
        match self {
            Cell::Empty => "—".into(),
            Cell::Number { value, decimals } => {
                format!("{value:.prec$}", prec = *decimals as usize)
            }
            Cell::Count(value) => value.to_string(),
            Cell::Share(value) => format!("{:.0}%", value * 100.0),
            Cell::Flag(value) => {
                let text = if *value { t::CELL_YES } else { t::CELL_NO };
                text.get(lang).to_owned()
            }
            Cell::Text(text) => text.get(lang).to_owned(),
        }
    }
}

/// The report's table (the chart's data and the analysis, one row per level).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// The five summary columns: p50, p95, p99, min, max (ms).
    pub fn summary_columns() -> Vec<Column> {
        ["p50", "p95", "p99", "min", "max"]
            .into_iter()
            .map(|name| Column::new(same_text(name), Unit::Ms))
            .collect()
    }

    /// The cells of [`Table::summary_columns`] for `summary`.
    pub fn summary_cells(summary: Option<&Summary>) -> Vec<Cell> {
        match summary {
            Some(s) => [s.p50, s.p95, s.p99, s.min, s.max]
                .into_iter()
                .map(|value| Cell::ms(Some(value)))
                .collect(),
            None => vec![Cell::Empty; 5],
        }
    }
}

/// A colour by meaning; the view maps each to its palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// Measured runs.
    Measured,
    /// A fitted curve.
    Fit,
    /// A second fitted curve.
    SecondFit,
    /// A limit or threshold.
    Limit,
    /// Median.
    Median,
    /// 95th percentile.
    Tail,
    /// 99th percentile.
    FarTail,
    /// Cold-cache runs.
    Cold,
    /// Warm-cache runs.
    Warm,
    /// Runs with a changed first token.
    Changed,
    /// Reasoning.
    Reasoning,
    /// Answer.
    Answer,
    /// The n-th of several peers (models, limits), from 0.
    Category(u8),
}

impl Colour {
    /// Stable code, for CSS classes (`category-2`).
    pub fn code(self) -> String {
        match self {
            Colour::Measured => "measured".into(),
            Colour::Fit => "fit".into(),
            Colour::SecondFit => "second-fit".into(),
            Colour::Limit => "limit".into(),
            Colour::Median => "median".into(),
            Colour::Tail => "tail".into(),
            Colour::FarTail => "far-tail".into(),
            Colour::Cold => "cold".into(),
            Colour::Warm => "warm".into(),
            Colour::Changed => "changed".into(),
            Colour::Reasoning => "reasoning".into(),
            Colour::Answer => "answer".into(),
            Colour::Category(index) => format!("category-{index}"),
        }
    }

    /// The n-th category colour (wrapping past 255).
    pub fn category(index: usize) -> Colour {
        Colour::Category((index % 256) as u8)
    }
}

/// How the chart lays out x.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// x is a measured quantity (prompt tokens, streams): markers, optional fitted curves.
    Scatter,
    /// x is the order (repetition, run): lines through the values, gaps where missing.
    Sequence,
}

/// A chart axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Label.
    pub label: Bilingual,
    /// Unit.
    pub unit: Unit,
    /// For a token axis: where its counts came from (the weakest source of its points).
    pub counts: Option<CountSource>,
}

impl Axis {
    /// An axis of `unit`.
    pub fn new(label: Bilingual, unit: Unit) -> Axis {
        Axis {
            label,
            unit,
            counts: None,
        }
    }

    /// A token axis whose counts came from `source`; its label says so.
    pub fn tokens(label: Bilingual, source: CountSource) -> Axis {
        Axis {
            label: counted_label(&label, source),
            unit: Unit::Tokens,
            counts: Some(source),
        }
    }
}

/// `label` with where its token counts came from: "prompt tokens (server tokenizer)".
pub fn counted_label(label: &Bilingual, source: CountSource) -> Bilingual {
    Bilingual::from_fn(|lang| {
        t::COUNTED_LABEL.fill(
            lang,
            &[
                ("label", &label.get(lang)),
                ("source", &source.label().get(lang)),
            ],
        )
    })
}

/// One series of a chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Name (legend).
    pub name: Bilingual,
    /// Colour.
    pub colour: Colour,
    /// Scatter: (x, y) of every point. Sequence: y in order ([`Series::values`]).
    pub points: Vec<(f64, f64)>,
    /// Sequence: one value per position, `None` for a gap.
    pub values: Vec<Option<f64>>,
}

impl Series {
    /// A scatter series.
    pub fn points(name: Bilingual, colour: Colour, points: Vec<(f64, f64)>) -> Series {
        Series {
            name,
            colour,
            points,
            values: Vec::new(),
        }
    }

    /// A sequence series.
    pub fn values(name: Bilingual, colour: Colour, values: Vec<Option<f64>>) -> Series {
        Series {
            name,
            colour,
            points: Vec::new(),
            values,
        }
    }
}

/// A horizontal reference line (a threshold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceMark {
    /// Name.
    pub name: Bilingual,
    /// Value on the y axis.
    pub value: f64,
    /// Colour.
    pub colour: Colour,
}

/// A fitted curve over a scatter chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitLine {
    /// Name.
    pub name: Bilingual,
    /// Coefficients.
    pub fit: chart::Fit,
    /// Colour.
    pub colour: Colour,
    /// Drawn dashed.
    pub dashed: bool,
}

impl FitLine {
    /// A curve from a statistics fit (linear when its quadratic term is 0).
    pub fn from_fit(name: Bilingual, fit: &Fit, colour: Colour, dashed: bool) -> FitLine {
        let fit = if fit.quadratic == 0.0 {
            chart::Fit::Linear {
                a: fit.intercept,
                b: fit.slope,
            }
        } else {
            chart::Fit::Quadratic {
                a: fit.intercept,
                b: fit.slope,
                c: fit.quadratic,
            }
        };
        FitLine {
            name,
            fit,
            colour,
            dashed,
        }
    }
}

/// The report's chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Caption.
    pub title: Bilingual,
    /// Layout.
    pub kind: ChartKind,
    /// x axis.
    pub x: Axis,
    /// y axis.
    pub y: Axis,
    /// Series.
    pub series: Vec<Series>,
    /// Reference lines.
    pub references: Vec<ReferenceMark>,
    /// Fitted curves (scatter charts).
    pub fits: Vec<FitLine>,
}

/// How many requests the experiment made, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTally {
    /// Measured runs recorded (priming runs included).
    pub measured: usize,
    /// Of those, failed (or without a TTFT).
    pub failed: usize,
    /// Of those, priming runs (not in any statistic).
    pub priming: usize,
    /// Counting requests of the calibration (not measured runs).
    pub calibration_requests: usize,
    /// Runs planned.
    pub planned: usize,
}

/// What one experiment measured and concluded, ready to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The experiment's code.
    pub experiment: String,
    /// The conclusions, most important first.
    pub verdicts: Vec<Verdict>,
    /// Notes on method and on numbers (prefill cost, sizing, clipping, evidence).
    pub notes: Vec<Bilingual>,
    /// Exact values for machines.
    pub figures: Vec<Figure>,
    /// The table.
    pub table: Table,
    /// The chart.
    pub chart: Option<Chart>,
    /// Requests made.
    pub tally: RunTally,
}

impl Report {
    /// An empty report of `experiment`.
    pub fn new(experiment: &str) -> Report {
        Report {
            experiment: experiment.to_owned(),
            verdicts: Vec::new(),
            notes: Vec::new(),
            figures: Vec::new(),
            table: Table::default(),
            chart: None,
            tally: RunTally::default(),
        }
    }

    /// Adds a verdict.
    pub fn verdict(&mut self, code: &str, text: Bilingual) {
        self.verdicts.push(Verdict {
            code: code.to_owned(),
            text,
        });
    }

    /// Adds a number figure when it is present and finite.
    pub fn number(&mut self, key: &str, value: Option<f64>) {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            self.figures.push(Figure {
                key: key.to_owned(),
                value: FigureValue::Number(value),
            });
        }
    }

    /// Adds a count figure when present.
    pub fn count(&mut self, key: &str, value: Option<usize>) {
        self.number(key, value.map(|v| v as f64));
    }

    /// Adds a flag figure.
    pub fn flag(&mut self, key: &str, value: bool) {
        self.figures.push(Figure {
            key: key.to_owned(),
            value: FigureValue::Flag(value),
        });
    }

    /// Adds a word figure.
    pub fn word(&mut self, key: &str, value: impl Into<String>) {
        self.figures.push(Figure {
            key: key.to_owned(),
            value: FigureValue::Word(value.into()),
        });
    }

    /// The figure `key`, if present.
    pub fn figure(&self, key: &str) -> Option<&FigureValue> {
        self.figures
            .iter()
            .find(|figure| figure.key == key)
            .map(|figure| &figure.value)
    }

    /// The code of the first verdict ("" when none).
    pub fn first_verdict_code(&self) -> &str {
        self.verdicts.first().map_or("", |v| v.code.as_str())
    }

    /// Every verdict code, in order.
    pub fn verdict_codes(&self) -> Vec<&str> {
        self.verdicts.iter().map(|v| v.code.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_headers_format_as_the_tables_did() {
        assert_eq!(Cell::ms(Some(249.6)).display(Lang::En), "250");
        assert_eq!(Cell::ms(None).display(Lang::En), "—");
        assert_eq!(Cell::ms(Some(f64::NAN)).display(Lang::En), "—");
        assert_eq!(Cell::number(Some(512.04), 1).display(Lang::En), "512.0");
        assert_eq!(Cell::share(Some(0.992)).display(Lang::En), "99%");
        assert_eq!(Cell::Flag(true).display(Lang::Zh), "是");
        assert_eq!(Cell::count(7).display(Lang::En), "7");
        assert_eq!(
            Column::new(same_text("p50"), Unit::Ms).header(Lang::Zh),
            "p50 ms"
        );
        assert_eq!(
            Column::new(t::RUNS.bilingual(), Unit::Count).header(Lang::Zh),
            "次数"
        );
        let axis = Axis::tokens(t::PROMPT_TOKENS.bilingual(), CountSource::ServerTokenizer);
        assert_eq!(axis.label.en, "prompt tokens (server tokenizer)");
        assert_eq!(axis.label.zh, "提示 token（服务器分词器）");
        assert_eq!(Colour::category(2).code(), "category-2");
    }

    #[test]
    fn figures_skip_missing_values() {
        let mut report = Report::new("x");
        report.number("a", None);
        report.number("b", Some(f64::INFINITY));
        report.number("c", Some(0.5));
        report.flag("d", true);
        assert_eq!(report.figures.len(), 2);
        assert_eq!(
            report.figure("c").map(FigureValue::attribute),
            Some("0.5".into())
        );
        assert_eq!(
            report.figure("d").map(FigureValue::attribute),
            Some("true".into())
        );
    }
}
