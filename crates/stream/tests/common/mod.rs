//! Shared helpers of the fixture tests: load transcripts, oracles and replay plans, and run a
//! transcript through a [`StreamReader`] split in a given way. ttft-core's
//! tests/measure_engine.rs compiles this same file (`#[path]`): one source for both crates.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use ttft_stream::dialect::{Dialect, StreamReader, StreamSummary};

/// The shared transcripts (copied unchanged from the team's fixture set).
pub const SHARED_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/sse");
/// Transcripts written from docs/stream-formats.md where no recording was shared.
pub const EXTRA_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/sse/extra"
);

/// One transcript with its oracle entry.
pub struct Fixture {
    pub name: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub expected: Value,
    /// Read boundaries from `<stem>.chunks.json`, when the fixture has a replay plan.
    pub replay_reads: Option<Vec<(usize, usize)>>,
}

impl Fixture {
    pub fn dialect(&self) -> Dialect {
        self.expected["dialect"].as_str().unwrap().parse().unwrap()
    }
}

/// Every `*.sse` of `dir` with its EXPECTED.json entry; panics when a transcript has no entry
/// or an entry has no transcript, so no fixture is silently skipped.
pub fn load_fixtures(dir: &str) -> Vec<Fixture> {
    let dir = Path::new(dir);
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
    let oracle = oracle.as_object().unwrap();
    let mut fixtures = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|ext| ext.to_str()) != Some("sse") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let expected = oracle
            .get(&name)
            .unwrap_or_else(|| panic!("{name} has no oracle entry"))
            .clone();
        let plan_path = path.with_extension("chunks.json");
        let replay_reads = plan_path.exists().then(|| read_plan(&plan_path));
        let bytes = std::fs::read(&path).unwrap();
        fixtures.push(Fixture {
            name,
            path,
            bytes,
            expected,
            replay_reads,
        });
    }
    fixtures.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        fixtures.len(),
        oracle.len(),
        "every oracle entry needs a transcript in {dir:?}"
    );
    fixtures
}

/// A replay plan: `{"reads": [{"start", "end", "delay_ms_before"}]}` (delays are irrelevant to
/// what is extracted, so they are ignored here).
fn read_plan(path: &Path) -> Vec<(usize, usize)> {
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    plan["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|read| {
            (
                read["start"].as_u64().unwrap() as usize,
                read["end"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// Feeds `reads` in order and finishes.
pub fn run_reads<'a>(
    dialect: Option<Dialect>,
    reads: impl IntoIterator<Item = &'a [u8]>,
) -> StreamSummary {
    let mut reader = StreamReader::new(dialect);
    for read in reads {
        reader.on_bytes(read).unwrap();
    }
    reader.finish()
}

/// The three ways every transcript is fed: whole, byte by byte, and by its replay plan.
pub fn feeding_ways(fixture: &Fixture) -> Vec<(&'static str, Vec<&[u8]>)> {
    let mut ways = vec![
        ("whole", vec![fixture.bytes.as_slice()]),
        ("byte by byte", fixture.bytes.chunks(1).collect()),
    ];
    if let Some(reads) = &fixture.replay_reads {
        // The plan must cover the file exactly, or it would test less than it claims.
        assert_eq!(
            reads.first().map(|read| read.0),
            Some(0),
            "{}",
            fixture.name
        );
        assert_eq!(
            reads.last().map(|read| read.1),
            Some(fixture.bytes.len()),
            "{}",
            fixture.name
        );
        assert!(
            reads.windows(2).all(|pair| pair[0].1 == pair[1].0),
            "{}",
            fixture.name
        );
        ways.push((
            "replay plan",
            reads
                .iter()
                .map(|&(start, end)| &fixture.bytes[start..end])
                .collect(),
        ));
    }
    ways
}
