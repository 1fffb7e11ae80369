//! Reading input files (or standard input) and writing output, with errors that
//! name the file.
//!
//! Standard output may close before a command is done (`weft run … | head`):
//! that only stops the printing. The command goes on — a run still writes
//! the files it was asked for — and its exit status still says whether it
//! succeeded. Any other failure to write standard output (a full disk) is an
//! error once, and fails the command ([`stdout_failed`]).
//!
//! Standard error may be closed or full too (`weft run … 2>&1 | true`):
//! what goes there is lost then, quietly ([`tell()`]); the command goes on and
//! its exit status is what it would have been.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};

/// A source text and the name diagnostics use for it.
pub struct Source {
    /// `<stdin>` or the path as given.
    pub name: String,
    /// The text.
    pub text: String,
}

/// Reads `path`, or standard input when it is `None` or `-`.
pub fn read(path: Option<&Path>) -> Result<Source, String> {
    match path {
        None => read_stdin(),
        Some(p) if p.as_os_str() == "-" => read_stdin(),
        Some(p) => {
            let bytes =
                std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                format!(
                    "{} is not UTF-8 text (byte {})",
                    p.display(),
                    e.utf8_error().valid_up_to()
                )
            })?;
            Ok(Source {
                name: p.display().to_string(),
                text,
            })
        }
    }
}

fn read_stdin() -> Result<Source, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "standard input is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(Source {
        name: "<stdin>".to_string(),
        text,
    })
}

/// Runs `write` on a buffered writer for `path`, or for standard output when it
/// is `None` or `-`. A closed pipe on standard output (`weft fmt x | head`) is
/// not an error.
pub fn write_with(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            let file = std::fs::File::create(p)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
            write(&mut writer)
                .and_then(|()| writer.flush())
                .map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        _ => {
            let stdout = std::io::stdout();
            let mut writer = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            match write(&mut writer).and_then(|()| writer.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write standard output: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// What became of standard output: still open, closed by its reader, or
/// failed.
static STDOUT: AtomicU8 = AtomicU8::new(OPEN);
const OPEN: u8 = 0;
const CLOSED: u8 = 1;
const FAILED: u8 = 2;

/// Writes a line to standard output (the `say!` macro). Once the output is
/// closed or failed, prints nothing more; never ends the program.
pub fn say(line: std::fmt::Arguments<'_>) {
    if STDOUT.load(Ordering::Relaxed) != OPEN {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{line}") {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            STDOUT.store(CLOSED, Ordering::Relaxed);
        } else if STDOUT.swap(FAILED, Ordering::Relaxed) == OPEN {
            tell(format_args!(
                "error: cannot write standard output: {error}\n"
            ));
        }
    }
}

/// Whether writing standard output failed for a reason other than its
/// reader closing it: the command must not succeed then.
pub fn stdout_failed() -> bool {
    STDOUT.load(Ordering::Relaxed) == FAILED
}

/// Writes `text` to standard error (the `tell!` macro adds a line's end).
/// Unlike `eprint!`, never panics: a closed or failing standard error loses
/// the text, nothing else.
pub fn tell(text: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(text);
}
