//! `ExportMetricsServiceRequest` bodies: explicit-bucket histograms with DELTA temporality,
//! one data point per metric and attribute set, and the run counter.

use serde_json::{json, Value};

use ttft_core::record::RunRecord;

use super::json::{object, u64_string, Attributes, AGGREGATION_TEMPORALITY_DELTA};
use super::names::{attr, InstrumentKind, MetricSpec, METRICS, RUNS, SCHEMA_URL, SCOPE_NAME};
use super::options::{ExportOptions, OtlpError};
use super::resource::ResourceFacts;
use super::run::{base_attributes, error_type, is_exportable, observations, Observation};

/// The time a delta covers, unix nanoseconds. Deltas of one series must follow each other:
/// each window starts where the previous one ended (a collector drops a point whose window
/// overlaps the previous one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaWindow {
    /// `startTimeUnixNano`.
    pub start_unix_nanos: u64,
    /// `timeUnixNano`.
    pub end_unix_nanos: u64,
}

/// One histogram data point being filled.
#[derive(Debug, Clone, PartialEq)]
struct HistogramPoint {
    /// `bucketCounts`: one more than the bounds; bucket `i` holds values in
    /// `(bounds[i-1], bounds[i]]`, the last one values above the last bound.
    bucket_counts: Vec<u64>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl HistogramPoint {
    fn new(bounds: &[f64]) -> HistogramPoint {
        HistogramPoint {
            bucket_counts: vec![0; bounds.len() + 1],
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    /// Records `value` `times` times (a histogram bin of inter-token gaps).
    fn record_times(&mut self, bounds: &[f64], value: f64, times: u64) {
        // Upper bounds are inclusive (metrics data model: `(bounds[i-1], bounds[i]]`).
        let bucket = bounds
            .iter()
            .position(|bound| value <= *bound)
            .unwrap_or(bounds.len());
        if let Some(slot) = self.bucket_counts.get_mut(bucket) {
            *slot += times;
        }
        self.count += times;
        self.sum += value * times as f64;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }
}

/// Points of one metric, one per attribute set, in the order first seen.
struct MetricPoints {
    spec: MetricSpec,
    histograms: Vec<(Attributes, HistogramPoint)>,
    counts: Vec<(Attributes, u64)>,
}

impl MetricPoints {
    fn new(spec: MetricSpec) -> MetricPoints {
        MetricPoints {
            spec,
            histograms: Vec::new(),
            counts: Vec::new(),
        }
    }

    fn observe(&mut self, attributes: &Attributes, value: f64, times: u64) {
        if self.spec.kind == InstrumentKind::Counter {
            // A counter adds what was counted (tokens): whole numbers.
            self.add(attributes, (value.round() as u64).saturating_mul(times));
            return;
        }
        let bounds = self.spec.bounds;
        let index = match self
            .histograms
            .iter()
            .position(|(existing, _)| existing == attributes)
        {
            Some(index) => index,
            None => {
                self.histograms
                    .push((attributes.clone(), HistogramPoint::new(bounds)));
                self.histograms.len() - 1
            }
        };
        if let Some((_, point)) = self.histograms.get_mut(index) {
            point.record_times(bounds, value, times);
        }
    }

    fn count(&mut self, attributes: &Attributes) {
        self.add(attributes, 1);
    }

    fn add(&mut self, attributes: &Attributes, amount: u64) {
        match self
            .counts
            .iter_mut()
            .find(|(existing, _)| existing == attributes)
        {
            Some((_, count)) => *count = count.saturating_add(amount),
            None => self.counts.push((attributes.clone(), amount)),
        }
    }

    fn is_empty(&self) -> bool {
        self.histograms.is_empty() && self.counts.is_empty()
    }

    fn to_json(&self, window: DeltaWindow) -> Value {
        let times = |attributes: &Attributes| {
            vec![
                ("attributes", attributes.to_json()),
                ("startTimeUnixNano", u64_string(window.start_unix_nanos)),
                ("timeUnixNano", u64_string(window.end_unix_nanos)),
            ]
        };
        let data = match self.spec.kind {
            InstrumentKind::Histogram => {
                let points: Vec<Value> = self
                    .histograms
                    .iter()
                    .map(|(attributes, point)| {
                        let mut fields = times(attributes);
                        fields.extend([
                            ("count", u64_string(point.count)),
                            ("sum", json!(point.sum)),
                            (
                                "bucketCounts",
                                Value::Array(
                                    point.bucket_counts.iter().map(|n| u64_string(*n)).collect(),
                                ),
                            ),
                            ("explicitBounds", json!(self.spec.bounds)),
                            ("min", json!(point.min)),
                            ("max", json!(point.max)),
                        ]);
                        object(fields)
                    })
                    .collect();
                (
                    "histogram",
                    json!({
                        "dataPoints": points,
                        "aggregationTemporality": AGGREGATION_TEMPORALITY_DELTA,
                    }),
                )
            }
            InstrumentKind::Counter => {
                let points: Vec<Value> = self
                    .counts
                    .iter()
                    .map(|(attributes, count)| {
                        let mut fields = times(attributes);
                        fields.push(("asInt", u64_string(*count)));
                        object(fields)
                    })
                    .collect();
                (
                    "sum",
                    json!({
                        "dataPoints": points,
                        "aggregationTemporality": AGGREGATION_TEMPORALITY_DELTA,
                        "isMonotonic": true,
                    }),
                )
            }
        };
        object(vec![
            ("name", json!(self.spec.name)),
            ("description", json!(self.spec.description)),
            ("unit", json!(self.spec.unit)),
            (data.0, data.1),
        ])
    }
}

/// The run counter's attributes for one run: the common ones, `error.type` when it failed,
/// the effective connection type, and with SLOs whether the run met them.
fn run_counter_attributes(
    record: &RunRecord,
    options: &ExportOptions,
    effective_type: Option<&str>,
) -> Attributes {
    let mut attributes = base_attributes(record, options.provider_name.as_deref());
    attributes
        .opt_str(attr::ERROR_TYPE, error_type(&record.outcome).as_deref())
        .opt_str(attr::NETWORK_EFFECTIVE_TYPE, effective_type);
    if let Some(slo) = &options.slo {
        attributes
            .bool(attr::SLO_MET, slo.run_meets(record))
            .str(attr::SLO_SPEC, slo.to_string());
    }
    attributes
}

/// The `ResourceMetrics` entry for `runs` over `window`; `None` when no run gives any value
/// (every run a warm-up, or never sent). Warm-up runs are left out, as from statistics.
pub fn resource_metrics(
    runs: &[RunRecord],
    resource: &ResourceFacts,
    window: DeltaWindow,
    options: &ExportOptions,
) -> Result<Option<Value>, OtlpError> {
    if window.end_unix_nanos < window.start_unix_nanos {
        return Err(OtlpError::WindowBackwards);
    }
    let effective_type = resource.effective_type();
    let mut metrics: Vec<MetricPoints> = METRICS.iter().copied().map(MetricPoints::new).collect();
    let mut add = |observation: &Observation| {
        if let Some(points) = metrics
            .iter_mut()
            .find(|points| points.spec.name == observation.metric.name)
        {
            points.observe(
                &observation.attributes,
                observation.value,
                observation.times,
            );
        }
    };
    let mut counted_runs = Vec::new();
    for record in runs {
        for observation in observations(
            record,
            options.provider_name.as_deref(),
            effective_type.as_deref(),
        ) {
            add(&observation);
        }
        if !record.warm_up && is_exportable(record) {
            counted_runs.push(run_counter_attributes(
                record,
                options,
                effective_type.as_deref(),
            ));
        }
    }
    if let Some(points) = metrics
        .iter_mut()
        .find(|points| points.spec.name == RUNS.name)
    {
        for attributes in &counted_runs {
            points.count(attributes);
        }
    }
    let metrics: Vec<Value> = metrics
        .iter()
        .filter(|points| !points.is_empty())
        .map(|points| points.to_json(window))
        .collect();
    if metrics.is_empty() {
        return Ok(None);
    }
    Ok(Some(json!({
        "resource": { "attributes": resource.attributes()?.to_json() },
        "scopeMetrics": [{
            "scope": { "name": SCOPE_NAME, "version": resource.service_version },
            "metrics": metrics,
            "schemaUrl": SCHEMA_URL,
        }],
        "schemaUrl": SCHEMA_URL,
    })))
}

/// A whole `ExportMetricsServiceRequest` for `runs` (see [`resource_metrics`]), as the JSON
/// text to POST to `/v1/metrics`; `None` when there is nothing to send.
pub fn metrics_request(
    runs: &[RunRecord],
    resource: &ResourceFacts,
    window: DeltaWindow,
    options: &ExportOptions,
) -> Result<Option<String>, OtlpError> {
    Ok(resource_metrics(runs, resource, window, options)?
        .map(|entry| json!({ "resourceMetrics": [entry] }).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_on_a_bound_go_in_the_bucket_that_bound_closes() {
        let bounds = [0.01, 0.02, 0.04];
        let mut point = HistogramPoint::new(&bounds);
        for value in [0.0, 0.01, 0.015, 0.04, 0.5] {
            point.record_times(&bounds, value, 1);
        }
        assert_eq!(point.bucket_counts, vec![2, 1, 1, 1]);
        assert_eq!(point.count, 5);
        assert_eq!((point.min, point.max), (0.0, 0.5));
    }
}
