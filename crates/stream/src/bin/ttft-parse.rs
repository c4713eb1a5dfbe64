//! `ttft-parse`: decode a captured LLM stream (for example saved with `curl -N … > run.sse`)
//! and print what TTFT Meter extracts from it, as JSON with the field names of the fixtures'
//! EXPECTED.json (plus `outcome` and `malformed_event_count`).

use std::io::{self, Read, Write};
use std::process::ExitCode;

use ttft_stream::dialect::{Dialect, Outcome, StreamReader, StreamSummary};

const HELP: &str = "\
ttft-parse: decode a captured LLM streaming response (SSE) and print what it contains.

USAGE:
    ttft-parse [--dialect NAME|auto] [FILE]
    curl -N ... | ttft-parse [--dialect NAME|auto]

ARGS:
    FILE    the raw response body; read from standard input when absent or `-`

OPTIONS:
    --dialect NAME|auto   one of chat, chat+think, chat+think_missing_open,
                          chat+gemini_thought, anthropic, responses; default auto
                          (auto finds chat+think_missing_open only when the
                          closing </think> arrives)
    -h, --help            print this help

OUTPUT:
    JSON on standard output: first_reasoning_event, first_reasoning_event_visible,
    reasoning_text, first_answer_event, first_answer_event_visible, answer_text, dialect,
    event_count, comment_count, event_names, last_event_id, retry_ms, usage, error,
    finish_reason, terminal_marker_seen, outcome, malformed_event_count.
    Event indices are 0-based and count every dispatched SSE event.

EXIT CODES:
    0  the stream completed (terminal marker seen, no error)
    1  the input could not be read, or the output could not be written
    2  bad command line
    3  the stream reported an error (even if a terminal marker followed)
    4  the stream ended without its terminal marker
    5  the input contained no SSE event at all
    6  a line or an event passed the 1 MiB limit (reading stopped there; the
       message is on standard error)
";

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Parse {
        dialect: Option<Dialect>,
        path: Option<String>,
    },
}

/// A command-line mistake, reported with the help hint and exit code 2.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum UsageError {
    #[error("--dialect needs a value (a dialect name or auto)")]
    MissingDialect,
    #[error(transparent)]
    UnknownDialect(#[from] ttft_stream::dialect::UnknownDialect),
    #[error("unknown option {0}")]
    UnknownOption(String),
    #[error("only one input file can be given (got {0} and {1})")]
    TwoFiles(String, String),
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Command, UsageError> {
    let mut dialect = None;
    let mut path: Option<String> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let dialect_value = match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--dialect" => Some(args.next().ok_or(UsageError::MissingDialect)?),
            _ => arg.strip_prefix("--dialect=").map(str::to_owned),
        };
        if let Some(value) = dialect_value {
            dialect = if value == "auto" {
                None
            } else {
                Some(value.parse()?)
            };
        } else if arg.starts_with('-') && arg != "-" {
            return Err(UsageError::UnknownOption(arg));
        } else if let Some(first) = path.replace(arg.clone()) {
            return Err(UsageError::TwoFiles(first, arg));
        }
    }
    Ok(Command::Parse {
        dialect,
        path: path.filter(|path| path != "-"),
    })
}

/// Feeds the input to the reader in reads of at most 64 KiB, as they arrive, so a live pipe
/// from `curl -N` works too. A line past the limit stops reading (it is said on standard
/// error; the summary's outcome says `line_too_long`).
fn read_stream(mut input: impl Read, dialect: Option<Dialect>) -> io::Result<StreamSummary> {
    let mut reader = StreamReader::new(dialect);
    let mut buffer = vec![0_u8; 64 * 1024];
    loop {
        match input.read(&mut buffer) {
            Ok(0) => return Ok(reader.finish()),
            Ok(read_len) => {
                if let Err(error) = reader.on_bytes_into(&buffer[..read_len], &mut Vec::new()) {
                    let _ = writeln!(io::stderr().lock(), "ttft-parse: {error}");
                    return Ok(reader.finish());
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}

fn exit_code(outcome: Outcome) -> ExitCode {
    ExitCode::from(match outcome {
        Outcome::Completed => 0,
        Outcome::StreamError => 3,
        Outcome::EndedWithoutTerminalMarker => 4,
        Outcome::EmptyStream => 5,
        Outcome::LineTooLong => 6,
    })
}

fn run(dialect: Option<Dialect>, path: Option<&str>) -> Result<ExitCode, String> {
    let summary = match path {
        Some(path) => std::fs::File::open(path)
            .and_then(|file| read_stream(file, dialect))
            .map_err(|error| format!("cannot read {path}: {error}"))?,
        None => read_stream(io::stdin().lock(), dialect)
            .map_err(|error| format!("cannot read standard input: {error}"))?,
    };
    let mut json = summary.to_expected_json();
    if let Some(fields) = json.as_object_mut() {
        let outcome = serde_json::to_value(summary.outcome).unwrap_or_default();
        fields.insert("outcome".to_owned(), outcome);
        fields.insert(
            "malformed_event_count".to_owned(),
            summary.malformed_event_count.into(),
        );
    }
    let text = serde_json::to_string_pretty(&json).map_err(|error| error.to_string())?;
    writeln!(io::stdout().lock(), "{text}")
        .map_err(|error| format!("cannot write the result: {error}"))?;
    Ok(exit_code(summary.outcome))
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            // Nothing useful is left to do if even the help cannot be written.
            let _ = io::stdout().lock().write_all(HELP.as_bytes());
            ExitCode::SUCCESS
        }
        Ok(Command::Parse { dialect, path }) => {
            run(dialect, path.as_deref()).unwrap_or_else(|message| {
                let _ = writeln!(io::stderr().lock(), "ttft-parse: {message}");
                ExitCode::from(1)
            })
        }
        Err(error) => {
            let _ = writeln!(
                io::stderr().lock(),
                "ttft-parse: {error}\nTry ttft-parse --help."
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Command, UsageError> {
        parse_args(list.iter().map(|arg| (*arg).to_owned()))
    }

    #[test]
    fn command_lines() {
        assert_eq!(
            args(&[]),
            Ok(Command::Parse {
                dialect: None,
                path: None
            })
        );
        assert_eq!(
            args(&["-"]),
            Ok(Command::Parse {
                dialect: None,
                path: None
            })
        );
        assert_eq!(
            args(&["--dialect", "chat+think", "run.sse"]),
            Ok(Command::Parse {
                dialect: Some(Dialect::ChatThink),
                path: Some("run.sse".into())
            })
        );
        assert_eq!(
            args(&["run.sse", "--dialect=anthropic"]),
            Ok(Command::Parse {
                dialect: Some(Dialect::Anthropic),
                path: Some("run.sse".into())
            })
        );
        assert_eq!(
            args(&["--dialect", "auto"]),
            Ok(Command::Parse {
                dialect: None,
                path: None
            })
        );
        assert_eq!(args(&["x", "--help"]), Ok(Command::Help));
        assert_eq!(args(&["--dialect"]), Err(UsageError::MissingDialect));
        assert!(matches!(
            args(&["--dialect", "gpt"]),
            Err(UsageError::UnknownDialect(_))
        ));
        assert_eq!(args(&["-v"]), Err(UsageError::UnknownOption("-v".into())));
        assert_eq!(
            args(&["a", "b"]),
            Err(UsageError::TwoFiles("a".into(), "b".into()))
        );
    }
}
