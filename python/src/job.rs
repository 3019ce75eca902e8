//! Work that runs on its own thread while Python waits for it: a training run or a sweep.
//! The waiting thread polls for progress with the GIL released, so the interpreter stays
//! free to draw a progress bar and to raise `KeyboardInterrupt`; asking the job to stop
//! ends it after the epoch it is in. A poll sleeps its whole interval unless the job ends,
//! taking the events that came meanwhile at once.
//!
//! Ctrl-C reaches Python's handler only when a poll returns, so while a job runs SIGINT
//! also asks it to stop directly (beside Python's handler, which still raises
//! `KeyboardInterrupt`): the run ends after the epoch in progress, however short.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{bad_value, internal};

/// What a job reports while it runs.
pub enum Event {
    /// A training epoch: attempt, epoch, the attempt's epochs, soft loss, hard loss,
    /// accuracy.
    Epoch(usize, usize, usize, f64, f64, f64),
    /// A sweep's run ended: its setting's index, its seed, whether it is exact, its
    /// seconds.
    Run(usize, u64, bool, f64),
}

/// What a job made, until Python takes it.
pub trait Done: Send {
    /// As Python receives it (a dict).
    fn into_py(self: Box<Self>, py: Python<'_>) -> PyResult<Bound<'_, PyAny>>;
}

/// What a job's work returns: what it made, or why it could not start.
pub type Outcome = Result<Box<dyn Done>, String>;

/// The side of a job that runs: it reports events and is told when to stop.
#[derive(Clone)]
pub struct Reporter {
    events: Sender<Event>,
    stop: Arc<AtomicBool>,
}

impl Reporter {
    /// Sends `event`; returns whether the job was asked to stop.
    pub fn report(&self, event: Event) -> bool {
        // The receiver is gone only when the Python side was dropped; the job ends anyway.
        let _ = self.events.send(event);
        self.stop.load(Ordering::Relaxed)
    }

    pub fn asked_to_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Whether a job's work is over, and a way to wait for it.
#[derive(Default)]
struct Over {
    over: Mutex<bool>,
    changed: Condvar,
}

/// Marks the job over when dropped: when its work returns, or panics.
struct MarkOver(Arc<Over>);

impl Drop for MarkOver {
    fn drop(&mut self) {
        *self.0.over.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.changed.notify_all();
    }
}

/// SIGINT sets a job's stop flag while the job runs (on Unix; elsewhere Python's handler
/// alone stops it, at the next poll).
struct StopOnInterrupt {
    #[cfg(unix)]
    id: Option<signal_hook::SigId>,
}

impl StopOnInterrupt {
    fn register(stop: &Arc<AtomicBool>) -> Self {
        #[cfg(unix)]
        {
            let sigint = signal_hook::consts::SIGINT;
            // Without it, Python's handler still stops the job, a poll later.
            let id = signal_hook::flag::register(sigint, Arc::clone(stop)).ok();
            StopOnInterrupt { id }
        }
        #[cfg(not(unix))]
        {
            let _ = stop;
            StopOnInterrupt {}
        }
    }
}

impl Drop for StopOnInterrupt {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self.id.take() {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// A running job, as Python holds it.
#[pyclass(module = "logicars._native")]
pub struct Job {
    events: Mutex<Receiver<Event>>,
    stop: Arc<AtomicBool>,
    over: Arc<Over>,
    worker: Mutex<Option<JoinHandle<Outcome>>>,
    interrupt: Mutex<Option<StopOnInterrupt>>,
}

impl Job {
    /// Starts `work` on its own thread, in a pool of `threads` worker threads.
    pub fn spawn(
        pool: rayon::ThreadPool,
        work: impl FnOnce(Reporter) -> Outcome + Send + 'static,
    ) -> PyResult<Self> {
        let (events, receiver) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let reporter = Reporter {
            events,
            stop: Arc::clone(&stop),
        };
        let over = Arc::new(Over::default());
        let mark = MarkOver(Arc::clone(&over));
        let worker = std::thread::Builder::new()
            .name("logicars-job".into())
            .spawn(move || {
                let _mark = mark;
                // The reporter is dropped with the work, before the job is marked over,
                // so a poll that sees it over has every event.
                pool.install(|| work(reporter))
            })
            .map_err(|e| internal("starting the job's thread", e))?;
        Ok(Job {
            events: Mutex::new(receiver),
            interrupt: Mutex::new(Some(StopOnInterrupt::register(&stop))),
            stop,
            over,
            worker: Mutex::new(Some(worker)),
        })
    }
}

/// The number of worker threads: all cores by default; more than 8 per core only adds
/// scheduling.
pub fn thread_pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if n == 0 || n > 8 * cores {
            return Err(bad_value(format!(
                "threads must be 1 to {} (8 per core; this machine has {cores}), got {n}",
                8 * cores
            )));
        }
        builder = builder.num_threads(n);
    }
    builder
        .build()
        .map_err(|e| internal("starting the thread pool", e))
}

fn event_tuple<'py>(py: Python<'py>, event: Event) -> PyResult<Bound<'py, PyTuple>> {
    match event {
        Event::Epoch(a, e, n, soft, hard, acc) => (a, e, n, soft, hard, acc).into_pyobject(py),
        Event::Run(setting, seed, exact, wall_s) => {
            (setting, seed, exact, wall_s).into_pyobject(py)
        }
    }
}

#[pymethods]
impl Job {
    /// Waits `timeout` seconds, or until the job is over, without the GIL; returns the
    /// events that came and whether the job is over (every event then taken).
    fn poll<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<(Vec<Bound<'py, PyTuple>>, bool)> {
        let wait = Duration::try_from_secs_f64(timeout.max(0.0)).map_err(bad_value)?;
        let (events, over) = py.detach(|| {
            let over = self.over.over.lock().unwrap_or_else(|e| e.into_inner());
            let (over, _) = self
                .over
                .changed
                .wait_timeout_while(over, wait, |over| !*over)
                .unwrap_or_else(|e| e.into_inner());
            let over = *over;
            let receiver = self.events.lock().unwrap_or_else(|e| e.into_inner());
            (receiver.try_iter().collect::<Vec<_>>(), over)
        });
        let events = events
            .into_iter()
            .map(|e| event_tuple(py, e))
            .collect::<PyResult<_>>()?;
        Ok((events, over))
    }

    /// Asks the job to stop after the epoch it is in.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for the job to end (without the GIL) and returns what it made, as a dict.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| internal("finishing the job", "it was already finished"))?;
        let joined = py.detach(|| worker.join());
        // The job is over: Ctrl-C is Python's alone again.
        drop(
            self.interrupt
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        let done = match joined {
            Ok(Ok(done)) => done,
            Ok(Err(message)) => return Err(bad_value(message)),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(internal("the job failed", what));
            }
        };
        done.into_py(py)
    }
}
