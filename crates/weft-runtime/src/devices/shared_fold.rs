//! An all-reduce's fold, shared out among its group.
//!
//! Every member of an all-reduce gets the same result, so it is computed
//! once; and rather than one member doing all of it while the others wait,
//! member `k` of `m` folds elements `[k·n/m, (k+1)·n/m)` straight into one
//! output buffer. On a machine with fewer cores than devices that host work
//! competes with the devices' compute, and split evenly no device is held up
//! by all of it. Each element is still folded over the contributions left to
//! right in group order, so the bits do not depend on the split.
//!
//! Invariants:
//! - Each member fills its share once (its position in the group is unique)
//!   and the shares are disjoint, so the writes never overlap.
//! - The buffer is read (turned into the shared result) only after every
//!   member has finished its share, which the lock orders after their writes.

use std::cell::UnsafeCell;
use std::ops::Range;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::tensor::Bytes;

/// The output of one all-reduce instance, filled by its members together.
pub struct SharedFold {
    buffer: UnsafeCell<Vec<u8>>,
    element_size: usize,
    members: usize,
    progress: Mutex<Progress>,
    finished: Condvar,
}

struct Progress {
    /// Members whose share is written.
    filled: usize,
    /// The whole output, once every share is written.
    result: Option<Bytes>,
}

// SAFETY: members write disjoint ranges of `buffer` (see `fill`), and the
// buffer is moved out only after all writes, under the lock.
unsafe impl Sync for SharedFold {}

impl SharedFold {
    /// An output of `bytes` bytes of `element_size`-byte elements, filled by
    /// `members` members.
    pub fn new(bytes: usize, element_size: usize, members: usize) -> SharedFold {
        SharedFold {
            buffer: UnsafeCell::new(vec![0; bytes]),
            element_size: element_size.max(1),
            members: members.max(1),
            progress: Mutex::new(Progress {
                filled: 0,
                result: None,
            }),
            finished: Condvar::new(),
        }
    }

    /// The elements member `member` folds.
    fn share(&self, member: usize) -> Range<usize> {
        let elements = self.len_bytes() / self.element_size;
        elements * member / self.members..elements * (member + 1) / self.members
    }

    fn len_bytes(&self) -> usize {
        // SAFETY: the length is not changed until every member has filled
        // its share, and no member reads it after that.
        unsafe { (*self.buffer.get()).len() }
    }

    /// Member `member` writes its share with `fold(elements, out)` (`out`
    /// is the bytes of those elements), then waits up to `timeout` for the
    /// others; returns the whole output, shared.
    pub fn fill(
        &self,
        member: usize,
        timeout: Duration,
        fold: impl FnOnce(Range<usize>, &mut [u8]),
    ) -> Result<Bytes, String> {
        if member >= self.members {
            return Err(format!("member {member} of a group of {}", self.members));
        }
        let elements = self.share(member);
        let bytes = elements.start * self.element_size..elements.end * self.element_size;
        // SAFETY: `bytes` lies within the buffer, no other member's share
        // overlaps it, each member fills once, and nothing reads the buffer
        // until every share is written.
        let out = unsafe {
            let start = (*self.buffer.get()).as_mut_ptr().add(bytes.start);
            std::slice::from_raw_parts_mut(start, bytes.len())
        };
        fold(elements, out);
        let mut progress = self
            .progress
            .lock()
            .map_err(|_| "a shared fold's lock was poisoned".to_string())?;
        progress.filled += 1;
        if progress.filled == self.members {
            // SAFETY: every member has written its share (each counted
            // under this lock after writing), so no slice into the buffer
            // is in use any more.
            let whole = unsafe { std::mem::take(&mut *self.buffer.get()) };
            progress.result = Some(Bytes::from(whole));
            self.finished.notify_all();
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(result) = &progress.result {
                return Ok(result.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "{} of {} members folded their share of the all-reduce within {:.1} s",
                    progress.filled,
                    self.members,
                    timeout.as_secs_f64()
                ));
            }
            progress = self
                .finished
                .wait_timeout(progress, deadline - now)
                .map_err(|_| "a shared fold's lock was poisoned".to_string())?
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_fill_disjoint_shares_of_one_output() {
        let members = 3;
        let fold = std::sync::Arc::new(SharedFold::new(10 * 4, 4, members));
        let results: Vec<Bytes> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..members)
                .map(|member| {
                    let fold = fold.clone();
                    scope.spawn(move || {
                        fold.fill(member, Duration::from_secs(5), |elements, out| {
                            for (slot, element) in out.chunks_exact_mut(4).zip(elements) {
                                slot.copy_from_slice(
                                    &(element as u32 * 10 + member as u32).to_le_bytes(),
                                );
                            }
                        })
                        .expect("every member fills")
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        let values: Vec<u32> = results[0]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // Elements 0..3 by member 0, 3..6 by member 1, 6..10 by member 2.
        assert_eq!(values, vec![0, 10, 20, 31, 41, 51, 62, 72, 82, 92]);
        assert!(results.iter().all(|r| r.shares_buffer_with(&results[0])));
    }

    #[test]
    fn a_missing_member_is_an_error_not_a_hang() {
        let fold = SharedFold::new(8, 4, 2);
        let error = fold
            .fill(0, Duration::from_millis(20), |_, _| {})
            .expect_err("member 1 never fills");
        assert!(error.contains("1 of 2 members"), "{error}");
    }
}
