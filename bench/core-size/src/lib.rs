//! One exported function over a static buffer that uses what the app uses of ttft-core, and,
//! per feature, the otlp / slo / share modules as the page will: so the size difference
//! between builds is what each module costs when it ships.
use ttft_core::lang::Lang;
use ttft_core::record::RunRecord;

static mut BUFFER: [u8; 1 << 16] = [0; 1 << 16];

fn input(len: usize) -> Vec<u8> {
    // SAFETY: single-threaded wasm; the host writes `len` bytes before calling.
    let buffer = unsafe { &*std::ptr::addr_of!(BUFFER) };
    buffer[..len.min(1 << 16)].to_vec()
}

fn text(len: usize) -> String {
    String::from_utf8(input(len)).unwrap_or_default()
}

#[no_mangle]
pub extern "C" fn buffer() -> *mut u8 {
    std::ptr::addr_of_mut!(BUFFER).cast()
}

#[no_mangle]
pub extern "C" fn run(len: usize) -> usize {
    let Ok(runs) = serde_json::from_slice::<Vec<RunRecord>>(&input(len)) else {
        return 0;
    };
    // The baseline: what the app already does with ttft-core and serde_json.
    let mut total = serde_json::to_vec(&runs).map_or(0, |json| json.len());
    let first = runs.first().map_or(0.0, |run| run.instants.request_started);
    total += format!("{first:.1} {first} {:?}", runs.first().map(|run| &run.outcome)).len();
    total += serde_json::to_value(&runs).map_or(0, |value| value.to_string().len());
    total += ttft_core::export::summary_text(&runs, Lang::Zh).map_or(0, |text| text.len());
    total += ttft_core::export::runs_csv(&runs, ttft_core::export::CsvHeader::WithPeerNames).len();
    if let Ok(document) = ttft_core::export::ExportDocument::from_json(&text(len)) {
        total += document.to_json().map_or(0, |json| json.len());
    }
    total += text(len).parse::<f64>().map_or(0, |value| value as usize);

    #[cfg(feature = "slo")]
    match ttft_lab::slo::SloSet::parse(&text(len)) {
        Ok(slo) => total += slo.evaluate(&runs).good_run_count,
        Err(error) => total += error.message(Lang::Zh).len(),
    }
    #[cfg(feature = "otlp")]
    {
        use ttft_lab::otlp::*;
        let resource = ResourceFacts {
            service_name: String::new(),
            service_version: String::new(),
            service_instance_id: text(len),
            page_origin: String::new(),
            user_agent: text(len),
            brands: vec![],
            platform: None,
            mobile: None,
            language: None,
            connection: None,
            cross_origin_isolated: false,
        };
        let clock = WallClock { time_origin_unix_ms: first };
        let mut exporter =
            OtlpExporter::new(resource, clock, ExportOptions::default(), QueueConfig::default());
        for (n, run) in runs.iter().enumerate() {
            if let (Ok(trace_id), Ok(span_id)) =
                (TraceId::from_bytes([n as u8; 16]), SpanId::from_bytes([n as u8; 8]))
            {
                let _ = exporter.record_run(run.clone(), RunIds { trace_id, span_id });
            }
        }
        if let Ok(Some(request)) = exporter.poll(first, false) {
            total += request.body.len();
            #[cfg(feature = "queue")]
            {
                let outcome = SendOutcome::Response {
                    status: len as u16,
                    retry_after: None,
                    body: text(len),
                };
                if let Delivery::WillRetry { problem, .. } | Delivery::Dropped { problem } =
                    exporter.on_outcome(request.id, &outcome, first, 0.5)
                {
                    let context = ProblemContext {
                        endpoint: String::new(),
                        page_origin: String::new(),
                    };
                    total += problem.message(Lang::Zh, &context).len();
                }
                total += exporter.flush_on_pagehide(first).map_or(0, |flushed| flushed.len());
                if let Ok(endpoint) = OtlpEndpoint::parse(&text(len), None) {
                    total += endpoint.base_url().len();
                }
                match OtlpHeaders::parse(&text(len)) {
                    Ok(headers) => total += headers.pairs().len(),
                    Err(error) => total += error.message(Lang::Zh).len(),
                }
            }
        }
    }
    #[cfg(feature = "share")]
    {
        use ttft_lab::share::*;
        let shared = SharedResults {
            tool_version: String::new(),
            created_at: String::new(),
            host: None,
            model: None,
            protocol: None,
            environment: None,
            slo: None,
            prompt: None,
            runs: runs.iter().map(SharedRun::from_record).collect(),
        };
        match encode_fitting(&shared, MAX_FRAGMENT_BYTES) {
            Ok((fragment, _)) => total += decode(&fragment).map_or(0, |back| back.runs.len()),
            Err(error) => total += error.message(Lang::Zh).len(),
        }
    }
    total
}
