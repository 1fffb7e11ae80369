//! The start line of a run's threads. Every compute and stream thread
//! waits there until all of them exist, and the run's clock starts when
//! they leave it: spawning threads is the simulator's setup, not the
//! program's time, and a device whose thread started late would otherwise
//! look like a device that computes slowly.
//!
//! A thread the machine refuses to start never arrives, so the runner
//! cancels the line instead: the threads already waiting leave at once
//! without running anything, and nothing waits for a thread that never
//! came.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// Where the line is.
enum Line {
    /// This many threads have arrived.
    Gathering(usize),
    /// Every thread arrived; the run's clock starts at this instant.
    Started(Instant),
    /// Not every thread could be started: nobody runs.
    Cancelled,
}

/// A barrier for a run's threads that can be called off.
pub(crate) struct StartLine {
    line: Mutex<Line>,
    changed: Condvar,
    threads: usize,
}

impl StartLine {
    /// A line for `threads` threads.
    pub(crate) fn new(threads: usize) -> StartLine {
        StartLine {
            line: Mutex::new(Line::Gathering(0)),
            changed: Condvar::new(),
            threads,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Line> {
        // Nothing runs under this lock that could panic.
        self.line.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arrives and waits for the others: the instant the run starts, or
    /// `None` when the line was cancelled (the thread should not run).
    pub(crate) fn wait(&self) -> Option<Instant> {
        let mut line = self.lock();
        if let Line::Gathering(arrived) = &mut *line {
            *arrived += 1;
            if *arrived >= self.threads {
                *line = Line::Started(Instant::now());
                self.changed.notify_all();
            }
        }
        loop {
            match &*line {
                Line::Started(at) => return Some(*at),
                Line::Cancelled => return None,
                Line::Gathering(_) => {
                    line = self.changed.wait(line).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    /// Calls the start off: every thread waiting, or still to arrive,
    /// leaves without running. No effect once the run started.
    pub(crate) fn cancel(&self) {
        let mut line = self.lock();
        if matches!(*line, Line::Gathering(_)) {
            *line = Line::Cancelled;
        }
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_last_arrival_starts_everyone_at_one_instant() {
        let line = Arc::new(StartLine::new(3));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let line = line.clone();
                std::thread::spawn(move || line.wait())
            })
            .collect();
        let mine = line.wait().expect("started");
        for waiter in waiters {
            assert_eq!(waiter.join().unwrap(), Some(mine));
        }
        line.cancel();
        assert_eq!(line.wait(), Some(mine), "too late to cancel");
    }

    #[test]
    fn a_cancelled_line_releases_its_waiters() {
        let line = Arc::new(StartLine::new(3));
        let waiter = {
            let line = line.clone();
            std::thread::spawn(move || line.wait())
        };
        line.cancel();
        assert_eq!(waiter.join().unwrap(), None);
        assert_eq!(line.wait(), None);
    }
}
