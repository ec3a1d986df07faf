//! Numbers and words for people, and the broken-pipe-safe writer of stdout.

use std::io::Write;

/// A float for people: the shortest decimal that reads back to `x`, in scientific notation when
/// `|x|` is below 1e-5 or at least 1e16 (`1e-300`, not 300 digits).
pub(crate) use dpref::error::display_number as num;

/// `1 step`, `2 steps`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") }
}

/// Writes `text` to stdout. A reader that went away (`dpref ... | head -1`) is not an error.
pub(crate) fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}
