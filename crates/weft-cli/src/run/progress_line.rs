//! While a grid runs, a line on standard error that says how far it got:
//! the time, the devices finished and waiting, the collectives completed.
//! It first appears after [`PERIOD`] (a quick run never shows it), is
//! redrawn in place every period, and is erased when the run ends, so the
//! summary that follows does not mix with it. Only when standard error is a
//! terminal: a pipe, a file or a test gets nothing.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use weft_runtime::devices::progress::{Snapshot, Watch};

/// How often the line is redrawn.
const PERIOD: Duration = Duration::from_secs(2);

/// Moves to the start of the line and clears it (ANSI), before a redraw.
const CLEAR_LINE: &str = "\r\x1b[2K";

/// The display thread; dropping it stops the thread and erases the line.
pub struct ProgressLine {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    /// Shows the progress of the runs `watch` follows, when standard error
    /// is a terminal.
    pub fn show(watch: &Watch) -> Option<ProgressLine> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let stop: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let watch = watch.clone();
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("progress line".into())
                .spawn(move || draw_until_stopped(&watch, &stop))
                .ok()?
        };
        Some(ProgressLine {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        if let Ok(mut stopped) = stopped.lock() {
            *stopped = true;
        }
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Redraws the line every [`PERIOD`] until told to stop, then erases it.
fn draw_until_stopped(watch: &Watch, stop: &(Mutex<bool>, Condvar)) {
    let (stopped, wake) = stop;
    let mut drawn = false;
    let Ok(mut guard) = stopped.lock() else {
        return;
    };
    loop {
        guard = match wake.wait_timeout_while(guard, PERIOD, |stopped| !*stopped) {
            Ok((guard, _)) => guard,
            Err(_) => return,
        };
        if *guard {
            break;
        }
        if let Some(snapshot) = watch.snapshot() {
            // A closed standard error only means nobody watches.
            let _ = write!(std::io::stderr(), "{CLEAR_LINE}{}", describe(&snapshot));
            drawn = true;
        }
    }
    if drawn {
        let _ = write!(std::io::stderr(), "{CLEAR_LINE}");
    }
}

/// The line for `snapshot`.
fn describe(snapshot: &Snapshot) -> String {
    let mut line = format!(
        "running {:.0} s: {} of {} device(s) finished, {} waiting, {} collective(s) completed",
        snapshot.elapsed.as_secs_f64(),
        snapshot.finished,
        snapshot.devices,
        snapshot.blocked,
        snapshot.collectives
    );
    if snapshot.messages > 0 {
        line.push_str(&format!(", {} message(s) received", snapshot.messages));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_devices_and_collectives() {
        let snapshot = Snapshot {
            elapsed: Duration::from_millis(12_400),
            devices: 8,
            finished: 3,
            blocked: 4,
            collectives: 152,
            messages: 0,
        };
        assert_eq!(
            describe(&snapshot),
            "running 12 s: 3 of 8 device(s) finished, 4 waiting, 152 collective(s) completed"
        );
        let with_messages = Snapshot {
            messages: 2,
            ..snapshot
        };
        assert!(describe(&with_messages).ends_with(", 2 message(s) received"));
    }

    #[test]
    fn nothing_is_drawn_off_a_terminal() {
        // Tests run with standard error captured or piped.
        if !std::io::stderr().is_terminal() {
            assert!(ProgressLine::show(&Watch::new()).is_none());
        }
    }
}
