//! The MPI transport (cargo feature `mpi`): ranks are the processes of an
//! `mpirun` job, messages travel as MPI point-to-point messages on
//! `MPI_COMM_WORLD`.
//!
//! Why one thread owns MPI: Open MPI's communicator and request handles are
//! raw pointers (rsmpi makes them `!Send`), and Open MPI makes no progress
//! on a message unless some MPI call is made. So a single progress thread
//! initialises MPI (asking for `MPI_THREAD_FUNNELED`: only it ever calls
//! MPI), and loops:
//! - it takes sends queued by any thread over a channel and starts them as
//!   immediate sends (`MPI_Isend`), keeping each buffer until its request
//!   completes (`MPI_Test`);
//! - it probes for incoming messages (`MPI_Improbe` with any tag, so two
//!   ranks' messages stay in send order, as MPI does not let messages of
//!   one sender overtake each other) and hands each to the handler;
//! - when idle it waits briefly on the channel, so a new send wakes it at
//!   once and an incoming message waits at most [`IDLE_WAIT`].
//!
//! Tags: each message's tag is its kind (the second byte of a
//! [`super::super::remote`] message), and [`FINISHED_TAG`] is the
//! transport's own. Shutting down, a rank sends `FINISHED` to every other
//! rank and keeps progressing until every other rank has sent its own and
//! every send of its own has completed; only then does it finalise MPI, so
//! no rank finalises while a message to or from it is still in flight. A
//! rank that died never finishes: once every rank still missing has been
//! silent for [`SHUTDOWN_SILENCE`] (a live rank sends heartbeats until it
//! leaves), the thread gives up and does not finalise — finalising waits
//! for every rank — so the process ends with an error and the launcher
//! ends the job, instead of hanging.
//!
//! Limits: one message is at most `i32::MAX` bytes (MPI counts are `int`).

use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use mpi::request::{Request, StaticScope};
use mpi::traits::{Communicator, Destination, MatchedReceiveVec, Source};

use super::{Delivery, Handler, Transport};

/// The tag of the message that says a rank has finished.
const FINISHED_TAG: i32 = 255;

/// How long the progress thread sleeps when nothing happened: the most an
/// idle rank adds to a message's latency.
const IDLE_WAIT: Duration = Duration::from_micros(100);

/// How many idle rounds the thread spins (yielding) before it sleeps:
/// back-to-back messages of a collective then cost no sleep at all.
const SPIN_ROUNDS: u32 = 64;

/// How long ranks that have not finished may stay silent while this one
/// shuts down before it gives up on them.
const SHUTDOWN_SILENCE: Duration = Duration::from_secs(10);

/// What the other threads ask of the progress thread.
enum Command {
    /// Start sending `message` to rank `to`.
    Send { to: usize, message: Vec<u8> },
    /// Finish: tell every rank, wait for every rank, finalise.
    ShutDown,
}

/// A transport over MPI; see the module docs.
pub struct MpiTransport {
    rank: usize,
    ranks: usize,
    commands: Sender<Command>,
    delivery: Arc<Delivery>,
    progress: Mutex<Option<JoinHandle<Result<(), String>>>>,
}

impl MpiTransport {
    /// Initialises MPI on a new progress thread and joins `MPI_COMM_WORLD`.
    /// Fails when MPI was initialised before (it can be only once per
    /// process) or cannot be.
    pub fn start() -> Result<MpiTransport, String> {
        let (commands, queue) = std::sync::mpsc::channel();
        let (started, world) = std::sync::mpsc::channel();
        let delivery = Arc::new(Delivery::default());
        let progress_delivery = delivery.clone();
        let progress = std::thread::Builder::new()
            .name("mpi progress".into())
            .spawn(move || {
                let Some((universe, _threading)) =
                    mpi::initialize_with_threading(mpi::Threading::Funneled)
                else {
                    let _ = started.send(Err("MPI was already initialised".to_string()));
                    return Ok(());
                };
                let world = universe.world();
                let shape = (world.rank() as usize, world.size() as usize);
                let _ = started.send(Ok(shape));
                let outcome = progress_loop(&world, shape, &queue, &progress_delivery);
                if outcome.is_ok() {
                    // Finalises MPI, on the thread that initialised it.
                    drop(universe);
                } else {
                    // Finalising would wait for the ranks that went silent.
                    std::mem::forget(universe);
                }
                outcome
            })
            .map_err(|e| format!("cannot start the MPI progress thread: {e}"))?;
        let (rank, ranks) = match world.recv() {
            Ok(Ok(shape)) => shape,
            Ok(Err(message)) => return Err(message),
            Err(_) => {
                let why = match progress.join() {
                    Ok(Err(message)) => message,
                    _ => "the MPI progress thread stopped while initialising MPI".into(),
                };
                return Err(why);
            }
        };
        Ok(MpiTransport {
            rank,
            ranks,
            commands,
            delivery,
            progress: Mutex::new(Some(progress)),
        })
    }
}

/// A send under way: its request, and the buffer it reads, which must live
/// until the request completes.
struct PendingSend {
    request: Request<'static, [u8], StaticScope>,
    buffer: *mut [u8],
}

impl PendingSend {
    fn start(
        world: &mpi::topology::SimpleCommunicator,
        to: usize,
        message: Vec<u8>,
    ) -> PendingSend {
        let tag = match message.get(1) {
            Some(&kind) => i32::from(kind),
            None => 0,
        };
        // Leaked for MPI to read while the send is under way; reclaimed in
        // `finish` once the request has completed.
        let buffer: &'static mut [u8] = Box::leak(message.into_boxed_slice());
        let pointer: *mut [u8] = buffer;
        // SAFETY: `pointer` comes from a live leaked box; the shared borrow
        // handed to MPI is the only use of it until `finish`.
        let readable: &'static [u8] = unsafe { &*pointer };
        let request =
            world
                .process_at_rank(to as i32)
                .immediate_send_with_tag(StaticScope, readable, tag);
        PendingSend {
            request,
            buffer: pointer,
        }
    }

    /// The send if it is still under way; `None` (and the buffer freed)
    /// once it has completed.
    fn finish(self) -> Option<PendingSend> {
        match self.request.test() {
            Ok(_) => {
                // SAFETY: the request has completed, so MPI no longer reads
                // the buffer, and it came from `Box::leak` in `start`.
                drop(unsafe { Box::from_raw(self.buffer) });
                None
            }
            Err(request) => Some(PendingSend {
                request,
                buffer: self.buffer,
            }),
        }
    }
}

/// The progress thread's loop; returns when this rank has shut down and
/// every other rank has finished, or with an error when, shutting down,
/// the ranks still missing have all been silent for [`SHUTDOWN_SILENCE`].
fn progress_loop(
    world: &mpi::topology::SimpleCommunicator,
    (rank, ranks): (usize, usize),
    queue: &std::sync::mpsc::Receiver<Command>,
    delivery: &Delivery,
) -> Result<(), String> {
    let mut pending: Vec<PendingSend> = Vec::new();
    let mut finished = vec![false; ranks];
    finished[rank] = true;
    let mut last_heard = vec![std::time::Instant::now(); ranks];
    let mut shutting_down = false;
    let mut idle_rounds = 0u32;
    let shut_down = |pending: &mut Vec<PendingSend>, shutting_down: &mut bool| {
        if !*shutting_down {
            *shutting_down = true;
            for other in (0..ranks).filter(|&r| r != rank) {
                let mut finished = vec![0u8; 2];
                finished[1] = FINISHED_TAG as u8;
                pending.push(PendingSend::start(world, other, finished));
            }
        }
    };
    loop {
        let mut progressed = false;
        // Sends queued by other threads.
        loop {
            match queue.try_recv() {
                Ok(Command::Send { to, message }) => {
                    pending.push(PendingSend::start(world, to, message));
                    progressed = true;
                }
                Ok(Command::ShutDown) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    shut_down(&mut pending, &mut shutting_down);
                    break;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
            }
        }
        // Sends under way.
        let before = pending.len();
        pending = pending
            .into_iter()
            .filter_map(PendingSend::finish)
            .collect();
        progressed |= pending.len() != before;
        // Messages that arrived.
        while let Some(probed) = world.any_process().immediate_matched_probe() {
            let (message, status) = probed.matched_receive_vec::<u8>();
            progressed = true;
            let source = status.source_rank() as usize;
            if let Some(heard) = last_heard.get_mut(source) {
                *heard = std::time::Instant::now();
            }
            if status.tag() == FINISHED_TAG {
                if let Some(done) = finished.get_mut(source) {
                    *done = true;
                }
            } else {
                delivery.deliver(source, message);
            }
        }
        if shutting_down {
            let missing: Vec<usize> = (0..ranks).filter(|&r| !finished[r]).collect();
            if missing.is_empty() && pending.is_empty() {
                return Ok(());
            }
            if !missing.is_empty()
                && missing
                    .iter()
                    .all(|&r| last_heard[r].elapsed() > SHUTDOWN_SILENCE)
            {
                let names: Vec<String> = missing.iter().map(usize::to_string).collect();
                // Sends to a dead rank never complete, and a request must
                // not be dropped unfinished: MPI keeps their buffers.
                std::mem::forget(pending);
                return Err(format!(
                    "rank(s) {} went silent for {} s without finishing: they died, or hang",
                    names.join(", "),
                    SHUTDOWN_SILENCE.as_secs()
                ));
            }
        }
        if progressed {
            idle_rounds = 0;
            continue;
        }
        idle_rounds = idle_rounds.saturating_add(1);
        if idle_rounds < SPIN_ROUNDS {
            std::thread::yield_now();
            continue;
        }
        // Idle: sleep until a send is queued or the wait ends.
        match queue.recv_timeout(IDLE_WAIT) {
            Ok(Command::Send { to, message }) => {
                pending.push(PendingSend::start(world, to, message));
                idle_rounds = 0;
            }
            Ok(Command::ShutDown) | Err(RecvTimeoutError::Disconnected) => {
                shut_down(&mut pending, &mut shutting_down);
                if matches!(
                    queue.try_recv(),
                    Err(std::sync::mpsc::TryRecvError::Disconnected)
                ) {
                    // Nothing more can be queued: avoid spinning on a
                    // closed channel while the other ranks finish.
                    std::thread::sleep(IDLE_WAIT);
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

impl Transport for MpiTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn send(&self, to_rank: usize, message: Vec<u8>) -> Result<(), String> {
        if to_rank >= self.ranks {
            return Err(format!("no rank {to_rank} among {}", self.ranks));
        }
        if message.len() > i32::MAX as usize {
            return Err(format!(
                "a message of {} bytes exceeds MPI's limit of {} bytes per message",
                message.len(),
                i32::MAX
            ));
        }
        self.commands
            .send(Command::Send {
                to: to_rank,
                message,
            })
            .map_err(|_| "the MPI progress thread has stopped".to_string())
    }

    fn deliver_to(&self, handler: Handler) {
        self.delivery.install(handler);
    }

    fn shut_down(&self) -> Result<(), String> {
        let Some(progress) = self
            .progress
            .lock()
            .map_err(|_| "the MPI transport's lock was poisoned".to_string())?
            .take()
        else {
            return Ok(());
        };
        let _ = self.commands.send(Command::ShutDown);
        progress
            .join()
            .map_err(|_| "the MPI progress thread panicked".to_string())?
    }
}

impl Drop for MpiTransport {
    /// A transport dropped without [`Transport::shut_down`] still finishes
    /// cleanly: a process that ends without finalising MPI makes `mpirun`
    /// abort the whole job.
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}
